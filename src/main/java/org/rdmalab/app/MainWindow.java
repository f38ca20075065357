package org.rdmalab.app;

import java.io.IOException;
import java.net.URL;
import java.util.Objects;
import javafx.fxml.FXMLLoader;
import javafx.scene.Parent;
import javafx.scene.Scene;

/** Builds the main window's scene from {@code fxml/MainView.fxml} and {@code styles/rdma-lab.css}. */
public final class MainWindow {

    /** The window title. */
    public static final String TITLE = "RDMA Lab";
    /** The application style sheet on the classpath. */
    public static final String STYLESHEET = "/styles/rdma-lab.css";
    /** The main view. */
    public static final String MAIN_VIEW = "/fxml/MainView.fxml";

    private MainWindow() {
    }

    private static final java.util.concurrent.Executor BACKGROUND = java.util.concurrent.Executors.newSingleThreadExecutor(
            runnable -> {
                Thread thread = new Thread(runnable, "rdma-lab background");
                thread.setDaemon(true);
                return thread;
            });

    /** Loads the main view with a fresh view model; device listing runs off the JavaFX thread. */
    public static Scene createScene(String[] args) throws IOException {
        MainViewModel viewModel = new MainViewModel(org.rdmalab.verbs.spi.Backends.installed(), BACKGROUND,
                javafx.application.Platform::runLater);
        FXMLLoader loader = new FXMLLoader(resource(MAIN_VIEW));
        loader.setControllerFactory(type -> {
            if (type == MainView.class) {
                return new MainView(viewModel);
            }
            throw new IllegalArgumentException("no controller " + type);
        });
        Parent root = loader.load();
        Scene scene = new Scene(root, 1280, 800);
        scene.getStylesheets().add(resource(STYLESHEET).toExternalForm());
        return scene;
    }

    private static URL resource(String path) {
        return Objects.requireNonNull(MainWindow.class.getResource(path), path + " is missing from the classpath");
    }
}
