package org.rdmalab.softroce;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.rdmalab.softroce.net.Fabric;
import org.rdmalab.wire.MalformedPacketException;
import org.rdmalab.wire.Opcode;
import org.rdmalab.wire.Psn;
import org.rdmalab.wire.RocePacket;
import org.rdmalab.verbs.AccessFlag;
import org.rdmalab.verbs.MemoryRegion;
import org.rdmalab.verbs.Mtu;
import org.rdmalab.verbs.QpState;
import org.rdmalab.verbs.ReceiveWorkRequest;
import org.rdmalab.verbs.RnrTimer;
import org.rdmalab.verbs.ScatterGatherElement;
import org.rdmalab.verbs.SendFlag;
import org.rdmalab.verbs.SendWorkRequest;
import org.rdmalab.verbs.WcFlag;
import org.rdmalab.verbs.WcOpcode;
import org.rdmalab.verbs.WcStatus;
import org.rdmalab.verbs.WorkCompletion;
import org.rdmalab.verbs.WrOpcode;

/** The RC transport on a simulated network: exact, on the virtual clock. */
class SoftRoceTransportTest {

    private static final int SIGNALED = SendFlag.SIGNALED.value();

    static RocePacket decode(byte[] datagram) {
        try {
            return RocePacket.decode(datagram, 0, datagram.length);
        } catch (MalformedPacketException e) {
            throw new AssertionError(e);
        }
    }

    private static WorkCompletion only(List<WorkCompletion> completions) {
        assertEquals(1, completions.size(), completions.toString());
        return completions.get(0);
    }

    private static byte[] random(int length, long seed) {
        byte[] data = new byte[length];
        new Random(seed).nextBytes(data);
        return data;
    }

    @Test
    void readFetchAddAndCompareSwap() throws Exception {
        try (Peers peers = Peers.simulated()) {
            byte[] data = random(5000, 1);
            peers.b.mr.write(1000, data);
            peers.a.qp.postSend(SendWorkRequest.read(1, peers.a.mr.sge(0, data.length), peers.b.mr.address() + 1000,
                    peers.b.mr.rkey(), SIGNALED));
            peers.b.mr.write(64, ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(40).array());
            peers.a.qp.postSend(SendWorkRequest.fetchAdd(2, peers.a.mr.sge(8000, 8), peers.b.mr.address() + 64,
                    peers.b.mr.rkey(), 2, SIGNALED));
            peers.a.qp.postSend(SendWorkRequest.compareSwap(3, peers.a.mr.sge(8008, 8), peers.b.mr.address() + 64,
                    peers.b.mr.rkey(), 42, 99, SIGNALED));
            peers.run();
            List<WorkCompletion> done = Peers.drain(peers.a);
            assertEquals(3, done.size(), done.toString());
            assertEquals(List.of(WcOpcode.RDMA_READ, WcOpcode.FETCH_ADD, WcOpcode.COMP_SWAP),
                    done.stream().map(WorkCompletion::opcode).toList());
            assertTrue(done.stream().allMatch(WorkCompletion::isSuccess), done.toString());
            assertArrayEquals(data, peers.a.mr.read(0, data.length));
            assertEquals(40, word(peers.a.mr, 8000));
            assertEquals(42, word(peers.a.mr, 8008));
            assertEquals(99, word(peers.b.mr, 64));
        }
    }

    static long word(MemoryRegion mr, int offset) {
        return ByteBuffer.wrap(mr.read(offset, 8)).order(ByteOrder.LITTLE_ENDIAN).getLong();
    }

    @Test
    void sendWithImmediateScattersAcrossSgesAndWriteWithImmediateConsumesAReceive() throws Exception {
        try (Peers peers = Peers.simulated()) {
            byte[] data = random(3000, 2);
            peers.a.mr.write(0, java.util.Arrays.copyOfRange(data, 0, 1000));
            peers.a.mr.write(5000, java.util.Arrays.copyOfRange(data, 1000, 3000));
            MemoryRegion b = peers.b.mr;
            peers.b.qp.postRecv(new ReceiveWorkRequest(10, List.of(b.sge(0, 100), b.sge(20_000, 4000))));
            peers.b.qp.postRecv(ReceiveWorkRequest.of(11, b.sge(40_000, 0)));
            peers.a.qp.postSend(new SendWorkRequest(1, List.of(peers.a.mr.sge(0, 1000), peers.a.mr.sge(5000, 2000)),
                    WrOpcode.SEND_WITH_IMM, SIGNALED, 0x12345678, 0, 0, 0, 0));
            peers.a.qp.postSend(SendWorkRequest.writeWithImm(2, peers.a.mr.sge(0, 10), b.address() + 60_000, b.rkey(),
                    0xCAFE, SIGNALED));
            peers.run();
            List<WorkCompletion> sent = Peers.drain(peers.a);
            assertEquals(2, sent.size());
            assertTrue(sent.stream().allMatch(WorkCompletion::isSuccess), sent.toString());
            List<WorkCompletion> received = Peers.drain(peers.b);
            assertEquals(2, received.size(), received.toString());
            WorkCompletion recv = received.get(0);
            assertEquals(WcOpcode.RECV, recv.opcode());
            assertEquals(3000, recv.byteLength());
            assertEquals(0x12345678, recv.immData());
            assertTrue(WcFlag.has(recv.wcFlags(), WcFlag.WITH_IMM));
            assertArrayEquals(java.util.Arrays.copyOfRange(data, 0, 100), b.read(0, 100));
            assertArrayEquals(java.util.Arrays.copyOfRange(data, 100, 3000), b.read(20_000, 2900));
            WorkCompletion imm = received.get(1);
            assertEquals(WcOpcode.RECV_RDMA_WITH_IMM, imm.opcode());
            assertEquals(11, imm.wrId());
            assertEquals(0xCAFE, imm.immData());
            assertEquals(10, imm.byteLength());
            assertArrayEquals(peers.a.mr.read(0, 10), b.read(60_000, 10));
        }
    }

    @Test
    void unsignaledRequestsCompleteSilentlyUnlessSqSigAll() throws Exception {
        try (Peers peers = Peers.simulated()) {
            peers.a.qp.postSend(SendWorkRequest.write(1, peers.a.mr.sge(0, 8), peers.b.mr.address(), peers.b.mr.rkey(), 0));
            peers.a.qp.postSend(SendWorkRequest.write(2, peers.a.mr.sge(0, 8), peers.b.mr.address(), peers.b.mr.rkey(),
                    SIGNALED));
            peers.run();
            assertEquals(2, only(Peers.drain(peers.a)).wrId());
        }
        Peers.Setup all = new Peers.Setup();
        all.sqSigAll = true;
        try (Peers peers = Peers.simulated(all)) {
            peers.a.qp.postSend(SendWorkRequest.write(1, peers.a.mr.sge(0, 8), peers.b.mr.address(), peers.b.mr.rkey(), 0));
            peers.run();
            assertEquals(1, only(Peers.drain(peers.a)).wrId());
        }
    }

    @Test
    void inlineDataIsCopiedAtPostTime() throws Exception {
        try (Peers peers = Peers.simulated()) {
            peers.a.mr.write(0, "inline!".getBytes());
            peers.a.qp.postSend(SendWorkRequest.write(1, peers.a.mr.sge(0, 7), peers.b.mr.address(), peers.b.mr.rkey(),
                    SIGNALED | SendFlag.INLINE.value()));
            peers.a.mr.write(0, "changed".getBytes());
            peers.run();
            assertTrue(only(Peers.drain(peers.a)).isSuccess());
            assertArrayEquals("inline!".getBytes(), peers.b.mr.read(0, 7));
        }
    }

    @Test
    void goBackNAfterADroppedMiddlePacketUsesTheSequenceNak() throws Exception {
        try (Peers peers = Peers.simulated()) {
            AtomicInteger dropped = new AtomicInteger();
            int sqPsn = 0;
            peers.net.intercept((src, dst, datagram) -> {
                RocePacket p = decode(datagram);
                if (p.opcode() == Opcode.RC_RDMA_WRITE_MIDDLE && p.bth().psn() == sqPsn + 3 && dropped.getAndIncrement() == 0) {
                    return 0;
                }
                return 1;
            });
            byte[] data = random(10 * 1024, 3);
            peers.a.mr.write(0, data);
            peers.a.qp.postSend(SendWorkRequest.write(1, peers.a.mr.sge(0, data.length), peers.b.mr.address(),
                    peers.b.mr.rkey(), SIGNALED));
            List<WorkCompletion> done = peers.runUntilCompletions(peers.a, 1);
            assertTrue(peers.net.nanoTime() < RnrTimer.ackTimeoutNanos(14), "recovered by the NAK, not the timer");
            assertTrue(only(done).isSuccess());
            assertArrayEquals(data, peers.b.mr.read(0, data.length));
            assertEquals(1, peers.a.counter(Counter.RCVD_SEQ_ERR));
            assertEquals(1, peers.b.counter(Counter.OUT_OF_SEQ_REQUEST),
                    "PSNs 4..9 arrive out of sequence: one NAK, counted once (rxe's check_psn)");
            assertEquals(1, peers.a.counter(Counter.COMPLETER_RETRY_ERR));
            assertEquals(10 + 7, peers.a.counter(Counter.SENT_PKTS), "10 packets, then PSN 3..9 again");
        }
    }

    @Test
    void goBackNAfterALostLastPacketWaitsForTheTimer() throws Exception {
        try (Peers peers = Peers.simulated()) {
            AtomicInteger dropped = new AtomicInteger();
            peers.net.intercept((src, dst, datagram) -> decode(datagram).opcode() == Opcode.RC_RDMA_WRITE_LAST
                    && dropped.getAndIncrement() == 0 ? 0 : 1);
            byte[] data = random(3 * 1024, 4);
            peers.a.mr.write(0, data);
            peers.a.qp.postSend(SendWorkRequest.write(1, peers.a.mr.sge(0, data.length), peers.b.mr.address(),
                    peers.b.mr.rkey(), SIGNALED));
            peers.run();
            assertTrue(only(Peers.drain(peers.a)).isSuccess());
            assertArrayEquals(data, peers.b.mr.read(0, data.length));
            assertEquals(1, peers.a.counter(Counter.COMPLETER_RETRY_ERR));
            assertEquals(0, peers.a.counter(Counter.RCVD_SEQ_ERR));
            assertEquals(3 + 3, peers.a.counter(Counter.SENT_PKTS), "no ACK came: back to the oldest unacknowledged PSN");
            assertEquals(2, peers.b.counter(Counter.DUPLICATE_REQUEST), "PSN 0 and 1 again, re-acknowledged");
            assertTrue(peers.net.nanoTime() >= RnrTimer.ackTimeoutNanos(14));
        }
    }

    @Test
    void duplicateWritePacketsAreReAcknowledged() throws Exception {
        try (Peers peers = Peers.simulated()) {
            peers.net.intercept((src, dst, datagram) -> decode(datagram).opcode().isRequest() ? 2 : 1);
            peers.a.qp.postSend(SendWorkRequest.write(1, peers.a.mr.sge(0, 2048), peers.b.mr.address(), peers.b.mr.rkey(),
                    SIGNALED));
            peers.run();
            assertTrue(only(Peers.drain(peers.a)).isSuccess());
            assertEquals(2, peers.b.counter(Counter.DUPLICATE_REQUEST));
            assertEquals(1 + 2, peers.b.counter(Counter.SENT_PKTS), "one ACK for the message, one per duplicate");
        }
    }

    @Test
    void anAtomicIsNeverExecutedTwiceItsResultIsReplayed() throws Exception {
        try (Peers peers = Peers.simulated()) {
            AtomicInteger dropped = new AtomicInteger();
            peers.net.intercept((src, dst, datagram) -> decode(datagram).opcode() == Opcode.RC_ATOMIC_ACKNOWLEDGE
                    && dropped.getAndIncrement() == 0 ? 0 : 1);
            peers.b.mr.write(0, ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(1000).array());
            peers.a.qp.postSend(SendWorkRequest.fetchAdd(1, peers.a.mr.sge(0, 8), peers.b.mr.address(), peers.b.mr.rkey(),
                    5, SIGNALED));
            peers.run();
            assertTrue(only(Peers.drain(peers.a)).isSuccess());
            assertEquals(1005, word(peers.b.mr, 0), "added once");
            assertEquals(1000, word(peers.a.mr, 0), "the original value, replayed");
            assertEquals(1, peers.b.counter(Counter.DUPLICATE_REQUEST));
            assertEquals(2, dropped.get());
        }
    }

    /**
     * rxe's READ loss recovery: the completer drops the responses that follow a lost one
     * (check_psn), waits for its retransmission timer, then the requester asks again from the
     * first missing PSN for the rest of the READ (req_retry: same rkey, address and length moved
     * on by whole MTUs). The responder finds the saved READ, accepts the request as a part of it
     * and continues the message with MIDDLE … LAST (duplicate_request, read_reply).
     */
    @Test
    void aLostReadResponseIsAnsweredAgain() throws Exception {
        try (Peers peers = Peers.simulated()) {
            AtomicInteger seen = new AtomicInteger();
            List<String> wire = new ArrayList<>();
            long[] lastOriginalResponse = {-1};
            long[] reRequest = {-1};
            peers.net.intercept((src, dst, datagram) -> {
                RocePacket p = decode(datagram);
                if (p.opcode() == Opcode.RC_RDMA_READ_REQUEST) {
                    wire.add(String.format("READ_REQUEST:%d va+%d len %d rkey %s", p.bth().psn(),
                            p.reth().virtualAddress() - peers.b.mr.address(), p.reth().dmaLengthUnsigned(),
                            p.reth().rkey() == peers.b.mr.rkey() ? "same" : "other"));
                    if (p.bth().psn() != 0) {
                        reRequest[0] = peers.net.nanoTime();
                    }
                } else if (p.opcode().isReadResponse()) {
                    wire.add(p.opcode().name().substring("RC_RDMA_READ_RESPONSE_".length()) + ":" + p.bth().psn());
                    if (reRequest[0] < 0) {
                        lastOriginalResponse[0] = peers.net.nanoTime();
                    }
                    if (p.opcode() == Opcode.RC_RDMA_READ_RESPONSE_MIDDLE && seen.getAndIncrement() == 1) {
                        wire.set(wire.size() - 1, wire.get(wire.size() - 1) + " lost");
                        return 0;
                    }
                }
                return 1;
            });
            byte[] data = random(6000, 5);
            peers.b.mr.write(0, data);
            peers.a.qp.postSend(SendWorkRequest.read(1, peers.a.mr.sge(0, data.length), peers.b.mr.address(),
                    peers.b.mr.rkey(), SIGNALED));
            peers.run();
            assertTrue(only(Peers.drain(peers.a)).isSuccess());
            assertArrayEquals(data, peers.a.mr.read(0, data.length));
            assertEquals(List.of("READ_REQUEST:0 va+0 len 6000 rkey same",
                    "FIRST:0", "MIDDLE:1", "MIDDLE:2 lost", "MIDDLE:3", "MIDDLE:4", "LAST:5",
                    "READ_REQUEST:2 va+2048 len 3952 rkey same",
                    "MIDDLE:2", "MIDDLE:3", "MIDDLE:4", "LAST:5"), wire);
            long timeout = RnrTimer.ackTimeoutNanos(14);
            long waited = reRequest[0] - lastOriginalResponse[0];
            assertTrue(waited >= timeout && waited < timeout + 1_000_000,
                    "asked again one retransmission timeout after the last response arrived, not at once: " + waited);
            assertEquals(1, peers.b.counter(Counter.DUPLICATE_REQUEST), "the READ asked again from the missing PSN");
            assertEquals(1, peers.a.counter(Counter.COMPLETER_RETRY_ERR), "one retry, by the timer");
            assertEquals(0, peers.a.counter(Counter.RCVD_SEQ_ERR));
            assertEquals(0, peers.a.counter(Counter.RCVD_UNEXPECTED_RESPONSE));
            assertEquals(0, peers.b.counter(Counter.OUT_OF_SEQ_REQUEST));
        }
    }

    @Test
    void rnrWithRnrRetryZeroFailsAndFlushesTheRest() throws Exception {
        Peers.Setup setup = new Peers.Setup();
        setup.rnrRetry = 0;
        try (Peers peers = Peers.simulated(setup)) {
            peers.a.qp.postSend(SendWorkRequest.send(1, peers.a.mr.sge(0, 16), SIGNALED));
            peers.a.qp.postSend(SendWorkRequest.send(2, peers.a.mr.sge(0, 16), 0));
            peers.run();
            List<WorkCompletion> done = Peers.drain(peers.a);
            assertEquals(2, done.size(), done.toString());
            assertEquals(WcStatus.RNR_RETRY_EXC_ERR, done.get(0).status());
            assertEquals(WcStatus.WR_FLUSH_ERR, done.get(1).status(), "flushed even though unsignaled");
            assertEquals(QpState.ERR, peers.a.qp.state());
            assertEquals(1, peers.b.counter(Counter.SEND_RNR_ERR));
            assertEquals(1, peers.a.counter(Counter.RCVD_RNR_ERR));
            assertEquals(1, peers.a.counter(Counter.RETRY_RNR_EXCEEDED_ERR));
            peers.a.qp.postSend(SendWorkRequest.send(3, peers.a.mr.sge(0, 16), SIGNALED));
            peers.run();
            assertEquals(WcStatus.WR_FLUSH_ERR, only(Peers.drain(peers.a)).status(), "a post in ERR is flushed");
        }
    }

    @Test
    void rnrRetriesWaitMinRnrTimerAndSucceedOnceAReceiveIsPosted() throws Exception {
        Peers.Setup setup = new Peers.Setup();
        setup.rnrRetry = 3;
        setup.minRnrTimer = 14; // 1.28 ms
        try (Peers peers = Peers.simulated(setup)) {
            peers.a.mr.write(0, "late".getBytes());
            peers.a.qp.postSend(SendWorkRequest.send(1, peers.a.mr.sge(0, 4), SIGNALED));
            peers.net.advance(Duration.ofMillis(2));
            assertEquals(2, peers.a.counter(Counter.RCVD_RNR_ERR), "tried at 0 and after 1.28 ms");
            peers.b.qp.postRecv(ReceiveWorkRequest.of(9, peers.b.mr.sge(0, 64)));
            peers.run();
            assertTrue(only(Peers.drain(peers.a)).isSuccess());
            WorkCompletion recv = only(Peers.drain(peers.b));
            assertEquals(4, recv.byteLength());
            assertArrayEquals("late".getBytes(), peers.b.mr.read(0, 4));
            assertEquals(2, peers.b.counter(Counter.SEND_RNR_ERR));
            assertTrue(peers.net.nanoTime() >= 2 * RnrTimer.nanos(14));
        }
    }

    @Test
    void retryExceededAfterTimeoutTimesRetryCountPlusOne() throws Exception {
        Peers.Setup setup = new Peers.Setup();
        setup.retryCount = 3;
        setup.timeout = 10; // 4.194 ms
        try (Peers peers = Peers.simulated(setup)) {
            peers.net.intercept((src, dst, datagram) -> 0);
            peers.a.qp.postSend(SendWorkRequest.write(1, peers.a.mr.sge(0, 8), peers.b.mr.address(), peers.b.mr.rkey(),
                    SIGNALED));
            peers.a.qp.postSend(SendWorkRequest.write(2, peers.a.mr.sge(0, 8), peers.b.mr.address(), peers.b.mr.rkey(),
                    SIGNALED));
            assertTrue(peers.net.runUntil(() -> peers.a.qp.state() == QpState.ERR, Duration.ofSeconds(10)));
            long timeout = RnrTimer.ackTimeoutNanos(10);
            assertEquals(4 * timeout, peers.net.nanoTime(), "timeout × (retry_cnt + 1) after the first send");
            List<WorkCompletion> done = Peers.drain(peers.a);
            assertEquals(WcStatus.RETRY_EXC_ERR, done.get(0).status());
            assertEquals(WcStatus.WR_FLUSH_ERR, done.get(1).status());
            assertEquals(1, peers.a.counter(Counter.RETRY_EXCEEDED_ERR));
            assertEquals(3, peers.a.counter(Counter.COMPLETER_RETRY_ERR));
            assertEquals(2 * 4, peers.a.counter(Counter.SENT_PKTS), "both WRITEs, sent 1 + 3 times");
        }
    }

    @Test
    void remoteAccessErrorsThenFlush() throws Exception {
        for (String variant : List.of("bad rkey", "out of bounds", "no REMOTE_WRITE")) {
            try (Peers peers = Peers.simulated()) {
                MemoryRegion target = peers.b.mr;
                long address = target.address();
                int rkey = target.rkey();
                switch (variant) {
                    case "bad rkey" -> rkey ^= 0x80;
                    case "out of bounds" -> address += target.length() - 4;
                    default -> {
                        target = peers.b.pd.registerMemory(4096, AccessFlag.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_READ));
                        address = target.address();
                        rkey = target.rkey();
                    }
                }
                peers.a.qp.postSend(SendWorkRequest.write(1, peers.a.mr.sge(0, 8), address, rkey, SIGNALED));
                peers.a.qp.postSend(SendWorkRequest.write(2, peers.a.mr.sge(0, 8), peers.b.mr.address(), peers.b.mr.rkey(),
                        SIGNALED));
                peers.run();
                List<WorkCompletion> done = Peers.drain(peers.a);
                assertEquals(List.of(WcStatus.REM_ACCESS_ERR, WcStatus.WR_FLUSH_ERR),
                        done.stream().map(WorkCompletion::status).toList(), variant);
                assertEquals(QpState.ERR, peers.a.qp.state(), variant);
                assertEquals(QpState.ERR, peers.b.qp.state(), variant + ": the responder goes to ERR too");
            }
        }
    }

    @Test
    void aQpWithoutRemoteWriteAnswersInvalidRequest() throws Exception {
        Peers.Setup setup = new Peers.Setup();
        setup.qpAccess = AccessFlag.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_READ);
        try (Peers peers = Peers.simulated(setup)) {
            peers.a.qp.postSend(SendWorkRequest.write(1, peers.a.mr.sge(0, 8), peers.b.mr.address(), peers.b.mr.rkey(),
                    SIGNALED));
            peers.run();
            assertEquals(WcStatus.REM_INV_REQ_ERR, only(Peers.drain(peers.a)).status());
        }
    }

    @Test
    void localProtectionErrors() throws Exception {
        try (Peers peers = Peers.simulated()) {
            ScatterGatherElement bad = new ScatterGatherElement(peers.a.mr.address(), 8, peers.a.mr.lkey() + 1);
            peers.a.qp.postSend(SendWorkRequest.write(1, bad, peers.b.mr.address(), peers.b.mr.rkey(), SIGNALED));
            peers.run();
            // rxe: copy_data's lookup_mr fails (-EINVAL), which finish_packet's caller reports as LOC_QP_OP_ERR.
            assertEquals(WcStatus.LOC_QP_OP_ERR, only(Peers.drain(peers.a)).status());
            assertEquals(0, peers.a.counter(Counter.SENT_PKTS), "nothing went on the wire");
        }
        try (Peers peers = Peers.simulated()) {
            ScatterGatherElement outside = new ScatterGatherElement(peers.a.mr.address() + peers.a.mr.length() - 4, 8,
                    peers.a.mr.lkey());
            peers.a.qp.postSend(SendWorkRequest.send(1, outside, SIGNALED));
            peers.run();
            assertEquals(WcStatus.LOC_PROT_ERR, only(Peers.drain(peers.a)).status());
        }
        try (Peers peers = Peers.simulated()) {
            MemoryRegion readOnly = peers.a.pd.registerMemory(64, AccessFlag.REMOTE_READ.value());
            peers.a.qp.postSend(SendWorkRequest.read(1, readOnly.sge(0, 8), peers.b.mr.address(), peers.b.mr.rkey(),
                    SIGNALED));
            peers.run();
            assertEquals(WcStatus.LOC_PROT_ERR, only(Peers.drain(peers.a)).status(), "READ needs LOCAL_WRITE on its target");
        }
    }

    /**
     * rxe finds a SEND longer than its receive while copying (copy_data) and treats it as a
     * malformed receive: the receive completes with IBV_WC_LOC_QP_OP_ERR, the NAK is a remote
     * operational error and the sender gets IBV_WC_REM_OP_ERR. (A NIC answers with a length error:
     * see docs/softroce.md.)
     */
    @Test
    void aSendLongerThanTheReceiveIsAMalformedReceiveAsInRxe() throws Exception {
        try (Peers peers = Peers.simulated()) {
            peers.b.qp.postRecv(ReceiveWorkRequest.of(5, peers.b.mr.sge(0, 100)));
            peers.b.qp.postRecv(ReceiveWorkRequest.of(6, peers.b.mr.sge(0, 100)));
            peers.a.qp.postSend(SendWorkRequest.send(1, peers.a.mr.sge(0, 200), SIGNALED));
            peers.run();
            assertEquals(WcStatus.REM_OP_ERR, only(Peers.drain(peers.a)).status());
            List<WorkCompletion> received = Peers.drain(peers.b);
            assertEquals(List.of(WcStatus.LOC_QP_OP_ERR, WcStatus.WR_FLUSH_ERR),
                    received.stream().map(WorkCompletion::status).toList());
            assertEquals(5, received.get(0).wrId(), "the receive the SEND landed in");
        }
    }

    @Test
    void aFullCqOverflowsLoudly() throws Exception {
        Peers.Setup setup = new Peers.Setup();
        setup.cqEntries = 2;
        try (Peers peers = Peers.simulated(setup)) {
            assertEquals(3, peers.a.cq.capacity(), "rxe rounds cqe 2 up to 3");
            for (int i = 0; i < 4; i++) {
                peers.a.qp.postSend(SendWorkRequest.write(i, peers.a.mr.sge(0, 8), peers.b.mr.address(),
                        peers.b.mr.rkey(), SIGNALED));
            }
            peers.run();
            assertEquals(QpState.ERR, peers.a.qp.state());
            assertEquals(3, peers.a.cq.poll(10).size(), "the CQ holds its granted 3 entries");
            org.rdmalab.verbs.VerbsException e = org.junit.jupiter.api.Assertions.assertThrows(
                    org.rdmalab.verbs.VerbsException.class, () -> peers.a.cq.poll(10));
            assertEquals(org.rdmalab.verbs.Errno.EOVERFLOW, e.errno());
            assertTrue(peers.a.counter(Counter.CQ_OVERFLOW) >= 1);
        }
    }

    @Test
    void segmentationAtEachMtu() throws Exception {
        for (Mtu mtu : List.of(Mtu.MTU_256, Mtu.MTU_512, Mtu.MTU_1024)) {
            Peers.Setup setup = new Peers.Setup();
            setup.mtu = mtu;
            try (Peers peers = Peers.simulated(setup)) {
                List<RocePacket> seen = new ArrayList<>();
                peers.net.intercept((src, dst, datagram) -> {
                    RocePacket p = decode(datagram);
                    if (p.opcode().isRequest() || p.opcode().isReadResponse()) {
                        seen.add(p);
                    }
                    return 1;
                });
                int length = 3 * mtu.bytes() + 5;
                byte[] data = random(length, mtu.bytes());
                peers.a.mr.write(0, data);
                peers.b.qp.postRecv(ReceiveWorkRequest.of(1, peers.b.mr.sge(0, length)));
                peers.a.qp.postSend(SendWorkRequest.send(1, peers.a.mr.sge(0, length), SIGNALED));
                peers.a.qp.postSend(SendWorkRequest.write(2, peers.a.mr.sge(0, length), peers.b.mr.address() + 8192,
                        peers.b.mr.rkey(), SIGNALED));
                peers.a.qp.postSend(SendWorkRequest.read(3, peers.a.mr.sge(16384, length), peers.b.mr.address(),
                        peers.b.mr.rkey(), SIGNALED));
                peers.run();
                assertEquals(3, Peers.drain(peers.a).stream().filter(WorkCompletion::isSuccess).count());
                assertArrayEquals(data, peers.b.mr.read(0, length));
                assertArrayEquals(data, peers.b.mr.read(8192, length));
                assertArrayEquals(data, peers.a.mr.read(16384, length));
                List<String> names = seen.stream().map(p -> p.opcode().name() + ":" + p.payloadLength() + ":" + p.bth().psn()).toList();
                int m = mtu.bytes();
                assertEquals(List.of(
                        "RC_SEND_FIRST:" + m + ":0", "RC_SEND_MIDDLE:" + m + ":1", "RC_SEND_MIDDLE:" + m + ":2", "RC_SEND_LAST:5:3",
                        "RC_RDMA_WRITE_FIRST:" + m + ":4", "RC_RDMA_WRITE_MIDDLE:" + m + ":5", "RC_RDMA_WRITE_MIDDLE:" + m + ":6",
                        "RC_RDMA_WRITE_LAST:5:7", "RC_RDMA_READ_REQUEST:0:8",
                        "RC_RDMA_READ_RESPONSE_FIRST:" + m + ":8", "RC_RDMA_READ_RESPONSE_MIDDLE:" + m + ":9",
                        "RC_RDMA_READ_RESPONSE_MIDDLE:" + m + ":10", "RC_RDMA_READ_RESPONSE_LAST:5:11"), names, mtu.toString());
                assertTrue(seen.get(3).bth().ackRequest() && !seen.get(2).bth().ackRequest(), "AckReq on the last packet");
            }
        }
    }

    @Test
    void psnsWrapAroundTwentyFourBits() throws Exception {
        Peers.Setup setup = new Peers.Setup();
        setup.psnA = 0xFFFFF8;
        try (Peers peers = Peers.simulated(setup)) {
            byte[] data = random(20 * 1024, 6);
            peers.a.mr.write(0, data);
            peers.a.qp.postSend(SendWorkRequest.write(1, peers.a.mr.sge(0, data.length), peers.b.mr.address(),
                    peers.b.mr.rkey(), SIGNALED));
            peers.a.qp.postSend(SendWorkRequest.read(2, peers.a.mr.sge(40_000, data.length), peers.b.mr.address(),
                    peers.b.mr.rkey(), SIGNALED));
            peers.run();
            assertEquals(2, Peers.drain(peers.a).stream().filter(WorkCompletion::isSuccess).count());
            assertArrayEquals(data, peers.a.mr.read(40_000, data.length));
            // 20 WRITE packets and a 20-packet READ took PSNs 0xFFFFF8 on: the next one has wrapped to 32.
            // ibv_query_qp still reports sq_psn as the modify set it, as rxe's rxe_qp_to_attr does.
            assertEquals(0xFFFFF8, peers.a.qp.query(0).sqPsn(), "sq_psn as set, not the wrapped next PSN 32");
        }
    }

    /**
     * One message at a time, from send PSNs just below 2^24, so that ACKs, READ responses and the
     * atomic ACK arrive while the requester's acknowledged PSN and its next PSN lie on either side
     * of the wrap. A response judged with plain subtraction instead of the 24-bit comparison is
     * ignored or refused, and the message then completes only after a retransmission.
     */
    @Test
    void acknowledgementsAndReadResponsesStraddlingTwoToThe24thCompleteWithoutARetry() throws Exception {
        for (int start = 0xFFFFF7; start <= 0xFFFFFF; start++) {
            Peers.Setup setup = new Peers.Setup();
            setup.psnA = start;
            try (Peers peers = Peers.simulated(setup)) {
                byte[] data = random(3 * 1024, start);
                peers.a.mr.write(0, data);
                peers.b.mr.write(100_000, data);
                peers.b.qp.postRecv(ReceiveWorkRequest.of(7, peers.b.mr.sge(200_000, 4096)));
                List<SendWorkRequest> messages = List.of(
                        SendWorkRequest.write(1, peers.a.mr.sge(0, 2048), peers.b.mr.address(), peers.b.mr.rkey(), SIGNALED),
                        SendWorkRequest.read(2, peers.a.mr.sge(10_000, 3 * 1024), peers.b.mr.address() + 100_000,
                                peers.b.mr.rkey(), SIGNALED),
                        SendWorkRequest.send(3, peers.a.mr.sge(0, 2048), SIGNALED),
                        SendWorkRequest.fetchAdd(4, peers.a.mr.sge(20_000, 8), peers.b.mr.address() + 300_000,
                                peers.b.mr.rkey(), 1, SIGNALED),
                        SendWorkRequest.write(5, peers.a.mr.sge(0, 3 * 1024), peers.b.mr.address() + 400_000,
                                peers.b.mr.rkey(), SIGNALED),
                        SendWorkRequest.read(6, peers.a.mr.sge(30_000, 1024), peers.b.mr.address() + 100_000,
                                peers.b.mr.rkey(), SIGNALED));
                for (SendWorkRequest message : messages) {
                    long posted = peers.net.nanoTime();
                    peers.a.qp.postSend(message);
                    WorkCompletion done = only(peers.runUntilCompletions(peers.a, 1));
                    String where = String.format("sq_psn 0x%x, wr_id %d", start, message.wrId());
                    assertTrue(done.isSuccess(), where + ": " + done);
                    assertEquals(message.wrId(), done.wrId(), where);
                    assertTrue(peers.net.nanoTime() - posted < RnrTimer.ackTimeoutNanos(setup.timeout),
                            where + ": completed by its response, not after a retransmission timeout");
                }
                String where = String.format("sq_psn 0x%x", start);
                assertArrayEquals(java.util.Arrays.copyOf(data, 2048), peers.b.mr.read(0, 2048), where);
                assertArrayEquals(data, peers.a.mr.read(10_000, data.length), where);
                assertArrayEquals(java.util.Arrays.copyOf(data, 2048), peers.b.mr.read(200_000, 2048), where);
                assertEquals(1, word(peers.b.mr, 300_000), where);
                assertArrayEquals(data, peers.b.mr.read(400_000, data.length), where);
                assertArrayEquals(java.util.Arrays.copyOf(data, 1024), peers.a.mr.read(30_000, 1024), where);
                assertEquals(0, peers.a.counter(Counter.COMPLETER_RETRY_ERR), where + ": no retry");
                assertEquals(0, peers.a.counter(Counter.RCVD_UNEXPECTED_RESPONSE), where + ": every response accepted");
                assertEquals(0, peers.b.counter(Counter.DUPLICATE_REQUEST), where);
                assertEquals(0, peers.b.counter(Counter.OUT_OF_SEQ_REQUEST), where);
                assertEquals(Psn.add(start, 2 + 3 + 2 + 1 + 3 + 1), nextSendPsn(peers), where);
            }
        }
    }

    /** The PSN the next request of side a will carry: sent as a zero-length WRITE and read off the wire. */
    private static int nextSendPsn(Peers peers) throws Exception {
        int[] psn = {-1};
        peers.net.intercept((src, dst, datagram) -> {
            RocePacket p = decode(datagram);
            if (p.opcode().isRequest() && psn[0] < 0) {
                psn[0] = p.bth().psn();
            }
            return 1;
        });
        peers.a.qp.postSend(SendWorkRequest.write(99, peers.a.mr.sge(0, 0), peers.b.mr.address(), peers.b.mr.rkey(), SIGNALED));
        assertTrue(only(peers.runUntilCompletions(peers.a, 1)).isSuccess());
        peers.net.intercept(null);
        return psn[0];
    }

    /** rnr_retry 7 means retry forever (IBTA, rxe, NICs): far more than 7 RNR NAKs, then success. */
    @Test
    void rnrRetrySevenRetriesForeverAndCompletesOnceAReceiveIsPosted() throws Exception {
        Peers.Setup setup = new Peers.Setup();
        setup.rnrRetry = 7;
        setup.minRnrTimer = 1; // 0.01 ms
        try (Peers peers = Peers.simulated(setup)) {
            peers.a.mr.write(0, "patient".getBytes());
            peers.a.qp.postSend(SendWorkRequest.send(1, peers.a.mr.sge(0, 7), SIGNALED));
            peers.net.advance(Duration.ofMillis(2));
            long naks = peers.a.counter(Counter.RCVD_RNR_ERR);
            assertTrue(naks > 3 * 7, "RNR NAKs so far: " + naks);
            assertEquals(List.of(), Peers.drain(peers.a), "still waiting for a receive");
            assertEquals(QpState.RTS, peers.a.qp.state());
            peers.b.qp.postRecv(ReceiveWorkRequest.of(9, peers.b.mr.sge(0, 64)));
            peers.run();
            assertTrue(only(Peers.drain(peers.a)).isSuccess());
            assertEquals(7, only(Peers.drain(peers.b)).byteLength());
            assertArrayEquals("patient".getBytes(), peers.b.mr.read(0, 7));
            assertEquals(0, peers.a.counter(Counter.RETRY_RNR_EXCEEDED_ERR));
            assertEquals(naks, peers.b.counter(Counter.SEND_RNR_ERR));
        }
    }

    /**
     * AckReq as rxe's requester sets it (rxe_req.c, init_req_packet): on the last packet of every
     * message, and on a packet that finds more than 64 earlier packets sent without one, so every
     * 66th packet of a long WRITE. Each one is acknowledged.
     */
    @Test
    void ackRequestOnTheLastPacketAndOnEverySixtySixthOfALongWrite() throws Exception {
        try (Peers peers = Peers.simulated()) {
            List<Integer> asked = new ArrayList<>();
            int[] requests = {0};
            peers.net.intercept((src, dst, datagram) -> {
                RocePacket p = decode(datagram);
                if (p.opcode().isRequest()) {
                    if (p.bth().ackRequest()) {
                        asked.add(requests[0]);
                    }
                    requests[0]++;
                }
                return 1;
            });
            peers.a.qp.postSend(SendWorkRequest.write(1, peers.a.mr.sge(0, 1024), peers.b.mr.address(), peers.b.mr.rkey(),
                    SIGNALED));
            byte[] data = random(300 * 1024, 66);
            peers.a.mr.write(0, data);
            peers.a.qp.postSend(SendWorkRequest.write(2, peers.a.mr.sge(0, data.length), peers.b.mr.address(),
                    peers.b.mr.rkey(), SIGNALED));
            peers.run();
            assertEquals(2, Peers.drain(peers.a).stream().filter(WorkCompletion::isSuccess).count());
            assertArrayEquals(data, peers.b.mr.read(0, data.length));
            // Packet 0 is the one-packet WRITE; the long WRITE's packets are 1..300.
            assertEquals(List.of(0, 66, 132, 198, 264, 300), asked);
            assertEquals(asked.size(), peers.b.counter(Counter.SENT_PKTS), "one ACK per AckReq");
        }
    }

    /**
     * The real-UDP test's traffic and faults with its former 1 ms ACK timeout (timeout 8), on the
     * virtual clock, where a starved thread cannot fake a loss: every byte right, losses recovered
     * by go-back-N and the timer, no retry_cnt exhausted.
     */
    @Test
    void theUdpTrafficWithAOneMillisecondTimeoutOnTheVirtualClock() throws Exception {
        Peers.Setup setup = new Peers.Setup();
        setup.faultsA = "drop=0.02,dup=0.01,reorder=0.02,seed=3";
        setup.timeout = 8;
        setup.capabilities = new org.rdmalab.verbs.QpCapabilities(256, 256, 2, 2, 64);
        try (Peers peers = Peers.simulated(setup)) {
            byte[] data = random(200_000, 1);
            peers.a.mr.write(0, data);
            for (int i = 0; i < 8; i++) {
                peers.b.qp.postRecv(ReceiveWorkRequest.of(100 + i, peers.b.mr.sge(600_000 + i * 4096, 4096)));
            }
            for (int i = 0; i < 8; i++) {
                peers.a.qp.postSend(SendWorkRequest.write(i, peers.a.mr.sge(i * 25_000, 25_000),
                        peers.b.mr.address() + i * 25_000, peers.b.mr.rkey(), SIGNALED));
                peers.a.qp.postSend(SendWorkRequest.send(20 + i, peers.a.mr.sge(i * 100, 4000), SIGNALED));
            }
            List<WorkCompletion> sent = peers.runUntilCompletions(peers.a, 16);
            assertEquals(16, sent.stream().filter(WorkCompletion::isSuccess).count(), sent.toString());
            assertArrayEquals(data, peers.b.mr.read(0, data.length));
            assertEquals(8, Peers.drain(peers.b).stream().filter(WorkCompletion::isSuccess).count());
            peers.a.qp.postSend(SendWorkRequest.read(50, peers.a.mr.sge(300_000, 100_000), peers.b.mr.address(),
                    peers.b.mr.rkey(), SIGNALED));
            peers.a.qp.postSend(SendWorkRequest.fetchAdd(51, peers.a.mr.sge(500_000, 8), peers.b.mr.address() + 800_000,
                    peers.b.mr.rkey(), 3, SIGNALED));
            assertEquals(2, peers.runUntilCompletions(peers.a, 2).stream().filter(WorkCompletion::isSuccess).count());
            assertArrayEquals(java.util.Arrays.copyOf(data, 100_000), peers.a.mr.read(300_000, 100_000));
            assertEquals(3, word(peers.b.mr, 800_000));
            assertTrue(peers.a.counter(Counter.FAULT_DROPPED) > 0, "the injector dropped packets");
            assertTrue(peers.a.counter(Counter.COMPLETER_RETRY_ERR) > 0, "and go-back-N recovered");
            assertEquals(0, peers.a.counter(Counter.RETRY_EXCEEDED_ERR));
        }
    }

    /**
     * rxe (init_req_packet) sets the solicited-event bit only on the last packet of a SEND or an
     * RDMA WRITE with immediate posted with IBV_SEND_SOLICITED; a plain WRITE never carries it.
     */
    @Test
    void theSolicitedEventBitIsOnlyOnTheLastPacketOfASendOrAWriteWithImmediate() throws Exception {
        try (Peers peers = Peers.simulated()) {
            List<String> requests = new ArrayList<>();
            peers.net.intercept((src, dst, datagram) -> {
                RocePacket p = decode(datagram);
                if (p.opcode().isRequest()) {
                    requests.add(p.opcode().name() + (p.bth().solicitedEvent() ? " SE" : ""));
                }
                return 1;
            });
            int solicited = SIGNALED | SendFlag.SOLICITED.value();
            for (int i = 0; i < 3; i++) {
                peers.b.qp.postRecv(ReceiveWorkRequest.of(i, peers.b.mr.sge(i * 4096, 4096)));
            }
            peers.a.qp.postSend(SendWorkRequest.write(1, peers.a.mr.sge(0, 2048), peers.b.mr.address() + 65_536,
                    peers.b.mr.rkey(), solicited));
            peers.a.qp.postSend(SendWorkRequest.write(2, peers.a.mr.sge(0, 100), peers.b.mr.address() + 65_536,
                    peers.b.mr.rkey(), solicited));
            peers.a.qp.postSend(SendWorkRequest.writeWithImm(3, peers.a.mr.sge(0, 2048), peers.b.mr.address() + 65_536,
                    peers.b.mr.rkey(), 7, solicited));
            peers.a.qp.postSend(SendWorkRequest.send(4, peers.a.mr.sge(0, 2048), solicited));
            peers.a.qp.postSend(SendWorkRequest.send(5, peers.a.mr.sge(0, 100), SIGNALED));
            peers.run();
            assertEquals(5, Peers.drain(peers.a).stream().filter(WorkCompletion::isSuccess).count());
            assertEquals(List.of("RC_RDMA_WRITE_FIRST", "RC_RDMA_WRITE_LAST", "RC_RDMA_WRITE_ONLY",
                    "RC_RDMA_WRITE_FIRST", "RC_RDMA_WRITE_LAST_WITH_IMMEDIATE SE",
                    "RC_SEND_FIRST", "RC_SEND_LAST SE", "RC_SEND_ONLY"), requests);
        }
    }

    /**
     * rxe accepts max_dest_rd_atomic 0 in ibv_modify_qp and then answers a READ or an atomic with
     * NAK invalid request (check_resource: RESPST_ERR_TOO_MANY_RDMA_ATM_REQ, class C).
     */
    @Test
    void aReadOrAtomicToAQpWithMaxDestRdAtomicZeroIsAnInvalidRequest() throws Exception {
        for (String kind : List.of("READ", "FETCH_ADD")) {
            Peers.Setup setup = new Peers.Setup();
            setup.maxDestRdAtomic = 0;
            try (Peers peers = Peers.simulated(setup)) {
                assertEquals(0, peers.b.qp.query(0).maxDestRdAtomic(), "accepted, as rxe accepts it");
                List<Integer> naks = new ArrayList<>();
                peers.net.intercept((src, dst, datagram) -> {
                    RocePacket p = decode(datagram);
                    if (p.opcode() == Opcode.RC_ACKNOWLEDGE) {
                        naks.add(p.aeth().syndrome());
                    }
                    return 1;
                });
                peers.b.mr.write(0, new byte[8]);
                peers.a.qp.postSend(kind.equals("READ")
                        ? SendWorkRequest.read(1, peers.a.mr.sge(0, 64), peers.b.mr.address(), peers.b.mr.rkey(), SIGNALED)
                        : SendWorkRequest.fetchAdd(1, peers.a.mr.sge(0, 8), peers.b.mr.address(), peers.b.mr.rkey(), 5,
                                SIGNALED));
                peers.a.qp.postSend(SendWorkRequest.write(2, peers.a.mr.sge(0, 8), peers.b.mr.address(), peers.b.mr.rkey(),
                        SIGNALED));
                peers.run();
                List<WorkCompletion> done = Peers.drain(peers.a);
                assertEquals(WcStatus.REM_INV_REQ_ERR, done.get(0).status(), kind + ": " + done);
                assertEquals(WcStatus.WR_FLUSH_ERR, done.get(1).status(), kind);
                assertEquals(List.of(0x61), naks, kind + ": one NAK, invalid request");
                assertEquals(QpState.ERR, peers.b.qp.state(), kind);
                assertEquals(QpState.ERR, peers.a.qp.state(), kind);
                assertEquals(0, word(peers.b.mr, 0), kind + ": nothing executed");
            }
        }
    }

    /** rxe (check_ack) completes a NAK with a code it does not know as IBV_WC_REM_OP_ERR. */
    @Test
    void aNakWithAnUnknownCodeIsARemoteOperationalError() throws Exception {
        for (int syndrome : List.of(0x64, 0x7F)) {
            try (Peers peers = Peers.simulated()) {
                byte[][] ack = new byte[1][];
                peers.net.intercept((src, dst, datagram) -> {
                    if (decode(datagram).opcode() != Opcode.RC_ACKNOWLEDGE) {
                        return 1;
                    }
                    if (ack[0] == null) {
                        ack[0] = datagram.clone(); // the first WRITE's ACK, to be sent on as a NAK
                    }
                    return 0;
                });
                peers.a.qp.postSend(SendWorkRequest.write(1, peers.a.mr.sge(0, 8), peers.b.mr.address(), peers.b.mr.rkey(),
                        SIGNALED));
                peers.a.qp.postSend(SendWorkRequest.write(2, peers.a.mr.sge(0, 8), peers.b.mr.address(), peers.b.mr.rkey(),
                        SIGNALED));
                peers.net.advance(Duration.ofMillis(1));
                byte[] nak = ack[0].clone();
                nak[12] = (byte) syndrome; // the AETH syndrome follows the 12-byte BTH
                int a = Fabric.toInt(org.rdmalab.verbs.spi.DeviceOptions.parseAddress("127.0.0.1"));
                int b = Fabric.toInt(org.rdmalab.verbs.spi.DeviceOptions.parseAddress("127.0.0.2"));
                peers.net.inject(b, 4791, a, 4791, SoftRoceVerbsTest.resign(nak, b, a));
                peers.run();
                List<WorkCompletion> done = Peers.drain(peers.a);
                String what = String.format("syndrome 0x%x: %s", syndrome, done);
                assertEquals(WcStatus.REM_OP_ERR, done.get(0).status(), what);
                assertEquals(WcStatus.WR_FLUSH_ERR, done.get(1).status(), what);
                assertEquals(QpState.ERR, peers.a.qp.state(), what);
            }
        }
    }

    @Test
    void theRequesterStopsAt128UnacknowledgedPsnsAndMaxRdAtomicReads() throws Exception {
        Peers.Setup setup = new Peers.Setup();
        setup.maxRdAtomic = 2;
        try (Peers peers = Peers.simulated(setup)) {
            peers.net.intercept((src, dst, datagram) -> 0);
            peers.a.qp.postSend(SendWorkRequest.write(1, peers.a.mr.sge(0, 200 * 1024), peers.b.mr.address(),
                    peers.b.mr.rkey(), SIGNALED));
            peers.net.advance(Duration.ofMillis(1));
            assertEquals(SoftQueuePair.MAX_UNACKED_PSNS, peers.a.counter(Counter.SENT_PKTS), "the window is full");
        }
        try (Peers peers = Peers.simulated(setup)) {
            peers.net.intercept((src, dst, datagram) -> 0);
            for (int i = 0; i < 5; i++) {
                peers.a.qp.postSend(SendWorkRequest.read(i, peers.a.mr.sge(i * 64, 64), peers.b.mr.address(),
                        peers.b.mr.rkey(), SIGNALED));
            }
            peers.net.advance(Duration.ofMillis(1));
            assertEquals(2, peers.a.counter(Counter.SENT_PKTS), "max_rd_atomic READs in flight");
        }
    }

    @Test
    void aDelayFaultDelaysEveryDatagramOnTheVirtualClock() throws Exception {
        Peers.Setup setup = new Peers.Setup();
        setup.faultsA = "delay=2ms";
        setup.faultsB = "delay=3ms";
        try (Peers peers = Peers.simulated(setup)) {
            peers.a.qp.postSend(SendWorkRequest.write(1, peers.a.mr.sge(0, 8), peers.b.mr.address(), peers.b.mr.rkey(),
                    SIGNALED));
            List<WorkCompletion> done = peers.runUntilCompletions(peers.a, 1);
            assertTrue(only(done).isSuccess());
            assertEquals(5_004_000, peers.net.nanoTime(), "2 ms + 3 ms of delay + 2 × 2 µs of latency");
        }
    }

    @Test
    void ucSendsAndWritesWithoutAcknowledgements() throws Exception {
        Peers.Setup setup = new Peers.Setup();
        setup.type = org.rdmalab.verbs.QpType.UC;
        try (Peers peers = Peers.simulated(setup)) {
            byte[] data = random(2500, 9);
            peers.a.mr.write(0, data);
            peers.b.qp.postRecv(ReceiveWorkRequest.of(1, peers.b.mr.sge(0, 4096)));
            peers.a.qp.postSend(SendWorkRequest.send(1, peers.a.mr.sge(0, data.length), SIGNALED));
            peers.a.qp.postSend(SendWorkRequest.write(2, peers.a.mr.sge(0, data.length), peers.b.mr.address() + 8192,
                    peers.b.mr.rkey(), SIGNALED));
            peers.run();
            assertEquals(2, Peers.drain(peers.a).stream().filter(WorkCompletion::isSuccess).count());
            assertEquals(data.length, only(Peers.drain(peers.b)).byteLength());
            assertArrayEquals(data, peers.b.mr.read(0, data.length));
            assertArrayEquals(data, peers.b.mr.read(8192, data.length));
            assertEquals(0, peers.b.counter(Counter.SENT_PKTS), "UC never acknowledges");
            assertEquals(6, peers.a.counter(Counter.SENT_PKTS));
        }
    }

    @Test
    void aMessageOverTwoGibibytesIsALocalLengthError() throws Exception {
        try (Peers peers = Peers.simulated()) {
            ScatterGatherElement huge = new ScatterGatherElement(peers.a.mr.address(), 0x6000_0000, peers.a.mr.lkey());
            peers.a.qp.postSend(new SendWorkRequest(1, List.of(huge, huge), WrOpcode.RDMA_WRITE, SIGNALED, 0,
                    peers.b.mr.address(), peers.b.mr.rkey(), 0, 0));
            peers.run();
            assertEquals(WcStatus.LOC_LEN_ERR, only(Peers.drain(peers.a)).status());
            assertEquals(0, peers.a.counter(Counter.SENT_PKTS));
        }
    }

    @Test
    void requestsForAQpThatIsNotReadyAreDroppedAndCounted() throws Exception {
        try (Peers peers = Peers.simulated()) {
            peers.b.qp.modify(new org.rdmalab.verbs.QpAttributes().state(QpState.ERR),
                    org.rdmalab.verbs.QpAttrMask.STATE.value());
            Peers.drain(peers.b);
            peers.a.qp.postSend(SendWorkRequest.write(1, peers.a.mr.sge(0, 8), peers.b.mr.address(), peers.b.mr.rkey(),
                    SIGNALED));
            peers.net.advance(Duration.ofMillis(1));
            assertEquals(1, peers.b.counter(Counter.RCVD_QP_NOT_READY));
            assertEquals(0, peers.b.counter(Counter.RCVD_PKTS));
            assertTrue(Peers.drain(peers.a).isEmpty(), "no answer: the requester waits for its timer");
        }
    }

    @Test
    void aWrongDestinationQpNumberEndsInRetryExceeded() throws Exception {
        Peers.Setup setup = new Peers.Setup();
        setup.retryCount = 2;
        setup.timeout = 8;
        try (Peers peers = Peers.simulated(setup)) {
            peers.a.qp.modify(new org.rdmalab.verbs.QpAttributes().state(QpState.RESET),
                    org.rdmalab.verbs.QpAttrMask.STATE.value());
            Peers.Side wrong = new Peers.Side();
            wrong.context = peers.b.context;
            wrong.qp = new NumberOnly(peers.b.qp.qpNum() + 1);
            Peers.connect(peers.a, wrong, setup, 0, 0);
            peers.a.qp.postSend(SendWorkRequest.write(1, peers.a.mr.sge(0, 8), peers.b.mr.address(), peers.b.mr.rkey(),
                    SIGNALED));
            peers.run();
            assertEquals(WcStatus.RETRY_EXC_ERR, only(Peers.drain(peers.a)).status());
            assertEquals(3, peers.b.counter(Counter.RCVD_UNKNOWN_QP), "first try and two retries");
        }
    }

    @Test
    void mismatchedPsnsEndInRetryExceeded() throws Exception {
        for (int expected : new int[] {100, 0xFFFFF0}) {
            Peers.Setup setup = new Peers.Setup();
            setup.retryCount = 1;
            setup.timeout = 8;
            try (Peers peers = Peers.simulated(setup)) {
                peers.b.qp.modify(new org.rdmalab.verbs.QpAttributes().state(QpState.RESET),
                        org.rdmalab.verbs.QpAttrMask.STATE.value());
                Peers.connect(peers.b, peers.a, setup, 0, expected);
                peers.a.qp.postSend(SendWorkRequest.write(1, peers.a.mr.sge(0, 8), peers.b.mr.address(),
                        peers.b.mr.rkey(), SIGNALED));
                peers.run();
                assertEquals(WcStatus.RETRY_EXC_ERR, only(Peers.drain(peers.a)).status(), "rq_psn " + expected);
                // Each duplicate counts; an early PSN counts once, with the one NAK the gap gets.
                long seen = expected == 100 ? peers.b.counter(Counter.DUPLICATE_REQUEST)
                        : peers.b.counter(Counter.OUT_OF_SEQ_REQUEST);
                assertEquals(expected == 100 ? 2 : 1, seen,
                        "PSN 0 looks " + (expected == 100 ? "old" : "early") + " to the responder");
            }
        }
    }

    /** Stands in for a peer QP whose number was exchanged wrongly. */
    private record NumberOnly(int qpNum) implements org.rdmalab.verbs.QueuePair {
        public org.rdmalab.verbs.QpType type() { return org.rdmalab.verbs.QpType.RC; }
        public QpState state() { return QpState.RTS; }
        public org.rdmalab.verbs.ProtectionDomain pd() { return null; }
        public org.rdmalab.verbs.CompletionQueue sendCq() { return null; }
        public org.rdmalab.verbs.CompletionQueue recvCq() { return null; }
        public org.rdmalab.verbs.QpCapabilities capabilities() { return null; }
        public void modify(org.rdmalab.verbs.QpAttributes attributes, int mask) { }
        public org.rdmalab.verbs.QpAttributes query(int mask) { return null; }
        public void postSend(List<SendWorkRequest> requests) { }
        public void postRecv(List<ReceiveWorkRequest> requests) { }
        public void close() { }
    }
}
