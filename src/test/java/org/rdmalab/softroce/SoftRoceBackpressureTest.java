package org.rdmalab.softroce;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.rdmalab.verbs.SendFlag;
import org.rdmalab.verbs.SendWorkRequest;
import org.rdmalab.verbs.WorkCompletion;

/**
 * A full socket send buffer slows soft0 down instead of costing it retries: packets the socket
 * cannot take wait in the host and leave in order, the QPs stop producing meanwhile, and no
 * retransmission timer counts the wait as loss. On the virtual clock the send buffer is modelled
 * ({@link SimulatedNetwork#limitSendBuffer}); {@code BackpressureUdpRun} shows the same on a real
 * kernel socket.
 */
class SoftRoceBackpressureTest {

    /** Both devices: 8 datagrams of send buffer in front of a link that takes one every 20 µs. */
    private static Peers slowLinks(Peers.Setup setup) throws Exception {
        Peers peers = Peers.simulated(setup);
        peers.net.limitSendBuffer(8, Duration.ofNanos(20_000));
        return peers;
    }

    private static Peers.Setup setup() {
        Peers.Setup setup = new Peers.Setup();
        setup.mrLength = 8 << 20;
        // 1 ms: far shorter than the time the packets spend waiting for the slow links (a 64-packet
        // stretch between AckReqs alone takes 1.3 ms to leave), so a timer that counted the wait
        // as loss would fire again and again.
        setup.timeout = 8;
        setup.retryCount = 7;
        return setup;
    }

    @Test
    void aLargeReadAndLargeWritesThroughFullSendBuffersArriveWhole() throws Exception {
        try (Peers peers = slowLinks(setup())) {
            byte[] remote = new byte[3 << 20];
            byte[] local = new byte[1 << 20];
            Random random = new Random(11);
            random.nextBytes(remote);
            random.nextBytes(local);
            peers.b.mr.write(0, remote);
            peers.a.mr.write(0, local);
            for (int i = 0; i < 4; i++) {
                peers.a.qp.postSend(SendWorkRequest.write(i, peers.a.mr.sge(i * (256 << 10), 256 << 10),
                        peers.b.mr.address() + (4 << 20) + i * (256 << 10), peers.b.mr.rkey(), SendFlag.SIGNALED.value()));
            }
            peers.a.qp.postSend(SendWorkRequest.read(9, peers.a.mr.sge(4 << 20, remote.length), peers.b.mr.address(),
                    peers.b.mr.rkey(), SendFlag.SIGNALED.value()));
            List<WorkCompletion> done = peers.runUntilCompletions(peers.a, 5);
            assertEquals(5, done.size(), done.toString());
            for (WorkCompletion wc : done) {
                assertTrue(wc.isSuccess(), wc.toString());
            }
            assertArrayEquals(remote, peers.a.mr.read(4 << 20, remote.length), "the READ's bytes");
            assertArrayEquals(local, peers.b.mr.read(4 << 20, local.length), "the WRITEs' bytes");

            assertTrue(peers.net.refusedDatagrams() > 100, "the send buffers were full: " + peers.net.refusedDatagrams());
            assertTrue(peers.a.counter(Counter.SEND_BLOCKED) > 0, "the requester's side waited for room");
            assertTrue(peers.b.counter(Counter.SEND_BLOCKED) > 0, "the responder's side waited for room");
            for (Peers.Side side : List.of(peers.a, peers.b)) {
                assertEquals(0, side.counter(Counter.COMPLETER_RETRY_ERR), "no retry: nothing was lost");
                assertEquals(0, side.counter(Counter.RETRY_EXCEEDED_ERR));
                assertEquals(0, side.counter(Counter.SEND_DROPPED), "nothing dropped on the way out");
                assertEquals(0, side.counter(Counter.DUPLICATE_REQUEST), "nothing sent twice");
            }
            // Every request packet left once (1 MiB of WRITEs in 1 KiB packets and one READ
            // request), and everything either side sent arrived.
            assertEquals(1024 + 1, peers.a.counter(Counter.SENT_PKTS), "request packets sent");
            assertEquals(peers.a.counter(Counter.SENT_PKTS), peers.b.counter(Counter.RCVD_PKTS));
            assertEquals(peers.b.counter(Counter.SENT_PKTS), peers.a.counter(Counter.RCVD_PKTS));
        }
    }

    /**
     * The READ's responses wait for room on the responder's slow link, and the WRITE behind the
     * READ reaches the responder while some are still to go: it waits for them, so its ACK cannot
     * overtake them (an ACK beyond an unanswered READ would make the requester ask again).
     */
    @Test
    void aRequestBehindALongReadWaitsForTheReadsResponses() throws Exception {
        try (Peers peers = slowLinks(setup())) {
            byte[] remote = new byte[1 << 20];
            new Random(5).nextBytes(remote);
            peers.b.mr.write(0, remote);
            peers.a.mr.write(0, remote);
            peers.a.qp.postSend(SendWorkRequest.read(1, peers.a.mr.sge(2 << 20, remote.length), peers.b.mr.address(),
                    peers.b.mr.rkey(), SendFlag.SIGNALED.value()));
            peers.a.qp.postSend(SendWorkRequest.write(2, peers.a.mr.sge(0, 4096), peers.b.mr.address() + (4 << 20),
                    peers.b.mr.rkey(), SendFlag.SIGNALED.value()));
            List<WorkCompletion> done = peers.runUntilCompletions(peers.a, 2);
            assertEquals(List.of(1L, 2L), done.stream().map(WorkCompletion::wrId).toList());
            assertTrue(done.stream().allMatch(WorkCompletion::isSuccess), done.toString());
            assertArrayEquals(remote, peers.a.mr.read(2 << 20, remote.length));
            assertArrayEquals(java.util.Arrays.copyOf(remote, 4096), peers.b.mr.read(4 << 20, 4096));
            assertEquals(0, peers.a.counter(Counter.COMPLETER_RETRY_ERR));
            assertEquals(0, peers.a.counter(Counter.RCVD_UNEXPECTED_RESPONSE));
            assertEquals(0, peers.b.counter(Counter.DUPLICATE_REQUEST));
        }
    }
}
