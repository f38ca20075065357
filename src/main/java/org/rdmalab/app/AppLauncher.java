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
import javafx.scene.image.PixelReader;
import javafx.scene.image.WritableImage;
import javafx.scene.image.PixelFormat;
import javafx.stage.Stage;
import javax.imageio.ImageIO;

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
     * Renders the main window without a display and writes it to {@code file} as PNG.
     *
     * @return 0 on success, 1 when rendering or writing failed (the reason on stderr)
     */
    public static int screenshot(Path file, String[] args) throws Exception {
        System.setProperty("glass.platform", "Monocle");
        System.setProperty("monocle.platform", "Headless");
        System.setProperty("prism.order", "sw");
        System.setProperty("java.awt.headless", "true");
        quietClasspathWarning();
        CompletableFuture<Void> done = new CompletableFuture<>();
        Platform.startup(() -> {
            try {
                Stage stage = new Stage();
                Scene scene = MainWindow.createScene(args);
                stage.setScene(scene);
                stage.setTitle(MainWindow.TITLE);
                stage.show();
                // Let layout and CSS settle for two pulses before taking the picture.
                Platform.runLater(() -> Platform.runLater(() -> {
                    try {
                        write(scene, file);
                        done.complete(null);
                    } catch (IOException | RuntimeException e) {
                        done.completeExceptionally(e);
                    } finally {
                        stage.close();
                    }
                }));
            } catch (IOException | RuntimeException e) {
                done.completeExceptionally(e);
            }
        });
        try {
            done.get(SCREENSHOT_TIMEOUT_SECONDS, TimeUnit.SECONDS);
            return 0;
        } finally {
            Platform.exit();
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
        Path parent = file.getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        if (!ImageIO.write(buffered, "png", file.toFile())) {
            throw new IOException("no PNG writer available");
        }
    }
}
