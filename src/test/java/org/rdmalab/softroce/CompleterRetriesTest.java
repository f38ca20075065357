package org.rdmalab.softroce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.rdmalab.softroce.net.Fabric;
import org.rdmalab.verbs.QpState;
import org.rdmalab.verbs.ReceiveWorkRequest;
import org.rdmalab.verbs.RnrTimer;
import org.rdmalab.verbs.SendFlag;
import org.rdmalab.verbs.SendWorkRequest;
import org.rdmalab.verbs.WcStatus;
import org.rdmalab.verbs.WorkCompletion;
import org.rdmalab.verbs.spi.DeviceOptions;
import org.rdmalab.wire.Opcode;
import org.rdmalab.wire.RocePacket;

/**
 * The completer's retries on the simulated network's virtual clock, as rxe's do them: retry_cnt
 * and rnr_retry allow exactly that many resends (7 RNR retries meaning forever), each resend after
 * the local ACK timeout or the responder's RNR timer and not before; a QP whose timeout is 0 has
 * no retransmission timer; and the counters name each retry.
 */
class CompleterRetriesTest {

    private static final int A = Fabric.toInt(DeviceOptions.parseAddress("127.0.0.1"));
    private static final int SIGNALED = SendFlag.SIGNALED.value();

    /** The virtual times at which a sent {@code opcode}; {@code deliver[0]} says whether they reach b. */
    private static List<Long> sends(Peers peers, Opcode opcode, boolean[] deliver) {
        List<Long> times = new ArrayList<>();
        peers.net.intercept((src, dst, datagram) -> {
            if (src == A) {
                if (SoftRoceTransportTest.decode(datagram).opcode() == opcode) {
                    times.add(peers.net.nanoTime());
                }
                return deliver[0] ? 1 : 0;
            }
            return 1;
        });
        return times;
    }

    @Test
    void retryCntAllowsExactlyThatManyResendsOneAckTimeoutApart() throws Exception {
        for (int retries : new int[] {0, 1, 3}) {
            Peers.Setup setup = new Peers.Setup();
            setup.retryCount = retries;
            setup.timeout = 10;
            try (Peers peers = Peers.simulated(setup)) {
                List<Long> times = sends(peers, Opcode.RC_RDMA_WRITE_ONLY, new boolean[] {false});
                peers.writeFromA(1, 0, 8, SIGNALED);
                List<WorkCompletion> done = peers.runUntilCompletions(peers.a, 1);
                String what = "retry_cnt " + retries;
                assertEquals(WcStatus.RETRY_EXC_ERR, done.get(0).status(), what);
                assertEquals(retries + 1, times.size(), what + ": the first send and each retry");
                long timeout = RnrTimer.ackTimeoutNanos(10);
                for (int i = 1; i < times.size(); i++) {
                    long gap = times.get(i) - times.get(i - 1);
                    assertTrue(gap >= timeout && gap < timeout + 1_000_000, what + ": gap " + gap);
                }
                assertEquals(retries, peers.a.counter(Counter.COMPLETER_RETRY_ERR), what);
                assertEquals(1, peers.a.counter(Counter.RETRY_EXCEEDED_ERR), what);
                assertEquals(QpState.ERR, peers.a.qp.state());
            }
        }
    }

    @Test
    void aQpWithTimeoutZeroNeverResends() throws Exception {
        Peers.Setup setup = new Peers.Setup();
        setup.timeout = 0;
        try (Peers peers = Peers.simulated(setup)) {
            boolean[] deliver = {false};
            List<Long> times = sends(peers, Opcode.RC_RDMA_WRITE_ONLY, deliver);
            peers.writeFromA(1, 0, 8, SIGNALED);
            peers.net.advance(Duration.ofSeconds(20));
            assertEquals(1, times.size(), "no retransmission timer");
            assertEquals(List.of(), Peers.drain(peers.a));
            assertEquals(QpState.RTS, peers.a.qp.state());
        }
    }

    @Test
    void rnrRetryAllowsExactlyThatManyResendsEachAfterTheRnrTimer() throws Exception {
        int code = 14; // 1.28 ms
        for (int retries : new int[] {0, 1, 2}) {
            Peers.Setup setup = new Peers.Setup();
            setup.rnrRetry = retries;
            setup.minRnrTimer = code;
            try (Peers peers = Peers.simulated(setup)) {
                List<Long> times = sends(peers, Opcode.RC_SEND_ONLY, new boolean[] {true});
                peers.a.qp.postSend(SendWorkRequest.send(1, peers.a.mr.sge(0, 8), SIGNALED));
                List<WorkCompletion> done = peers.runUntilCompletions(peers.a, 1);
                String what = "rnr_retry " + retries;
                assertEquals(WcStatus.RNR_RETRY_EXC_ERR, done.get(0).status(), what);
                assertEquals(retries + 1, times.size(), what);
                for (int i = 1; i < times.size(); i++) {
                    long gap = times.get(i) - times.get(i - 1);
                    assertTrue(gap >= RnrTimer.nanos(code) && gap < RnrTimer.nanos(code) + 1_000_000, what + ": gap " + gap);
                }
                assertEquals(retries + 1, peers.a.counter(Counter.RCVD_RNR_ERR), what);
                assertEquals(1, peers.a.counter(Counter.RETRY_RNR_EXCEEDED_ERR), what);
                assertEquals(retries + 1, peers.b.counter(Counter.SEND_RNR_ERR), what);
            }
        }
    }

    @Test
    void sevenRnrRetriesMeanForeverAndProgressRefillsTheCounters() throws Exception {
        Peers.Setup setup = new Peers.Setup();
        setup.rnrRetry = 7;
        setup.minRnrTimer = 1; // 0.01 ms
        try (Peers peers = Peers.simulated(setup)) {
            List<Long> times = sends(peers, Opcode.RC_SEND_ONLY, new boolean[] {true});
            peers.a.qp.postSend(SendWorkRequest.send(1, peers.a.mr.sge(0, 8), SIGNALED));
            peers.net.runUntil(() -> times.size() >= 20, Duration.ofSeconds(5));
            assertEquals(20, times.size());
            assertEquals(List.of(), Peers.drain(peers.a));
            peers.b.qp.postRecv(ReceiveWorkRequest.of(1, peers.b.mr.sge(0, 64)));
            assertEquals(WcStatus.SUCCESS, peers.runUntilCompletions(peers.a, 1).get(0).status());
        }
        setup.rnrRetry = 1;
        try (Peers peers = Peers.simulated(setup)) {
            // One RNR NAK each time, and a success in between: the counter is full again for the next.
            for (int i = 0; i < 3; i++) {
                long rnrs = peers.b.counter(Counter.SEND_RNR_ERR);
                peers.a.qp.postSend(SendWorkRequest.send(i, peers.a.mr.sge(0, 8), SIGNALED));
                peers.net.runUntil(() -> peers.b.counter(Counter.SEND_RNR_ERR) > rnrs, Duration.ofSeconds(1));
                assertEquals(rnrs + 1, peers.b.counter(Counter.SEND_RNR_ERR), "send " + i + " met an empty queue");
                peers.b.qp.postRecv(ReceiveWorkRequest.of(i, peers.b.mr.sge(0, 64)));
                assertEquals(WcStatus.SUCCESS, peers.runUntilCompletions(peers.a, 1).get(0).status(), "send " + i);
            }
        }
    }
    /** Injects a plain ACK of {@code psn} from b to a. */
    private static void ack(Peers peers, int psn) {
        java.nio.ByteBuffer out = java.nio.ByteBuffer.allocate(64);
        int length = org.rdmalab.wire.RocePacketEncoder.encodeResponse(out, Opcode.RC_ACKNOWLEDGE, peers.a.qp.qpNum(),
                psn, org.rdmalab.wire.Aeth.ACK_SYNDROME, 0, null, 0, 0);
        int b = Fabric.toInt(DeviceOptions.parseAddress("127.0.0.2"));
        peers.net.inject(b, 4791, A, 4791, SoftRoceVerbsTest.resign(java.util.Arrays.copyOf(out.array(), length + 4), b, A));
    }

    @Test
    void everyResponseWhileSomethingIsOutstandingPushesTheTimeoutAFullTimeoutAhead() throws Exception {
        Peers.Setup setup = new Peers.Setup();
        setup.timeout = 10; // 4.19 ms
        long timeout = RnrTimer.ackTimeoutNanos(10);
        try (Peers peers = Peers.simulated(setup)) {
            List<Long> times = sends(peers, Opcode.RC_RDMA_WRITE_ONLY, new boolean[] {false});
            for (int i = 1; i <= 2; i++) {
                peers.writeFromA(i, 0, 8, SIGNALED);
            }
            peers.net.advance(Duration.ofMillis(3));
            ack(peers, 0); // progress: the first WRITE is done
            peers.net.advance(Duration.ofMillis(3));
            long progressAt = 3_000_000 + 2_000;
            ack(peers, 0); // the same ACK again: no progress, but a response all the same
            peers.net.advance(Duration.ofMillis(3));
            ack(peers, 9); // beyond the last PSN sent: dropped, but a response all the same
            long responseAt = 9_000_000 + 2_000;
            peers.net.runUntil(() -> times.size() > 2, Duration.ofSeconds(1));
            assertEquals(3, times.size(), "two WRITEs, then the second resent");
            long resent = times.get(2);
            assertTrue(resent >= responseAt + timeout && resent < responseAt + timeout + 1_000_000,
                    "a timeout after the last response (" + responseAt + "), even a dropped one, not after the progress ("
                            + progressAt
                            + ") or the send: " + resent);
        }
    }
    @Test
    void theTimeoutCountsFromTheOldestUnacknowledgedSendNotTheLatest() throws Exception {
        Peers.Setup setup = new Peers.Setup();
        setup.timeout = 10; // 4.19 ms
        long timeout = RnrTimer.ackTimeoutNanos(10);
        try (Peers peers = Peers.simulated(setup)) {
            List<Long> times = sends(peers, Opcode.RC_RDMA_WRITE_ONLY, new boolean[] {false});
            for (int i = 0; i < 3; i++) {
                peers.writeFromA(i, 0, 8, SIGNALED);
                peers.net.advance(Duration.ofMillis(2));
            }
            peers.net.runUntil(() -> times.size() > 3, Duration.ofSeconds(1));
            assertEquals(6, times.size(), "go-back-N: the three again");
            assertEquals(0L, times.get(0));
            long resent = times.get(3);
            assertTrue(resent >= timeout && resent < timeout + 1_000_000,
                    "one timeout after the first send, however many followed: " + resent);
        }
    }

    @Test
    void anIdleQpsTimerDoesNothingAndTimeoutZeroStaysWithoutATimerAfterAnAck() throws Exception {
        Peers.Setup setup = new Peers.Setup();
        setup.timeout = 10;
        try (Peers peers = Peers.simulated(setup)) {
            peers.writeFromA(1, 0, 8, SIGNALED);
            assertEquals(WcStatus.SUCCESS, peers.runUntilCompletions(peers.a, 1).get(0).status());
            peers.net.advance(Duration.ofSeconds(1));
            assertEquals(0, peers.a.counter(Counter.COMPLETER_RETRY_ERR), "nothing outstanding, nothing retried");
            assertEquals(QpState.RTS, peers.a.qp.state());
        }
        setup.timeout = 0;
        try (Peers peers = Peers.simulated(setup)) {
            boolean[] deliver = {true};
            List<Long> times = sends(peers, Opcode.RC_RDMA_WRITE_ONLY, deliver);
            peers.writeFromA(1, 0, 8, SIGNALED);
            assertEquals(WcStatus.SUCCESS, peers.runUntilCompletions(peers.a, 1).get(0).status());
            deliver[0] = false;
            peers.writeFromA(2, 0, 8, SIGNALED);
            peers.writeFromA(3, 0, 8, SIGNALED);
            peers.net.advance(Duration.ofMillis(1));
            deliver[0] = true;
            // b never saw WRITE 2 or 3; an ACK of WRITE 1 again reaches a.
            java.nio.ByteBuffer out = java.nio.ByteBuffer.allocate(64);
            int length = org.rdmalab.wire.RocePacketEncoder.encodeResponse(out, Opcode.RC_ACKNOWLEDGE,
                    peers.a.qp.qpNum(), 0, org.rdmalab.wire.Aeth.ACK_SYNDROME, 1, null, 0, 0);
            int b = Fabric.toInt(DeviceOptions.parseAddress("127.0.0.2"));
            peers.net.inject(b, 4791, A, 4791,
                    SoftRoceVerbsTest.resign(java.util.Arrays.copyOf(out.array(), length + 4), b, A));
            peers.net.advance(Duration.ofSeconds(10));
            assertEquals(3, times.size(), "timeout 0: no retransmission timer, even after a response");
        }
    }
    @Test
    void anRnrTimerOfAQpResetSinceNeverFires() throws Exception {
        Peers.Setup setup = new Peers.Setup();
        setup.rnrRetry = 7;
        setup.minRnrTimer = 0; // 655.36 ms
        try (Peers peers = Peers.simulated(setup)) {
            List<Long> times = sends(peers, Opcode.RC_SEND_ONLY, new boolean[] {true});
            peers.a.qp.postSend(SendWorkRequest.send(1, peers.a.mr.sge(0, 8), SIGNALED));
            peers.net.advance(Duration.ofMillis(1));
            assertEquals(1, peers.a.counter(Counter.RCVD_RNR_ERR), "waiting 655 ms");
            for (Peers.Side side : List.of(peers.a, peers.b)) {
                side.qp.modify(new org.rdmalab.verbs.QpAttributes().state(QpState.RESET),
                        org.rdmalab.verbs.QpAttrMask.STATE.value());
            }
            setup.minRnrTimer = 18; // 5.12 ms
            Peers.connect(peers.a, peers.b, setup, 0, 0);
            Peers.connect(peers.b, peers.a, setup, 0, 0);
            peers.net.advance(Duration.ofMillis(651));
            times.clear();
            long posted = peers.net.nanoTime();
            peers.a.qp.postSend(SendWorkRequest.send(2, peers.a.mr.sge(0, 8), SIGNALED));
            peers.net.advance(Duration.ofMillis(1));
            peers.b.qp.postRecv(org.rdmalab.verbs.ReceiveWorkRequest.of(1, peers.b.mr.sge(0, 64)));
            List<WorkCompletion> done = peers.runUntilCompletions(peers.a, 1);
            assertEquals(2, done.get(0).wrId());
            assertEquals(2, times.size(), "the SEND and its resend after the new RNR wait");
            assertTrue(times.get(1) - posted >= RnrTimer.nanos(18),
                    "not when the old QP's 655 ms timer would have fired: " + (times.get(1) - posted));
        }
    }
}
