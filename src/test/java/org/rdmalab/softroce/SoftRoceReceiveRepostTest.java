package org.rdmalab.softroce;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.rdmalab.verbs.CompletionBuffer;
import org.rdmalab.verbs.QpCapabilities;
import org.rdmalab.verbs.ReceiveWorkRequest;
import org.rdmalab.verbs.SendFlag;
import org.rdmalab.verbs.SendWorkRequest;
import org.rdmalab.verbs.VerbsException;

/**
 * A receiver that reposts a receive for each completion it polls, while its device completes
 * others on its own thread, never finds its receive queue full: only a queue whose every slot is
 * posted answers ENOMEM. (soft0 answered ENOMEM whenever a post's compare-and-set on the slot
 * count lost to a completion freeing a slot, with half of the queue free: {@code bench send --bw}
 * failed that way within a few thousand small SENDs.)
 */
class SoftRoceReceiveRepostTest {

    private static final int MESSAGES = 30_000;
    private static final int POSTED = 256;
    private static final int IN_FLIGHT = 64;
    private static final int SIGNAL_EVERY = 16;

    @Test
    void aReceiverRepostingForEachCompletionTakesEveryMessageWithItsQueueHalfEmpty() throws Exception {
        Peers.Setup setup = new Peers.Setup();
        setup.capabilities = new QpCapabilities(256, 2 * POSTED, 1, 1, 0);
        try (Peers peers = Peers.udp(setup, SoftRoceUdpTest.freePort(), null)) {
            ReceiveWorkRequest receive = ReceiveWorkRequest.of(7, peers.b.mr.sge(0, 64));
            for (int i = 0; i < POSTED; i++) {
                peers.b.qp.postRecv(receive);
            }
            ExecutorService sender = Executors.newSingleThreadExecutor();
            try {
                Future<Integer> sent = sender.submit(() -> send(peers));
                CompletionBuffer completions = new CompletionBuffer(16);
                int received = 0;
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (received < MESSAGES && System.nanoTime() < deadline) {
                    int polled = peers.b.cq.poll(completions);
                    for (int i = 0; i < polled; i++) {
                        assertEquals(true, completions.isSuccess(i), () -> "receive " + completions.get(0));
                        // POSTED of the queue's 2 × POSTED slots stay taken: it is never full.
                        peers.b.qp.postRecv(receive);
                        received++;
                    }
                    if (polled == 0) {
                        Thread.onSpinWait();
                    }
                }
                assertEquals(MESSAGES, sent.get(60, TimeUnit.SECONDS));
                assertEquals(MESSAGES, received, "every SEND found a receive");
            } finally {
                sender.shutdownNow();
                sender.awaitTermination(10, TimeUnit.SECONDS);
            }
        }
    }

    /** Streams the SENDs with a window of {@link #IN_FLIGHT}; the number sent. */
    private static int send(Peers peers) throws VerbsException {
        SendWorkRequest signaled = SendWorkRequest.send(1, peers.a.mr.sge(0, 64), SendFlag.SIGNALED.value());
        SendWorkRequest unsignaled = SendWorkRequest.send(0, peers.a.mr.sge(0, 64), 0);
        CompletionBuffer completions = new CompletionBuffer(16);
        int posted = 0;
        int completed = 0;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (completed < MESSAGES && System.nanoTime() < deadline) {
            while (posted < MESSAGES && posted - completed < IN_FLIGHT) {
                posted++;
                peers.a.qp.postSend(posted % SIGNAL_EVERY == 0 || posted == MESSAGES ? signaled : unsignaled);
            }
            int polled = peers.a.cq.poll(completions);
            for (int i = 0; i < polled; i++) {
                if (!completions.isSuccess(i)) {
                    throw new IllegalStateException("send " + completions.get(i));
                }
                completed = Math.min(posted, (completed / SIGNAL_EVERY + 1) * SIGNAL_EVERY);
            }
        }
        return completed;
    }
}
