package org.rdmalab.app;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import javafx.scene.Node;
import javafx.scene.SnapshotParameters;
import javafx.scene.image.PixelFormat;
import javafx.scene.image.WritableImage;
import javax.imageio.ImageIO;

/** Writes a node's snapshot as a PNG under target/snapshots, to look at what a control draws. FX thread. */
public final class ControlSnapshots {

    /** The folder the pictures go to. */
    public static final Path FOLDER = Path.of("target", "snapshots");

    private ControlSnapshots() {
    }

    /** Snapshots {@code node} into {@code FOLDER/name.png} and returns the file. */
    public static Path write(Node node, String name) {
        WritableImage image = node.snapshot(new SnapshotParameters(), null);
        int width = (int) image.getWidth();
        int height = (int) image.getHeight();
        int[] pixels = new int[width * height];
        image.getPixelReader().getPixels(0, 0, width, height, PixelFormat.getIntArgbInstance(), pixels, 0, width);
        BufferedImage buffered = new BufferedImage(width, height, BufferedImage.TYPE_INT_ARGB);
        buffered.setRGB(0, 0, width, height, pixels, 0, width);
        try {
            Files.createDirectories(FOLDER);
            Path file = FOLDER.resolve(name + ".png");
            ImageIO.write(buffered, "png", file.toFile());
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
