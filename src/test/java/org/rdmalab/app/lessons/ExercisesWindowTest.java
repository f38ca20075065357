package org.rdmalab.app.lessons;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.function.BooleanSupplier;
import javafx.scene.Node;
import javafx.scene.control.Label;
import javafx.scene.control.ListCell;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.rdmalab.app.FxWait;
import org.rdmalab.app.MainWindow;
import org.rdmalab.testing.Ports;
import org.rdmalab.verbs.spi.Backends;
import org.rdmalab.verbs.spi.DeviceOptions;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;

/** An exercise done with the mouse, as a student would: choose it, start it, take hints, solve it, see "done". */
@ExtendWith(ApplicationExtension.class)
class ExercisesWindowTest {

    private MainWindow window;

    @Start
    void start(Stage stage) throws Exception {
        window = MainWindow.create(Backends.installed(), DeviceOptions.defaults().withUdpPort(Ports.freeUdpPort()));
        stage.setScene(window.scene());
        stage.show();
    }

    @AfterEach
    void close(FxRobot robot) {
        robot.interact(window::close);
    }

    private static void waitFor(String what, BooleanSupplier condition) {
        FxWait.waitFor(what, 30, condition);
    }

    /** The check labels as shown: "✓ 1. ..." for a met one, "○ 1. ..." for an open one. */
    private static List<Label> checks(FxRobot robot) {
        return robot.lookup(".exercise-check").queryAllAs(Label.class).stream().toList();
    }

    private static long met(FxRobot robot) {
        return FxWait.onFx(() -> checks(robot).stream().filter(label -> label.getStyleClass()
                .contains(ExercisesView.MET)).count());
    }

    @Test
    void gidForRoceIsChosenStartedHintedAndSolvedWithClicksUntilDone(FxRobot robot) {
        waitFor("the devices", () -> !window.lab().setup().gids().isEmpty() && !window.lab().sides().isEmpty());
        robot.clickOn("#lessonsTab .tab-label");
        robot.clickOn("#exercisesTab .tab-label");
        robot.clickOn(robot.lookup("#exerciseList .list-cell").match(node -> "Receiver not ready"
                .equals(((ListCell<?>) node).getText())).queryAs(Node.class));
        assertEquals("Receiver not ready", robot.lookup("#exerciseTitle").queryAs(Label.class).getText());
        robot.clickOn(robot.lookup("#exerciseList .list-cell").match(node -> "RoCE needs a GID"
                .equals(((ListCell<?>) node).getText())).queryAs(Node.class));
        Label goal = robot.lookup("#exerciseGoal").queryAs(Label.class);
        assertTrue(goal.getText().startsWith("The lab starts as the seed does, with gid_idx -1."), goal.getText());
        assertEquals(4, checks(robot).size());
        assertTrue(robot.lookup("#exerciseHint").queryButton().isDisabled(), "hints come once it is started");

        robot.clickOn("#exerciseStart");
        waitFor("the exercise's lab", () -> window.exercises().startedProperty().get() != null
                && window.lab().setup().gidIndexProperty().get().equals("-1"));
        assertEquals("0 of 4 checks met", robot.lookup("#exerciseProgress").queryAs(Label.class).getText());
        robot.clickOn("#exerciseHint");
        robot.clickOn("#exerciseHint");
        List<String> hints = robot.lookup(".exercise-hint").queryAllAs(Label.class).stream().map(Label::getText).toList();
        assertEquals(2, hints.size());
        assertTrue(hints.get(0).startsWith("Hint 1: Run both sides to the end (F8)"), hints.get(0));
        assertTrue(hints.get(1).startsWith("Hint 2: On RoCE the address vector needs a GRH"), hints.get(1));

        // As the first hint says: run both sides (F8) and see RTR fail, no check met.
        robot.clickOn("#serverSteps");
        robot.type(javafx.scene.input.KeyCode.F8);
        waitFor("RTR failing", () -> window.lab().sides().stream().allMatch(side -> !side.busyProperty().get()
                && side.failedIndex() >= 0));
        assertEquals(0, met(robot), "RTR failed: no QP in RTS");
        assertFalse(window.exercises().doneProperty().get());

        // The fix: the recommended GID, which resets both sides and runs them back; then run to the end.
        robot.clickOn("#useRecommendedGid");
        waitFor("the GID fix replayed", () -> window.lab().setup().gidIndexProperty().get().equals("3")
                && window.lab().sides().stream().allMatch(side -> !side.busyProperty().get() && side.failedIndex() < 0));
        robot.clickOn("#lessonsTab .tab-label");
        robot.clickOn("#exercisesTab .tab-label");
        robot.clickOn("#serverSteps");
        robot.type(javafx.scene.input.KeyCode.F8);
        waitFor("every check met", () -> window.exercises().doneProperty().get());
        waitFor("the checks drawn as met", () -> met(robot) == 4);
        Label progress = robot.lookup("#exerciseProgress").queryAs(Label.class);
        assertEquals("Done: every check is met", progress.getText());
        assertTrue(progress.getStyleClass().contains("exercise-done"));
        assertTrue(checks(robot).get(3).getText().startsWith("✓ 4. the server's buffer holds \"HelloWorld\""),
                checks(robot).get(3).getText());
    }
}
