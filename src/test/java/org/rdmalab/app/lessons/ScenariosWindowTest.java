package org.rdmalab.app.lessons;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.ListCell;
import javafx.scene.control.TableView;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.rdmalab.app.FxWait;
import org.rdmalab.app.MainWindow;
import org.rdmalab.app.WindowRobot;
import org.rdmalab.app.lab.CompletionRow;
import org.rdmalab.app.lab.SideViewModel;
import org.rdmalab.app.lab.StepRow;
import org.rdmalab.verbs.QpState;
import org.rdmalab.verbs.WcStatus;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.Start;

/** The scenario gallery in the Lessons tab, clicked as a student would, headless (TestFX + Monocle). */
@ExtendWith(WindowRobot.class)
class ScenariosWindowTest {

    private MainWindow window;

    @Start
    void start(Stage stage) throws Exception {
        window = LessonsWindow.show(stage);
    }

    @AfterEach
    void close(FxRobot robot) {
        robot.interact(window::close);
    }

    private SideViewModel side(String name) {
        return window.lab().sides().stream().filter(side -> side.name().equals(name)).findFirst().orElseThrow();
    }

    /** Opens Lessons → Scenarios and clicks {@code name} in the gallery's list. */
    private void pick(FxRobot robot, String name) {
        LessonsWindow.open(robot, "Scenarios");
        javafx.scene.control.ListView<?> list = robot.lookup("#scenarioList").queryListView();
        int index = window.scenarios().entries().stream().map(ScenariosViewModel.Entry::name).toList().indexOf(name);
        robot.interact(() -> list.scrollTo(index));
        robot.clickOn(robot.lookup("#scenarioList .list-cell").match(node -> name.equals(((ListCell<?>) node).getText()))
                .queryAs(javafx.scene.Node.class));
        assertEquals(name, window.scenarios().selectedProperty().get().name());
    }

    private String outcome(FxRobot robot) {
        return robot.lookup("#outcomeLabel").queryAs(Label.class).getText();
    }

    @Test
    void badRkeyRunToTheEndShowsItsCheckedOutcome(FxRobot robot) {
        pick(robot, "bad-rkey");
        Label teaches = robot.lookup("#teachesLabel").queryAs(Label.class);
        assertTrue(teaches.getText().contains("IBV_WC_REM_ACCESS_ERR"), teaches.getText());
        assertFalse(teaches.getText().contains("`"), "the docs' code marks are not shown: " + teaches.getText());
        robot.clickOn("#runButton");
        LessonsWindow.waitFor("the checked outcome", () -> window.scenarios().phaseProperty().get()
                == ScenariosViewModel.Phase.CHECKED);
        assertEquals("as expected: the WRITE completed with IBV_WC_REM_ACCESS_ERR and the READ behind it with"
                + " IBV_WC_WR_FLUSH_ERR", outcome(robot));
        assertTrue(robot.lookup("#outcomeLabel").queryAs(Label.class).getStyleClass()
                .contains(ScenariosView.EXPECTED));
        // The lab shows what the scenario did: its steps ran in the columns, its completions in the table.
        assertTrue(side("client").steps().stream().allMatch(row -> row.statusProperty().get() == StepRow.Status.DONE));
        TableView<?> completions = robot.lookup("#completionTable").queryTableView();
        FxWait.waitFor("the completions", 10, () -> completions.getItems().size() >= 2);
        List<WcStatus> statuses = completions.getItems().stream().map(row -> ((CompletionRow) row).completion()
                .status()).toList();
        assertEquals(List.of(WcStatus.REM_ACCESS_ERR, WcStatus.WR_FLUSH_ERR), statuses);
        assertTrue(window.scenarios().log().stream().anyMatch(line -> line.startsWith("client  ibv_poll_cq")
                && line.contains("wr_id 1  IBV_WC_REM_ACCESS_ERR")), () -> String.join("\n", window.scenarios().log()));
        assertTrue(window.scenarios().log().contains("result: as expected: the WRITE completed with"
                + " IBV_WC_REM_ACCESS_ERR and the READ behind it with IBV_WC_WR_FLUSH_ERR"));
    }

    /** Clicks a side's Next step until its next step is {@code index}. */
    private void nextUntil(FxRobot robot, String name, int index) {
        SideViewModel side = side(name);
        while (side.nextIndexProperty().get() < index) {
            int before = side.nextIndexProperty().get();
            robot.clickOn("#" + name + "RunNext");
            LessonsWindow.waitFor(name + " step " + before, () -> !side.busyProperty().get()
                    && (side.nextIndexProperty().get() > before || side.failedIndex() >= 0));
            assertEquals(-1, side.failedIndex(), () -> name + " failed: "
                    + side.steps().get(side.failedIndex()).summaryProperty().get());
        }
    }

    @Test
    void rnrStepByStepWithTheLabsOwnControlsThenItsTraffic(FxRobot robot) {
        pick(robot, "rnr");
        robot.clickOn("#loadButton");
        FxWait.waitFor("the scenario's steps in the columns", 10, () -> window.scenarios().phaseProperty().get()
                == ScenariosViewModel.Phase.STEPS && window.lab().sides().size() == 2);
        assertEquals("send-data", side("server").steps().get(7).step().id());
        assertEquals("exchange", side("client").steps().get(7).step().id());
        assertTrue(robot.lookup("#trafficButton").queryAs(Button.class).isDisabled(), "no traffic before the steps");
        nextUntil(robot, "server", 8);           // up to and including sending its connection data
        nextUntil(robot, "client", 8);           // the exchange: sends, and takes the server's
        nextUntil(robot, "server", 12);          // receives the client's, then INIT, RTR, RTS
        nextUntil(robot, "client", 11);
        assertEquals(QpState.RTS, side("server").localStateProperty().get());
        assertEquals(QpState.RTS, side("client").localStateProperty().get());
        FxWait.waitForOnFx("the traffic button", 10, () -> !robot.lookup("#trafficButton").queryAs(Button.class)
                .isDisabled());
        assertEquals("Every step ran: post the traffic to see the outcome checked.", outcome(robot));
        // The traffic is the client's last step: its own Next step posts it and checks the outcome.
        assertEquals("scenario-traffic", side("client").steps().get(11).step().id());
        robot.clickOn("#clientRunNext");
        LessonsWindow.waitFor("the checked outcome", () -> window.scenarios().phaseProperty().get()
                == ScenariosViewModel.Phase.CHECKED);
        assertEquals("as expected: the SEND completed with IBV_WC_RNR_RETRY_EXC_ERR", outcome(robot));
        FxWait.waitFor("the client's last step done", 10, () -> side("client").steps().get(11).statusProperty().get()
                == StepRow.Status.DONE);
        assertEquals("the SEND completed with IBV_WC_RNR_RETRY_EXC_ERR", side("client").steps().get(11)
                .summaryProperty().get());
        // The error completion moved the client's QP to ERR; the query told the diagram.
        FxWait.waitFor("the client's QP in ERR", 10, () -> side("client").localStateProperty().get() == QpState.ERR);
    }
}
