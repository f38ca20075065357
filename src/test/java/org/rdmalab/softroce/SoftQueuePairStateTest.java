package org.rdmalab.softroce;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.rdmalab.softroce.net.Fabric;
import org.rdmalab.verbs.AddressVector;
import org.rdmalab.verbs.Errno;
import org.rdmalab.verbs.GlobalRoute;
import org.rdmalab.verbs.Mtu;
import org.rdmalab.verbs.PacketEvent;
import org.rdmalab.verbs.QpAttrMask;
import org.rdmalab.verbs.QpAttributes;
import org.rdmalab.verbs.QpCapabilities;
import org.rdmalab.verbs.QpInitAttributes;
import org.rdmalab.verbs.QpState;
import org.rdmalab.verbs.QpType;
import org.rdmalab.verbs.QueuePair;
import org.rdmalab.verbs.ReceiveWorkRequest;
import org.rdmalab.verbs.SendFlag;
import org.rdmalab.verbs.SendWorkRequest;
import org.rdmalab.verbs.VerbsException;
import org.rdmalab.verbs.WcStatus;
import org.rdmalab.verbs.WorkCompletion;
import org.rdmalab.verbs.WrOpcode;
import org.rdmalab.verbs.spi.DeviceOptions;
import org.rdmalab.wire.Aeth;
import org.rdmalab.wire.Opcode;
import org.rdmalab.wire.Reth;
import org.rdmalab.wire.RocePacketEncoder;

/**
 * A soft0 QP's life as rxe's {@code rxe_qp.c} and {@code rxe_recv.c} lead it: which packets each
 * state takes (requests from RTR on, responses from RTS on, SQD's too, none in ERR) and the reason
 * and counter of each refusal (another peer, another transport, a state not ready); a modify that
 * leaves attributes out of its mask keeps them; a QP reset and connected again sends from its new
 * start; a destroyed QP refuses calls; the types the device makes.
 */
class SoftQueuePairStateTest {

    private static final int A = Fabric.toInt(DeviceOptions.parseAddress("127.0.0.1"));
    private static final int B = Fabric.toInt(DeviceOptions.parseAddress("127.0.0.2"));
    private static final int SIGNALED = SendFlag.SIGNALED.value();

    private static byte[] write(int qpn, int psn, Opcode op, Peers peers, int fill) {
        ByteBuffer out = ByteBuffer.allocate(256);
        byte[] data = new byte[8];
        Arrays.fill(data, (byte) fill);
        Reth reth = op.hasReth() ? new Reth(peers.b.mr.address(), peers.b.mr.rkey(), 8) : null;
        int length = RocePacketEncoder.encode(out, op, qpn, psn, true, false, reth, null, null, null, 0, data, 0, 8);
        return SoftRoceVerbsTest.resign(Arrays.copyOf(out.array(), length + 4), A, B);
    }

    private static byte[] ack(int qpn, int psn) {
        ByteBuffer out = ByteBuffer.allocate(64);
        int length = RocePacketEncoder.encodeResponse(out, Opcode.RC_ACKNOWLEDGE, qpn, psn, Aeth.ACK_SYNDROME, 0, null,
                0, 0);
        return SoftRoceVerbsTest.resign(Arrays.copyOf(out.array(), length + 4), A, B);
    }

    private static List<String> drops(Peers peers) throws Exception {
        List<String> reasons = new ArrayList<>();
        ((SoftRoceContext) peers.b.context).subscribe(event -> {
            if (event.direction() == PacketEvent.Direction.DROPPED) {
                reasons.add(event.detail().split(";")[0]);
            }
        });
        return reasons;
    }

    private static void inject(Peers peers, int sourceIp, byte[] datagram) {
        peers.net.inject(sourceIp, 4791, B, 4791, datagram);
        peers.run();
    }

    private static void rtr(QueuePair qp, Peers.Side remote, QueuePair remoteQp) throws VerbsException {
        qp.modify(new QpAttributes().state(QpState.INIT).pkeyIndex(0).portNum(1)
                        .accessFlags(new Peers.Setup().qpAccess),
                QpAttrMask.of(QpAttrMask.STATE, QpAttrMask.PKEY_INDEX, QpAttrMask.PORT, QpAttrMask.ACCESS_FLAGS));
        qp.modify(new QpAttributes().state(QpState.RTR)
                        .addressVector(AddressVector.global(GlobalRoute.of(remote.context.queryGid(1, 3), 3), 1))
                        .pathMtu(Mtu.MTU_1024).destQpNum(remoteQp.qpNum()).rqPsn(0).maxDestRdAtomic(1).minRnrTimer(12),
                QpAttrMask.of(QpAttrMask.STATE, QpAttrMask.AV, QpAttrMask.PATH_MTU, QpAttrMask.DEST_QPN,
                        QpAttrMask.RQ_PSN, QpAttrMask.MAX_DEST_RD_ATOMIC, QpAttrMask.MIN_RNR_TIMER));
    }

    @Test
    void eachStateTakesItsPacketsAndEachRefusalSaysWhyAndCounts() throws Exception {
        try (Peers peers = Peers.simulated()) {
            List<String> reasons = drops(peers);
            int qpn = peers.b.qp.qpNum();
            inject(peers, Fabric.toInt(DeviceOptions.parseAddress("127.0.0.9")), SoftRoceVerbsTest.resign(
                    write(qpn, 0, Opcode.RC_RDMA_WRITE_ONLY, peers, 1), Fabric.toInt(DeviceOptions.parseAddress("127.0.0.9")),
                    B));
            assertEquals(List.of("not from the QP's connected peer 127.0.0.1:0"), reasons);
            assertEquals(1, peers.b.counter(Counter.RCVD_WRONG_PEER));
            reasons.clear();
            inject(peers, A, write(qpn, 0, Opcode.UC_RDMA_WRITE_ONLY, peers, 1));
            assertEquals(List.of("an opcode of another transport than the QP's RC"), reasons);
            assertEquals(1, peers.b.counter(Counter.RCVD_MALFORMED));
            assertArrayEquals(new byte[8], peers.b.mr.read(0, 8), "nothing written");

            // A QP with no peer yet.
            QueuePair fresh = peers.b.pd.createQp(new QpInitAttributes(QpType.RC, peers.b.cq, peers.b.cq,
                    new QpCapabilities(4, 4, 1, 1, 0), false));
            reasons.clear();
            inject(peers, A, write(fresh.qpNum(), 0, Opcode.RC_RDMA_WRITE_ONLY, peers, 1));
            assertEquals(List.of("not from the QP's connected peer (none yet)"), reasons);

            // At RTR: requests are taken, responses are not.
            rtr(fresh, peers.a, peers.a.qp);
            reasons.clear();
            inject(peers, A, write(fresh.qpNum(), 0, Opcode.RC_RDMA_WRITE_ONLY, peers, 3));
            assertEquals(List.of(), reasons);
            assertArrayEquals(new byte[] {3, 3, 3, 3, 3, 3, 3, 3}, peers.b.mr.read(0, 8), "executed at RTR");
            inject(peers, A, ack(fresh.qpNum(), 0));
            assertEquals(List.of("QP is in RTR"), reasons);
            assertEquals(1, peers.b.counter(Counter.RCVD_QP_NOT_READY));

            // At SQD: both are taken.
            peers.b.qp.modify(new QpAttributes().state(QpState.SQD), QpAttrMask.STATE.value());
            peers.run();
            assertEquals(QpState.SQD, peers.b.qp.state());
            reasons.clear();
            inject(peers, A, write(qpn, 0, Opcode.RC_RDMA_WRITE_ONLY, peers, 4));
            inject(peers, A, ack(qpn, 0xFFFFFF));
            assertEquals(List.of(), reasons);
            assertArrayEquals(new byte[] {4, 4, 4, 4, 4, 4, 4, 4}, peers.b.mr.read(0, 8), "executed at SQD");

            // In ERR: neither.
            peers.b.qp.modify(new QpAttributes().state(QpState.ERR), QpAttrMask.STATE.value());
            inject(peers, A, write(qpn, 1, Opcode.RC_RDMA_WRITE_ONLY, peers, 5));
            inject(peers, A, ack(qpn, 0));
            assertEquals(List.of("QP is in ERR", "QP is in ERR"), reasons);
            assertArrayEquals(new byte[] {4, 4, 4, 4, 4, 4, 4, 4}, peers.b.mr.read(0, 8));
            assertEquals(3, peers.b.counter(Counter.RCVD_QP_NOT_READY));
        }
    }

    @Test
    void aModifyKeepsEveryAttributeItsMaskLeavesOut() throws Exception {
        Peers.Setup setup = new Peers.Setup();
        setup.retryCount = 7;
        setup.rnrRetry = 7;
        setup.minRnrTimer = 1;
        setup.timeout = 10;
        setup.maxRdAtomic = 4;
        setup.psnA = 0x123;
        try (Peers peers = Peers.simulated(setup)) {
            peers.b.qp.postRecv(ReceiveWorkRequest.of(1, peers.b.mr.sge(0, 64)));
            peers.a.qp.postSend(SendWorkRequest.send(1, peers.a.mr.sge(0, 8), SIGNALED));
            assertEquals(WcStatus.SUCCESS, peers.runUntilCompletions(peers.a, 1).get(0).status());
            assertEquals(1, peers.runUntilCompletions(peers.b, 1).size());
            // RTS → RTS with MIN_RNR_TIMER alone; every other field of the request is 0.
            peers.a.qp.modify(new QpAttributes().state(QpState.RTS).minRnrTimer(3).timeout(0).retryCount(0)
                            .rnrRetry(0).maxRdAtomic(0).sqPsn(0).maxDestRdAtomic(0).pathMtu(Mtu.MTU_256).destQpNum(0)
                            .accessFlags(0),
                    QpAttrMask.of(QpAttrMask.STATE, QpAttrMask.MIN_RNR_TIMER));
            boolean[] dropFirst = {true};
            peers.net.intercept((src, dst, datagram) -> {
                if (src == A && dropFirst[0]) {
                    dropFirst[0] = false;
                    return 0;
                }
                return 1;
            });
            peers.b.qp.postRecv(ReceiveWorkRequest.of(2, peers.b.mr.sge(0, 4096)));
            peers.a.mr.write(0, new byte[] {9, 8, 7, 6, 5, 4, 3, 2});
            peers.a.qp.postSend(SendWorkRequest.send(2, peers.a.mr.sge(0, 2000), SIGNALED));
            peers.readIntoA(3, 4096, 8, SIGNALED);
            peers.a.qp.postSend(SendWorkRequest.fetchAdd(4, peers.a.mr.sge(8192, 8), peers.b.mr.address() + 64,
                    peers.b.mr.rkey(), 1, SIGNALED));
            List<WorkCompletion> done = peers.runUntilCompletions(peers.a, 3);
            assertEquals(List.of(WcStatus.SUCCESS, WcStatus.SUCCESS, WcStatus.SUCCESS),
                    done.stream().map(WorkCompletion::status).toList(),
                    "the lost first packet resent (timeout and retry_cnt kept), READ and atomic sent (max_rd_atomic kept)");
            assertEquals(1, peers.a.counter(Counter.COMPLETER_RETRY_ERR));
            List<WorkCompletion> received = peers.runUntilCompletions(peers.b, 1);
            assertEquals(2000, received.get(0).byteLength(), "two packets of the MTU kept");
            assertEquals(0, peers.b.counter(Counter.DUPLICATE_REQUEST), "the PSNs went on from where they were");
            // After that progress the retry counters are reloaded from what the QP holds: a lost
            // one-packet WRITE is resent by the timer, and an RNR NAK is waited out (rnr_retry 7).
            boolean[] dropNext = {true};
            peers.net.intercept((src, dst, datagram) -> {
                if (src == A && dropNext[0]) {
                    dropNext[0] = false;
                    return 0;
                }
                return 1;
            });
            peers.writeFromA(5, 0, 8, SIGNALED);
            assertEquals(WcStatus.SUCCESS, peers.runUntilCompletions(peers.a, 1).get(0).status(), "resent by the timer");
            assertEquals(2, peers.a.counter(Counter.COMPLETER_RETRY_ERR));
            long rnrs = peers.b.counter(Counter.SEND_RNR_ERR);
            peers.a.qp.postSend(SendWorkRequest.send(6, peers.a.mr.sge(0, 8), SIGNALED));
            peers.net.runUntil(() -> peers.b.counter(Counter.SEND_RNR_ERR) > rnrs + 2, java.time.Duration.ofSeconds(5));
            assertEquals(List.of(), Peers.drain(peers.a), "still retrying after three RNR NAKs");
            peers.b.qp.postRecv(ReceiveWorkRequest.of(3, peers.b.mr.sge(0, 64)));
            assertEquals(WcStatus.SUCCESS, peers.runUntilCompletions(peers.a, 1).get(0).status());
            QpAttributes now = peers.a.qp.query(0);
            assertEquals(10, now.timeout());
            assertEquals(3, now.minRnrTimer());
            assertEquals(Mtu.MTU_1024, now.pathMtu());
        }
    }

    @Test
    void aQpResetAndConnectedAgainSendsFromItsNewStart() throws Exception {
        Peers.Setup setup = new Peers.Setup();
        try (Peers peers = Peers.simulated(setup)) {
            for (int i = 0; i < 3; i++) {
                peers.b.qp.postRecv(ReceiveWorkRequest.of(i, peers.b.mr.sge(0, 64)));
                peers.a.qp.postSend(SendWorkRequest.send(i, peers.a.mr.sge(0, 8), SIGNALED));
            }
            assertEquals(3, peers.runUntilCompletions(peers.a, 3).size());
            Peers.drain(peers.b);
            for (Peers.Side side : List.of(peers.a, peers.b)) {
                side.qp.modify(new QpAttributes().state(QpState.RESET), QpAttrMask.STATE.value());
            }
            Peers.connect(peers.a, peers.b, setup, 100, 200);
            Peers.connect(peers.b, peers.a, setup, 200, 100);
            peers.b.qp.postRecv(ReceiveWorkRequest.of(7, peers.b.mr.sge(0, 64)));
            peers.a.qp.postSend(SendWorkRequest.send(7, peers.a.mr.sge(0, 8), SIGNALED));
            assertEquals(List.of(WcStatus.SUCCESS),
                    peers.runUntilCompletions(peers.a, 1).stream().map(WorkCompletion::status).toList());
            assertEquals(7, peers.runUntilCompletions(peers.b, 1).get(0).wrId());
        }
    }

    @Test
    void aDestroyedQpRefusesCallsAndTheDeviceMakesRcAndUcOnly() throws Exception {
        try (Peers peers = Peers.simulated()) {
            QueuePair qp = peers.b.qp;
            assertEquals(QpType.RC, qp.type());
            assertSame(peers.b.cq, qp.sendCq());
            assertSame(peers.b.cq, qp.recvCq());
            assertEquals(peers.a.qp.qpNum(), ((SoftQueuePair) qp).peerQpn());
            assertEquals(String.format("RC QP 0x%x (RTS)", qp.qpNum()), qp.toString());
            qp.close();
            assertThrows(IllegalStateException.class, () -> qp.modify(new QpAttributes().state(QpState.ERR),
                    QpAttrMask.STATE.value()));
            assertThrows(IllegalStateException.class, () -> qp.postRecv(ReceiveWorkRequest.of(1, peers.b.mr.sge(0, 8))));
            assertThrows(IllegalStateException.class,
                    () -> qp.postRecv(List.of(ReceiveWorkRequest.of(1, peers.b.mr.sge(0, 8)))));
            assertThrows(IllegalStateException.class, () -> qp.postSend(SendWorkRequest.send(1, peers.b.mr.sge(0, 8), 0)));
            VerbsException e = assertThrows(VerbsException.class, () -> peers.b.pd.createQp(new QpInitAttributes(QpType.UD,
                    peers.b.cq, peers.b.cq, new QpCapabilities(4, 4, 1, 1, 0), false)));
            assertEquals(Errno.EOPNOTSUPP, e.errno());
            assertTrue(e.getMessage().contains("qp_type UD is not supported by the software device (RC and UC are)"),
                    e.getMessage());
        }
    }

    @Test
    void inlineDataFromSeveralSgesArrivesInTheirOrder() throws Exception {
        try (Peers peers = Peers.simulated()) {
            peers.a.mr.write(0, new byte[] {1, 2, 3});
            peers.a.mr.write(100, new byte[] {4, 5});
            peers.a.mr.write(200, new byte[] {6, 7, 8, 9});
            peers.b.qp.postRecv(ReceiveWorkRequest.of(1, peers.b.mr.sge(0, 64)));
            peers.a.qp.postSend(new SendWorkRequest(1, List.of(peers.a.mr.sge(0, 3), peers.a.mr.sge(100, 2),
                    peers.a.mr.sge(200, 4)), WrOpcode.SEND, SIGNALED | SendFlag.INLINE.value(), 0, 0, 0, 0, 0));
            assertEquals(WcStatus.SUCCESS, peers.runUntilCompletions(peers.a, 1).get(0).status());
            assertEquals(9, peers.runUntilCompletions(peers.b, 1).get(0).byteLength());
            assertArrayEquals(new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9}, peers.b.mr.read(0, 9));
        }
    }
}
