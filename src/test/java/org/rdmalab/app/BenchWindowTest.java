package org.rdmalab.app;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import javafx.scene.Node;
import javafx.scene.chart.LineChart;
import javafx.scene.control.Label;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.rdmalab.testing.Ports;
import org.rdmalab.verbs.spi.Backends;
import org.rdmalab.verbs.spi.DeviceOptions;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;

/** The lab window's Bench tab on soft0: opened, run from its button, drawn live, stopped (TestFX, headless). */
@ExtendWith(ApplicationExtension.class)
class BenchWindowTest {

    private MainWindow window;

    @Start
    void start(Stage stage) throws Exception {
        window = MainWindow.create(Backends.installed(), DeviceOptions.defaults().withUdpPort(Ports.freeUdpPort()));
        stage.setScene(window.scene());
        stage.setTitle(MainWindow.TITLE);
        stage.show();
    }

    @AfterEach
    void close(FxRobot robot) {
        robot.interact(window::close);
    }

    @Test
    void theBenchTabRunsFromItsButtonDrawsTheLiveChartAndStops(FxRobot robot) {
        robot.clickOn(robot.lookup(".inspector .tab .tab-label").match(node -> node instanceof Label label
                && "Bench".equals(label.getText())).queryAs(Node.class));
        // A run long enough to be stopped: 64 KiB writes, far more than the test waits for.
        robot.interact(() -> window.bench().iterationsProperty().set(10_000_000));
        robot.clickOn("#benchRun");
        assertTrue(robot.lookup("#benchRun").queryButton().isDisabled(), "Run is off while a run goes");
        @SuppressWarnings("unchecked")
        LineChart<Number, Number> live = robot.lookup("#liveChart").queryAs(LineChart.class);
        FxWait.waitFor("the live chart's first RDMA points", 60, () -> !live.getData().get(0).getData().isEmpty());
        Label status = robot.lookup("#benchStatus").queryAs(Label.class);
        assertTrue(status.getText().startsWith("RDMA 64 KiB: "), status.getText());
        robot.clickOn("#benchStop");
        FxWait.waitFor("the run to stop", 30, () -> !window.bench().runningProperty().get());
        assertTrue(status.getText().startsWith("Stopped: ib_write_bw, 64 KiB"), status.getText());
        assertFalse(robot.lookup("#benchRun").queryButton().isDisabled(), "Run is back");
        assertFalse(robot.lookup("#benchSave").queryButton().isDisabled(), "what ran can be saved");
        assertTrue(robot.lookup("#benchStop").queryButton().isDisabled());
        assertFalse(live.getData().get(0).getData().isEmpty(), "the chart keeps what it drew");
    }
}
