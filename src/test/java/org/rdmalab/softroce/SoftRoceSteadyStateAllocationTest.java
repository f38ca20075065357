package org.rdmalab.softroce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;
import org.rdmalab.verbs.CompletionBuffer;
import org.rdmalab.verbs.CompletionQueue;
import org.rdmalab.verbs.SendFlag;
import org.rdmalab.verbs.SendWorkRequest;
import org.rdmalab.verbs.VerbsException;

/**
 * soft0 in steady state allocates nothing per message on the paths a benchmark loop takes (issue
 * 8): one-request posts, {@code poll(CompletionBuffer)} and the work the polling thread does for
 * the device in its turns (requester, responder, completer, packets in and out). One thread drives
 * both ends of a real-UDP WRITE ping-pong, so everything both devices do lands on it, and its
 * allocation counter ({@code ThreadMXBean.getThreadAllocatedBytes}) is read around many messages
 * after a warm-up that lets the JIT compile the loop. The bound leaves room for the rare object a
 * hand-over to the transport thread or a timer costs; before issue 8 a message took about 700 bytes.
 */
class SoftRoceSteadyStateAllocationTest {

    private static final int WARM_UP = 20_000;
    private static final int MEASURED = 10_000;
    /** Bytes per message the measured loop may allocate on average. */
    private static final double BOUND = 8;

    @Test
    void aWritePingPongAllocatesNothingPerMessage() throws Exception {
        try (Peers peers = Peers.udp(new Peers.Setup(), SoftRoceUdpTest.freePort(), null)) {
            SendWorkRequest aToB = SendWorkRequest.write(1, peers.a.mr.sge(0, 8), peers.b.mr.address() + 64,
                    peers.b.mr.rkey(), SendFlag.SIGNALED.value());
            SendWorkRequest bToA = SendWorkRequest.write(2, peers.b.mr.sge(0, 8), peers.a.mr.address() + 64,
                    peers.a.mr.rkey(), SendFlag.SIGNALED.value());
            CompletionBuffer buffer = new CompletionBuffer(4);
            pingPong(peers, aToB, bToA, buffer, WARM_UP);

            com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
            long thread = Thread.currentThread().getId();
            long before = threads.getThreadAllocatedBytes(thread);
            pingPong(peers, aToB, bToA, buffer, MEASURED);
            long allocated = threads.getThreadAllocatedBytes(thread) - before;

            double perMessage = allocated / (2.0 * MEASURED);
            assertTrue(perMessage <= BOUND, String.format("%.1f bytes allocated per message (%d over %d WRITEs); "
                    + "at most %.0f expected", perMessage, allocated, 2 * MEASURED, BOUND));
        }
    }

    /** {@code rounds} WRITEs each way, each waited for (its completion) before the answer goes. */
    private static void pingPong(Peers peers, SendWorkRequest aToB, SendWorkRequest bToA, CompletionBuffer buffer,
                                 int rounds) throws VerbsException {
        for (int i = 0; i < rounds; i++) {
            peers.a.qp.postSend(aToB);
            awaitCompletion(peers.a.cq, peers.b.cq, buffer);
            peers.b.qp.postSend(bToA);
            awaitCompletion(peers.b.cq, peers.a.cq, buffer);
        }
    }

    /** Polls {@code own} (and {@code other}, which lends this thread to the peer's device) until one completion. */
    private static void awaitCompletion(CompletionQueue own, CompletionQueue other, CompletionBuffer buffer)
            throws VerbsException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (true) {
            if (own.poll(buffer) > 0) {
                assertEquals(1, buffer.size());
                assertTrue(buffer.isSuccess(0), "the WRITE completed with an error");
                return;
            }
            assertEquals(0, other.poll(buffer), "the peer has no completion of its own to take");
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("no completion within 10 s");
            }
        }
    }
}
