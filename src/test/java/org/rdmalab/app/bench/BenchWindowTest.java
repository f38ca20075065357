package org.rdmalab.app.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import javafx.geometry.Bounds;
import javafx.geometry.Orientation;
import javafx.scene.Node;
import javafx.scene.chart.Axis;
import javafx.scene.chart.BarChart;
import javafx.scene.chart.LineChart;
import javafx.scene.chart.NumberAxis;
import javafx.scene.chart.XYChart;
import javafx.scene.control.CheckBox;
import javafx.scene.control.ChoiceBox;
import javafx.scene.control.Label;
import javafx.scene.control.ScrollBar;
import javafx.scene.control.ScrollPane;
import javafx.scene.control.Spinner;
import javafx.scene.control.TableCell;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableRow;
import javafx.scene.control.TableView;
import javafx.scene.control.TextArea;
import javafx.scene.control.TextField;
import javafx.scene.control.ToggleButton;
import javafx.scene.input.Clipboard;
import javafx.scene.input.KeyCode;
import javafx.scene.text.Text;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.rdmalab.app.ControlSnapshots;
import org.rdmalab.app.FxWait;
import org.rdmalab.app.MainWindow;
import org.rdmalab.app.WindowRobot;
import org.rdmalab.bench.BenchEngine;
import org.rdmalab.bench.BenchFormat;
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
import org.testfx.framework.junit5.Start;

/**
 * The lab window's Bench tab on soft0: opened, run from its button, drawn live, stopped; its rows in
 * the table with perftest's columns, copied, and the --verbose figures; the device, port and GID
 * index of the form reaching the run, bad ones explained; as the server of a client over TCP,
 * stopped while it waits or giving up after its timeout, and refusing a bad server address; the
 * window it takes while shown, and its rows and charts readable at the window's default and
 * smallest sizes (TestFX, headless; the pictures go to {@link ControlSnapshots#FOLDER}).
 */
@ExtendWith(WindowRobot.class)
class BenchWindowTest {

    private MainWindow window;
    private Stage stage;

    @Start
    void start(Stage stage) throws Exception {
        this.stage = stage;
        window = MainWindow.create(Backends.installed(), DeviceOptions.defaults().withUdpPort(Ports.freeUdpPort()));
        stage.setScene(window.scene());
        stage.setTitle(MainWindow.TITLE);
        // The window's own size: the stage is TestFX's, and a window test before may have left it otherwise.
        stage.setWidth(MainWindow.WIDTH);
        stage.setHeight(MainWindow.HEIGHT);
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
        robot.interact(() -> window.bench().form().iterationsProperty().set(10_000_000));
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

    @Test
    void untilStoppedPrintsARowEveryIntervalUntilStopAndBothWaysIsABandwidthBox(FxRobot robot) {
        openBenchTab(robot);
        CheckBox both = robot.lookup("#benchBoth").queryAs(CheckBox.class);
        CheckBox baseline = robot.lookup("#benchBaseline").queryAs(CheckBox.class);
        assertFalse(both.isDisabled(), "-b for a bandwidth test");
        robot.clickOn(both);
        assertTrue(window.bench().form().bidirectionalProperty().get());
        assertFalse(baseline.isDisabled(), "-b keeps the baseline (it runs both ways too)");
        robot.interact(() -> window.bench().form().modeProperty().set(BenchMode.LAT));
        assertTrue(both.isDisabled(), "a latency test is a ping-pong both ways already");
        assertTrue(robot.lookup("#benchQps").query().isDisabled(), "and runs on one QP");
        robot.interact(() -> window.bench().form().modeProperty().set(BenchMode.BW));
        robot.clickOn(both);
        assertFalse(baseline.isDisabled());

        @SuppressWarnings("unchecked")
        ChoiceBox<BenchForm.Limit> limit = robot.lookup("#benchLimit").queryAs(ChoiceBox.class);
        robot.interact(() -> limit.setValue(BenchForm.Limit.UNTIL_STOPPED));
        assertTrue(robot.lookup("#benchSeconds").query().isVisible(), "the seconds between two rows");
        assertFalse(robot.lookup("#benchIterations").query().isVisible());
        assertTrue(baseline.isDisabled(), "a run until stopped has no baseline");
        robot.interact(() -> window.bench().form().secondsProperty().set(1));
        robot.clickOn("#benchRun");
        FxWait.waitFor("two rows, one a second", 90, () -> window.bench().results().rows().size() >= 2);
        assertTrue(window.bench().runningProperty().get(), "it goes on after its rows");
        robot.clickOn("#benchStop");
        FxWait.waitFor("the run to stop", 30, () -> !window.bench().runningProperty().get());
        assertTrue(status(robot).startsWith("Stopped: ib_write_bw, 64 KiB, until stopped, a row every 1 s"),
                status(robot));
        assertTrue(robot.lookup("#benchTable").queryAs(TableView.class).getItems().size() >= 2);
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
            window.bench().form().roleProperty().set(BenchForm.Role.SERVER);
            window.bench().form().udpPortProperty().set(udp);
            window.bench().form().baselinePortProperty().set(baseline);
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
            bench.form().modeProperty().set(BenchMode.BW);
            bench.form().sizeProperty().set(4096);
            bench.form().iterationsProperty().set(300);
            bench.form().mtuProperty().set(1024);
            bench.form().txDepthProperty().set(16);
            bench.form().reportGbitsProperty().set(true);
            bench.form().baselineProperty().set(false);
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

    /** "peer is perftest": the window serves over perftest's exchange, as `bench --perftest` does for ib_write_lat. */
    @Test
    void asAPerftestServerTheWindowRunsIbWriteLatsLoopAndShowsItsOwnRows(FxRobot robot) throws Exception {
        int udp = Ports.freeUdpPort();
        int tcp = serveOnAFreePort(robot, udp, 0);
        CheckBox perftest = robot.lookup("#benchPerftest").queryAs(CheckBox.class);
        assertTrue(perftest.isVisible(), "a server can say its peer is perftest");
        robot.clickOn(perftest);
        latencyRun(robot, 64, 400, false);
        robot.clickOn("#benchRun");
        FxWait.waitFor("the server to wait", 60, () -> status(robot).contains("(TCP, perftest's exchange)"));

        // The client: what `bench write --lat --perftest -s 64 -n 400 127.0.0.1` runs (ib_write_lat's place).
        BenchSettings settings = BenchSettings.defaults(BenchTest.WRITE, BenchMode.LAT).withSizes(List.of(64))
                .withIterations(400);
        BenchRun client = new BenchEngine(Backends.installed()).start(settings, Topology.client("127.0.0.1", null, tcp,
                udp, 0, Duration.ofSeconds(60)).withExchange(Topology.Exchange.PERFTEST), BenchListener.NONE);
        BenchReport measured = client.await(Duration.ofSeconds(120));
        FxWait.waitFor("the window's run to end", 60, () -> !window.bench().runningProperty().get());

        BenchReport served = window.bench().reportProperty().get();
        assertNotNull(served, status(robot));
        assertEquals(400, measured.rows().get(0).latency().iterations());
        assertEquals(400, served.rows().get(0).latency().iterations(), "the window measured its own side");
        String text = status(robot);
        assertTrue(text.startsWith("Done: ib_write_lat, 64 B, 400 iterations") && text.contains("1 size measured, "),
                text);
        robot.clickOn(perftest);
        assertFalse(window.bench().form().perftestProperty().get(), "the box is the view model's switch");
    }

    @Test
    void stopEndsAServerWaitingForItsClientAndFreesThePort(FxRobot robot) throws Exception {
        int tcp = serveOnAFreePort(robot, Ports.freeUdpPort(), Ports.freeUdpPort());
        robot.clickOn("#benchRun");
        FxWait.waitFor("the server to wait", 60, () -> status(robot).contains("waiting for a client on port " + tcp));
        assertTrue(window.bench().runningProperty().get());
        robot.clickOn("#benchStop");
        // The server waits for a client as long as its Timeout says (60 s); Stop must not.
        FxWait.waitFor("the waiting server to stop", 30, () -> !window.bench().runningProperty().get());
        assertEquals("Stopped: no client came; TCP port " + tcp + " is free again.", status(robot));
        try (ServerSocket again = new ServerSocket()) {
            again.bind(new InetSocketAddress("127.0.0.1", tcp));
        }
        assertFalse(robot.lookup("#benchRun").queryButton().isDisabled(), "Run is back");
    }

    /** Types {@code text} into a spinner's editor (Run takes what was typed). */
    private static void typeInto(FxRobot robot, String spinner, String text) {
        TextField editor = robot.lookup(spinner).queryAs(Spinner.class).getEditor();
        robot.interact(editor::clear);
        robot.clickOn(editor).write(text);
    }

    @Test
    void aLoopbackRunOnTheChosenDeviceAndGidFillsTheTableInPerftestsColumnsWithTheRatioAndVerboseFigures(
            FxRobot robot) {
        openBenchTab(robot);
        @SuppressWarnings("unchecked")
        ChoiceBox<String> device = robot.lookup("#benchDevice").queryAs(ChoiceBox.class);
        FxWait.waitFor("the device list", 30, () -> !device.getTooltip().getText().startsWith("looking"));
        assertTrue(device.getItems().contains("soft0"), device.getItems()::toString);
        assertEquals("soft0", device.getValue(), "bench's -d default");
        assertTrue(device.getTooltip().getText().contains("soft0: software RoCE v2"), device.getTooltip().getText());
        // Every backend's answer is there: libibverbs' devices, or why it has none (ENOSYS here).
        assertTrue(device.getTooltip().getText().contains("libibverbs"), device.getTooltip().getText());
        robot.interact(() -> device.getSelectionModel().select("soft0"));
        latencyRun(robot, 8, 200, true);
        TableView<?> table = robot.lookup("#benchTable").queryAs(TableView.class);
        assertTrue(table.getItems().isEmpty());
        assertTrue(robot.lookup("#benchWide").queryAs(ToggleButton.class).isSelected(),
                "the tab has the window at first");
        type(robot, "#benchGid", "3");
        typeInto(robot, "#benchIbPort", "1");
        robot.clickOn("#benchRun");
        FxWait.waitFor("the run to end", 120, () -> !window.bench().runningProperty().get());
        BenchReport report = window.bench().reportProperty().get();
        assertNotNull(report, status(robot));
        assertEquals("soft0", report.info().deviceName());
        assertEquals(3, report.info().gidIndex(), "-x reached the device");
        assertEquals(1, report.info().settings().ibPort());

        List<String> heads = table.getColumns().stream().map(TableColumn::getText).toList();
        List<String> expected = new java.util.ArrayList<>(List.of("path"));
        expected.addAll(BenchFormat.columns(report.info().settings()));
        expected.addAll(List.of("lost", "ratio", "allocated B/msg", "GCs", "device counters"));
        assertEquals(expected, heads, "perftest's latency columns, then the ratio and --verbose's figures");
        assertEquals(2, table.getItems().size(), "RDMA and the baseline");
        BenchRow rdma = report.rows(BenchRow.Path.RDMA).get(0);
        BenchRow udp = report.rows(BenchRow.Path.BASELINE).get(0);
        assertEquals("RDMA", cell(table, 0, 0));
        assertEquals("baseline", cell(table, 1, 0));
        List<String> rdmaCells = BenchFormat.cells(rdma, false);
        for (int i = 0; i < rdmaCells.size(); i++) {
            assertEquals(rdmaCells.get(i), cell(table, 0, i + 1), heads.get(i + 1));
        }
        assertEquals(BenchFormat.cells(udp, false).get(4), cell(table, 1, 5), "the baseline's t_typical");
        int ratioColumn = heads.indexOf("ratio");
        assertEquals(String.format(java.util.Locale.ROOT, "%.2f", report.ratio(8).getAsDouble()),
                cell(table, 0, ratioColumn), "the ratio line's figure on the RDMA row");
        assertEquals(String.valueOf(udp.lostMessages()), cell(table, 1, heads.indexOf("lost")));
        assertTrue(cell(table, 0, heads.indexOf("device counters")).contains("sent_pkts +"),
                () -> "soft0's counters moved: " + cell(table, 0, heads.indexOf("device counters")));
        assertFalse(cell(table, 0, heads.indexOf("allocated B/msg")).isEmpty());

        // Copy: the selected row with the head line, tab-separated.
        // The row's first cell: the row itself is wider than the table, its middle out of sight.
        robot.clickOn(robot.lookup("#benchTable .table-cell").match(node -> node instanceof TableCell<?, ?> cell
                && cell.isVisible() && cell.getIndex() == 0 && "RDMA".equals(cell.getText())).queryAs(Node.class));
        robot.interact(() -> Clipboard.getSystemClipboard().clear());
        robot.press(KeyCode.CONTROL).type(KeyCode.C).release(KeyCode.CONTROL);
        String copied = clipboard(robot);
        assertNotNull(copied, "Ctrl+C put the row on the clipboard");
        String[] lines = copied.split("\n");
        assertEquals(2, lines.length, () -> "the head and the selected row: " + copied);
        assertEquals(String.join("\t", heads), lines[0]);
        assertTrue(lines[1].startsWith("RDMA\t" + String.join("\t", rdmaCells) + "\t\t"), lines[1]);

        // --verbose's lines, as bench prints them, in the details pane.
        TextArea verbose = robot.lookup("#benchVerbose").queryAs(TextArea.class);
        assertFalse(verbose.isVisible(), "the lines wait for Details");
        robot.clickOn("#benchDetails");
        assertTrue(verbose.isVisible());
        assertTrue(verbose.getText().contains(BenchFormat.usage(rdma)), verbose.getText());
        assertTrue(verbose.getText().contains(BenchFormat.counters(rdma)), verbose.getText());
        assertTrue(verbose.getText().contains(BenchFormat.usage(udp)), verbose.getText());
    }

    @Test
    void theBenchTabHasTheWindowWhileShownAndTheLabComesBackOnAnotherTabOrWhenWideIsReleased(FxRobot robot) {
        assertLabShown(robot, true, "the Step tab");
        openBenchTab(robot);
        assertTrue(robot.lookup("#benchWide").queryAs(ToggleButton.class).isSelected(), "Wide is pressed at first");
        assertLabShown(robot, false, "the Bench tab");
        robot.clickOn(robot.lookup(".inspector .tab .tab-label").match(node -> node instanceof Label label
                && "Step".equals(label.getText())).queryAs(Node.class));
        assertLabShown(robot, true, "back on the Step tab");
        openBenchTab(robot);
        assertLabShown(robot, false, "the Bench tab again");
        robot.clickOn("#benchWide");
        assertLabShown(robot, true, "Wide released");
        robot.clickOn("#benchWide");
        assertLabShown(robot, false, "Wide pressed again");
    }

    /** What the compact tab (Wide released, at the window's default size) keeps of its chart. */
    private static final double COMPACT_PLOT_WIDTH = 250;
    private static final double COMPACT_PLOT_HEIGHT = 70;

    @Test
    void withWideReleasedTheTabBetweenTheColumnsShowsItsButtonsOneChartAndThreeRowsWithoutScrolling(FxRobot robot) {
        openBenchTab(robot);
        robot.clickOn("#benchWide");
        assertLabShown(robot, true, "Wide released");
        latencyRun(robot, 8, 200, true);
        ScrollPane scroll = robot.lookup("#benchScroll").queryAs(ScrollPane.class);
        for (String button : List.of("#benchRun", "#benchStop", "#benchSave", "#benchWide")) {
            assertInView(robot, scroll, button, "before the run");
        }
        robot.clickOn("#benchRun");
        FxWait.waitFor("the run to end", 120, () -> !window.bench().runningProperty().get());
        assertEquals(2, robot.lookup("#benchTable").queryAs(TableView.class).getItems().size(), status(robot));
        robot.interact(() -> ControlSnapshots.write(window.scene().getRoot(), "bench-wide-released"));
        assertFalse(scroll.getChildrenUnmodifiable().stream().anyMatch(node -> node instanceof ScrollBar bar
                && bar.getOrientation() == Orientation.VERTICAL && bar.isVisible()), () -> "the tab scrolls: its content "
                + scroll.getContent().getLayoutBounds() + " is taller than its view " + scroll.getViewportBounds());
        for (String shown : List.of("#benchRun", "#benchStop", "#benchSave", "#benchWide", "#benchStatus",
                "#benchTable")) {
            assertInView(robot, scroll, shown, "Wide released");
        }
        assertTheRowsAreShown(robot, "Wide released");
        assertChartShown(robot, scroll, "#liveChart", "Wide released");

        // The other charts, one at a time, chosen beside the buttons: each takes the chart's place.
        ChoiceBox<?> choice = robot.lookup("#benchChart").queryAs(ChoiceBox.class);
        assertInView(robot, scroll, "#benchChart", "Wide released");
        assertEquals("Latency over time", shownText(choice));
        for (String title : List.of("t_typical by size", "Latency distribution")) {
            robot.clickOn(choice);
            robot.clickOn(robot.lookup(".menu-item .label").match((Label label) -> title.equals(label.getText()))
                    .queryAs(Node.class));
            String id = title.startsWith("t_typical") ? "#sizeChart" : "#distributionChart";
            robot.interact(() -> ControlSnapshots.write(window.scene().getRoot(), "bench-wide-released-"
                    + id.substring(1)));
            for (String other : List.of("#liveChart", "#sizeChart", "#distributionChart")) {
                assertEquals(other.equals(id), shown(robot.lookup(other).query()), other + " with " + title
                        + " chosen");
            }
            assertChartShown(robot, scroll, id, title);
            // The legend, and with the distribution its choices and scale: whole, beside the chart.
            assertInView(robot, scroll, "#benchChartSide", title);
            boolean distribution = id.equals("#distributionChart");
            assertEquals(distribution, shown(robot.lookup("#distributionSide").query()), title
                    + ": the distribution's choices beside it");
            if (distribution) {
                Node charts = robot.lookup("#benchCharts").query();
                Bounds row = charts.localToScene(charts.getLayoutBounds());
                Node choices = robot.lookup("#distributionSide").query();
                Bounds side = choices.localToScene(choices.getLayoutBounds());
                assertTrue(row.contains(side), () -> title + ": the choices " + side + " fit the charts' row " + row);
            }
            assertTheRowsAreShown(robot, title);
        }

        // The rest of the form folds under Settings.
        assertFalse(shown(robot.lookup("#benchDevice").query()), "the device waits for Settings");
        robot.clickOn("#benchSettings");
        assertInView(robot, scroll, "#benchDevice", "Settings pressed");
        assertInView(robot, scroll, "#benchTest", "Settings pressed");
        robot.interact(() -> ControlSnapshots.write(window.scene().getRoot(), "bench-wide-released-settings"));
        robot.clickOn("#benchSettings");
        assertFalse(shown(robot.lookup("#benchDevice").query()), "Settings released folds the form");

        // Wide again: the whole form and the three charts side by side, Settings and the choice gone.
        robot.clickOn("#benchWide");
        assertTrue(shown(robot.lookup("#benchDevice").query()), "the whole form");
        assertFalse(robot.lookup("#benchSettings").query().isVisible(), "no Settings to press");
        assertFalse(choice.isVisible());
        for (String chart : List.of("#liveChart", "#sizeChart", "#distributionChart")) {
            assertTrue(shown(robot.lookup(chart).query()), chart);
        }
    }

    /** The text a choice box shows for its value. */
    private static <T> String shownText(ChoiceBox<T> box) {
        return box.getConverter().toString(box.getValue());
    }

    /** True when {@code node} and every parent up to the scene's root are visible. */
    private static boolean shown(Node node) {
        for (Node at = node; at != null; at = at.getParent()) {
            if (!at.isVisible()) {
                return false;
            }
        }
        return node.getScene() != null;
    }

    /** {@code id} is shown, whole, inside the scroll pane's viewport: seen without scrolling. */
    private static void assertInView(FxRobot robot, ScrollPane scroll, String id, String where) {
        Node node = robot.lookup(id).query();
        Node viewport = scroll.lookup(".viewport");
        Bounds seen = viewport.localToScene(viewport.getLayoutBounds());
        Bounds bounds = node.localToScene(node.getLayoutBounds());
        assertTrue(shown(node) && seen.contains(bounds), () -> where + ": " + id + " at " + bounds
                + " lies in the tab's view " + seen);
    }

    /** {@code id}'s plot keeps the compact size, clear of the table, with three y tick labels. */
    private static void assertChartShown(FxRobot robot, ScrollPane scroll, String id, String where) {
        XYChart<?, ?> chart = robot.lookup(id).queryAs(XYChart.class);
        Node plot = chart.lookup(".chart-plot-background");
        // The rows that came at the run's end are laid out in a later pulse, later still on a busy machine.
        try {
            FxWait.waitFor(id + " laid out at its compact size", 10, () -> FxWait.onFx(() -> plot.getLayoutBounds()
                    .getWidth() >= COMPACT_PLOT_WIDTH && plot.getLayoutBounds().getHeight() >= COMPACT_PLOT_HEIGHT));
        } catch (AssertionError stillSmall) {
            // The assertion below says what size it kept.
        }
        assertInView(robot, scroll, id, where);
        assertTrue(plot.getLayoutBounds().getWidth() >= COMPACT_PLOT_WIDTH && plot.getLayoutBounds().getHeight()
                >= COMPACT_PLOT_HEIGHT, () -> where + ": " + id + "'s plot is " + plot.getLayoutBounds());
        TableView<?> table = robot.lookup("#benchTable").queryAs(TableView.class);
        Bounds tableBounds = table.localToScene(table.getLayoutBounds());
        Bounds chartBounds = chart.localToScene(chart.getLayoutBounds());
        assertFalse(chartBounds.intersects(tableBounds), () -> where + ": " + id + " " + chartBounds
                + " overlaps the table " + tableBounds);
        long ticks = chart.getYAxis().getTickMarks().stream().filter(Axis.TickMark::isTextVisible).count();
        assertTrue(ticks >= 3, () -> where + ": " + id + " has " + ticks + " y tick labels");
    }

    /** Whether the lab's setup bar, server column and completions are in the window. */
    private static void assertLabShown(FxRobot robot, boolean shown, String when) {
        for (String lab : List.of(".setup-view", "#serverColumn", ".completions-view")) {
            boolean there = robot.lookup(lab).tryQuery().map(node -> node.isVisible() && node.getScene() != null)
                    .orElse(false);
            assertEquals(shown, there, when + ": " + lab + (shown ? " is shown" : " steps aside"));
        }
    }

    /** What the readable-layout test wants of the Bench tab at a window size. */
    private static final int SHOWN_ROWS = 3;
    private static final double PLOT_WIDTH = 150;
    private static final double PLOT_HEIGHT = 100;

    @Test
    void atTheDefaultAndTheSmallestWindowSizeTheTableShowsItsRowsUnderReadableCharts(FxRobot robot) {
        openBenchTab(robot);
        latencyRun(robot, 8, 200, true);
        robot.clickOn("#benchRun");
        FxWait.waitFor("the run to end", 120, () -> !window.bench().runningProperty().get());
        assertEquals(2, robot.lookup("#benchTable").queryAs(TableView.class).getItems().size(), status(robot));
        try {
            robot.interact(() -> ControlSnapshots.write(window.scene().getRoot(), "bench-default-size"));
            assertTheRowsAndChartsAreShown(robot, "at the default size");
            robot.interact(() -> {
                stage.setWidth(MainWindow.MIN_WIDTH);
                stage.setHeight(MainWindow.MIN_HEIGHT);
            });
            FxWait.waitFor("the smaller window", 10, () -> window.scene().getHeight() == MainWindow.MIN_HEIGHT);
            robot.interact(() -> ControlSnapshots.write(window.scene().getRoot(), "bench-smallest-size"));
            assertTheRowsAndChartsAreShown(robot, "at the smallest size");
        } finally {
            robot.interact(() -> {
                stage.setWidth(MainWindow.WIDTH);
                stage.setHeight(MainWindow.HEIGHT);
            });
        }
    }

    /**
     * The rows are shown ({@link #assertTheRowsAreShown}) and each chart, apart from the table, keeps
     * a plot of at least {@link #PLOT_WIDTH} × {@link #PLOT_HEIGHT} with three y tick labels, its title
     * and its axis labels drawn whole.
     */
    private void assertTheRowsAndChartsAreShown(FxRobot robot, String where) {
        assertTheRowsAreShown(robot, where);
        TableView<?> table = robot.lookup("#benchTable").queryAs(TableView.class);
        Bounds tableBounds = table.localToScene(table.getLayoutBounds());
        for (String id : List.of("#liveChart", "#sizeChart", "#distributionChart")) {
            XYChart<?, ?> chart = robot.lookup(id).queryAs(XYChart.class);
            Node plot = chart.lookup(".chart-plot-background");
            assertTrue(plot.getLayoutBounds().getWidth() >= PLOT_WIDTH && plot.getLayoutBounds().getHeight()
                    >= PLOT_HEIGHT, () -> where + ": " + id + "'s plot is " + plot.getLayoutBounds());
            Bounds chartBounds = chart.localToScene(chart.getLayoutBounds());
            assertFalse(chartBounds.intersects(tableBounds), () -> where + ": " + id + " " + chartBounds
                    + " overlaps the table " + tableBounds);
            long ticks = chart.getYAxis().getTickMarks().stream().filter(Axis.TickMark::isTextVisible).count();
            assertTrue(ticks >= 3, () -> where + ": " + id + " has " + ticks + " y tick labels");
            List<Label> texts = new java.util.ArrayList<>();
            for (Node label : chart.lookupAll(".axis-label")) {
                texts.add((Label) label);
            }
            texts.add(id.equals("#distributionChart") ? robot.lookup("#distributionTitle").queryAs(Label.class)
                    : (Label) chart.lookup(".chart-title"));
            for (Label text : texts) {
                assertTrue(text.isVisible(), () -> where + ": " + id + " shows " + text.getText());
                assertEquals(text.getText(), ((Text) text.lookup(".text")).getText(), where + ": " + id
                        + "'s label is drawn whole");
            }
        }
    }

    /**
     * The table's rows area holds {@link #SHOWN_ROWS} rows, and both rows of the run are under the
     * mouse where they are drawn (nothing covers them, nothing clips them).
     */
    private static void assertTheRowsAreShown(FxRobot robot, String where) {
        TableView<?> table = robot.lookup("#benchTable").queryAs(TableView.class);
        Node rowsArea = table.lookup(".clipped-container");
        List<TableRow<?>> rows = robot.lookup("#benchTable .table-row-cell")
                .match((TableRow<?> row) -> row.isVisible() && !row.isEmpty())
                .queryAllAs(TableRow.class).stream()
                .<TableRow<?>>map(row -> row).sorted(Comparator.comparingInt(TableRow::getIndex)).toList();
        assertEquals(2, rows.size(), where + ": the run's two rows have cells");
        double rowHeight = rows.get(0).getHeight();
        assertTrue(rowHeight > 10, () -> where + ": row height " + rowHeight);
        assertTrue(rowsArea.getLayoutBounds().getHeight() >= SHOWN_ROWS * rowHeight, () -> where
                + ": the table shows " + rowsArea.getLayoutBounds().getHeight() / rowHeight + " rows' height");
        Bounds visibleRows = rowsArea.localToScene(rowsArea.getLayoutBounds());
        for (TableRow<?> row : rows) {
            Node first = row.lookup(".table-cell");
            Bounds cell = first.localToScene(first.getLayoutBounds());
            assertTrue(visibleRows.contains(cell), () -> where + ": row " + row.getIndex() + " at " + cell
                    + " is inside the rows area " + visibleRows);
            robot.moveTo(first);
            assertTrue(first.isHover(), () -> where + ": row " + row.getIndex() + "'s first cell is under the mouse,"
                    + " not covered");
        }
    }

    private static String clipboard(FxRobot robot) {
        String[] text = new String[1];
        robot.interact(() -> text[0] = Clipboard.getSystemClipboard().getString());
        return text[0];
    }

    private static String cell(TableView<?> table, int row, int column) {
        return String.valueOf(table.getColumns().get(column).getCellData(row));
    }

    @Test
    void aBadGidIndexOrPortIsExplainedInTheStatusLine(FxRobot robot) {
        openBenchTab(robot);
        robot.interact(() -> {
            window.bench().form().modeProperty().set(BenchMode.LAT);
            window.bench().form().iterationsProperty().set(100);
        });
        type(robot, "#benchGid", "abc");
        robot.clickOn("#benchRun");
        assertEquals("Cannot run: -x 'abc' is not a GID index (a number 0..255, or empty for bench's choice)",
                status(robot));
        type(robot, "#benchGid", "300");
        robot.clickOn("#benchRun");
        assertEquals("Cannot run: -x 300: the GID index must be 0..255", status(robot));
        assertFalse(window.bench().runningProperty().get(), "nothing started");
        // Within bench's range but not in soft0's table: the device says which indexes it has.
        type(robot, "#benchGid", "9");
        robot.clickOn("#benchRun");
        FxWait.waitFor("the run to fail", 60, () -> !window.bench().runningProperty().get());
        assertEquals("The run failed: -x 9: soft0 port 1 has no GID there; populated indexes: [0, 1, 2, 3]",
                status(robot));
        type(robot, "#benchGid", "");
        typeInto(robot, "#benchIbPort", "2");
        robot.clickOn("#benchRun");
        FxWait.waitFor("the run to fail", 60, () -> !window.bench().runningProperty().get());
        assertTrue(status(robot).startsWith("The run failed: ibv_query_port failed: EINVAL")
                && status(robot).contains("port 2 does not exist"), status(robot));
        assertEquals(2, window.bench().form().ibPortProperty().get(), "-i came from the spinner");
    }

    @Test
    void aServerGivesUpAfterItsTimeoutWithAClearMessage(FxRobot robot) {
        openBenchTab(robot);
        assertFalse(robot.lookup("#benchTimeoutField").query().isVisible(), "loopback waits for no peer");
        int tcp = serveOnAFreePort(robot, Ports.freeUdpPort(), Ports.freeUdpPort());
        assertTrue(robot.lookup("#benchTimeoutField").query().isVisible(), "a server has its --timeout");
        assertEquals(BenchForm.DEFAULT_TIMEOUT_SECONDS, robot.lookup("#benchTimeout").queryAs(Spinner.class)
                .getValue());
        typeInto(robot, "#benchTimeout", "1");
        long started = System.nanoTime();
        robot.clickOn("#benchRun");
        FxWait.waitFor("the server to give up", 30, () -> !window.bench().runningProperty().get());
        assertTrue(System.nanoTime() - started < 20_000_000_000L, "it waited 1 s, not the default 60");
        assertEquals("The run failed: no client connected to 127.0.0.1:" + tcp + " within 1 s; start the client with"
                + " this server's IP, or raise the accept timeout", status(robot));
    }

    @Test
    void aBadServerAddressIsExplainedAndStartsNothing(FxRobot robot) {
        openBenchTab(robot);
        robot.interact(() -> window.bench().form().roleProperty().set(BenchForm.Role.CLIENT));
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

    /** Sets the form for a latency run of {@code iterations} messages of {@code size} bytes. */
    private void latencyRun(FxRobot robot, int size, int iterations, boolean baseline) {
        robot.interact(() -> {
            BenchViewModel bench = window.bench();
            bench.form().modeProperty().set(BenchMode.LAT);
            bench.form().sizeProperty().set(size);
            bench.form().iterationsProperty().set(iterations);
            bench.form().baselineProperty().set(baseline);
        });
    }

}
