package org.rdmalab.softroce;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.rdmalab.verbs.AddressVector;
import org.rdmalab.verbs.Errno;
import org.rdmalab.verbs.GlobalRoute;
import org.rdmalab.verbs.Mtu;
import org.rdmalab.verbs.QpAttrMask;
import org.rdmalab.verbs.QpAttributes;
import org.rdmalab.verbs.QpState;
import org.rdmalab.verbs.QpCapabilities;
import org.rdmalab.verbs.QpInitAttributes;
import org.rdmalab.verbs.QpType;
import org.rdmalab.verbs.QueuePair;
import org.rdmalab.verbs.ReceiveWorkRequest;
import org.rdmalab.verbs.ScatterGatherElement;
import org.rdmalab.verbs.SendFlag;
import org.rdmalab.verbs.SendWorkRequest;
import org.rdmalab.verbs.VerbsException;
import org.rdmalab.verbs.WcStatus;
import org.rdmalab.verbs.WorkCompletion;
import org.rdmalab.verbs.WrOpcode;

/**
 * ibv_post_send's and ibv_post_recv's checks on soft0 as rxe makes them ({@code validate_send_wr},
 * {@code post_one_recv}), each on both sides of its bound: the SGE count at the QP's maximum and
 * one above, inline data at max_inline_data and one byte above (and copied at the post), an
 * atomic's 8-byte aligned word, the opcodes a UC QP and this device take, the receive's 2 GiB,
 * the states that take work requests, and a list that fails part way.
 */
class SoftQueuePairPostTest {

    private static final int SIGNALED = SendFlag.SIGNALED.value();

    private static VerbsException refused(Errno errno, Executable post) {
        VerbsException e = assertThrows(VerbsException.class, post);
        assertEquals(errno, e.errno(), e.getMessage());
        return e;
    }

    private static List<ScatterGatherElement> sges(Peers.Side side, int count, int length) {
        List<ScatterGatherElement> list = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            list.add(side.mr.sge(i * 64, length));
        }
        return list;
    }

    private static SendWorkRequest send(long wrId, List<ScatterGatherElement> sges, int flags) {
        return new SendWorkRequest(wrId, sges, WrOpcode.SEND, flags, 0, 0, 0, 0, 0);
    }

    @Test
    void aSendMayGatherUpToMaxSendSgeAndAReceiveScatterUpToMaxRecvSge() throws Exception {
        try (Peers peers = Peers.simulated()) {
            QpCapabilities caps = peers.a.qp.capabilities();
            int sendSges = caps.maxSendSge();
            int recvSges = peers.b.qp.capabilities().maxRecvSge();
            assertEquals(4, sendSges);
            assertEquals(4, recvSges);
            for (int i = 0; i < sendSges; i++) {
                peers.a.mr.write(i * 64, new byte[] {(byte) (i + 1), (byte) (i + 11)});
            }
            peers.b.qp.postRecv(new ReceiveWorkRequest(1, sges(peers.b, recvSges, 2)));
            VerbsException e = refused(Errno.EINVAL,
                    () -> peers.b.qp.postRecv(new ReceiveWorkRequest(2, sges(peers.b, recvSges + 1, 2))));
            assertTrue(e.getMessage().contains("num_sge 5 is above the QP's max_recv_sge 4"), e.getMessage());

            peers.a.qp.postSend(send(7, sges(peers.a, sendSges, 2), SIGNALED));
            e = refused(Errno.EINVAL, () -> peers.a.qp.postSend(send(8, sges(peers.a, sendSges + 1, 2), SIGNALED)));
            assertTrue(e.getMessage().contains("num_sge 5 is above the QP's max_send_sge 4"), e.getMessage());
            List<WorkCompletion> done = peers.runUntilCompletions(peers.a, 1);
            assertEquals(WcStatus.SUCCESS, done.get(0).status());
            WorkCompletion received = peers.runUntilCompletions(peers.b, 1).get(0);
            assertEquals(8, received.byteLength());
            for (int i = 0; i < recvSges; i++) {
                assertArrayEquals(new byte[] {(byte) (i + 1), (byte) (i + 11)}, peers.b.mr.read(i * 64, 2),
                        "SGE " + i + " of the receive holds the bytes of SGE " + i + " of the send");
            }
        }
    }

    @Test
    void inlineDataUpToMaxInlineDataIsCopiedAtThePost() throws Exception {
        try (Peers peers = Peers.simulated()) {
            int max = peers.a.qp.capabilities().maxInlineData();
            assertEquals(64, max);
            byte[] data = new byte[max];
            for (int i = 0; i < max; i++) {
                data[i] = (byte) (i * 3 + 1);
            }
            peers.a.mr.write(100, data);
            peers.b.qp.postRecv(ReceiveWorkRequest.of(1, peers.b.mr.sge(0, 4096)));
            int inline = SendFlag.INLINE.value() | SIGNALED;
            // Two SGEs, the second empty and pointing nowhere: an empty SGE is not looked up.
            peers.a.qp.postSend(send(1, List.of(peers.a.mr.sge(100, max), new ScatterGatherElement(0x10, 0, 0)), inline));
            peers.a.mr.write(100, new byte[max]);
            VerbsException e = refused(Errno.EINVAL,
                    () -> peers.a.qp.postSend(send(2, List.of(peers.a.mr.sge(100, max + 1)), inline)));
            assertTrue(e.getMessage().contains("inline data of " + (max + 1) + " bytes is above the QP's max_inline_data "
                    + max), e.getMessage());
            e = refused(Errno.EFAULT, () -> peers.a.qp.postSend(send(3, List.of(new ScatterGatherElement(0x10, 4, 0)),
                    inline)));
            assertTrue(e.getMessage().contains("inline SGE 0x10+4 is not inside any memory"), e.getMessage());
            assertEquals(WcStatus.SUCCESS, peers.runUntilCompletions(peers.a, 1).get(0).status());
            assertEquals(max, peers.runUntilCompletions(peers.b, 1).get(0).byteLength());
            assertArrayEquals(data, peers.b.mr.read(0, max), "the bytes as they were when posted");

            // INLINE means nothing to a READ: its length is not held to max_inline_data.
            peers.b.mr.write(8192, data);
            peers.a.qp.postSend(SendWorkRequest.read(4, peers.a.mr.sge(4096, max + 1), peers.b.mr.address() + 8192,
                    peers.b.mr.rkey(), inline));
            assertEquals(WcStatus.SUCCESS, peers.runUntilCompletions(peers.a, 1).get(0).status());
            assertArrayEquals(data, peers.a.mr.read(4096, max));
        }
    }

    @Test
    void anAtomicIsOneAlignedEightByteWordBothWays() throws Exception {
        try (Peers peers = Peers.simulated()) {
            long remote = peers.b.mr.address() + 64;
            int rkey = peers.b.mr.rkey();
            peers.b.mr.write(64, new byte[] {5, 0, 0, 0, 0, 0, 0, 0});
            peers.a.qp.postSend(SendWorkRequest.fetchAdd(1, peers.a.mr.sge(0, 8), remote, rkey, 2, SIGNALED));
            peers.a.qp.postSend(SendWorkRequest.compareSwap(2, peers.a.mr.sge(8, 8), remote, rkey, 7, 9, SIGNALED));
            List<WorkCompletion> done = peers.runUntilCompletions(peers.a, 2);
            assertEquals(List.of(WcStatus.SUCCESS, WcStatus.SUCCESS), done.stream().map(WorkCompletion::status).toList());
            assertArrayEquals(new byte[] {9, 0, 0, 0, 0, 0, 0, 0}, peers.b.mr.read(64, 8), "5 + 2, then 7 swapped for 9");
            for (int length : new int[] {7, 9}) {
                VerbsException e = refused(Errno.EINVAL, () -> peers.a.qp.postSend(
                        SendWorkRequest.fetchAdd(3, peers.a.mr.sge(0, length), remote, rkey, 1, SIGNALED)));
                assertTrue(e.getMessage().contains("(it is " + length + ")"), e.getMessage());
                refused(Errno.EINVAL, () -> peers.a.qp.postSend(
                        SendWorkRequest.compareSwap(3, peers.a.mr.sge(0, length), remote, rkey, 1, 2, SIGNALED)));
            }
            for (long misaligned : new long[] {remote + 1, remote + 4, remote - 1}) {
                VerbsException e = refused(Errno.EINVAL, () -> peers.a.qp.postSend(
                        SendWorkRequest.compareSwap(3, peers.a.mr.sge(0, 8), misaligned, rkey, 1, 2, SIGNALED)));
                assertTrue(e.getMessage().contains("remote_addr 8-byte aligned (it is 0x" + Long.toHexString(misaligned)
                        + ")"), e.getMessage());
                refused(Errno.EINVAL, () -> peers.a.qp.postSend(
                        SendWorkRequest.fetchAdd(3, peers.a.mr.sge(0, 8), misaligned, rkey, 1, SIGNALED)));
            }
        }
    }

    @Test
    void theOpcodesEachQpTypeTakes() throws Exception {
        Peers.Setup uc = new Peers.Setup();
        uc.type = QpType.UC;
        try (Peers peers = Peers.simulated(uc)) {
            QueuePair qp = peers.a.qp;
            long remote = peers.b.mr.address();
            int rkey = peers.b.mr.rkey();
            for (SendWorkRequest wr : List.of(SendWorkRequest.read(1, peers.a.mr.sge(0, 8), remote, rkey, SIGNALED),
                    SendWorkRequest.compareSwap(1, peers.a.mr.sge(0, 8), remote, rkey, 0, 1, SIGNALED),
                    SendWorkRequest.fetchAdd(1, peers.a.mr.sge(0, 8), remote, rkey, 1, SIGNALED))) {
                VerbsException e = refused(Errno.EINVAL, () -> qp.postSend(wr));
                assertTrue(e.getMessage().contains("opcode " + wr.opcode().cName() + " is not supported on a UC QP"),
                        e.getMessage());
            }
            peers.b.qp.postRecv(ReceiveWorkRequest.of(1, peers.b.mr.sge(0, 64)));
            peers.b.qp.postRecv(ReceiveWorkRequest.of(2, peers.b.mr.sge(0, 64)));
            qp.postSend(SendWorkRequest.write(1, peers.a.mr.sge(0, 8), remote, rkey, SIGNALED));
            qp.postSend(SendWorkRequest.writeWithImm(2, peers.a.mr.sge(0, 8), remote, rkey, 5, SIGNALED));
            qp.postSend(SendWorkRequest.send(3, peers.a.mr.sge(0, 8), SIGNALED));
            qp.postSend(SendWorkRequest.sendWithImm(4, peers.a.mr.sge(0, 8), 6, SIGNALED));
            assertEquals(List.of(WcStatus.SUCCESS, WcStatus.SUCCESS, WcStatus.SUCCESS, WcStatus.SUCCESS),
                    peers.runUntilCompletions(peers.a, 4).stream().map(WorkCompletion::status).toList());
        }
        try (Peers peers = Peers.simulated()) {
            for (WrOpcode opcode : List.of(WrOpcode.LOCAL_INV, WrOpcode.BIND_MW, WrOpcode.SEND_WITH_INV)) {
                VerbsException e = refused(Errno.EINVAL, () -> peers.a.qp.postSend(new SendWorkRequest(1,
                        List.of(peers.a.mr.sge(0, 8)), opcode, SIGNALED, 0, 0, 0, 0, 0)));
                assertTrue(e.getMessage().contains("is not supported on a RC QP of this device"), e.getMessage());
            }
        }
    }

    @Test
    void aReceiveHoldsLessThanTwoGibibytes() throws Exception {
        try (Peers peers = Peers.simulated()) {
            int half = 1 << 30;
            ScatterGatherElement big = new ScatterGatherElement(peers.b.mr.address(), half, peers.b.mr.lkey());
            ScatterGatherElement bigLess1 = new ScatterGatherElement(peers.b.mr.address(), half - 1, peers.b.mr.lkey());
            peers.b.qp.postRecv(new ReceiveWorkRequest(1, List.of(big, bigLess1)));
            VerbsException e = refused(Errno.EINVAL, () -> peers.b.qp.postRecv(new ReceiveWorkRequest(2, List.of(big, big))));
            assertTrue(e.getMessage().contains("the scatter list holds 2147483648 bytes; a message is at most 2^31 - 1 bytes"),
                    e.getMessage());
        }
    }

    @Test
    void sendsAreTakenFromRtsOnAndReceivesFromInitOn() throws Exception {
        try (Peers peers = Peers.simulated()) {
            QueuePair fresh = peers.a.pd.createQp(new QpInitAttributes(QpType.RC, peers.a.cq, peers.a.cq,
                    new QpCapabilities(4, 4, 1, 1, 0), false));
            VerbsException e = refused(Errno.EINVAL, () -> fresh.postRecv(ReceiveWorkRequest.of(1, peers.a.mr.sge(0, 8))));
            assertTrue(e.getMessage().contains("the QP is in RESET; the receive queue accepts work requests from INIT on"),
                    e.getMessage());
            for (String state : List.of("RESET", "INIT", "RTR")) {
                if (!state.equals("RESET")) {
                    moveTo(fresh, peers, state);
                }
                VerbsException refusal = refused(Errno.EINVAL,
                        () -> fresh.postSend(SendWorkRequest.send(1, peers.a.mr.sge(0, 8), SIGNALED)));
                assertTrue(refusal.getMessage().contains("the QP is in " + state
                        + "; the send queue accepts work requests from RTS on"), refusal.getMessage());
                refused(Errno.EINVAL, () -> fresh.postSend(List.of(SendWorkRequest.send(1, peers.a.mr.sge(0, 8), SIGNALED))));
                if (!state.equals("RESET")) {
                    fresh.postRecv(ReceiveWorkRequest.of(1, peers.a.mr.sge(0, 8)));
                }
            }
        }
    }

    private static void moveTo(QueuePair qp, Peers peers, String state) throws VerbsException {
        if (state.equals("INIT")) {
            qp.modify(new QpAttributes().state(QpState.INIT).pkeyIndex(0).portNum(1).accessFlags(0),
                    QpAttrMask.of(QpAttrMask.STATE, QpAttrMask.PKEY_INDEX, QpAttrMask.PORT, QpAttrMask.ACCESS_FLAGS));
        } else {
            qp.modify(new QpAttributes().state(QpState.RTR)
                    .addressVector(AddressVector.global(GlobalRoute.of(peers.b.context.queryGid(1, 3), 3), 1))
                    .pathMtu(Mtu.MTU_1024).destQpNum(peers.b.qp.qpNum()).rqPsn(0).maxDestRdAtomic(1).minRnrTimer(12),
                    QpAttrMask.of(QpAttrMask.STATE, QpAttrMask.AV, QpAttrMask.PATH_MTU, QpAttrMask.DEST_QPN,
                            QpAttrMask.RQ_PSN, QpAttrMask.MAX_DEST_RD_ATOMIC, QpAttrMask.MIN_RNR_TIMER));
        }
    }

    @Test
    void aListThatFailsPartWayKeepsTheRequestsBeforeTheFailure() throws Exception {
        try (Peers peers = Peers.simulated()) {
            VerbsException e = refused(Errno.EINVAL, () -> peers.b.qp.postRecv(List.of(
                    ReceiveWorkRequest.of(1, peers.b.mr.sge(0, 64)),
                    new ReceiveWorkRequest(2, sges(peers.b, 5, 8)),
                    ReceiveWorkRequest.of(3, peers.b.mr.sge(0, 64)))));
            assertTrue(e.getMessage().contains("num_sge 5"), e.getMessage());
            peers.a.mr.write(0, new byte[] {42});
            e = refused(Errno.EINVAL, () -> peers.a.qp.postSend(List.of(
                    SendWorkRequest.send(10, peers.a.mr.sge(0, 1), SIGNALED),
                    send(11, sges(peers.a, 5, 1), SIGNALED),
                    SendWorkRequest.send(12, peers.a.mr.sge(0, 1), SIGNALED))));
            assertTrue(e.getMessage().contains("num_sge 5"), e.getMessage());
            List<WorkCompletion> sent = peers.runUntilCompletions(peers.a, 1);
            peers.run();
            sent = new ArrayList<>(sent);
            sent.addAll(Peers.drain(peers.a));
            assertEquals(List.of(10L), sent.stream().map(WorkCompletion::wrId).toList(), "only the first went out");
            List<WorkCompletion> received = Peers.drain(peers.b);
            assertEquals(List.of(1L), received.stream().map(WorkCompletion::wrId).toList(), "into the first receive");
            assertEquals(42, peers.b.mr.read(0, 1)[0]);
        }
    }
    @Test
    void inErrBothQueuesTakeWorkRequestsAndFlushThemAtOnce() throws Exception {
        try (Peers peers = Peers.simulated()) {
            peers.a.qp.modify(new QpAttributes().state(QpState.ERR), QpAttrMask.STATE.value());
            peers.a.qp.postRecv(List.of(ReceiveWorkRequest.of(1, peers.a.mr.sge(0, 8)),
                    ReceiveWorkRequest.of(2, peers.a.mr.sge(0, 8))));
            peers.a.qp.postSend(SendWorkRequest.send(3, peers.a.mr.sge(0, 8), 0));
            peers.writeFromA(4, 0, 8, 0);
            peers.run();
            List<WorkCompletion> flushed = Peers.drain(peers.a);
            assertEquals(List.of("1 WR_FLUSH_ERR", "2 WR_FLUSH_ERR", "3 WR_FLUSH_ERR", "4 WR_FLUSH_ERR"),
                    flushed.stream().map(w -> w.wrId() + " " + w.status()).toList(), "signaled or not");
            assertEquals(0, peers.b.counter(Counter.RCVD_PKTS), "nothing sent");
            // Each flushed request frees its slot: many more than the queues' depths go through.
            int depth = Math.max(peers.a.qp.capabilities().maxSendWr(), peers.a.qp.capabilities().maxRecvWr());
            for (int i = 0; i < depth + 5; i++) {
                peers.a.qp.postSend(SendWorkRequest.send(100 + i, peers.a.mr.sge(0, 8), 0));
                peers.a.qp.postRecv(ReceiveWorkRequest.of(100 + i, peers.a.mr.sge(0, 8)));
                peers.run();
                assertEquals(2, Peers.drain(peers.a).size(), "request " + i);
            }
        }
    }

    @Test
    void aSlotReusedForLongerInlineDataThanItHeldBeforeSendsItWhole() throws Exception {
        Peers.Setup setup = new Peers.Setup();
        setup.capabilities = new QpCapabilities(2, 64, 32, 4, 0); // 32 SGEs: a 512-byte WQE, 512 inline bytes
        try (Peers peers = Peers.simulated(setup)) {
            assertEquals(512, peers.a.qp.query(0).capabilities().maxInlineData());
            int slots = peers.a.qp.query(0).capabilities().maxSendWr();
            byte[] data = new byte[300];
            for (int i = 0; i < data.length; i++) {
                data[i] = (byte) (i * 13 + 5);
            }
            peers.a.mr.write(0, data);
            // Every slot first holds 8 bytes of inline data, then 300: more than its array took.
            for (int length : new int[] {8, 300}) {
                for (int i = 0; i < slots; i++) {
                    peers.b.qp.postRecv(ReceiveWorkRequest.of(i, peers.b.mr.sge(0, 512)));
                    peers.a.qp.postSend(SendWorkRequest.send(i, peers.a.mr.sge(0, length),
                            SIGNALED | SendFlag.INLINE.value()));
                    assertEquals(WcStatus.SUCCESS, peers.runUntilCompletions(peers.a, 1).get(0).status());
                    WorkCompletion received = peers.runUntilCompletions(peers.b, 1).get(0);
                    assertEquals(length, received.byteLength());
                    assertArrayEquals(java.util.Arrays.copyOf(data, length), peers.b.mr.read(0, length));
                }
            }
        }
    }
}
