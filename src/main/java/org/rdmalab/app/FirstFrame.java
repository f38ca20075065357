package org.rdmalab.app;

import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import javafx.application.Platform;
import javafx.scene.Scene;

/**
 * Tells how long the window took to show its first frame, for measuring startup
 * (docs/performance.md): with {@code -Drdmalab.firstFrame=print} the window prints one line on
 * stderr once its first pulse has laid the scene out and handed it to the renderer, with the time
 * since the process started and since JavaFX called {@code start}; {@code =exit} prints it and
 * closes the window. Without the property nothing is watched.
 */
final class FirstFrame {

    /** The system property that turns the measurement on: {@code print} or {@code exit}. */
    static final String PROPERTY = "rdmalab.firstFrame";

    private FirstFrame() {
    }

    /** Watches {@code scene}'s first frame if the property asks for it; {@code startNanos} is when start began. */
    static void watch(Scene scene, long startNanos) {
        String mode = System.getProperty(PROPERTY);
        if (mode == null || !(mode.equals("print") || mode.equals("exit"))) {
            return;
        }
        Runnable[] listener = new Runnable[1];
        listener[0] = () -> {
            scene.removePostLayoutPulseListener(listener[0]);
            // Queued behind the pulse that laid the scene out, so it runs once that pulse is done.
            Platform.runLater(() -> {
                System.err.println(line(processAge(), System.nanoTime() - startNanos));
                if (mode.equals("exit")) {
                    Platform.exit();
                }
            });
        };
        scene.addPostLayoutPulseListener(listener[0]);
    }

    /** How long this process has run, or null where the system does not say when it started. */
    private static Duration processAge() {
        return ProcessHandle.current().info().startInstant()
                .map(started -> Duration.between(started, Instant.now())).orElse(null);
    }

    /** The printed line: both figures in milliseconds. */
    static String line(Duration sinceProcessStart, long sinceStartNanos) {
        String fromStart = String.format(Locale.ROOT, "%.0f ms after JavaFX called start", sinceStartNanos / 1e6);
        return sinceProcessStart == null ? "first frame: " + fromStart
                : String.format(Locale.ROOT, "first frame: %d ms after the process started (%s)",
                        sinceProcessStart.toMillis(), fromStart);
    }
}
