package org.rdmalab.app.lessons;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.rdmalab.app.lessons.LessonsWindow.awaitAFailedStep;
import static org.rdmalab.app.lessons.LessonsWindow.awaitDevices;
import static org.rdmalab.app.lessons.LessonsWindow.checks;
import static org.rdmalab.app.lessons.LessonsWindow.met;
import static org.rdmalab.app.lessons.LessonsWindow.open;
import static org.rdmalab.app.lessons.LessonsWindow.runBothToTheEnd;
import static org.rdmalab.app.lessons.LessonsWindow.useRecommendedGid;
import static org.rdmalab.app.lessons.LessonsWindow.waitFor;

import java.util.List;
import javafx.scene.Node;
import javafx.scene.control.Label;
import javafx.scene.control.ListCell;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.rdmalab.app.MainWindow;
import org.rdmalab.app.WindowRobot;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.Start;

/** An exercise done with the mouse, as a student would: choose it, start it, take hints, solve it, see "done". */
@ExtendWith(WindowRobot.class)
class ExercisesWindowTest {

    private MainWindow window;

    @Start
    void start(Stage stage) throws Exception {
        window = LessonsWindow.show(stage);
    }

    @AfterEach
    void close(FxRobot robot) {
        robot.interact(window::close);
    }

    @Test
    void gidForRoceIsChosenStartedHintedAndSolvedWithClicksUntilDone(FxRobot robot) {
        awaitDevices(window);
        open(robot, "Exercises");
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
        runBothToTheEnd(robot);
        awaitAFailedStep(window);
        assertEquals(0, met(robot), "RTR failed: no QP in RTS");
        assertFalse(window.exercises().doneProperty().get());

        // The fix: the recommended GID, which resets both sides and runs them back; then run to the end.
        useRecommendedGid(robot, window);
        runBothToTheEnd(robot);
        waitFor("every check met", () -> window.exercises().doneProperty().get());
        waitFor("the checks drawn as met", () -> met(robot) == 4);
        Label progress = robot.lookup("#exerciseProgress").queryAs(Label.class);
        assertEquals("Done: every check is met", progress.getText());
        assertTrue(progress.getStyleClass().contains("exercise-done"));
        assertTrue(checks(robot).get(3).getText().startsWith("✓ 4. the server's buffer holds \"HelloWorld\""),
                checks(robot).get(3).getText());
    }
}
