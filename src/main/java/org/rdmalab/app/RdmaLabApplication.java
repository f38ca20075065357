package org.rdmalab.app;

import javafx.application.Application;
import javafx.stage.Stage;

/** The JavaFX application: one main window. */
public final class RdmaLabApplication extends Application {

    private MainWindow window;

    @Override
    public void start(Stage stage) throws Exception {
        window = MainWindow.create();
        stage.setScene(window.scene());
        stage.setTitle(MainWindow.TITLE);
        stage.setMinWidth(MainWindow.MIN_WIDTH);
        stage.setMinHeight(MainWindow.MIN_HEIGHT);
        stage.show();
    }

    @Override
    public void stop() {
        if (window != null) {
            window.close();
        }
    }
}
