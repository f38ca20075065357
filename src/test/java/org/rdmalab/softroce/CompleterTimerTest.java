package org.rdmalab.softroce;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.rdmalab.softroce.net.Fabric;
import org.rdmalab.verbs.QpCapabilities;
import org.rdmalab.verbs.RnrTimer;
import org.rdmalab.verbs.SendFlag;
import org.rdmalab.verbs.SendWorkRequest;
import org.rdmalab.verbs.WcStatus;
import org.rdmalab.verbs.WorkCompletion;
import org.rdmalab.verbs.spi.DeviceOptions;
import org.rdmalab.wire.Aeth;
import org.rdmalab.wire.AtomicAckEth;
import org.rdmalab.wire.Opcode;
import org.rdmalab.wire.RocePacket;
import org.rdmalab.wire.RocePacketEncoder;

/**
 * The retransmission timer's bookkeeping and the completer's retirement of work requests, on the
 * simulated network's virtual clock: when a timer armed again after an idle spell fires, from
 * when the socket took packets that waited for room, what an idle QP whose ring has wrapped does,
 * the retry counters an atomic's answer fills again, the requester moved past work requests an
 * ACK retired while it waited for room, and the responses that match nothing outstanding.
 */
class CompleterTimerTest {

    private static final int A = Fabric.toInt(DeviceOptions.parseAddress("127.0.0.1"));
    private static final int B = Fabric.toInt(DeviceOptions.parseAddress("127.0.0.2"));
    private static final int SIGNALED = SendFlag.SIGNALED.value();

    /** A packet a's device handed to the network, when it did. */
    private record Sent(long at, RocePacket packet) {
    }

    /**
     * Records every packet from a; {@code drop} says which of them are lost (by their number among
     * a's packets, from 0, and the packet); b's packets all arrive.
     */
    private static List<Sent> fromA(Peers peers, java.util.function.BiPredicate<Integer, RocePacket> drop) {
        List<Sent> sent = new ArrayList<>();
        peers.net.intercept((src, dst, datagram) -> {
            if (src != A) {
                return 1;
            }
            RocePacket packet = SoftRoceTransportTest.decode(datagram);
            sent.add(new Sent(peers.net.nanoTime(), packet));
            return drop.test(sent.size() - 1, packet) ? 0 : 1;
        });
        return sent;
    }

    private static void inject(Peers peers, ByteBuffer out, int length) {
        peers.net.inject(B, 4791, A, 4791, SoftRoceVerbsTest.resign(Arrays.copyOf(out.array(), length + 4), B, A));
        peers.net.advance(Duration.ofNanos(100_000));
    }

    /** Injects an ACK (or NAK, by {@code syndrome}) of {@code psn} from b to a. */
    private static void ack(Peers peers, int psn, int syndrome) {
        ByteBuffer out = ByteBuffer.allocate(64);
        int length = RocePacketEncoder.encodeResponse(out, Opcode.RC_ACKNOWLEDGE, peers.a.qp.qpNum(), psn, syndrome, 0,
                null, 0, 0);
        inject(peers, out, length);
    }

    private static void atomicAck(Peers peers, int psn, long original) {
        ByteBuffer out = ByteBuffer.allocate(128);
        int length = RocePacketEncoder.encode(out, Opcode.RC_ATOMIC_ACKNOWLEDGE, peers.a.qp.qpNum(), psn, false, false,
                null, new Aeth(Aeth.ACK_SYNDROME, 0), null, new AtomicAckEth(original), 0, null, 0, 0);
        inject(peers, out, length);
    }

    /** Injects an 8-byte READ response ONLY of {@code psn} from b to a. */
    private static void readResponse(Peers peers, int psn) {
        ByteBuffer out = ByteBuffer.allocate(128);
        int length = RocePacketEncoder.encodeResponse(out, Opcode.RC_RDMA_READ_RESPONSE_ONLY, peers.a.qp.qpNum(), psn,
                Aeth.ACK_SYNDROME, 0, new byte[8], 0, 8);
        inject(peers, out, length);
    }

    private static String completions(Peers peers) throws Exception {
        return Peers.drain(peers.a).stream().map(w -> w.wrId() + " " + w.status()).toList() + " " + peers.a.qp.state();
    }

    @Test
    void aTimerArmedAgainBeforeItsOldExpiryFiresOneTimeoutAfterTheNewSend() throws Exception {
        Peers.Setup setup = new Peers.Setup();
        setup.timeout = 10; // 4.19 ms
        long timeout = RnrTimer.ackTimeoutNanos(10);
        try (Peers peers = Peers.simulated(setup)) {
            // The first WRITE is answered at once; the timer it armed is idle, its expiry still ahead.
            List<Sent> sent = fromA(peers, (n, p) -> n == 1);
            peers.writeFromA(1, 0, 8, SIGNALED);
            assertEquals(WcStatus.SUCCESS, peers.runUntilCompletions(peers.a, 1).get(0).status());
            peers.net.advance(Duration.ofMillis(2));
            long posted = peers.net.nanoTime();
            peers.writeFromA(2, 0, 8, SIGNALED); // lost once
            assertEquals(WcStatus.SUCCESS, peers.runUntilCompletions(peers.a, 1).get(0).status());
            assertEquals(3, sent.size(), "the two WRITEs and one resend");
            long resent = sent.get(2).at() - posted;
            assertTrue(resent >= timeout && resent < timeout + 100_000,
                    "one timeout after the second WRITE, not when the first one's timer would have run out: " + resent);
            assertEquals(1, peers.a.counter(Counter.COMPLETER_RETRY_ERR));
        }
    }

    @Test
    void anIdleQpWhoseSendRingWrappedRetriesNothing() throws Exception {
        Peers.Setup setup = new Peers.Setup();
        setup.timeout = 10;
        setup.capabilities = new QpCapabilities(1, 16, 4, 4, 64);
        try (Peers peers = Peers.simulated(setup)) {
            int ring = peers.a.qp.capabilities().maxSendWr();
            assertTrue(ring <= 3, "a small ring: " + ring);
            for (int i = 0; i < ring + 1; i++) {
                peers.writeFromA(i, 0, 8, SIGNALED);
                assertEquals(WcStatus.SUCCESS, peers.runUntilCompletions(peers.a, 1).get(0).status(), "WRITE " + i);
            }
            // The queue is empty; its head slot holds a request that went out long ago.
            peers.net.advance(Duration.ofSeconds(1));
            assertEquals(0, peers.a.counter(Counter.COMPLETER_RETRY_ERR), "nothing outstanding, nothing retried");
            assertEquals(0, peers.a.counter(Counter.RETRY_EXCEEDED_ERR));
            assertEquals("[] RTS", completions(peers));
        }
    }

    @Test
    void packetsThatWaitedForRoomAreTimedFromWhenTheSocketTookTheLastOfThem() throws Exception {
        Peers.Setup setup = new Peers.Setup();
        setup.timeout = 8; // 1.05 ms
        long timeout = RnrTimer.ackTimeoutNanos(8);
        try (Peers peers = Peers.simulated(setup)) {
            // Two datagrams of room, one leaving every 0.1 ms: of the five packets, the last three wait for room.
            peers.net.limitSendBuffer(2, Duration.ofNanos(100_000));
            List<Sent> sent = fromA(peers, (n, p) -> n == 4); // the last packet, the one asking for the ACK
            peers.writeFromA(1, 0, 5 * 1024, SIGNALED);
            assertEquals(WcStatus.SUCCESS, peers.runUntilCompletions(peers.a, 1).get(0).status());
            assertEquals(10, sent.size(), "five packets, then go-back-N from the first");
            assertEquals(0, sent.get(5).packet().psn());
            long tookLast = sent.get(4).at();
            assertTrue(tookLast >= 250_000, "the last packet waited for room: " + tookLast);
            long resent = sent.get(5).at();
            assertTrue(resent >= tookLast + timeout && resent < tookLast + timeout + 100_000,
                    "one timeout after the socket took the last packet (" + tookLast + "), not after the first send: "
                            + resent);
            assertEquals(1, peers.a.counter(Counter.COMPLETER_RETRY_ERR));
        }
    }

    @Test
    void noTimeoutRunsOutWhileTheSocketStaysFull() throws Exception {
        Peers.Setup setup = new Peers.Setup();
        setup.timeout = 8; // 1.05 ms
        long timeout = RnrTimer.ackTimeoutNanos(8);
        try (Peers peers = Peers.simulated(setup)) {
            peers.net.advance(Duration.ofMillis(5));
            // One datagram of room, 3 ms each: the second packet waits 3 ms, almost three timeouts, for room.
            peers.net.limitSendBuffer(1, Duration.ofMillis(3));
            List<Sent> sent = fromA(peers, (n, p) -> false);
            long posted = peers.net.nanoTime();
            peers.writeFromA(1, 0, 2 * 1024, SIGNALED);
            peers.net.advance(Duration.ofNanos(2_900_000));
            assertEquals(1, sent.size(), "the second packet still waits");
            assertEquals(0, peers.a.counter(Counter.COMPLETER_RETRY_ERR), "no timeout while it waits");
            assertEquals(WcStatus.SUCCESS, peers.runUntilCompletions(peers.a, 1).get(0).status());
            long took = sent.get(1).at() - posted;
            assertEquals(3_000_000, took, "the socket took the second packet after 3 ms");
            // It leaves the link 3 ms later, so its timeout (from when the socket took it) runs out first: the one
            // retry, not earlier.
            assertEquals(1, peers.a.counter(Counter.COMPLETER_RETRY_ERR));
            assertTrue(sent.size() >= 3 && sent.get(2).at() - posted >= took + timeout,
                    "resent one timeout after the socket took it: " + sent.stream().map(Sent::at).toList());
        }
    }

    @Test
    void anAtomicsAnswerFillsTheRetryCountersAgain() throws Exception {
        Peers.Setup setup = new Peers.Setup();
        setup.timeout = 10;
        setup.retryCount = 1;
        try (Peers peers = Peers.simulated(setup)) {
            boolean[] atomicAckLost = {false};
            peers.net.intercept((src, dst, datagram) -> {
                if (src == B && !atomicAckLost[0]
                        && SoftRoceTransportTest.decode(datagram).opcode() == Opcode.RC_ATOMIC_ACKNOWLEDGE) {
                    atomicAckLost[0] = true;
                    return 0;
                }
                return 1;
            });
            peers.b.mr.write(0, new byte[] {40, 0, 0, 0, 0, 0, 0, 0});
            peers.a.qp.postSend(SendWorkRequest.fetchAdd(1, peers.a.mr.sge(0, 8), peers.b.mr.address(),
                    peers.b.mr.rkey(), 2, SIGNALED));
            assertEquals(WcStatus.SUCCESS, peers.runUntilCompletions(peers.a, 1).get(0).status(),
                    "its one retry asked again and got the saved answer");
            assertArrayEquals(new byte[] {40, 0, 0, 0, 0, 0, 0, 0}, peers.a.mr.read(0, 8));
            assertEquals(1, peers.a.counter(Counter.COMPLETER_RETRY_ERR));
            // retry_cnt is 1 again: a WRITE lost once is resent once and completes.
            List<Sent> sent = fromA(peers, (n, p) -> n == 0);
            peers.writeFromA(2, 0, 8, SIGNALED);
            assertEquals(WcStatus.SUCCESS, peers.runUntilCompletions(peers.a, 1).get(0).status());
            assertEquals(2, sent.size());
            assertEquals(2, peers.a.counter(Counter.COMPLETER_RETRY_ERR));
            assertEquals(0, peers.a.counter(Counter.RETRY_EXCEEDED_ERR));
        }
    }

    @Test
    void requestsAnAckRetiredWhileTheRequesterWaitedForRoomAreNotSentAgainAndTheNextOneGoes() throws Exception {
        Peers.Setup setup = new Peers.Setup();
        try (Peers peers = Peers.simulated(setup)) {
            // One datagram of room, 10 ms each; nothing reaches b: its answers are injected.
            peers.net.limitSendBuffer(1, Duration.ofMillis(10));
            List<Sent> sent = fromA(peers, (n, p) -> true);
            peers.writeFromA(1, 0, 8, SIGNALED); // PSN 0, taken by the socket
            peers.writeFromA(2, 0, 8, SIGNALED); // PSN 1, waits for room
            peers.writeFromA(3, 0, 8, SIGNALED); // not started: the requester waits for room
            peers.net.advance(Duration.ofMillis(1));
            // A sequence NAK of PSN 1 acknowledges WRITE 1 and points the requester back at WRITE 2, while the
            // socket is still full; then an ACK of PSN 1 retires WRITE 2.
            ack(peers, 1, Aeth.nakSyndrome(Aeth.NAK_PSN_SEQUENCE_ERROR));
            ack(peers, 1, Aeth.ACK_SYNDROME);
            assertEquals("[1 SUCCESS, 2 SUCCESS] RTS", completions(peers));
            // WRITE 3 has not started: a READ response or an atomic ACK now answers nothing outstanding.
            readResponse(peers, 1);
            atomicAck(peers, 1, 5);
            assertEquals(2, peers.a.counter(Counter.RCVD_UNEXPECTED_RESPONSE));
            assertEquals("[] RTS", completions(peers));
            peers.net.runUntil(() -> sent.size() >= 3, Duration.ofMillis(100));
            assertEquals(List.of(0, 1, 2), sent.stream().map(s -> s.packet().psn()).toList(),
                    "WRITE 2 is not sent again and WRITE 3 goes once there is room");
            ack(peers, 2, Aeth.ACK_SYNDROME);
            assertEquals("[3 SUCCESS] RTS", completions(peers));
        }
    }

    @Test
    void anAckWithNothingOutstandingIsCountedAsUnexpected() throws Exception {
        try (Peers peers = Peers.simulated()) {
            peers.writeFromA(1, 0, 8, SIGNALED);
            assertEquals(WcStatus.SUCCESS, peers.runUntilCompletions(peers.a, 1).get(0).status());
            assertEquals(0, peers.a.counter(Counter.RCVD_UNEXPECTED_RESPONSE));
            ack(peers, 0, Aeth.ACK_SYNDROME); // the same PSN again, with the queue empty
            assertEquals(1, peers.a.counter(Counter.RCVD_UNEXPECTED_RESPONSE));
            assertEquals("[] RTS", completions(peers));
        }
    }

    @Test
    void anAtomicAckAnswersOnlyTheAtomicAtItsPsn() throws Exception {
        try (Peers peers = Peers.simulated()) {
            fromA(peers, (n, p) -> true);
            // An atomic ACK at the PSN of a READ: not the READ's answer.
            peers.readIntoA(1, 0, 8, SIGNALED);
            peers.net.advance(Duration.ofNanos(100_000));
            atomicAck(peers, 0, 0x0102030405060708L);
            assertEquals(1, peers.a.counter(Counter.RCVD_UNEXPECTED_RESPONSE));
            assertEquals("[] RTS", completions(peers));
            assertArrayEquals(new byte[8], peers.a.mr.read(0, 8), "nothing written into the READ's buffer");
        }
        try (Peers peers = Peers.simulated()) {
            fromA(peers, (n, p) -> true);
            // An atomic ACK at the PSN of a WRITE: not the WRITE's answer either.
            peers.writeFromA(1, 0, 8, SIGNALED);
            peers.net.advance(Duration.ofNanos(100_000));
            atomicAck(peers, 0, 0x0102030405060708L);
            assertEquals(1, peers.a.counter(Counter.RCVD_UNEXPECTED_RESPONSE));
            assertEquals("[] RTS", completions(peers));
            assertArrayEquals(new byte[8], peers.a.mr.read(0, 8), "nothing written into the WRITE's buffer");
            ack(peers, 0, Aeth.ACK_SYNDROME);
            assertEquals("[1 SUCCESS] RTS", completions(peers));
        }
        try (Peers peers = Peers.simulated()) {
            fromA(peers, (n, p) -> true);
            // A WRITE at PSN 0 acknowledged, then an atomic ACK of PSN 0 while the atomic at PSN 1 waits.
            peers.writeFromA(1, 0, 8, SIGNALED);
            peers.a.qp.postSend(SendWorkRequest.fetchAdd(2, peers.a.mr.sge(64, 8), peers.b.mr.address(),
                    peers.b.mr.rkey(), 1, SIGNALED));
            peers.net.advance(Duration.ofNanos(100_000));
            ack(peers, 0, Aeth.ACK_SYNDROME);
            assertEquals("[1 SUCCESS] RTS", completions(peers));
            atomicAck(peers, 0, 7);
            assertEquals(1, peers.a.counter(Counter.RCVD_UNEXPECTED_RESPONSE), "an older PSN than the atomic's");
            assertEquals("[] RTS", completions(peers));
            atomicAck(peers, 1, 9);
            assertEquals("[2 SUCCESS] RTS", completions(peers));
            assertArrayEquals(new byte[] {9, 0, 0, 0, 0, 0, 0, 0}, peers.a.mr.read(64, 8));
        }
    }
}
