package org.rdmalab.softroce;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.rdmalab.wire.Opcode;
import org.rdmalab.wire.RocePacket;
import org.rdmalab.verbs.AccessFlag;
import org.rdmalab.verbs.MemoryRegion;
import org.rdmalab.verbs.QpState;
import org.rdmalab.verbs.SendFlag;
import org.rdmalab.verbs.SendWorkRequest;
import org.rdmalab.verbs.WcStatus;
import org.rdmalab.verbs.WorkCompletion;

/**
 * Every remote error the responder answers, for every request it applies to (rxe's check_rkey and
 * check_op_valid; IBTA §9.7.5.2.8): the requester's completion status, the NAK on the wire, both
 * QPs in ERR, the next request flushed and the target's bytes untouched. WRITE alone was covered
 * before; a responder that checked the rkey of a WRITE and not of a READ or an atomic passed.
 */
class SoftRoceRemoteErrorTest {

    private static final int SIGNALED = SendFlag.SIGNALED.value();
    /** NAK syndromes: 0x60 | code (Aeth): invalid request 1, remote access error 2. */
    private static final int NAK_INVALID_REQUEST = 0x61;
    private static final int NAK_REMOTE_ACCESS = 0x62;
    private static final byte[] TARGET = {11, 22, 33, 44, 55, 66, 77, 88, 99, 10, 20, 30, 40, 50, 60, 70};

    /** The remote operations that name an rkey, each with the access flag the responder checks. */
    enum Op {
        WRITE(AccessFlag.REMOTE_WRITE),
        READ(AccessFlag.REMOTE_READ),
        FETCH_ADD(AccessFlag.REMOTE_ATOMIC),
        COMPARE_SWAP(AccessFlag.REMOTE_ATOMIC);

        final AccessFlag needs;

        Op(AccessFlag needs) {
            this.needs = needs;
        }

        SendWorkRequest request(Peers peers, long address, int rkey) {
            return switch (this) {
                case WRITE -> SendWorkRequest.write(1, peers.a.mr.sge(0, 8), address, rkey, SIGNALED);
                case READ -> SendWorkRequest.read(1, peers.a.mr.sge(0, 8), address, rkey, SIGNALED);
                case FETCH_ADD -> SendWorkRequest.fetchAdd(1, peers.a.mr.sge(0, 8), address, rkey, 5, SIGNALED);
                case COMPARE_SWAP -> SendWorkRequest.compareSwap(1, peers.a.mr.sge(0, 8), address, rkey,
                        0x4433_2211_0000_0000L, 7, SIGNALED);
            };
        }
    }

    /** Every access flag but {@code without}, for an MR or a QP that lacks just that one. */
    private static int allBut(AccessFlag without) {
        List<AccessFlag> flags = new ArrayList<>(List.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE,
                AccessFlag.REMOTE_READ, AccessFlag.REMOTE_ATOMIC));
        flags.remove(without);
        return AccessFlag.of(flags.toArray(AccessFlag[]::new));
    }

    /**
     * Posts {@code op} at ({@code address}, {@code rkey}) and a good WRITE after it, runs the
     * network and checks the outcome: the first completes with {@code status}, the second is
     * flushed, one NAK {@code nak} went back, both QPs are in ERR and {@code target} is unchanged.
     */
    private static void expect(Peers peers, Op op, MemoryRegion target, long address, int rkey, WcStatus status,
                               int nak) throws Exception {
        target.write(0, TARGET);
        peers.a.mr.write(0, new byte[8]);
        List<Integer> syndromes = new ArrayList<>();
        peers.net.intercept((src, dst, datagram) -> {
            RocePacket p = SoftRoceTransportTest.decode(datagram);
            if (p.opcode() == Opcode.RC_ACKNOWLEDGE && !org.rdmalab.wire.Aeth.isAck(p.aethSyndrome())) {
                syndromes.add(p.aethSyndrome());
            }
            return 1;
        });
        peers.a.qp.postSend(op.request(peers, address, rkey));
        peers.a.qp.postSend(SendWorkRequest.write(2, peers.a.mr.sge(0, 8), peers.b.mr.address(), peers.b.mr.rkey(),
                SIGNALED));
        peers.run();
        List<WorkCompletion> done = Peers.drain(peers.a);
        assertEquals(List.of(status, WcStatus.WR_FLUSH_ERR), done.stream().map(WorkCompletion::status).toList(),
                op + ": " + done);
        assertEquals(List.of(nak), syndromes, op + ": the NAK");
        assertEquals(QpState.ERR, peers.a.qp.state(), op.name());
        assertEquals(QpState.ERR, peers.b.qp.state(), op + ": the responder goes to ERR too");
        assertArrayEquals(TARGET, target.read(0, TARGET.length), op + ": nothing executed at the target");
        assertArrayEquals(new byte[8], peers.a.mr.read(0, 8), op + ": nothing came back into the local buffer");
    }

    @ParameterizedTest
    @EnumSource(Op.class)
    void aBadRkeyIsARemoteAccessError(Op op) throws Exception {
        try (Peers peers = Peers.simulated()) {
            expect(peers, op, peers.b.mr, peers.b.mr.address(), peers.b.mr.rkey() ^ 0x80, WcStatus.REM_ACCESS_ERR,
                    NAK_REMOTE_ACCESS);
        }
    }

    /** The last 8 bytes of the region are inside; one byte further is not. */
    @ParameterizedTest
    @EnumSource(Op.class)
    void aRangeEndingOneBytePastTheRegionIsARemoteAccessError(Op op) throws Exception {
        try (Peers peers = Peers.simulated()) {
            MemoryRegion small = peers.b.pd.registerMemory(64, AccessFlag.of(AccessFlag.LOCAL_WRITE,
                    AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_READ, AccessFlag.REMOTE_ATOMIC));
            // Atomics must be 8-byte aligned: 8 past the last word is the next aligned address.
            long outside = small.address() + (op == Op.FETCH_ADD || op == Op.COMPARE_SWAP ? 64 : 57);
            expect(peers, op, small, outside, small.rkey(), WcStatus.REM_ACCESS_ERR, NAK_REMOTE_ACCESS);
        }
        try (Peers peers = Peers.simulated()) {
            MemoryRegion small = peers.b.pd.registerMemory(64, AccessFlag.of(AccessFlag.LOCAL_WRITE,
                    AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_READ, AccessFlag.REMOTE_ATOMIC));
            small.write(0, TARGET);
            peers.a.qp.postSend(op.request(peers, small.address() + 56, small.rkey()));
            peers.run();
            List<WorkCompletion> done = Peers.drain(peers.a);
            assertEquals(List.of(WcStatus.SUCCESS), done.stream().map(WorkCompletion::status).toList(),
                    op + ": the last 8 bytes are inside");
        }
    }

    @ParameterizedTest
    @EnumSource(Op.class)
    void aRegionWithoutTheAccessIsARemoteAccessError(Op op) throws Exception {
        try (Peers peers = Peers.simulated()) {
            MemoryRegion without = peers.b.pd.registerMemory(64, allBut(op.needs));
            expect(peers, op, without, without.address(), without.rkey(), WcStatus.REM_ACCESS_ERR,
                    NAK_REMOTE_ACCESS);
        }
    }

    @ParameterizedTest
    @EnumSource(Op.class)
    void aQpWithoutTheAccessAnswersInvalidRequest(Op op) throws Exception {
        Peers.Setup setup = new Peers.Setup();
        setup.qpAccess = allBut(op.needs);
        setup.mrAccess = AccessFlag.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_READ,
                AccessFlag.REMOTE_ATOMIC);
        try (Peers peers = Peers.simulated(setup)) {
            expect(peers, op, peers.b.mr, peers.b.mr.address(), peers.b.mr.rkey(), WcStatus.REM_INV_REQ_ERR,
                    NAK_INVALID_REQUEST);
        }
    }

    /**
     * An atomic's address must be 8-byte aligned: the post refuses it with EINVAL (the responder's
     * own check, rxe's RESPST_ERR_MISALIGNED_ATOMIC, is for peers that send one anyway), and
     * nothing goes on the wire; an aligned one on the same QP then succeeds.
     */
    @ParameterizedTest
    @EnumSource(value = Op.class, names = {"FETCH_ADD", "COMPARE_SWAP"})
    void aMisalignedAtomicIsRefusedAtPost(Op op) throws Exception {
        for (int misalignment : new int[] {1, 4, 7}) {
            try (Peers peers = Peers.simulated()) {
                org.rdmalab.verbs.VerbsException refused = org.junit.jupiter.api.Assertions.assertThrows(
                        org.rdmalab.verbs.VerbsException.class,
                        () -> peers.a.qp.postSend(op.request(peers, peers.b.mr.address() + misalignment,
                                peers.b.mr.rkey())));
                assertEquals(org.rdmalab.verbs.Errno.EINVAL, refused.errno(), op + " +" + misalignment);
                peers.a.qp.postSend(op.request(peers, peers.b.mr.address() + 8, peers.b.mr.rkey()));
                peers.run();
                assertEquals(List.of(WcStatus.SUCCESS),
                        Peers.drain(peers.a).stream().map(WorkCompletion::status).toList(), op.name());
                assertEquals(1, peers.a.counter(Counter.SENT_PKTS), op + ": only the aligned one was sent");
            }
        }
    }
}
