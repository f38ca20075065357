package org.rdmalab.app;

import javafx.stage.Stage;
import org.rdmalab.app.settings.LabSettings;
import org.rdmalab.app.settings.SettingsStore;
import org.rdmalab.testing.Ports;
import org.rdmalab.verbs.spi.Backends;
import org.rdmalab.verbs.spi.DeviceOptions;

/**
 * The lab window on TestFX's primary stage at a size a test chooses. That stage is shared with
 * the window tests that run after in the same JVM, so closing puts it back to the window's own size.
 * Both run on the JavaFX thread ({@code robot.interact}).
 */
public final class TestWindows {

    private TestWindows() {
    }

    /** A new window (soft0 on a free UDP port, settings kept in memory) shown on {@code stage} at width × height. */
    public static MainWindow open(Stage stage, LabSettings settings, double width, double height) {
        MainWindow window;
        try {
            window = MainWindow.create(Backends.installed(), DeviceOptions.defaults().withUdpPort(Ports.freeUdpPort()),
                    settings, SettingsStore.inMemory());
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        }
        stage.setScene(window.scene());
        stage.setWidth(width);
        stage.setHeight(height);
        stage.show();
        return window;
    }

    /** Closes {@code window} (when there is one) and gives {@code stage} the window's own size again. */
    public static void close(Stage stage, MainWindow window) {
        if (window != null) {
            window.close();
        }
        stage.setWidth(MainWindow.WIDTH);
        stage.setHeight(MainWindow.HEIGHT);
    }
}
