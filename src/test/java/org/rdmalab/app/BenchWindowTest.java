package org.rdmalab.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import javafx.scene.Node;
import javafx.scene.chart.BarChart;
import javafx.scene.chart.LineChart;
import javafx.scene.chart.NumberAxis;
import javafx.scene.chart.XYChart;
import javafx.scene.control.Label;
import javafx.scene.control.TextField;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.rdmalab.bench.BenchEngine;
import org.rdmalab.bench.BenchListener;
import org.rdmalab.bench.BenchMode;
import org.rdmalab.bench.BenchReport;
import org.rdmalab.bench.BenchRow;
import org.rdmalab.bench.BenchRun;
import org.rdmalab.bench.BenchSettings;
import org.rdmalab.bench.BenchTest;
import org.rdmalab.bench.Topology;
import org.rdmalab.testing.Ports;
import org.rdmalab.verbs.Mtu;
import org.rdmalab.verbs.spi.Backends;
import org.rdmalab.verbs.spi.DeviceOptions;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;

/**
 * The lab window's Bench tab on soft0: opened, run from its button, drawn live, stopped; as the
 * server of a client over TCP, stopped while it waits, and refusing a bad server address (TestFX,
 * headless).
 */
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

    private void openBenchTab(FxRobot robot) {
        robot.clickOn(robot.lookup(".inspector .tab .tab-label").match(node -> node instanceof Label label
                && "Bench".equals(label.getText())).queryAs(Node.class));
    }

    private static void type(FxRobot robot, String field, String text) {
        TextField node = robot.lookup(field).queryAs(TextField.class);
        robot.interact(node::clear);
        robot.clickOn(node).write(text);
    }

    private static String status(FxRobot robot) {
        return robot.lookup("#benchStatus").queryAs(Label.class).getText();
    }

    /** The window as server on free ports: role, port typed into the form, the UDP ports set aside. */
    private int serveOnAFreePort(FxRobot robot, int udp, int baseline) {
        int tcp = Ports.freeTcpPort();
        openBenchTab(robot);
        robot.interact(() -> {
            window.bench().roleProperty().set(BenchViewModel.Role.SERVER);
            window.bench().udpPortProperty().set(udp);
            window.bench().baselinePortProperty().set(baseline);
        });
        assertTrue(robot.lookup("#benchLocalField").query().isVisible(), "a server shows its address and port");
        assertTrue(robot.lookup("#benchTcpPortField").query().isVisible());
        assertFalse(robot.lookup("#benchServerField").query().isVisible(), "a server has no server address to type");
        type(robot, "#benchTcpPort", Integer.toString(tcp));
        return tcp;
    }

    @Test
    void asServerTheWindowAnswersATcpClientAndShowsItsRowsWithTheMtuTxDepthAndGbits(FxRobot robot) throws Exception {
        int udp = Ports.freeUdpPort();
        int baseline = Ports.freeUdpPort();
        int tcp = serveOnAFreePort(robot, udp, baseline);
        robot.interact(() -> {
            BenchViewModel bench = window.bench();
            bench.modeProperty().set(BenchMode.BW);
            bench.sizeProperty().set(4096);
            bench.iterationsProperty().set(300);
            bench.mtuProperty().set(1024);
            bench.txDepthProperty().set(16);
            bench.reportGbitsProperty().set(true);
            bench.baselineProperty().set(false);
        });
        robot.clickOn("#benchRun");
        FxWait.waitFor("the server to wait", 60, () -> status(robot).contains("waiting for a client on port " + tcp));

        // The client: what `bench write --bw -s 4096 -n 300 -m 1024 -t 16 127.0.0.1` runs.
        BenchSettings settings = BenchSettings.defaults(BenchTest.WRITE, BenchMode.BW).withSizes(List.of(4096))
                .withIterations(300).withMtu(Mtu.ofBytes(1024)).withTxDepth(16).withReportGbits(true);
        BenchRun client = new BenchEngine(Backends.installed()).start(settings, Topology.client("127.0.0.1", null, tcp,
                udp, baseline, Duration.ofSeconds(60)), BenchListener.NONE);
        BenchReport measured = client.await(Duration.ofSeconds(120));
        FxWait.waitFor("the window's run to end", 60, () -> !window.bench().runningProperty().get());

        BenchReport served = window.bench().reportProperty().get();
        assertNotNull(served, status(robot));
        assertFalse(served.stopped());
        assertEquals(16, served.info().settings().txDepth(), "-t reached the engine");
        assertEquals(1024, served.info().mtu().bytes(), "-m reached the device");
        assertEquals(measured.rows(BenchRow.Path.RDMA).get(0).bandwidth(), served.rows().get(0).bandwidth(),
                "the window shows the client's row");
        double gbits = served.rows().get(0).bandwidth().average(true);
        @SuppressWarnings("unchecked")
        BarChart<String, Number> sizes = robot.lookup("#sizeChart").queryAs(BarChart.class);
        List<XYChart.Data<String, Number>> bars = sizes.getData().get(0).getData();
        assertEquals(1, bars.size());
        assertEquals("4 KiB", bars.get(0).getXValue());
        assertEquals(gbits, bars.get(0).getYValue().doubleValue(), 1e-9, "the bar is in Gb/sec");
        assertEquals("Gb/sec", ((NumberAxis) sizes.getYAxis()).getLabel());
        String text = status(robot);
        assertTrue(text.startsWith("Done: ib_write_bw, 4 KiB, 300 iterations, MTU 1024, TX depth 16, 1 size measured"
                + " by the client, ") && text.endsWith(" Gb/sec."), text);
        assertTrue(Ports.portReleased(udp), "the device closed its sockets");
    }

    @Test
    void stopEndsAServerWaitingForItsClientAndFreesThePort(FxRobot robot) throws Exception {
        int tcp = serveOnAFreePort(robot, Ports.freeUdpPort(), Ports.freeUdpPort());
        robot.clickOn("#benchRun");
        FxWait.waitFor("the server to wait", 60, () -> status(robot).contains("waiting for a client on port " + tcp));
        assertTrue(window.bench().runningProperty().get());
        robot.clickOn("#benchStop");
        // The server waits minutes for a client (BenchViewModel.SERVER_WAIT); Stop must not.
        FxWait.waitFor("the waiting server to stop", 30, () -> !window.bench().runningProperty().get());
        assertEquals("Stopped: no client came; TCP port " + tcp + " is free again.", status(robot));
        try (ServerSocket again = new ServerSocket()) {
            again.bind(new InetSocketAddress("127.0.0.1", tcp));
        }
        assertFalse(robot.lookup("#benchRun").queryButton().isDisabled(), "Run is back");
    }

    @Test
    void aBadServerAddressIsExplainedAndStartsNothing(FxRobot robot) {
        openBenchTab(robot);
        robot.interact(() -> window.bench().roleProperty().set(BenchViewModel.Role.CLIENT));
        assertTrue(robot.lookup("#benchServerField").query().isVisible());
        robot.clickOn("#benchRun");
        assertEquals("Cannot run: give the server's IPv4 address (the machine where the server waits)", status(robot));
        type(robot, "#benchServer", "10.0.0.300");
        robot.clickOn("#benchRun");
        assertTrue(status(robot).startsWith("Cannot run: '10.0.0.300' is not an IPv4 address"), status(robot));
        assertFalse(window.bench().runningProperty().get(), "nothing started");
        type(robot, "#benchServer", "127.0.0.1");
        type(robot, "#benchTcpPort", "70000");
        robot.clickOn("#benchRun");
        assertEquals("Cannot run: TCP port 70000 is outside 1..65535", status(robot));
        assertFalse(window.bench().runningProperty().get(), "nothing started");
        assertFalse(robot.lookup("#benchRun").queryButton().isDisabled());
    }
}
