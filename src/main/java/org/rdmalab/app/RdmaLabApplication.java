package org.rdmalab.app;

import javafx.application.Application;
import javafx.stage.Stage;
import org.rdmalab.app.common.UiText;

/**
 * The JavaFX application: one main window. Started by {@code gui} (which chose the language) or
 * directly ({@code mvn javafx:run}): then {@code --lang=zh_CN} among its parameters, or else the
 * desktop's language, chooses the window's. {@code --fault=SPEC} gives the software devices the
 * faults {@code gui --fault SPEC} names.
 */
public final class RdmaLabApplication extends Application {

    private MainWindow window;

    @Override
    public void init() {
        String lang = getParameters().getNamed().get("lang");
        if (lang != null) {
            UiText.use(UiText.parse(lang));
        } else if (!UiText.chosen()) {
            UiText.use(UiText.systemDefault());
        }
    }

    @Override
    public void start(Stage stage) throws Exception {
        window = MainWindow.create(getParameters().getNamed().get("fault"));
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
