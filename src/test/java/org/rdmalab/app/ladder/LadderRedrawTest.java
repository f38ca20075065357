package org.rdmalab.app.ladder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.rdmalab.app.LoopbackLab;
import org.rdmalab.app.WindowScenario;
import org.rdmalab.app.common.Throttle;

/**
 * While packets stream, the live ladder takes every packet at once but the views show it (the
 * chart's redraw, the summary, the work requests' table) at most every
 * {@link LadderViewModel#REDRAW_MILLIS}, and always show the last change; while they are not on
 * screen, not at all until they are again.
 */
class LadderRedrawTest {

    private static final long MS = 1_000_000L;

    @RegisterExtension
    final LoopbackLab loopback = new LoopbackLab();

    @TempDir
    Path dir;

    /** 8 KiB at path MTU 1024: a WRITE of 8 packets and a READ of 8 responses. */
    private static final int BYTES = 8 * 1024;

    private final AtomicLong clock = new AtomicLong(1_000 * MS);
    private final List<Runnable> waiting = new ArrayList<>();
    private String[] said;

    @Test
    void aChangeWithinTheIntervalIsShownOnceTheIntervalHasPassedAndTheTableWithIt() throws Exception {
        Views views = afterTheBulkSteps();
        LadderViewModel ladder = views.ladder();
        WorkRequestsViewModel requests = views.requests();

        clock.addAndGet(1_000 * MS);
        long quiet = loopback.onUi(() -> ladder.shownRevisionProperty().get());
        transfer(ladder, "first");
        assertTrue(loopback.onUi(() -> ladder.shownRevisionProperty().get()) > quiet,
                "the first change after a quiet second is drawn at once");
        while (!waiting.isEmpty()) {
            clock.addAndGet(LadderViewModel.REDRAW_MILLIS * MS);
            loopback.run(waiting.remove(0));
        }
        long firstCount = loopback.onUi(() -> ladder.liveLadder().summary().packets());
        long shown = loopback.onUi(() -> ladder.shownRevisionProperty().get());
        String summary = loopback.onUi(() -> ladder.summaryProperty().get());
        assertTrue(summary.startsWith(firstCount + " packets, "), summary);

        clock.addAndGet(30 * MS);
        long revision = loopback.onUi(() -> ladder.revisionProperty().get());
        transfer(ladder, "second");
        // The posts and completions refreshed the table as they came; the packets wait for the redraw.
        long table = loopback.onUi(() -> requests.revisionProperty().get());
        long secondCount = loopback.onUi(() -> ladder.liveLadder().summary().packets());
        assertTrue(secondCount > firstCount, secondCount + " after " + firstCount);
        assertTrue(loopback.onUi(() -> ladder.revisionProperty().get()) > revision, "the ladder took the packets");
        assertEquals(shown, loopback.onUi(() -> ladder.shownRevisionProperty().get()), "30 ms later: not drawn yet");
        assertEquals(summary, loopback.onUi(() -> ladder.summaryProperty().get()), "nor counted in the summary");
        assertEquals(1, waiting.size(), "one redraw waits for the interval");

        clock.addAndGet(LadderViewModel.REDRAW_MILLIS * MS);
        loopback.run(waiting.remove(0));
        assertEquals(shown + 1, loopback.onUi(() -> ladder.shownRevisionProperty().get()), "drawn once");
        String after = loopback.onUi(() -> ladder.summaryProperty().get());
        assertTrue(after.startsWith(secondCount + " packets, "), "the last change is shown: " + after);
        assertEquals(table + 1, loopback.onUi(() -> requests.revisionProperty().get()),
                "the work requests' table shows their packets with it");
    }

    @Test
    void whileNotOnScreenTheViewsAreNotDrawnAndShownAgainTheyAreDrawnAtOnce() throws Exception {
        Views views = afterTheBulkSteps();
        LadderViewModel ladder = views.ladder();
        WorkRequestsViewModel requests = views.requests();
        loopback.run(() -> ladder.onScreenProperty().set(false));

        clock.addAndGet(1_000 * MS);
        long shown = loopback.onUi(() -> ladder.shownRevisionProperty().get());
        String summary = loopback.onUi(() -> ladder.summaryProperty().get());
        transfer(ladder, "hidden");
        while (!waiting.isEmpty()) {
            clock.addAndGet(LadderViewModel.REDRAW_MILLIS * MS);
            loopback.run(waiting.remove(0));
        }
        long count = loopback.onUi(() -> ladder.liveLadder().summary().packets());
        assertTrue(count > 0, "the ladder took the packets");
        assertEquals(shown, loopback.onUi(() -> ladder.shownRevisionProperty().get()), "not drawn while not on screen");
        assertEquals(summary, loopback.onUi(() -> ladder.summaryProperty().get()), "nor counted in the summary");
        long table = loopback.onUi(() -> requests.revisionProperty().get());

        loopback.run(() -> ladder.onScreenProperty().set(true));
        assertEquals(shown + 1, loopback.onUi(() -> ladder.shownRevisionProperty().get()), "drawn once, at once");
        String after = loopback.onUi(() -> ladder.summaryProperty().get());
        assertTrue(after.startsWith(count + " packets, "), "the last change is shown: " + after);
        assertEquals(table + 1, loopback.onUi(() -> requests.revisionProperty().get()),
                "the work requests' table shows their packets with it");
        loopback.run(() -> ladder.onScreenProperty().set(false));
        loopback.run(() -> ladder.onScreenProperty().set(true));
        assertEquals(shown + 1, loopback.onUi(() -> ladder.shownRevisionProperty().get()),
                "nothing new while away: not drawn again");
    }

    private record Views(LadderViewModel ladder, WorkRequestsViewModel requests) {
    }

    /**
     * The ladder, redrawn on the test's clock, and its work requests' table, over the loopback lab
     * run to the end of the bulk flow's steps.
     */
    private Views afterTheBulkSteps() throws Exception {
        LadderViewModel ladder = loopback.onUi(() -> new LadderViewModel(loopback.lab(), Runnable::run, Runnable::run,
                hold -> { }, action -> new Throttle(LadderViewModel.REDRAW_MILLIS * MS, clock::get, waiting::add, action)));
        WorkRequestsViewModel requests = loopback.onUi(() -> new WorkRequestsViewModel(loopback.lab(), ladder));
        loopback.run(() -> {
            loopback.lab().apply(loopback.lab().defaultSetup().withGidIndex("3"));
            WindowScenario.bulkSteps(loopback.lab(), BYTES, null);
        });
        loopback.runToTheEnd();
        return new Views(ladder, requests);
    }

    /** The client WRITEs and READs BYTES; the ladder takes every packet (Save capture… settles them all). */
    private void transfer(LadderViewModel ladder, String name) {
        said = new String[1];
        loopback.run(() -> WindowScenario.writeAndReadBack(loopback.lab(), BYTES, outcome -> said[0] = outcome));
        loopback.await("the " + name + " WRITE and READ", () -> said[0] != null);
        assertEquals("IBV_WC_SUCCESS IBV_WC_SUCCESS", said[0]);
        Path file = dir.resolve(name + ".pcap");
        loopback.run(() -> ladder.saveCapture(file));
        loopback.await("the " + name + " capture saved", () -> ladder.outcomeProperty().get().startsWith("Saved"));
    }
}
