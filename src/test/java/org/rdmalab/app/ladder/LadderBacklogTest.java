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
import org.rdmalab.capture.CaptureInspector;
import org.rdmalab.lab.LabEvent;
import org.rdmalab.verbs.PacketEvent;

/**
 * The live ladder when packets come faster than it draws them: a backlog over
 * {@link LadderViewModel#HELD_LIMIT} goes to the capture undrawn, the summary says how many, and
 * the saved capture still has every packet.
 */
class LadderBacklogTest {

    @RegisterExtension
    final LoopbackLab loopback = new LoopbackLab();

    @TempDir
    Path dir;

    /** 2 MiB at path MTU 1024: a 2 048-packet WRITE and a READ answered by 2 048 responses, each seen twice. */
    private static final int BYTES = 2 * 1024 * 1024;

    @Test
    void aBacklogOverTheLimitIsShedUndrawnAndTheSummaryAndTheCaptureSayHowMany() throws Exception {
        List<Runnable> holds = new ArrayList<>();
        AtomicLong heard = new AtomicLong();
        AtomicLong sent = new AtomicLong();
        // The hold never ends on its own here: everything the lab reports waits, as it does while
        // the window is busy drawing, until the test lets the first hold end.
        LadderViewModel ladder = loopback.onUi(() -> {
            LadderViewModel made = new LadderViewModel(loopback.lab(), Runnable::run, Runnable::run, holds::add);
            loopback.lab().afterEvent(event -> {
                if (event.event() instanceof LabEvent.Packet packet && packet.packet().bytes() != null) {
                    heard.incrementAndGet();
                    if (packet.packet().direction() == PacketEvent.Direction.SENT) {
                        sent.incrementAndGet();
                    }
                }
            });
            return made;
        });
        loopback.run(() -> {
            loopback.lab().apply(loopback.lab().defaultSetup().withGidIndex("3"));
            WindowScenario.bulkSteps(loopback.lab(), BYTES, null);
        });
        loopback.runToTheEnd();
        String[] said = new String[1];
        loopback.run(() -> WindowScenario.writeAndReadBack(loopback.lab(), BYTES, outcome -> said[0] = outcome));
        loopback.await("the WRITE and the READ", () -> said[0] != null);
        assertEquals("IBV_WC_SUCCESS IBV_WC_SUCCESS", said[0]);
        assertEquals(1, holds.size(), "one hold armed, not yet ended");
        assertTrue(heard.get() > LadderViewModel.HELD_LIMIT + 500, "a backlog over the limit: " + heard.get());

        loopback.run(holds.get(0));
        // Saving takes in what still waits, settled or not; nothing more is over the limit.
        Path saved = dir.resolve("backlog.pcap");
        loopback.run(() -> ladder.saveCapture(saved));
        loopback.await("the capture saved", () -> ladder.outcomeProperty().get().startsWith("Saved"));
        // Every packet sent is either drawn or counted as not drawn, once: a send shed undrawn is not
        // drawn later from its arrival.
        long drawn = loopback.onUi(() -> ladder.liveLadder().summary().packets());
        String summary = loopback.onUi(() -> ladder.summaryProperty().get());
        assertTrue(summary.startsWith(drawn + " packets, 2 messages, 0 retransmitted"), summary);
        assertTrue(summary.contains("(the view fell behind: " + (sent.get() - drawn)
                + " packets were neither drawn nor counted;"), summary + "; sent " + sent.get());
        assertTrue(drawn < sent.get() - 1_000, "the oldest were shed: " + summary);
        int port = loopback.onUi(() -> loopback.lab().currentProperty().get().base().udpPort());
        CaptureInspector.Result inspected = CaptureInspector.inspect(saved, port, line -> { });
        assertEquals(sent.get(), inspected.packets(), "the shed packets are in the capture too, each once");
        assertTrue(inspected.allOk(), () -> "every ICRC ok: " + inspected);
    }
}
