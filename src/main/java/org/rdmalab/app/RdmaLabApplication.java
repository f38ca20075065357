package org.rdmalab.app;

import javafx.application.Application;
import javafx.geometry.Rectangle2D;
import javafx.stage.Screen;
import javafx.stage.Stage;
import org.rdmalab.app.common.UiText;
import org.rdmalab.app.settings.LabSettings;
import org.rdmalab.app.settings.PreferencesStore;
import org.rdmalab.app.settings.Scale;
import org.rdmalab.app.settings.SettingsStore;
import org.rdmalab.app.settings.Theme;
import org.rdmalab.sched.BackgroundPriority;

/**
 * The JavaFX application: one main window. Started by {@code gui} or directly ({@code mvn
 * javafx:run}). The window opens as the user left it: its place and size, the setup, the language,
 * the theme and the scale come from the user's preferences ({@link PreferencesStore#user()}), and
 * are written back when it closes. Its named parameters win over what was remembered:
 * {@code --lang=zh_CN} (else the remembered language, else the desktop's), {@code --scale=F},
 * {@code --theme=dark}; {@code --fault=SPEC} gives the software devices the faults
 * {@code gui --fault SPEC} names; {@code --capture=FILE} opens a capture in the Ladder tab
 * ({@code gui --capture FILE}) and shows it; {@code --exercise=NAME} opens that exercise, a built-in
 * one or an exercise file ({@code gui --exercise NAME|FILE}).
 */
public final class RdmaLabApplication extends Application {

    private MainWindow window;
    private Stage stage;
    private SettingsStore store;
    private LabSettings settings;

    @Override
    public void init() {
        store = PreferencesStore.user();
        settings = LabSettings.read(store);
        var named = getParameters().getNamed();
        String lang = named.get("lang");
        if (lang != null) {
            UiText.use(UiText.parse(lang));
            settings = settings.withLanguage(java.util.Optional.of(UiText.locale().equals(UiText.CHINESE) ? "zh_CN" : "en"));
        } else if (settings.language().isPresent()) {
            UiText.use(UiText.parse(settings.language().get()));
        } else if (!UiText.chosen()) {
            UiText.use(UiText.systemDefault());
        }
        if (named.get("scale") != null) {
            settings = settings.withScale(Scale.parse(named.get("scale")));
        }
        if (named.get("theme") != null) {
            settings = settings.withTheme(Theme.parse(named.get("theme")));
        }
    }

    @Override
    public void start(Stage primary) throws Exception {
        long started = System.nanoTime();
        stage = primary;
        // soft0's loops and the lab's workers yield the processor to the JavaFX thread.
        BackgroundPriority.yieldToWindow();
        window = MainWindow.create(getParameters().getNamed().get("fault"), settings, store);
        stage.setScene(window.scene());
        stage.setTitle(MainWindow.TITLE);
        window.fit(stage);
        settings.place().filter(RdmaLabApplication::onAScreen).ifPresent(place -> {
            stage.setX(place.x());
            stage.setY(place.y());
            stage.setWidth(Math.max(place.width(), stage.getMinWidth()));
            stage.setHeight(Math.max(place.height(), stage.getMinHeight()));
            stage.setMaximized(place.maximized());
        });
        window.follow(stage);
        FirstFrame.watch(stage.getScene(), started);
        stage.show();
        String capture = getParameters().getNamed().get("capture");
        if (capture != null) {
            window.ladder().openCapture(java.nio.file.Path.of(capture));
            WindowScenario.showView("ladder");
        }
        String exercise = getParameters().getNamed().get("exercise");
        if (exercise != null) {
            window.openExercise(exercise);
        }
    }

    /** True when enough of {@code place}'s title bar lies on a screen there now to grab it (a screen may have gone). */
    private static boolean onAScreen(LabSettings.Place place) {
        Rectangle2D titleBar = new Rectangle2D(place.x(), place.y(), Math.max(1, place.width()), 40);
        return Screen.getScreens().stream().anyMatch(screen -> {
            Rectangle2D bounds = screen.getVisualBounds();
            double width = Math.min(titleBar.getMaxX(), bounds.getMaxX()) - Math.max(titleBar.getMinX(), bounds.getMinX());
            double height = Math.min(titleBar.getMaxY(), bounds.getMaxY()) - Math.max(titleBar.getMinY(), bounds.getMinY());
            return width >= 100 && height >= 20;
        });
    }

    @Override
    public void stop() {
        if (window != null) {
            window.save(stage);
            window.close();
        }
    }
}
