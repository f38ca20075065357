package org.rdmalab.app.ladder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javafx.scene.control.Label;
import javafx.scene.control.TableRow;
import javafx.scene.control.TableView;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.rdmalab.app.FxWait;
import org.rdmalab.app.MainWindow;
import org.rdmalab.app.WindowRobot;
import org.rdmalab.app.WindowScenario;
import org.rdmalab.app.lab.CompletionRow;
import org.rdmalab.app.lab.LabViewModel;
import org.rdmalab.app.lab.SideViewModel;
import org.rdmalab.ladder.WorkRequest;
import org.rdmalab.testing.Ports;
import org.rdmalab.verbs.spi.Backends;
import org.rdmalab.verbs.spi.DeviceOptions;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.Start;

/**
 * The Ladder tab's work requests in the lab window, headless: one selection ties a request, its
 * packets on the ladder and its completion, whichever of the three the user picks.
 */
@ExtendWith(WindowRobot.class)
class WorkRequestsWindowTest {

    private static final Pattern PSN = Pattern.compile("PSN (\\d+)");

    private MainWindow window;
    private Stage stage;

    @Start
    void start(Stage stage) {
        this.stage = stage;
    }

    private void open(FxRobot robot, String faults) {
        robot.interact(() -> {
            try {
                window = MainWindow.create(Backends.installed(),
                        DeviceOptions.defaults().withUdpPort(Ports.freeUdpPort()).withFaults(faults));
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            stage.setScene(window.scene());
            stage.show();
        });
        FxWait.waitFor("the devices", 30, () -> !window.lab().setup().devices().isEmpty()
                && !window.lab().setup().gids().isEmpty());
        robot.clickOn(robot.lookup(".inspector .tab-label").match(node -> "Wire".equals(((javafx.scene.control.Label) node)
                .getText())).queryAs(javafx.scene.Node.class));
        robot.clickOn(robot.lookup(".wire-tabs .tab-label").match(node -> "Ladder".equals(
                ((javafx.scene.control.Label) node).getText())).queryAs(javafx.scene.Node.class));
    }

    @AfterEach
    void close(FxRobot robot) {
        if (window != null) {
            robot.interact(window::close);
        }
    }

    private LabViewModel lab() {
        return window.lab();
    }

    private LadderChart chart(FxRobot robot) {
        return robot.lookup("#ladderChart").queryAs(LadderChart.class);
    }

    private void runSeedFlow() {
        FxWait.onFx(() -> {
            lab().setup().useRecommendedGid();
            lab().apply(lab().defaultSetup().withGidIndex(lab().setup().gidIndexProperty().get()));
            lab().runAllToEnd();
            return null;
        });
        FxWait.waitFor("the seed's flow", 60, () -> !lab().sides().isEmpty()
                && lab().sides().stream().noneMatch(side -> side.busyProperty().get())
                && lab().sides().stream().allMatch(side -> side.nextIndexProperty().get() >= side.steps().size()));
        for (SideViewModel side : lab().sides()) {
            assertEquals(-1, side.failedIndex(), side.name() + " failed");
        }
    }


    /** Scrolls {@code table} to its first item that {@code which} accepts and clicks that row. */
    @SuppressWarnings("unchecked")
    private static <T> void clickRow(FxRobot robot, String table, Predicate<T> which) {
        TableView<T> view = robot.lookup(table).queryAs(TableView.class);
        T item = FxWait.onFx(() -> view.getItems().stream().filter(which).findFirst().orElseThrow());
        FxWait.onFx(() -> {
            view.scrollTo(item);
            return null;
        });
        org.testfx.util.WaitForAsyncUtils.waitForFxEvents();
        TableRow<T> row = robot.lookup(table + " .table-row-cell").match(node -> ((TableRow<T>) node).getItem() == item)
                .queryAs(TableRow.class);
        robot.clickOn(row);
        org.testfx.util.WaitForAsyncUtils.waitForFxEvents();
    }

    private WorkRequest request(long wrId) {
        return FxWait.onFx(() -> window.workRequests().requests().stream().filter(request -> request.wrId() == wrId)
                .findFirst().orElse(null));
    }

    private static Set<Long> lit(List<LadderChart.DrawnArrow> arrows) {
        Set<Long> lit = new TreeSet<>();
        arrows.stream().filter(LadderChart.DrawnArrow::highlighted).forEach(arrow -> lit.add(arrow.index()));
        return lit;
    }

    private static int psn(LadderChart.DrawnArrow arrow) {
        Matcher matcher = PSN.matcher(arrow.name());
        assertTrue(matcher.find(), arrow::toString);
        return Integer.parseInt(matcher.group(1));
    }

    /** The PSNs the detail line says were sent again ("sent again: PSN 12–14, 20 (...); PSN 40 (...);"). */
    private static Set<Integer> resentIn(String detail) {
        int from = detail.indexOf("sent again: ");
        assertTrue(from >= 0, detail);
        Set<Integer> psns = new TreeSet<>();
        Matcher lists = Pattern.compile("PSN ([0-9–, ]+)").matcher(detail.substring(from));
        while (lists.find()) {
            for (String part : lists.group(1).trim().split(", ")) {
                String[] range = part.trim().split("–");
                int low = Integer.parseInt(range[0]);
                int high = Integer.parseInt(range[range.length - 1]);
                for (int psn = low; psn <= high; psn++) {
                    psns.add(psn);
                }
            }
        }
        return psns;
    }

    /** Whether {@code request}'s row lies whole inside the table's rows, under its header. */
    private static boolean rowShownWhole(TableView<?> table, WorkRequest request) {
        javafx.scene.Node header = table.lookup(".column-header-background");
        javafx.geometry.Bounds inside = table.localToScene(table.getLayoutBounds());
        double top = header.localToScene(header.getLayoutBounds()).getMaxY();
        return table.lookupAll(".table-row-cell").stream()
                .filter(cell -> cell.isVisible() && ((TableRow<?>) cell).getItem() == request)
                .map(cell -> cell.localToScene(cell.getLayoutBounds()))
                .anyMatch(row -> row.getMinY() >= top - 0.5 && row.getMaxY() <= inside.getMaxY() + 0.5);
    }

    @Test
    void aBadRkeyShowsItsNakAndItsCompletionSelectsTheWriteAndTheNakAlone(FxRobot robot) {
        open(robot, null);
        runSeedFlow();
        String[] outcome = new String[1];
        FxWait.onFx(() -> {
            WindowScenario.postBadRkeyWrite(lab(), said -> outcome[0] = said);
            return null;
        });
        FxWait.waitFor("the bad rkey's completion", 30, () -> outcome[0] != null);
        assertEquals("IBV_WC_REM_ACCESS_ERR", outcome[0]);
        FxWait.waitFor("the NAK tied to the WRITE", 10, () -> {
            WorkRequest write = request(7);
            return write != null && write.packets().length == 2;
        });
        WorkRequest write = request(7);
        assertEquals("IBV_WR_RDMA_WRITE", write.opcode().cName());
        assertEquals(11, write.length());
        assertEquals("1", write.psnRange());
        assertEquals("client", write.side());
        assertEquals("completed: IBV_WC_REM_ACCESS_ERR", WorkRequestsViewModel.stateWords(write));
        assertEquals("completed", WorkRequestsViewModel.stateWords(request(0)), "the seed's WRITE succeeded");
        // The requests hear of the NAK at once; the ladder draws it at its next redraw (at most every 100 ms).
        LadderReading.awaitDrawn(window.ladder());
        List<LadderChart.DrawnArrow> arrows = LadderReading.everyArrow(chart(robot));
        List<LadderChart.DrawnArrow> naks = arrows.stream().filter(arrow -> arrow.name().startsWith("NAK")).toList();
        assertEquals(1, naks.size(), arrows::toString);
        assertTrue(naks.get(0).name().matches("NAK remote access error \\(code 2\\) PSN 1 MSN \\d+"), naks.get(0).name());
        assertTrue(lit(arrows).isEmpty(), "nothing is selected yet");
        // With nothing picked, the table keeps the newest request, the failed WRITE, whole in view.
        TableView<?> shown = robot.lookup("#requestTable").queryAs(TableView.class);
        FxWait.waitFor("the failed WRITE's row in view", 10, () -> FxWait.onFx(() -> rowShownWhole(shown, write)));
        assertTrue(FxWait.onFx(() -> shown.getSelectionModel().isEmpty()), "tailing selects nothing");

        // The completion picked in the completions table: the WRITE and its NAK are lit, and nothing else.
        clickRow(robot, "#completionTable", (CompletionRow row) -> row.completion().wrId() == 7);
        assertEquals("IBV_WC_REM_ACCESS_ERR", FxWait.onFx(() -> lab().selectedCompletionProperty().get())
                .completion().status().cName());
        assertEquals(write, FxWait.onFx(() -> window.workRequests().selectedProperty().get()));
        arrows = LadderReading.everyArrow(chart(robot));
        List<String> litNames = arrows.stream().filter(LadderChart.DrawnArrow::highlighted)
                .map(LadderChart.DrawnArrow::name).toList();
        assertEquals(2, litNames.size(), litNames::toString);
        assertEquals("RDMA_WRITE_ONLY PSN 1 AckReq", litNames.get(0));
        assertEquals(naks.get(0).name(), litNames.get(1));
        String detail = FxWait.onFx(() -> window.workRequests().detailProperty().get());
        assertTrue(detail.contains("wr_id 7 IBV_WR_RDMA_WRITE, 11 B") && detail.contains("PSN 1, 2 packets")
                && detail.endsWith("completion IBV_WC_REM_ACCESS_ERR."), detail);
        TableView<?> requests = robot.lookup("#requestTable").queryAs(TableView.class);
        assertEquals(write, FxWait.onFx(() -> requests.getSelectionModel().getSelectedItem()));

        // A packet clicked on the ladder: the seed's WRITE, its ACK lit with it, and its completion selected.
        FxWait.onFx(() -> {
            chart(robot).followProperty().set(false);
            chart(robot).topProperty().set(0);
            return null;
        });
        org.testfx.util.WaitForAsyncUtils.waitForFxEvents();
        LadderChart.DrawnArrow first = FxWait.onFx(() -> chart(robot).visible().arrows().get(0));
        assertEquals("RDMA_WRITE_ONLY PSN 0 AckReq", first.name());
        javafx.geometry.Bounds bounds = FxWait.onFx(() -> chart(robot).localToScreen(chart(robot).getLayoutBounds()));
        robot.clickOn(bounds.getMinX() + bounds.getWidth() / 2, bounds.getMinY() + first.y() + 4);
        org.testfx.util.WaitForAsyncUtils.waitForFxEvents();
        WorkRequest seed = request(0);
        assertEquals(seed, FxWait.onFx(() -> window.workRequests().selectedProperty().get()));
        assertEquals(seed, FxWait.onFx(() -> requests.getSelectionModel().getSelectedItem()));
        CompletionRow seedRow = FxWait.onFx(() -> lab().selectedCompletionProperty().get());
        assertNotNull(seedRow);
        assertEquals(0, seedRow.completion().wrId());
        assertEquals("IBV_WC_SUCCESS", seedRow.completion().status().cName());
        // The WRITE and its ACK are lit, and nothing else; the chart under the request table may be too
        // short to show both at once, so the whole ladder is read a view at a time (and the chart draws
        // a new highlight in its next frame).
        FxWait.waitFor("the WRITE and its ACK lit", 10, () -> FxWait.onFx(() -> Set.copyOf(window.ladder()
                .selectedPackets())).size() == 2);
        org.testfx.util.WaitForAsyncUtils.waitForFxEvents();
        assertEquals(List.of("RDMA_WRITE_ONLY PSN 0 AckReq", "ACK PSN 0 MSN 1"), LadderReading.everyArrow(chart(robot)).stream()
                .filter(LadderChart.DrawnArrow::highlighted).map(LadderChart.DrawnArrow::name).toList());

        // The request picked in its own table selects its completion.
        clickRow(robot, "#requestTable", (WorkRequest request) -> request.wrId() == 7);
        assertEquals(7, FxWait.onFx(() -> lab().selectedCompletionProperty().get()).completion().wrId());
        assertEquals(Set.of(naks.get(0).index(), naks.get(0).index() - 1),
                FxWait.onFx(() -> Set.copyOf(window.ladder().selectedPackets())));

        // Empty space clears all three: a place on the chart well away from every arrow drawn.
        FxWait.onFx(() -> {
            chart(robot).followProperty().set(false);
            chart(robot).topProperty().set(0);
            return null;
        });
        org.testfx.util.WaitForAsyncUtils.waitForFxEvents();
        List<Double> ys = FxWait.onFx(() -> chart(robot).visible().arrows().stream().map(LadderChart.DrawnArrow::y)
                .toList());
        // Where the chart is now: the line under the request table may have moved it since the first click.
        javafx.geometry.Bounds now = FxWait.onFx(() -> chart(robot).localToScreen(chart(robot).getLayoutBounds()));
        double height = now.getHeight();
        // 40 px clear of every arrow in view and of the bottom edge, below which the next arrow may lie
        // (a click picks the nearest arrow within about 25 px, drawn or not).
        double empty = java.util.stream.DoubleStream.iterate(height - 40, y -> y > 4, y -> y - 2)
                .filter(y -> ys.stream().allMatch(arrowY -> Math.abs(arrowY - y) > 40)).findFirst().orElseThrow();
        robot.clickOn(now.getMinX() + now.getWidth() / 2, now.getMinY() + empty);
        org.testfx.util.WaitForAsyncUtils.waitForFxEvents();
        assertEquals(null, FxWait.onFx(() -> window.workRequests().selectedProperty().get()));
        assertEquals(null, FxWait.onFx(() -> lab().selectedCompletionProperty().get()));
        assertTrue(FxWait.onFx(() -> window.ladder().selectedPackets().isEmpty()));
    }

    @Test
    void underFivePercentLossTheWritePickedLightsExactlyItsPacketsAndEveryPsnSentAgain(FxRobot robot) {
        open(robot, "drop=0.05,seed=11");
        // Every lost READ response waits out the requester's ACK timeout, as on rxe: 0x10 (268 ms) rather
        // than the seed's 0x12 (1.07 s) keeps the test short and still far above a loaded machine's delays.
        WindowScenario bulk = WindowScenario.bulk(64 * 1024, "0x10");
        FxWait.onFx(() -> {
            bulk.start().accept(lab());
            return null;
        });
        FxWait.waitFor("the WRITE and the READ", 120, () -> FxWait.onFx(() -> bulk.ended().test(lab())));
        FxWait.waitFor("the READ's packets on the ladder", 10, () -> {
            WorkRequest read = request(2);
            return read != null && read.state() == WorkRequest.State.COMPLETED && read.psnRange().equals("65..128");
        });
        WorkRequest write = request(1);
        assertEquals("IBV_WR_RDMA_WRITE", write.opcode().cName());
        assertEquals(64 * 1024, write.length());
        assertEquals("1..64", write.psnRange(), "after the seed's WRITE at PSN 0, 64 packets of 1024 bytes");
        assertEquals(WorkRequest.State.COMPLETED, write.state());
        assertEquals("IBV_WC_SUCCESS", write.status());
        LadderReading.awaitDrawn(window.ladder());

        clickRow(robot, "#requestTable", (WorkRequest request) -> request.wrId() == 1);
        assertEquals(1, FxWait.onFx(() -> lab().selectedCompletionProperty().get()).completion().wrId());
        List<LadderChart.DrawnArrow> arrows = LadderReading.everyArrow(chart(robot));
        // An independent count from the drawn names: the WRITE's packets are the WRITE arrows with PSN 1..64
        // (first sends and retransmissions) and the ACKs and NAKs with a PSN in that range.
        Set<Long> expected = new TreeSet<>();
        Set<Integer> resentPsns = new TreeSet<>();
        Set<Integer> sentPsns = new TreeSet<>();
        for (LadderChart.DrawnArrow arrow : arrows) {
            boolean writePacket = arrow.name().startsWith("RDMA_WRITE_");
            boolean answer = arrow.name().startsWith("ACK ") || arrow.name().startsWith("NAK ")
                    || arrow.name().startsWith("RNR NAK ");
            if (!writePacket && !answer) {
                continue;
            }
            int psn = psn(arrow);
            if (psn < 1 || psn > 64) {
                continue;
            }
            expected.add(arrow.index());
            if (writePacket && !sentPsns.add(psn)) {
                resentPsns.add(psn);
                assertTrue(arrow.marks().stream().anyMatch(mark -> mark.startsWith("retransmission of #")),
                        () -> "a PSN sent again is marked: " + arrow);
            }
        }
        assertFalse(resentPsns.isEmpty(), "5 % loss resent some of the WRITE");
        assertEquals(expected, lit(arrows), "exactly the WRITE's packets, its retransmissions, ACKs and NAKs are lit");
        String detail = FxWait.onFx(() -> window.workRequests().detailProperty().get());
        assertEquals(resentPsns, resentIn(detail), detail);
        assertTrue(detail.contains("(retransmit timeout ") || detail.contains("(resent after NAK"), detail);
        // The line is read on screen at the window's own size: two lines high above the request table
        // (the table gives way, not the line), the whole of it in its tooltip.
        Label line = robot.lookup("#requestLine").queryAs(Label.class);
        TableView<?> requestTable = robot.lookup("#requestTable").queryAs(TableView.class);
        FxWait.onFx(() -> {
            assertTrue(line.isVisible() && line.getHeight() >= 30, "the line is two lines high: " + line.getHeight());
            assertEquals(detail, line.getText());
            assertEquals(detail, line.getTooltip().getText());
            javafx.geometry.Bounds drawn = line.localToScene(line.getLayoutBounds());
            javafx.geometry.Bounds table = requestTable.localToScene(requestTable.getLayoutBounds());
            assertTrue(drawn.getMinY() >= 0 && drawn.getMaxY() <= table.getMinY() + 0.5,
                    "above the table: " + drawn + " / " + table);
            return true;
        });

        // Its completion picked instead: the same packets.
        clickRow(robot, "#completionTable", (CompletionRow row) -> row.completion().wrId() == 2);
        assertEquals(2, FxWait.onFx(() -> window.workRequests().selectedProperty().get()).wrId());
        clickRow(robot, "#completionTable", (CompletionRow row) -> row.completion().wrId() == 1);
        assertEquals(expected, lit(LadderReading.everyArrow(chart(robot))));
    }
}
