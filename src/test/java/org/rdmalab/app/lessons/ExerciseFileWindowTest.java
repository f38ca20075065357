package org.rdmalab.app.lessons;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import javafx.scene.control.Label;
import javafx.scene.control.ListView;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.rdmalab.app.FxWait;
import org.rdmalab.app.MainWindow;
import org.rdmalab.lab.exercise.Exercise;
import org.rdmalab.lab.exercise.ExerciseDocTest;
import org.rdmalab.lab.exercise.Exercises;
import org.rdmalab.testing.Ports;
import org.rdmalab.verbs.FaultSettings;
import org.rdmalab.verbs.spi.Backends;
import org.rdmalab.verbs.spi.DeviceOptions;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;

/**
 * An instructor's exercise file opened with Open exercise… joins the list and runs as a built-in
 * one does: docs/exercises.md's example, done with the mouse and the keys to "Done"; a wrong file
 * is one line in the tab and leaves the list and the lab alone.
 */
@ExtendWith(ApplicationExtension.class)
class ExerciseFileWindowTest {

    @TempDir
    Path folder;

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

    private static List<Label> checks(FxRobot robot) {
        return robot.lookup(".exercise-check").queryAllAs(Label.class).stream().toList();
    }

    private static long met(FxRobot robot) {
        return FxWait.onFx(() -> checks(robot).stream().filter(label -> label.getStyleClass()
                .contains(ExercisesView.MET)).count());
    }

    private void answer(Path file) {
        window.exercises().setFiles(owner -> Optional.of(file));
    }

    @Test
    void theDocsExampleOpenedFromAFileIsDoneByDoingIt(FxRobot robot) throws Exception {
        Path file = Files.writeString(folder.resolve("rtr-refused.yaml"), ExerciseDocTest.docExample());
        waitFor("the devices", () -> !window.lab().setup().gids().isEmpty() && !window.lab().sides().isEmpty());
        robot.clickOn("#lessonsTab .tab-label");
        robot.clickOn("#exercisesTab .tab-label");
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

        robot.clickOn("#serverSteps");
        robot.type(javafx.scene.input.KeyCode.F8);
        waitFor("RTR failing", () -> window.lab().sides().stream().allMatch(side -> !side.busyProperty().get()
                && side.failedIndex() >= 0));
        waitFor("check 1 drawn as met", () -> met(robot) == 1);
        assertTrue(checks(robot).get(0).getText().startsWith("✓ 1."), checks(robot).get(0).getText());
        assertFalse(window.exercises().doneProperty().get());

        robot.clickOn("#useRecommendedGid");
        waitFor("the GID fix replayed", () -> window.lab().setup().gidIndexProperty().get().equals("3")
                && window.lab().sides().stream().allMatch(side -> !side.busyProperty().get() && side.failedIndex() < 0));
        robot.clickOn("#lessonsTab .tab-label");
        robot.clickOn("#exercisesTab .tab-label");
        robot.clickOn("#serverSteps");
        robot.type(javafx.scene.input.KeyCode.F8);
        waitFor("every check met", () -> window.exercises().doneProperty().get());
        waitFor("the checks drawn as met", () -> met(robot) == 6);
        assertEquals("Done: every check is met", robot.lookup("#exerciseProgress").queryAs(Label.class).getText());
    }

    @Test
    void aRefusedFileIsOneLineAndLeavesTheListAndTheLabAlone(FxRobot robot) throws Exception {
        Path file = Files.writeString(folder.resolve("broken.yaml"), ExerciseDocTest.docExample()
                .replace("status: IBV_WC_SUCCESS", "status: IBV_WC_SUCESS"));
        waitFor("the devices", () -> !window.lab().setup().gids().isEmpty() && !window.lab().sides().isEmpty());
        String gid = FxWait.onFx(() -> window.lab().setup().gidIndexProperty().get());
        robot.clickOn("#lessonsTab .tab-label");
        robot.clickOn("#exercisesTab .tab-label");
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
