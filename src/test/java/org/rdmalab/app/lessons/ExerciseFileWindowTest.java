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

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import javafx.scene.control.Label;
import javafx.scene.control.ListView;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.rdmalab.app.FxWait;
import org.rdmalab.app.MainWindow;
import org.rdmalab.app.WindowRobot;
import org.rdmalab.lab.exercise.Exercise;
import org.rdmalab.lab.exercise.ExerciseDocTest;
import org.rdmalab.lab.exercise.Exercises;
import org.rdmalab.verbs.FaultSettings;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.Start;

/**
 * An instructor's exercise file opened with Open exercise… joins the list and runs as a built-in
 * one does: docs/exercises.md's example, done with the mouse and the keys to "Done"; a wrong file
 * is one line in the tab and leaves the list and the lab alone.
 */
@ExtendWith(WindowRobot.class)
class ExerciseFileWindowTest {

    @TempDir
    Path folder;

    private MainWindow window;

    @Start
    void start(Stage stage) throws Exception {
        window = LessonsWindow.show(stage);
    }

    @AfterEach
    void close(FxRobot robot) {
        robot.interact(window::close);
    }

    private void answer(Path file) {
        window.exercises().setFiles(owner -> Optional.of(file));
    }

    @Test
    void theDocsExampleOpenedFromAFileIsDoneByDoingIt(FxRobot robot) throws Exception {
        Path file = Files.writeString(folder.resolve("rtr-refused.yaml"), ExerciseDocTest.docExample());
        awaitDevices(window);
        open(robot, "Exercises");
        answer(file);
        robot.clickOn("#exerciseOpen");
        waitFor("the file's exercise started", () -> window.exercises().startedProperty().get() != null
                && window.exercises().startedProperty().get().name().equals("rtr-refused")
                && window.lab().setup().gidIndexProperty().get().equals("-1"));
        @SuppressWarnings("unchecked")
        ListView<Exercise> list = robot.lookup("#exerciseList").queryAs(ListView.class);
        assertEquals(Exercises.all().size() + 1, list.getItems().size());
        assertEquals("rtr-refused", FxWait.onFx(() -> list.getSelectionModel().getSelectedItem().name()));
        assertEquals("RTR refused, then fixed", robot.lookup("#exerciseTitle").queryAs(Label.class).getText());
        assertEquals(6, checks(robot).size());
        assertEquals("○ 1. the client's step modify-rtr fails with EINVAL", checks(robot).get(0).getText());
        assertEquals(FaultSettings.parse("delay=1ms,seed=7").toSpec(), window.faults().specProperty().get());
        robot.clickOn("#exerciseHint");
        assertEquals("Hint 1: Run both sides to the end (F8) and read the step that fails.",
                robot.lookup(".exercise-hint").queryAs(Label.class).getText());

        runBothToTheEnd(robot);
        awaitAFailedStep(window);
        waitFor("check 1 drawn as met", () -> met(robot) == 1);
        assertTrue(checks(robot).get(0).getText().startsWith("✓ 1."), checks(robot).get(0).getText());
        assertFalse(window.exercises().doneProperty().get());

        useRecommendedGid(robot, window);
        runBothToTheEnd(robot);
        waitFor("every check met", () -> window.exercises().doneProperty().get());
        waitFor("the checks drawn as met", () -> met(robot) == 6);
        assertEquals("Done: every check is met", robot.lookup("#exerciseProgress").queryAs(Label.class).getText());
    }

    @Test
    void aRefusedFileIsOneLineAndLeavesTheListAndTheLabAlone(FxRobot robot) throws Exception {
        Path file = Files.writeString(folder.resolve("broken.yaml"), ExerciseDocTest.docExample()
                .replace("status: IBV_WC_SUCCESS", "status: IBV_WC_SUCESS"));
        awaitDevices(window);
        String gid = FxWait.onFx(() -> window.lab().setup().gidIndexProperty().get());
        open(robot, "Exercises");
        answer(file);
        robot.clickOn("#exerciseOpen");
        Label problem = robot.lookup("#exerciseProblem").queryAs(Label.class);
        waitFor("the refusal", () -> !problem.getText().isEmpty());
        int line = (int) ExerciseDocTest.docExample().lines().takeWhile(each -> !each.contains("IBV_WC_SUCCESS")).count() + 1;
        assertTrue(problem.getText().startsWith("The exercise file was refused: " + file + ":" + line
                + ": checks[4].status: 'IBV_WC_SUCESS' is not a completion status (IBV_WC_SUCCESS,"), problem.getText());
        assertFalse(problem.getText().contains("\n"));
        assertTrue(FxWait.onFx(problem::isVisible));
        assertEquals(Exercises.all().size(), FxWait.onFx(() -> window.exercises().exercises().size()));
        assertEquals(null, window.exercises().startedProperty().get());
        assertEquals(gid, FxWait.onFx(() -> window.lab().setup().gidIndexProperty().get()));
    }
}
