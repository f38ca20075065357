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
        stage.setMinWidth(960);
        stage.setMinHeight(600);
        stage.show();
    }

    @Override
    public void stop() {
        if (window != null) {
            window.close();
        }
    }
}
