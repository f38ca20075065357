package org.rdmalab.app;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
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

    /**
     * How long this process has run, or null where the system does not say when it started. On
     * Linux the JDK's start instant is the boot time, which the kernel gives in whole seconds, plus
     * the process's start tick: every figure of one boot would be late by the same 0 to 1 s. So
     * there the age is the system's uptime less the start tick, both to 10 ms.
     */
    private static Duration processAge() {
        try {
            Duration age = linuxProcessAge(Files.readString(Path.of("/proc/self/stat")),
                    Files.readString(Path.of("/proc/uptime")));
            if (age != null) {
                return age;
            }
        } catch (IOException e) {
            // Not Linux, or no /proc: the JDK's start instant below. (linuxProcessAge throws
            // nothing: text not of /proc's form gives null, which falls through the same way.)
        }
        return ProcessHandle.current().info().startInstant()
                .map(started -> Duration.between(started, Instant.now())).orElse(null);
    }

    /**
     * A process's age from Linux's {@code /proc/self/stat} (its 22nd field: the start, in ticks of
     * 1/100 s since boot; the command's name in field 2 may hold spaces and parentheses, so the
     * fields are counted from its last ')') and {@code /proc/uptime} (seconds since boot); null
     * where the text is not of that form or the start lies after the uptime.
     */
    static Duration linuxProcessAge(String stat, String uptime) {
        int nameEnd = stat.lastIndexOf(')');
        if (nameEnd < 0) {
            return null;
        }
        String[] fields = stat.substring(nameEnd + 1).trim().split(" +");
        if (fields.length < 20) {
            return null;
        }
        String[] up = uptime.trim().split(" +");
        try {
            long startMillis = Long.parseLong(fields[19]) * 10; // fields[0] is field 3
            long upMillis = Math.round(Double.parseDouble(up[0]) * 1000);
            return upMillis < startMillis ? null : Duration.ofMillis(upMillis - startMillis);
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** The printed line: both figures in milliseconds. */
    static String line(Duration sinceProcessStart, long sinceStartNanos) {
        String fromStart = String.format(Locale.ROOT, "%.0f ms after JavaFX called start", sinceStartNanos / 1e6);
        return sinceProcessStart == null ? "first frame: " + fromStart
                : String.format(Locale.ROOT, "first frame: %d ms after the process started (%s)",
                        sinceProcessStart.toMillis(), fromStart);
    }
}
