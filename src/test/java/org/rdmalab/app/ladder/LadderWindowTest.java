package org.rdmalab.app.ladder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javafx.stage.Stage;
import javafx.stage.Window;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.rdmalab.app.FxWait;
import org.rdmalab.app.MainWindow;
import org.rdmalab.app.WindowRobot;
import org.rdmalab.app.WindowScenario;
import org.rdmalab.app.lab.CompletionRow;
import org.rdmalab.app.lab.LabViewModel;
import org.rdmalab.app.lab.SideViewModel;
import org.rdmalab.capture.CaptureInspector;
import org.rdmalab.testing.Ports;
import org.rdmalab.verbs.OneShotFault;
import org.rdmalab.verbs.spi.Backends;
import org.rdmalab.verbs.spi.DeviceOptions;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.Start;

/** The Ladder tab in the lab window, headless (TestFX + Monocle): live flows, faults, captures. */
@ExtendWith(WindowRobot.class)
class LadderWindowTest {

    private MainWindow window;
    private Stage stage;

    @TempDir
    Path dir;

    @Start
    void start(Stage stage) {
        this.stage = stage;
    }

    /** Opens the window with software devices injecting {@code faults} (null for none). */
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
    }

    @AfterEach
    void close(FxRobot robot) {
        // The stage is shared with the window tests after this one in the JVM: back to the window's size.
        robot.interact(() -> org.rdmalab.app.TestWindows.close(stage, window));
    }

    private LabViewModel lab() {
        return window.lab();
    }

    private LadderChart chart(FxRobot robot) {
        return robot.lookup("#ladderChart").queryAs(LadderChart.class);
    }

    /** Clicks the Wire tab, then its Ladder tab, as a user would. */
    private void showLadder(FxRobot robot) {
        robot.clickOn(robot.lookup(".inspector .tab-label").match(node -> "Wire".equals(((javafx.scene.control.Label) node)
                .getText())).queryAs(javafx.scene.Node.class));
        robot.clickOn(robot.lookup(".wire-tabs .tab-label").match(node -> "Ladder".equals(
                ((javafx.scene.control.Label) node).getText())).queryAs(javafx.scene.Node.class));
    }

    /** Runs the seed's flow on both sides with the recommended GID, to its end. */
    private void runSeedFlow() {
        FxWait.onFx(() -> {
            lab().setup().useRecommendedGid();
            lab().apply(lab().defaultSetup().withGidIndex(lab().setup().gidIndexProperty().get()));
            lab().runAllToEnd();
            return null;
        });
        waitIdle("the seed's flow");
        for (SideViewModel side : lab().sides()) {
            assertEquals(-1, side.failedIndex(), side.name() + " failed");
        }
    }

    private void waitIdle(String what) {
        FxWait.waitFor(what, 60, () -> !lab().sides().isEmpty()
                && lab().sides().stream().noneMatch(side -> side.busyProperty().get())
                && lab().sides().stream().allMatch(side -> side.nextIndexProperty().get() >= side.steps().size()
                        || side.failedIndex() >= 0));
    }


    private static long count(List<LadderChart.DrawnArrow> arrows, String name) {
        return arrows.stream().filter(arrow -> arrow.name().equals(name)).count();
    }

    @Test
    void theWireTabsFirstShowingBringsInItsLadderAloneAndEachOtherViewWhenFirstPicked(FxRobot robot) {
        open(robot, null);
        showLadder(robot);
        assertTrue(robot.lookup("#ladderChart").tryQuery().isPresent(), "the ladder is shown");
        // Built and following the lab, but not styled or laid out before it is first shown.
        assertTrue(robot.lookup("#packetTable").tryQuery().isEmpty(), "the Packets table waits for its tab");
        assertTrue(robot.lookup(".faults-view").tryQuery().isEmpty(), "the Faults form too");
        robot.clickOn(robot.lookup(".wire-tabs .tab-label").match(node -> "Packets".equals(
                ((javafx.scene.control.Label) node).getText())).queryAs(javafx.scene.Node.class));
        assertTrue(robot.lookup("#packetTable").tryQuery().isPresent(), "shown once its tab is picked");
        assertTrue(robot.lookup(".faults-view").tryQuery().isEmpty(), "the Faults form still waits");
    }

    @Test
    void dropTheNextAckShowsTheWriteSentTwiceWhileItsCompletionSaysSuccess(FxRobot robot) {
        open(robot, null);
        showLadder(robot);
        FxWait.onFx(() -> window.faults().arm(OneShotFault.Kind.DROP_NEXT_ACK));
        runSeedFlow();
        FxWait.waitFor("the completion", 30, () -> !lab().completions().isEmpty());
        CompletionRow completion = lab().completions().get(0);
        assertEquals("IBV_WC_SUCCESS", completion.completion().status().cName());
        FxWait.waitFor("the ladder", 10, () -> FxWait.onFx(() -> chart(robot).visible().total()) >= 4);
        List<LadderChart.DrawnArrow> arrows = LadderReading.everyArrow(chart(robot));
        String write = "RDMA_WRITE_ONLY PSN 0 AckReq";
        assertEquals(2, count(arrows, write), () -> "the WRITE twice: " + arrows);
        LadderChart.DrawnArrow first = arrows.stream().filter(arrow -> arrow.name().equals(write)).findFirst().orElseThrow();
        LadderChart.DrawnArrow again = arrows.stream().filter(arrow -> arrow.name().equals(write)).skip(1).findFirst()
                .orElseThrow();
        assertTrue(first.marks().isEmpty(), () -> "the first WRITE is no retransmission: " + first);
        assertEquals(List.of("retransmission of #" + first.index()), again.marks());
        assertTrue(first.fromA() && again.fromA(), "both go from the client's line");
        assertTrue(first.detail().startsWith("11 B · RETH va 0x") && first.detail().endsWith(" len 11"), first.detail());
        List<LadderChart.DrawnArrow> acks = arrows.stream().filter(arrow -> arrow.name().equals("ACK PSN 0 MSN 1")).toList();
        assertEquals(2, acks.size(), () -> "the lost ACK and the one after the retransmission: " + arrows);
        assertEquals(List.of("✗ dropped: drop (one-shot): the next ACK"), acks.get(0).marks());
        assertTrue(acks.get(1).marks().isEmpty());
        assertFalse(acks.get(0).fromA(), "an ACK runs back");
        assertTrue(acks.get(0).index() < again.index() && again.index() < acks.get(1).index());
        LadderChart.Visible visible = FxWait.onFx(() -> chart(robot).visible());
        assertTrue(FxWait.onFx(() -> {
            chart(robot).scrollTo(again.index());
            return true;
        }));
        org.testfx.util.WaitForAsyncUtils.waitForFxEvents();
        List<String> pauses = FxWait.onFx(() -> chart(robot).visible().pauses());
        assertTrue(pauses.stream().anyMatch(pause -> pause.matches("retransmit timeout 1\\.\\d\\d s")),
                () -> "the wait before the retransmission is drawn with its length: " + pauses + " " + visible);
    }

    /**
     * {@code gui --scenario drop-ack} as it runs: the window just opened, the Wire tab never shown,
     * the scenario arms its fault before the devices open; the fault fires on the server's ACK and
     * the scenario's own verdict is satisfied. (The Faults form sits in a scroll pane of the held
     * Wire tab: a lookup through skins found nothing there, and the fault was never armed.)
     */
    @Test
    void theDropAckScenarioArmsItsFaultInAWindowJustOpenedAndTheAckIsLost(FxRobot robot) {
        open(robot, null);
        WindowScenario dropAck = WindowScenario.named("drop-ack");
        FxWait.onFx(() -> {
            dropAck.start().accept(lab());
            return null;
        });
        assertEquals(1, FxWait.onFx(() -> window.faults().shots().size()), "armed at once");
        waitIdle("the drop-ack scenario");
        FxWait.waitFor("the fault in the log", 10, () -> FxWait.onFx(() -> !window.faults().log().rows().isEmpty()));
        List<org.rdmalab.app.faults.FaultsViewModel.FaultRow> fired = FxWait.onFx(() -> List.copyOf(
                window.faults().log().rows()));
        assertEquals(1, fired.size(), () -> fired.toString());
        assertEquals("server", fired.get(0).side());
        assertEquals("RC_ACKNOWLEDGE", fired.get(0).packet().opcode());
        assertTrue(FxWait.onFx(() -> dropAck.ended().test(lab())));
        assertEquals(Optional.empty(), FxWait.onFx(() -> dropAck.failure(lab())));
    }

    @Test
    void aBulkTransferUnderFivePercentLossMarksEveryPsnSentAgain(FxRobot robot) {
        open(robot, "drop=0.05,seed=11");
        showLadder(robot);
        // Every lost READ response waits out the requester's ACK timeout, as on rxe: 0x10 (268 ms) rather
        // than the seed's 0x12 (1.07 s) keeps the test short and still far above a loaded machine's delays.
        WindowScenario bulk = WindowScenario.bulk(64 * 1024, "0x10");
        FxWait.onFx(() -> {
            bulk.start().accept(lab());
            return null;
        });
        FxWait.waitFor("the WRITE and the READ", 120, () -> FxWait.onFx(() -> bulk.ended().test(lab())));
        assertEquals(List.of("IBV_WC_SUCCESS", "IBV_WC_SUCCESS"), lab().completions().stream()
                .filter(row -> row.completion().wrId() == 1 || row.completion().wrId() == 2)
                .map(row -> row.completion().status().cName()).toList());
        // The summary below is compared with the arrows: both read once the views show every packet.
        LadderReading.awaitDrawn(window.ladder());
        List<LadderChart.DrawnArrow> arrows = LadderReading.everyArrow(chart(robot));
        // An independent count: a WRITE packet whose PSN the client's QP already sent is a retransmission of
        // the first packet with that PSN, and no other WRITE packet is.
        Map<Integer, Long> firstWithPsn = new java.util.HashMap<>();
        int retransmitted = 0;
        for (LadderChart.DrawnArrow arrow : arrows) {
            if (!arrow.name().startsWith("RDMA_WRITE_")) {
                continue;
            }
            assertTrue(arrow.fromA(), arrow::toString);
            int psn = Integer.parseInt(arrow.name().replaceAll("^\\S+ PSN (\\d+).*$", "$1"));
            Long first = firstWithPsn.putIfAbsent(psn, arrow.index());
            List<String> retransmission = arrow.marks().stream().filter(mark -> mark.startsWith("retransmission")).toList();
            if (first == null) {
                assertEquals(List.of(), retransmission, arrow::toString);
            } else {
                assertEquals(List.of("retransmission of #" + first), retransmission, arrow::toString);
                retransmitted++;
            }
        }
        assertEquals(1 + 64, firstWithPsn.size(), "the flow's own WRITE of HelloWorld, then 64 KiB in 1024-byte packets");
        assertTrue(retransmitted > 0, "5 % loss resent some of the WRITE");
        assertTrue(arrows.stream().anyMatch(arrow -> arrow.marks().stream().anyMatch(mark -> mark.startsWith(
                "✗ dropped: drop"))), "a drop is drawn crossed with its fault");
        String summary = FxWait.onFx(() -> window.ladder().summaryProperty().get());
        long counted = arrows.stream().filter(arrow -> arrow.marks().stream().anyMatch(mark -> mark.startsWith(
                "retransmission"))).count();
        assertTrue(summary.contains(", " + counted + " retransmitted,"), summary + " vs " + counted);
    }

    @Test
    void clickingAnArrowSelectsItAndTheSelectedPacketsAreHighlighted(FxRobot robot) {
        open(robot, null);
        // Time runs down the chart: the ACK is drawn up to 240 px below the WRITE when it comes a few
        // milliseconds later (a busy machine), more than the chart's 160-190 px at the default size
        // holds. A tall window keeps both in view from the top, whatever the delay.
        robot.interact(() -> {
            stage.setWidth(1900);
            stage.setHeight(1150);
        });
        showLadder(robot);
        runSeedFlow();
        FxWait.waitFor("the WRITE and its ACK", 10, () -> FxWait.onFx(() -> chart(robot).visible().total()) >= 2);
        FxWait.onFx(() -> {
            chart(robot).followProperty().set(false);
            chart(robot).topProperty().set(0);
            return null;
        });
        // Scrolled to the top, the chart draws its arrows again in a later pulse.
        FxWait.waitFor("the WRITE and its ACK drawn from the top", 10,
                () -> FxWait.onFx(() -> chart(robot).visible().arrows().size()) >= 2);
        LadderChart.DrawnArrow ack = FxWait.onFx(() -> chart(robot).visible().arrows().get(1));
        javafx.geometry.Bounds bounds = FxWait.onFx(() -> chart(robot).localToScreen(chart(robot).getLayoutBounds()));
        // Just below the arrow's line, inside the chart even when the arrow is drawn at its lower edge.
        robot.clickOn(bounds.getMinX() + bounds.getWidth() / 2, bounds.getMinY() + Math.min(ack.y() + 4,
                bounds.getHeight() - 2));
        org.testfx.util.WaitForAsyncUtils.waitForFxEvents();
        assertEquals(ack.index(), FxWait.onFx(() -> window.ladder().clickedProperty().get().index()));
        List<Boolean> lit = FxWait.onFx(() -> chart(robot).visible().arrows().stream()
                .map(LadderChart.DrawnArrow::highlighted).toList());
        // The ACK belongs to the seed's WRITE request: the request is selected, its packets lit.
        assertEquals(List.of(true, true), lit);
        assertEquals(0L, FxWait.onFx(() -> window.workRequests().selectedProperty().get().wrId()));
        // Another view selects the WRITE (a work request's packets): the chart lights it instead.
        long write = FxWait.onFx(() -> chart(robot).visible().arrows().get(0).index());
        FxWait.onFx(() -> {
            window.ladder().selectedPackets().clear();
            window.ladder().selectedPackets().add(write);
            return null;
        });
        org.testfx.util.WaitForAsyncUtils.waitForFxEvents();
        assertEquals(List.of(true, false), FxWait.onFx(() -> chart(robot).visible().arrows().stream()
                .map(LadderChart.DrawnArrow::highlighted).toList()));
        // Empty space: where the chart is now (the request table's line can move it), 40 px clear of every
        // arrow in view and of the bottom edge, below which the next arrow may lie (a click picks the
        // nearest arrow within about 25 px, drawn or not).
        javafx.geometry.Bounds now = FxWait.onFx(() -> chart(robot).localToScreen(chart(robot).getLayoutBounds()));
        List<Double> ys = FxWait.onFx(() -> chart(robot).visible().arrows().stream().map(LadderChart.DrawnArrow::y)
                .toList());
        double empty = java.util.stream.DoubleStream.iterate(now.getHeight() - 40, y -> y > 4, y -> y - 2)
                .filter(y -> ys.stream().allMatch(arrowY -> Math.abs(arrowY - y) > 40)).findFirst().orElseThrow();
        robot.clickOn(now.getMinX() + now.getWidth() / 2, now.getMinY() + empty);
        org.testfx.util.WaitForAsyncUtils.waitForFxEvents();
        assertEquals(null, FxWait.onFx(() -> window.ladder().clickedProperty().get()), "empty space clears it");
        assertTrue(FxWait.onFx(() -> window.ladder().selectedPackets().isEmpty()));
    }

    @Test
    void scrollingAndZoomingStopAtTheirEnds(FxRobot robot) {
        open(robot, null);
        showLadder(robot);
        // 64 KiB at path MTU 1024 each way: over 128 arrows, many views tall on any machine (each arrow
        // takes at least a row), so both ends are real ends.
        WindowScenario bulk = WindowScenario.bulk(64 * 1024);
        FxWait.onFx(() -> {
            bulk.start().accept(lab());
            return null;
        });
        FxWait.waitFor("the WRITE and the READ", 120, () -> FxWait.onFx(() -> bulk.ended().test(lab())));
        FxWait.waitFor("the ladder", 10, () -> FxWait.onFx(() -> chart(robot).visible().total()) >= 128);
        LadderChart chart = chart(robot);
        FxWait.onFx(() -> {
            chart.zoomBy(1e12);
            return null;
        });
        assertEquals(LadderLayout.MAX_ZOOM, FxWait.onFx(() -> chart.zoomProperty().get()));
        FxWait.onFx(() -> {
            chart.zoomBy(1e-12);
            return null;
        });
        assertEquals(LadderLayout.MIN_ZOOM, FxWait.onFx(() -> chart.zoomProperty().get()));
        FxWait.onFx(() -> {
            chart.zoomProperty().set(64);
            chart.topProperty().set(-500);
            return null;
        });
        org.testfx.util.WaitForAsyncUtils.waitForFxEvents();
        assertEquals(0.0, FxWait.onFx(() -> chart.topProperty().get()), "above the top: stops at the first packet");
        assertEquals(FxWait.onFx(() -> chart.visible().firstIndex()), 1L);
        assertFalse(FxWait.onFx(() -> chart.followProperty().get()));
        FxWait.onFx(() -> {
            chart.topProperty().set(1e12);
            return null;
        });
        org.testfx.util.WaitForAsyncUtils.waitForFxEvents();
        double bottom = FxWait.onFx(() -> chart.topProperty().get());
        assertTrue(bottom > 0 && bottom < 1e12, "past the end: stops at the last packet, " + bottom);
        long total = FxWait.onFx(() -> (long) chart.visible().total());
        assertEquals(total, (long) FxWait.onFx(() -> chart.visible().lastIndex()));
        robot.clickOn("#newestButton");
        assertTrue(FxWait.onFx(() -> chart.followProperty().get()));
    }

    @Test
    void aWriteWithABadRkeyShowsTheRemoteAccessErrorNakWithItsCode(FxRobot robot) {
        open(robot, null);
        showLadder(robot);
        runSeedFlow();
        String[] outcome = new String[1];
        FxWait.onFx(() -> {
            WindowScenario.postBadRkeyWrite(lab(), said -> outcome[0] = said);
            return null;
        });
        FxWait.waitFor("the bad rkey's completion", 30, () -> outcome[0] != null);
        assertEquals("IBV_WC_REM_ACCESS_ERR", outcome[0]);
        FxWait.waitFor("the NAK on the ladder", 10, () -> FxWait.onFx(() -> chart(robot).visible().arrows().stream()
                .anyMatch(arrow -> arrow.name().startsWith("NAK"))));
        List<LadderChart.DrawnArrow> arrows = LadderReading.everyArrow(chart(robot));
        List<LadderChart.DrawnArrow> naks = arrows.stream().filter(arrow -> arrow.name().startsWith("NAK")).toList();
        assertEquals(1, naks.size(), () -> arrows.toString());
        assertTrue(naks.get(0).name().matches("NAK remote access error \\(code 2\\) PSN 1 MSN \\d+"), naks.get(0).name());
        assertFalse(naks.get(0).fromA());
        LadderChart.DrawnArrow write = arrows.get(arrows.indexOf(naks.get(0)) - 1);
        assertEquals("RDMA_WRITE_ONLY PSN 1 AckReq", write.name(), "the NAK answers the WRITE before it");
        String summary = FxWait.onFx(() -> window.ladder().summaryProperty().get());
        assertTrue(summary.contains("1 NAKs"), summary);
        // No one-shot fault was armed here: the drop-ack scenario's verdict on this lab says so.
        assertEquals(Optional.of("the one-shot fault Drop the next ACK never fired"),
                FxWait.onFx(() -> WindowScenario.named("drop-ack").failure(lab())));
    }

    @Test
    void aSavedCaptureHasEveryIcrcOkAndOpensAsTheSameLadder(FxRobot robot) throws Exception {
        open(robot, null);
        showLadder(robot);
        runSeedFlow();
        FxWait.waitFor("the WRITE and its ACK", 10, () -> FxWait.onFx(() -> chart(robot).visible().total()) >= 2);
        List<LadderChart.DrawnArrow> live = LadderReading.everyArrow(chart(robot));
        assertEquals(List.of("RDMA_WRITE_ONLY PSN 0 AckReq", "ACK PSN 0 MSN 1"),
                live.stream().map(LadderChart.DrawnArrow::name).toList());
        Path saved = dir.resolve("session.pcap");
        FxWait.onFx(() -> {
            window.ladder().setFiles(files(saved, saved));
            return null;
        });
        robot.clickOn("#captureMenu").clickOn("#saveItem");
        FxWait.waitFor("the capture saved", 10, () -> FxWait.onFx(() -> window.ladder().outcomeProperty().get())
                .startsWith("Saved"));
        // pcap inspect's check, on the UDP port the test's devices use.
        int port = FxWait.onFx(() -> lab().currentProperty().get().base().udpPort());
        CaptureInspector.Result inspected = CaptureInspector.inspect(saved, port, line -> { });
        assertEquals(live.size(), inspected.packets(), "every packet on the wire, once");
        assertTrue(inspected.allOk(), () -> "every ICRC ok: " + inspected);
        robot.clickOn("#captureMenu").clickOn("#openItem");
        FxWait.waitFor("the capture drawn", 10, () -> FxWait.onFx(() -> window.ladder().shownProperty().get()
                .fromCapture() && !window.ladder().loadingProperty().get()));
        List<LadderChart.DrawnArrow> read = LadderReading.everyArrow(chart(robot));
        assertEquals(live.stream().map(LadderChart.DrawnArrow::name).toList(),
                read.stream().map(LadderChart.DrawnArrow::name).toList());
        assertTrue(FxWait.onFx(() -> window.ladder().summaryProperty().get()).contains("inferred"));
        robot.clickOn("#liveButton");
        assertFalse(FxWait.onFx(() -> window.ladder().shownProperty().get().fromCapture()));
    }

    @Test
    void aCaptureFromTheLaddersFixturesIsDrawnWithItsRetransmissionAndNak(FxRobot robot) throws Exception {
        open(robot, null);
        showLadder(robot);
        org.rdmalab.ladder.Wire wire = new org.rdmalab.ladder.Wire();
        wire.request(org.rdmalab.wire.Opcode.RC_RDMA_WRITE_FIRST, 5, false,
                        new org.rdmalab.wire.Reth(0x7f0000001000L, 0x1234, 2048), 1024)
                .request(org.rdmalab.wire.Opcode.RC_RDMA_WRITE_LAST, 6, true, null, 1024)
                .after(1_070_000_000L)
                .request(org.rdmalab.wire.Opcode.RC_RDMA_WRITE_FIRST, 5, false,
                        new org.rdmalab.wire.Reth(0x7f0000001000L, 0x1234, 2048), 1024)
                .request(org.rdmalab.wire.Opcode.RC_RDMA_WRITE_LAST, 6, true, null, 1024)
                .response(org.rdmalab.wire.Opcode.RC_ACKNOWLEDGE, 6, org.rdmalab.wire.Aeth.ack(1), 0)
                .request(org.rdmalab.wire.Opcode.RC_SEND_ONLY, 7, true, null, 16)
                .response(org.rdmalab.wire.Opcode.RC_ACKNOWLEDGE, 7, org.rdmalab.wire.Aeth.rnrNak(14, 1), 0);
        Path pcapng = dir.resolve("fixture.pcapng");
        wire.writePcapng(pcapng);
        FxWait.onFx(() -> {
            window.ladder().openCapture(pcapng);
            return null;
        });
        FxWait.waitFor("the capture drawn", 10, () -> FxWait.onFx(() -> window.ladder().shownProperty().get()
                .fromCapture() && !window.ladder().loadingProperty().get()));
        List<LadderChart.DrawnArrow> arrows = LadderReading.everyArrow(chart(robot));
        assertEquals(List.of("RDMA_WRITE_FIRST PSN 5", "RDMA_WRITE_LAST PSN 6 AckReq", "RDMA_WRITE_FIRST PSN 5",
                "RDMA_WRITE_LAST PSN 6 AckReq", "ACK PSN 6 MSN 1", "SEND_ONLY PSN 7 AckReq",
                "RNR NAK timer 14 (1.28 ms) PSN 7 MSN 1"), arrows.stream().map(LadderChart.DrawnArrow::name).toList());
        assertEquals("1024 B · RETH va 0x7f0000001000 rkey 0x1234 len 2048", arrows.get(0).detail());
        assertEquals(List.of("retransmission of #1"), arrows.get(2).marks());
        assertEquals(List.of("retransmission of #2"), arrows.get(3).marks());
        assertTrue(arrows.get(1).marks().isEmpty());
        org.testfx.util.WaitForAsyncUtils.waitForFxEvents();
        FxWait.onFx(() -> chart(robot).scrollTo(3));
        org.testfx.util.WaitForAsyncUtils.waitForFxEvents();
        assertTrue(FxWait.onFx(() -> chart(robot).visible().pauses()).contains("retransmit timeout 1.07 s"),
                () -> FxWait.onFx(() -> chart(robot).visible().pauses()).toString());
        String summary = FxWait.onFx(() -> window.ladder().summaryProperty().get());
        assertEquals("7 packets, 2 messages, 2 retransmitted, 1 NAKs, 0 dropped (messages inferred from the opcodes and PSNs)",
                summary);
    }

    @Test
    void aFileThatIsNoCaptureLeavesOneLineAndTheLadderAsItWas(FxRobot robot) throws Exception {
        open(robot, null);
        showLadder(robot);
        Path text = dir.resolve("notes.pcap");
        java.nio.file.Files.writeString(text, "not a capture at all\n");
        FxWait.onFx(() -> {
            window.ladder().setFiles(files(text, null));
            return null;
        });
        robot.clickOn("#captureMenu").clickOn("#openItem");
        FxWait.waitFor("the notice", 10, () -> !FxWait.onFx(() -> window.ladder().loadingProperty().get()));
        String notice = FxWait.onFx(() -> window.ladder().noticeProperty().get());
        assertTrue(notice.startsWith("Cannot open notes.pcap: "), notice);
        assertFalse(notice.contains("\n"), notice);
        assertFalse(FxWait.onFx(() -> window.ladder().shownProperty().get().fromCapture()));
    }

    /** Answers Open capture… with {@code open} and Save capture… with {@code save}, without a dialog. */
    private static CaptureFiles files(Path open, Path save) {
        return new CaptureFiles() {
            @Override
            public Optional<Path> toOpen(Window owner) {
                return Optional.ofNullable(open);
            }

            @Override
            public Optional<Path> toSave(Window owner) {
                return Optional.ofNullable(save);
            }
        };
    }
}
