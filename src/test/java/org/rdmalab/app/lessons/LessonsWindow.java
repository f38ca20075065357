package org.rdmalab.app.lessons;

import java.util.List;
import java.util.function.BooleanSupplier;
import javafx.scene.Node;
import javafx.scene.control.Label;
import javafx.scene.input.KeyCode;
import javafx.stage.Stage;
import org.rdmalab.app.FxWait;
import org.rdmalab.app.MainWindow;
import org.rdmalab.testing.Ports;
import org.rdmalab.verbs.spi.Backends;
import org.rdmalab.verbs.spi.DeviceOptions;
import org.testfx.api.FxRobot;

/**
 * What the Lessons tab's window tests share: the main window on its own UDP port, the way to the
 * Scenarios or Exercises tab by the names it shows, the exercise's checks as drawn, and the lab's
 * moves an exercise is solved with (run both sides to the end with F8, take the recommended GID).
 * Each test class still has its own {@code @Start} and {@code @AfterEach}, since TestFX finds
 * {@code @Start} only among the test class's own methods.
 */
final class LessonsWindow {

    /** How long a wait for the lab may take before the test fails. */
    static final long WAIT_SECONDS = 30;

    private LessonsWindow() {
    }

    /** The main window with every installed backend, soft0 on a free UDP port, shown on {@code stage}. */
    static MainWindow show(Stage stage) throws Exception {
        MainWindow window = MainWindow.create(Backends.installed(),
                DeviceOptions.defaults().withUdpPort(Ports.freeUdpPort()));
        stage.setScene(window.scene());
        stage.show();
        return window;
    }

    /** Waits up to {@link #WAIT_SECONDS} for {@code condition}; a timeout fails naming {@code what}. */
    static void waitFor(String what, BooleanSupplier condition) {
        FxWait.waitFor(what, WAIT_SECONDS, condition);
    }

    /** Waits until the setup bar listed the device's GIDs and the lab has its sides. */
    static void awaitDevices(MainWindow window) {
        waitFor("the devices", () -> !window.lab().setup().gids().isEmpty() && !window.lab().sides().isEmpty());
    }

    /** Clicks the step pane's Lessons tab, then its inner tab {@code inner} ("Scenarios", "Exercises"), by name. */
    static void open(FxRobot robot, String inner) {
        robot.clickOn(robot.lookup(".inspector .tab-label").match(node -> ((Label) node).getText().equals("Lessons"))
                .queryAs(Node.class));
        robot.clickOn(robot.lookup(".lessons-tabs .tab-label").match(node -> ((Label) node).getText().equals(inner))
                .queryAs(Node.class));
    }

    /** The exercise's check labels as shown: "✓ 1. ..." for a met one, "○ 1. ..." for an open one. */
    static List<Label> checks(FxRobot robot) {
        return robot.lookup(".exercise-check").queryAllAs(Label.class).stream().toList();
    }

    /** How many checks are drawn as met. */
    static long met(FxRobot robot) {
        return FxWait.onFx(() -> checks(robot).stream().filter(label -> label.getStyleClass()
                .contains(ExercisesView.MET)).count());
    }

    /** Runs both sides to the end, as the first hints say: F8 in the server's step list. */
    static void runBothToTheEnd(FxRobot robot) {
        robot.clickOn("#serverSteps");
        robot.type(KeyCode.F8);
    }

    /** Waits until both sides stopped with a failed step (the seed's RTR without a GRH). */
    static void awaitAFailedStep(MainWindow window) {
        waitFor("RTR failing", () -> window.lab().sides().stream().allMatch(side -> !side.busyProperty().get()
                && side.failedIndex() >= 0));
    }

    /**
     * The fix the setup bar offers: the recommended GID, which resets both sides and runs them back
     * to where they were; waits for gid_idx 3 and no failed step, then goes back to Lessons › Exercises.
     */
    static void useRecommendedGid(FxRobot robot, MainWindow window) {
        robot.clickOn("#useRecommendedGid");
        waitFor("the GID fix replayed", () -> window.lab().setup().gidIndexProperty().get().equals("3")
                && window.lab().sides().stream().allMatch(side -> !side.busyProperty().get() && side.failedIndex() < 0));
        open(robot, "Exercises");
    }
}
