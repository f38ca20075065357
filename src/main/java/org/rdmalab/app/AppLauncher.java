package org.rdmalab.app;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javafx.application.Application;
import javafx.application.Platform;
import javafx.scene.Scene;
import javafx.scene.image.PixelFormat;
import javafx.scene.image.PixelReader;
import javafx.scene.image.WritableImage;
import javafx.stage.Stage;
import javax.imageio.ImageIO;
import org.rdmalab.app.lab.LabViewModel;
import org.rdmalab.app.settings.LabSettings;
import org.rdmalab.app.settings.Scale;
import org.rdmalab.app.settings.SettingsStore;
import org.rdmalab.app.settings.Theme;
import org.rdmalab.sched.BackgroundPriority;

/**
 * Starts JavaFX from a class that does not extend {@link Application} (a runnable jar's main class
 * must not), either with a real window or headless through Monocle for screenshots.
 */
public final class AppLauncher {

    private static final long SCREENSHOT_TIMEOUT_SECONDS = 60;

    /** JavaFX's own logger, held strongly: java.util.logging forgets the settings of a logger nobody references. */
    private static final java.util.logging.Logger PLATFORM_LOGGER =
            java.util.logging.Logger.getLogger("javafx");

    private AppLauncher() {
    }

    /**
     * Opens the window and returns when it is closed.
     *
     * @throws IllegalStateException with a sentence saying what to do when there is no display
     */
    public static void launch(String[] args) {
        quietClasspathWarning();
        try {
            Application.launch(RdmaLabApplication.class, args);
        } catch (UnsupportedOperationException e) {
            if (String.valueOf(e.getMessage()).contains("DISPLAY")) {
                throw new IllegalStateException("no display to open the window on (DISPLAY is not set); run RDMA Lab"
                        + " on a desktop, or use 'gui --screenshot FILE' to render the window without one", e);
            }
            throw e;
        }
    }

    /**
     * JavaFX warns that it was loaded from the class path rather than as modules; the runnable jar
     * does that on purpose (harmless, as JavaFX's documentation of class-path use says), so the warning is only noise for users.
     */
    private static void quietClasspathWarning() {
        PLATFORM_LOGGER.setFilter(record -> record.getMessage() == null
                || !record.getMessage().startsWith("Unsupported JavaFX configuration"));
    }

    /**
     * Renders the window without a display, after running {@code scenario} (if any) in the loopback
     * lab until it ends, and writes the picture to {@code file} as PNG.
     *
     * @param scenario a {@link WindowScenario} name, or null for the window as it opens
     * @return 0 on success, 1 when rendering or writing failed, the scenario did not end in time, or
     *         a step failed on its way (the picture is still written, showing where it stopped)
     * @throws IllegalArgumentException for an unknown scenario or a folder that does not exist
     */
    public static int screenshot(Path file, String scenario) throws Exception {
        return screenshot(file, scenario, null);
    }

    /**
     * As {@link #screenshot(Path, String)}, with the software devices injecting {@code faultSpec}
     * ({@code gui --fault}; null for none).
     */
    public static int screenshot(Path file, String scenario, String faultSpec) throws Exception {
        return screenshot(file, scenario, faultSpec, Scale.DESK, Theme.LIGHT);
    }

    /**
     * As {@link #screenshot(Path, String, String)}, the window drawn {@code scale} times larger
     * ({@code gui --scale}; the picture is that many times the default size) in {@code theme}. The
     * user's remembered settings are neither read nor written, so the picture is the same on every
     * machine.
     */
    public static int screenshot(Path file, String scenario, String faultSpec, double scale, Theme theme)
            throws Exception {
        return screenshot(file, scenario, faultSpec, scale, theme, null, null);
    }

    /**
     * As {@link #screenshot(Path, String, String, double, Theme)}, then with view {@code view} shown
     * ({@link WindowScenario#VIEWS}; null: the window as the scenario leaves it), and with
     * {@code capture} (a pcap or pcapng file; null for none) opened in the Ladder tab first.
     */
    public static int screenshot(Path file, String scenario, String faultSpec, double scale, Theme theme, String view,
                                 Path capture)
            throws Exception {
        return screenshot(file, scenario, faultSpec, scale, theme, view, capture, null);
    }

    /**
     * As {@link #screenshot(Path, String, String, double, Theme, String, Path)}, with the exercise
     * {@code exercise} ({@code gui --exercise}: a built-in's name or an exercise file; null for none)
     * opened and its first hint shown before the scenario starts.
     */
    public static int screenshot(Path file, String scenario, String faultSpec, double scale, Theme theme, String view,
                                 Path capture, String exercise)
            throws Exception {
        WindowScenario chosen = scenario == null ? null : WindowScenario.named(scenario);
        if (view != null) {
            WindowScenario.viewTab(view);
        }
        org.rdmalab.lab.exercise.Exercise opening = exercise == null ? null : MainWindow.exercise(exercise);
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null && !Files.isDirectory(parent)) {
            throw new IllegalArgumentException("folder " + parent + " does not exist; create it first or choose another"
                    + " file for --screenshot");
        }
        System.setProperty("glass.platform", "Monocle");
        System.setProperty("monocle.platform", "Headless");
        System.setProperty("prism.order", "sw");
        // Monocle's headless screen holds the whole window, however large the scale makes it.
        System.setProperty("headless.geometry", (int) Math.ceil(MainWindow.WIDTH * scale) + "x"
                + (int) Math.ceil(MainWindow.HEIGHT * scale) + "-32");
        System.setProperty("java.awt.headless", "true");
        quietClasspathWarning();
        // As the window does: soft0's loops and the lab's workers yield the processor to the JavaFX thread.
        BackgroundPriority.yieldToWindow();
        CompletableFuture<java.util.Optional<String>> done = new CompletableFuture<>();
        MainWindow[] window = new MainWindow[1];
        Thread[] fxThread = new Thread[1];
        Platform.setImplicitExit(false);
        Platform.startup(() -> {
            fxThread[0] = Thread.currentThread();
            try {
                Stage stage = new Stage();
                window[0] = MainWindow.create(faultSpec, LabSettings.defaults().withScale(scale).withTheme(theme),
                        SettingsStore.inMemory());
                Scene scene = window[0].scene();
                stage.setScene(scene);
                stage.setTitle(MainWindow.TITLE);
                stage.show();
                LabViewModel lab = window[0].lab();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(SCREENSHOT_TIMEOUT_SECONDS);
                Runnable[] check = new Runnable[1];
                boolean[] started = new boolean[1];
                if (capture != null) {
                    window[0].ladder().openCapture(capture);
                }
                boolean[] opened = new boolean[1];
                check[0] = () -> {
                    try {
                        boolean devicesListed = !lab.setup().devices().isEmpty() && !lab.setup().gids().isEmpty();
                        if (exercise != null && !opened[0] && devicesListed) {
                            opened[0] = true;
                            window[0].openExercise(opening);
                            window[0].exercises().revealHint();
                        }
                        if (chosen != null && !started[0] && devicesListed) {
                            started[0] = true;
                            chosen.start().accept(lab);
                        }
                        // A step that failed on the way ends the scenario too: the picture shows where it stopped
                        // while the other side may still wait for it.
                        boolean ended = devicesListed && (chosen == null || started[0] && (chosen.ended().test(lab)
                                || chosen.failure(lab).isPresent()))
                                && (capture == null || !window[0].ladder().loadingProperty().get());
                        if (ended) {
                            if (view != null) {
                                WindowScenario.showView(view);
                            }
                            // Let the last events, layout and CSS settle before taking the picture.
                            settle(3, () -> {
                                try {
                                    write(scene, file);
                                    done.complete(chosen == null ? java.util.Optional.empty() : chosen.failure(lab));
                                } catch (IOException | RuntimeException e) {
                                    done.completeExceptionally(e);
                                }
                            });
                        } else if (System.nanoTime() > deadline) {
                            done.completeExceptionally(new IllegalStateException("the scenario did not end within "
                                    + SCREENSHOT_TIMEOUT_SECONDS + " s"));
                        } else {
                            later(50, check[0]);
                        }
                    } catch (RuntimeException e) {
                        done.completeExceptionally(e);
                    }
                };
                later(50, check[0]);
            } catch (IOException | RuntimeException e) {
                done.completeExceptionally(e);
            }
        });
        try {
            java.util.Optional<String> failure = done.get(SCREENSHOT_TIMEOUT_SECONDS + 10, TimeUnit.SECONDS);
            if (failure.isPresent()) {
                System.err.println("rdma-lab gui: the scenario '" + chosen.name() + "' did not run as it should: "
                        + failure.get() + "; the picture in " + file + " shows where it stopped");
                return 1;
            }
            return 0;
        } catch (java.util.concurrent.ExecutionException e) {
            throw e.getCause() instanceof Exception cause ? cause : e;
        } catch (java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException("the window did not take its picture within "
                    + (SCREENSHOT_TIMEOUT_SECONDS + 10) + " s", e);
        } finally {
            CompletableFuture<Void> closed = new CompletableFuture<>();
            Platform.runLater(() -> {
                try {
                    if (window[0] != null) {
                        window[0].close();
                        if (window[0].scene().getWindow() != null) {
                            window[0].scene().getWindow().hide();
                        }
                    }
                } finally {
                    closed.complete(null);
                }
            });
            closed.get(10, TimeUnit.SECONDS);
            Platform.exit();
            // Wait for the toolkit to finish, so the JVM does not start shutting down under it.
            if (fxThread[0] != null) {
                fxThread[0].join(5000);
            }
        }
    }

    /** Runs {@code action} on the JavaFX thread after {@code millis}. */
    private static void later(long millis, Runnable action) {
        javafx.animation.PauseTransition pause = new javafx.animation.PauseTransition(javafx.util.Duration.millis(millis));
        pause.setOnFinished(event -> action.run());
        pause.play();
    }

    /** Runs {@code action} after {@code pulses} more pauses of 100 ms, so late events and layout settle. */
    private static void settle(int pulses, Runnable action) {
        if (pulses == 0) {
            action.run();
        } else {
            later(100, () -> settle(pulses - 1, action));
        }
    }

    private static void write(Scene scene, Path file) throws IOException {
        WritableImage image = scene.snapshot(null);
        int width = (int) image.getWidth();
        int height = (int) image.getHeight();
        int[] pixels = new int[width * height];
        PixelReader reader = image.getPixelReader();
        reader.getPixels(0, 0, width, height, PixelFormat.getIntArgbInstance(), pixels, 0, width);
        BufferedImage buffered = new BufferedImage(width, height, BufferedImage.TYPE_INT_ARGB);
        buffered.setRGB(0, 0, width, height, pixels, 0, width);
        if (!ImageIO.write(buffered, "png", file.toFile())) {
            throw new IOException("no PNG writer available");
        }
    }
}
