package org.rdmalab.app;

import javafx.application.Application;
import javafx.stage.Stage;

/** The JavaFX application: one main window. */
public final class RdmaLabApplication extends Application {

    @Override
    public void start(Stage stage) throws Exception {
        stage.setScene(MainWindow.createScene(getParameters().getRaw().toArray(String[]::new)));
        stage.setTitle(MainWindow.TITLE);
        stage.setMinWidth(960);
        stage.setMinHeight(600);
        stage.show();
    }
}
