package org.rdmalab.softroce;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.rdmalab.softroce.net.Fabric;
import org.rdmalab.wire.Opcode;
import org.rdmalab.wire.Reth;
import org.rdmalab.wire.RocePacket;
import org.rdmalab.wire.RocePacketEncoder;
import org.rdmalab.verbs.QpAttrMask;
import org.rdmalab.verbs.QpAttributes;
import org.rdmalab.verbs.QpCapabilities;
import org.rdmalab.verbs.QpState;
import org.rdmalab.verbs.ReceiveWorkRequest;
import org.rdmalab.verbs.SendFlag;
import org.rdmalab.verbs.SendWorkRequest;
import org.rdmalab.verbs.WcOpcode;
import org.rdmalab.verbs.WcStatus;
import org.rdmalab.verbs.WorkCompletion;

/**
 * Rules soft0 takes from rxe's sources (issue 9), each on the simulated network: what a reset
 * leaves behind, FENCE, the responder's length and PadCnt checks, and memory regions deregistered
 * while a work request still needs them.
 */
class SoftRoceRxeRulesTest {

    private static final int SIGNALED = SendFlag.SIGNALED.value();

    private static void moveTo(Peers.Side side, QpState state) throws Exception {
        side.qp.modify(new QpAttributes().state(state), QpAttrMask.STATE.value());
    }

    private static List<WcStatus> statuses(List<WorkCompletion> completions) {
        return completions.stream().map(WorkCompletion::status).toList();
    }

    // ---- FENCE: rxe_wqe_is_fenced ------------------------------------------------------------

    /** Every datagram's opcode in the order the network carried it; responses of {@code held} are lost while it is true. */
    private static List<Opcode> record(Peers peers, boolean[] holdResponses) {
        List<Opcode> seen = new ArrayList<>();
        peers.net.intercept((src, dst, datagram) -> {
            Opcode op = SoftRoceTransportTest.decode(datagram).opcode();
            if (holdResponses[0] && !op.isRequest()) {
                return 0;
            }
            seen.add(op);
            return 1;
        });
        return seen;
    }

    /**
     * rxe (IBA 10.8.3.3): a work request posted with IBV_SEND_FENCE waits until every earlier
     * READ and atomic has completed; an unfenced one does not wait.
     */
    @Test
    void aFencedRequestWaitsForEveryOutstandingReadAndAtomic() throws Exception {
        for (String first : List.of("read", "fetch-add")) {
            for (boolean fenced : new boolean[] {true, false}) {
                String what = first + (fenced ? " then a fenced WRITE" : " then an unfenced WRITE");
                try (Peers peers = Peers.simulated()) {
                    boolean[] hold = {true};
                    List<Opcode> seen = record(peers, hold);
                    peers.a.qp.postSend(first.equals("read")
                            ? SendWorkRequest.read(1, peers.a.mr.sge(0, 3000), peers.b.mr.address(), peers.b.mr.rkey(),
                                    SIGNALED)
                            : SendWorkRequest.fetchAdd(1, peers.a.mr.sge(0, 8), peers.b.mr.address(),
                                    peers.b.mr.rkey(), 1, SIGNALED));
                    int flags = SIGNALED | (fenced ? SendFlag.FENCE.value() : 0);
                    peers.a.qp.postSend(new SendWorkRequest(2, List.of(peers.a.mr.sge(8192, 8)),
                            org.rdmalab.verbs.WrOpcode.RDMA_WRITE, flags, 0, peers.b.mr.address() + 8192,
                            peers.b.mr.rkey(), 0, 0));
                    peers.net.advance(java.time.Duration.ofMillis(1));
                    boolean writeSent = seen.contains(Opcode.RC_RDMA_WRITE_ONLY);
                    assertEquals(!fenced, writeSent, what + ": " + seen);
                    hold[0] = false;
                    peers.run();
                    List<WorkCompletion> done = Peers.drain(peers.a);
                    assertEquals(List.of(WcStatus.SUCCESS, WcStatus.SUCCESS), statuses(done), what);
                    if (fenced) {
                        int write = seen.indexOf(Opcode.RC_RDMA_WRITE_ONLY);
                        int lastResponse = 0;
                        for (int i = 0; i < seen.size(); i++) {
                            if (seen.get(i).isReadResponse() || seen.get(i) == Opcode.RC_ATOMIC_ACKNOWLEDGE) {
                                lastResponse = i;
                            }
                        }
                        assertTrue(write > lastResponse, what + ": the WRITE follows the completed "
                                + first + ": " + seen);
                    }
                }
            }
        }
    }

    /**
     * The fence is about READs and atomics only (rxe since 5.19): a fenced WRITE after an
     * unacknowledged WRITE or SEND goes out at once, without waiting for its ACK.
     */
    @Test
    void aFenceDoesNotWaitForWritesOrSends() throws Exception {
        try (Peers peers = Peers.simulated()) {
            boolean[] hold = {true};
            List<Opcode> seen = record(peers, hold);
            peers.b.qp.postRecv(ReceiveWorkRequest.of(1, peers.b.mr.sge(0, 64)));
            peers.a.qp.postSend(SendWorkRequest.write(1, peers.a.mr.sge(0, 8), peers.b.mr.address(), peers.b.mr.rkey(),
                    SIGNALED));
            peers.a.qp.postSend(SendWorkRequest.send(2, peers.a.mr.sge(0, 8), SIGNALED));
            peers.a.qp.postSend(new SendWorkRequest(3, List.of(peers.a.mr.sge(0, 8)),
                    org.rdmalab.verbs.WrOpcode.RDMA_WRITE, SIGNALED | SendFlag.FENCE.value(), 0,
                    peers.b.mr.address() + 64, peers.b.mr.rkey(), 0, 0));
            peers.net.advance(java.time.Duration.ofMillis(1));
            assertEquals(List.of(Opcode.RC_RDMA_WRITE_ONLY, Opcode.RC_SEND_ONLY, Opcode.RC_RDMA_WRITE_ONLY), seen,
                    "all three went out before any ACK");
            hold[0] = false;
            peers.run();
            assertEquals(List.of(WcStatus.SUCCESS, WcStatus.SUCCESS, WcStatus.SUCCESS), statuses(Peers.drain(peers.a)));
        }
    }

    // ---- the responder's length and PadCnt checks: rxe_resp_check_length, check_rkey ---------

    private static final int A = Fabric.toInt(org.rdmalab.verbs.spi.DeviceOptions.parseAddress("127.0.0.1"));
    private static final int B = Fabric.toInt(org.rdmalab.verbs.spi.DeviceOptions.parseAddress("127.0.0.2"));

    /**
     * A request from a to b, built with the wire encoder and signed: {@code payload} bytes of
     * {@code fill}, then {@code pad} pad bytes with PadCnt {@code pad} (null: the right pad).
     */
    private static byte[] request(Peers peers, Opcode op, int psn, Reth reth, int payload, Integer pad) {
        java.nio.ByteBuffer out = java.nio.ByteBuffer.allocate(payload + 128);
        byte[] data = new byte[payload];
        java.util.Arrays.fill(data, (byte) 0x5A);
        int length = RocePacketEncoder.encode(out, op, peers.b.qp.qpNum(), psn, true, false, reth, null, null, null,
                0x1234, data, 0, payload);
        byte[] datagram;
        if (pad == null) {
            datagram = java.util.Arrays.copyOf(out.array(), length + 4);
        } else {
            int unpadded = length - RocePacketEncoder.padCount(payload);
            datagram = java.util.Arrays.copyOf(out.array(), unpadded + pad + 4); // pad bytes are zeros
            java.util.Arrays.fill(datagram, unpadded, datagram.length, (byte) 0);
            datagram[1] = (byte) ((datagram[1] & ~0x30) | (pad << 4));
        }
        return SoftRoceVerbsTest.resign(datagram, A, B);
    }

    /** The AETH syndromes b sends a, recorded. */
    private static List<Integer> naksFromB(Peers peers) {
        List<Integer> syndromes = new ArrayList<>();
        peers.net.intercept((src, dst, datagram) -> {
            RocePacket packet = SoftRoceTransportTest.decode(datagram);
            if (src == B && packet.opcode() == Opcode.RC_ACKNOWLEDGE && !packet.aeth().isAck()) {
                syndromes.add(packet.aeth().syndrome());
            }
            return 1;
        });
        return syndromes;
    }

    private static void inject(Peers peers, byte[]... datagrams) {
        for (byte[] datagram : datagrams) {
            peers.net.inject(A, 4791, B, 4791, datagram);
        }
        peers.run();
    }

    /** What b did with an injected SEND: its receive completions, its state and its NAKs. */
    private static String sendOutcome(Peers peers, List<Integer> naks) throws Exception {
        return statuses(Peers.drain(peers.b)) + " " + peers.b.qp.state() + " naks " + naks;
    }

    /**
     * rxe refuses a SEND or WRITE LAST without payload and a MIDDLE without a full MTU: NAK
     * invalid request (0x61), the receive in use completes with IBV_WC_REM_INV_REQ_ERR, the QP
     * goes to ERR. The same packets with payload are accepted.
     */
    @Test
    void zeroLengthLastAndMiddlePacketsAreRefused() throws Exception {
        for (Opcode bad : List.of(Opcode.RC_SEND_LAST, Opcode.RC_SEND_LAST_WITH_IMMEDIATE, Opcode.RC_SEND_MIDDLE)) {
            try (Peers peers = Peers.simulated()) {
                List<Integer> naks = naksFromB(peers);
                peers.b.qp.postRecv(ReceiveWorkRequest.of(1, peers.b.mr.sge(0, 8192)));
                peers.b.qp.postRecv(ReceiveWorkRequest.of(2, peers.b.mr.sge(0, 8192)));
                inject(peers, request(peers, Opcode.RC_SEND_FIRST, 0, null, 1024, null),
                        request(peers, bad, 1, null, 0, null));
                assertEquals("[REM_INV_REQ_ERR, WR_FLUSH_ERR] ERR naks [97]", sendOutcome(peers, naks),
                        bad + " with no payload");
            }
        }
        try (Peers peers = Peers.simulated()) {
            List<Integer> naks = naksFromB(peers);
            peers.b.qp.postRecv(ReceiveWorkRequest.of(1, peers.b.mr.sge(0, 8192)));
            inject(peers, request(peers, Opcode.RC_SEND_FIRST, 0, null, 1024, null),
                    request(peers, Opcode.RC_SEND_MIDDLE, 1, null, 1024, null),
                    request(peers, Opcode.RC_SEND_LAST, 2, null, 1, null));
            assertEquals("[SUCCESS] RTS naks []", sendOutcome(peers, naks), "the same message with payload");
        }
        for (Opcode bad : List.of(Opcode.RC_RDMA_WRITE_LAST, Opcode.RC_RDMA_WRITE_MIDDLE)) {
            try (Peers peers = Peers.simulated()) {
                List<Integer> naks = naksFromB(peers);
                Reth reth = new Reth(peers.b.mr.address(), peers.b.mr.rkey(), 2048);
                inject(peers, request(peers, Opcode.RC_RDMA_WRITE_FIRST, 0, reth, 1024, null),
                        request(peers, bad, 1, null, 0, null));
                assertEquals("[] ERR naks [97]", sendOutcome(peers, naks), bad + " with no payload");
            }
        }
    }

    /**
     * rxe checks a WRITE's PadCnt against its length (check_rkey): no pad while more than one MTU
     * is left, and {@code (-length) & 3} on the packet that ends it. A wrong one is refused like a
     * length error; the right one is accepted.
     */
    @Test
    void aWriteWithAWrongPadCountIsRefused() throws Exception {
        record Case(String what, int payload, Integer pad, String outcome) { }
        List<Case> cases = List.of(
                new Case("ONLY, 5 bytes, PadCnt 3", 5, null, "[] RTS naks []"),
                new Case("ONLY, 5 bytes, PadCnt 0", 5, 0, "[] ERR naks [97]"),
                new Case("ONLY, 5 bytes, PadCnt 1", 5, 1, "[] ERR naks [97]"),
                new Case("ONLY, 8 bytes, PadCnt 2", 8, 2, "[] ERR naks [97]"));
        for (Case c : cases) {
            try (Peers peers = Peers.simulated()) {
                List<Integer> naks = naksFromB(peers);
                Reth reth = new Reth(peers.b.mr.address(), peers.b.mr.rkey(), c.payload);
                inject(peers, request(peers, Opcode.RC_RDMA_WRITE_ONLY, 0, reth, c.payload, c.pad));
                assertEquals(c.outcome, sendOutcome(peers, naks), c.what);
                byte[] expected = new byte[c.payload];
                if (c.pad == null) {
                    java.util.Arrays.fill(expected, (byte) 0x5A);
                }
                assertArrayEquals(expected, peers.b.mr.read(0, c.payload), c.what + ": memory");
            }
        }
        // Pad on a packet that does not end the WRITE: a full MTU of payload, then pad bytes.
        for (int pad = 0; pad <= 3; pad++) {
            try (Peers peers = Peers.simulated()) {
                List<Integer> naks = naksFromB(peers);
                Reth reth = new Reth(peers.b.mr.address(), peers.b.mr.rkey(), 2048);
                inject(peers, request(peers, Opcode.RC_RDMA_WRITE_FIRST, 0, reth, 1024, pad),
                        request(peers, Opcode.RC_RDMA_WRITE_LAST, 1, null, 1024, null));
                assertEquals(pad == 0 ? "[] RTS naks []" : "[] ERR naks [97]", sendOutcome(peers, naks),
                        "WRITE_FIRST with PadCnt " + pad);
            }
        }
    }

    /** A WRITE_WITH_IMM refused for its pad completes the receive it took with IBV_WC_REM_INV_REQ_ERR. */
    @Test
    void aWriteWithImmediateRefusedForItsLengthCompletesItsReceive() throws Exception {
        try (Peers peers = Peers.simulated()) {
            List<Integer> naks = naksFromB(peers);
            peers.b.qp.postRecv(ReceiveWorkRequest.of(7, peers.b.mr.sge(0, 0)));
            Reth reth = new Reth(peers.b.mr.address(), peers.b.mr.rkey(), 6);
            inject(peers, request(peers, Opcode.RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE, 0, reth, 6, 0));
            assertEquals("[REM_INV_REQ_ERR] ERR naks [97]", sendOutcome(peers, naks));
        }
    }

    /**
     * On UC the same refusal drops the message silently (rxe's class D): no NAK, no ERR. soft0
     * then places the next message in the same receive (rxe drops that one too; see
     * docs/softroce.md).
     */
    @Test
    void onUcARefusedPacketDropsItsMessageOnly() throws Exception {
        Peers.Setup setup = new Peers.Setup();
        setup.type = org.rdmalab.verbs.QpType.UC;
        try (Peers peers = Peers.simulated(setup)) {
            peers.b.qp.postRecv(ReceiveWorkRequest.of(1, peers.b.mr.sge(0, 8192)));
            inject(peers, request(peers, Opcode.UC_SEND_FIRST, 0, null, 1024, null),
                    request(peers, Opcode.UC_SEND_LAST, 1, null, 0, null),
                    request(peers, Opcode.UC_SEND_ONLY, 2, null, 10, null));
            List<WorkCompletion> received = Peers.drain(peers.b);
            assertEquals(List.of(WcStatus.SUCCESS), statuses(received));
            assertEquals(10, received.get(0).byteLength(), "the receive holds the next message, not the refused one");
            assertEquals(QpState.RTS, peers.b.qp.state());
        }
    }

    // ---- deregistered memory: copy_data looks the lkey up at every packet --------------------

    /**
     * A WRITE whose first transmission was lost is sent again from the memory its lkey names at
     * that time: once the MR is deregistered (ibv_dereg_mr) the retransmission fails with
     * IBV_WC_LOC_QP_OP_ERR, as rxe's lookup fails, and nothing reaches the peer.
     */
    @Test
    void aRetransmissionAfterDeregistrationFails() throws Exception {
        try (Peers peers = Peers.simulated()) {
            org.rdmalab.verbs.MemoryRegion source = peers.a.pd.registerMemory(4096,
                    org.rdmalab.verbs.AccessFlag.LOCAL_WRITE.value());
            source.write(0, new byte[] {9, 9, 9, 9, 9, 9, 9, 9});
            boolean[] lose = {true};
            peers.net.intercept((src, dst, datagram) -> lose[0] ? 0 : 1);
            peers.a.qp.postSend(SendWorkRequest.write(1, source.sge(0, 3000), peers.b.mr.address(),
                    peers.b.mr.rkey(), SIGNALED));
            peers.a.qp.postSend(SendWorkRequest.write(2, peers.a.mr.sge(0, 8), peers.b.mr.address() + 8192,
                    peers.b.mr.rkey(), SIGNALED));
            peers.net.advance(java.time.Duration.ofMillis(1));
            assertEquals(4, peers.a.counter(Counter.SENT_PKTS), "both went out once (and were lost)");
            source.close();
            lose[0] = false;
            peers.run();
            List<WorkCompletion> done = Peers.drain(peers.a);
            assertEquals(List.of(WcStatus.LOC_QP_OP_ERR, WcStatus.WR_FLUSH_ERR), statuses(done), done.toString());
            assertEquals(QpState.ERR, peers.a.qp.state());
            assertEquals(4, peers.a.counter(Counter.SENT_PKTS), "the retransmission never went out");
            assertArrayEquals(new byte[8], peers.b.mr.read(0, 8), "nothing reached the peer");
        }
    }

    /**
     * The packets of a long WRITE that wait for the window when its MR is deregistered are not
     * sent: the WRITE fails with IBV_WC_LOC_QP_OP_ERR after the packets that went out before.
     */
    @Test
    void packetsNotYetSentWhenTheMrIsDeregisteredAreNotSent() throws Exception {
        try (Peers peers = Peers.simulated()) {
            org.rdmalab.verbs.MemoryRegion source = peers.a.pd.registerMemory(200 * 1024,
                    org.rdmalab.verbs.AccessFlag.LOCAL_WRITE.value());
            peers.a.qp.postSend(SendWorkRequest.write(1, source.sge(0, 200 * 1024), peers.b.mr.address(),
                    peers.b.mr.rkey(), SIGNALED));
            peers.net.advance(java.time.Duration.ofNanos(1)); // the post reaches the loop; nothing arrives yet
            assertEquals(SoftQueuePair.MAX_UNACKED_PSNS, peers.a.counter(Counter.SENT_PKTS), "the first window went out");
            source.close();
            peers.run();
            assertEquals(List.of(WcStatus.LOC_QP_OP_ERR), statuses(Peers.drain(peers.a)));
            assertEquals(SoftQueuePair.MAX_UNACKED_PSNS, peers.a.counter(Counter.SENT_PKTS),
                    "no packet after the deregistration");
        }
    }

    /**
     * A READ's responses are copied where its scatter list's lkeys point when they arrive (rxe's
     * do_read and do_atomic): a target MR deregistered meanwhile fails the READ or atomic with
     * IBV_WC_LOC_PROT_ERR instead of writing into the old memory.
     */
    @Test
    void aReadOrAtomicWhoseTargetIsDeregisteredBeforeItsResponseFails() throws Exception {
        for (boolean read : new boolean[] {true, false}) {
            try (Peers peers = Peers.simulated()) {
                org.rdmalab.verbs.MemoryRegion target = peers.a.pd.registerMemory(4096,
                        org.rdmalab.verbs.AccessFlag.LOCAL_WRITE.value());
                boolean[] hold = {true};
                peers.net.intercept((src, dst, datagram) -> hold[0] && src == B ? 0 : 1);
                peers.a.qp.postSend(read
                        ? SendWorkRequest.read(1, target.sge(0, 3000), peers.b.mr.address(), peers.b.mr.rkey(),
                                SIGNALED)
                        : SendWorkRequest.fetchAdd(1, target.sge(0, 8), peers.b.mr.address(), peers.b.mr.rkey(), 1,
                                SIGNALED));
                peers.net.advance(java.time.Duration.ofMillis(1));
                target.close();
                hold[0] = false;
                peers.run();
                String what = read ? "READ" : "FETCH_ADD";
                assertEquals(List.of(WcStatus.LOC_PROT_ERR), statuses(Peers.drain(peers.a)), what);
                assertEquals(QpState.ERR, peers.a.qp.state(), what);
            }
        }
    }

    /** A SGE reaching past its MR fails at the packet that reads outside (mr_check_range): IBV_WC_LOC_PROT_ERR. */
    @Test
    void aGatherListOutsideItsMrFailsWhereItLeavesTheMr() throws Exception {
        try (Peers peers = Peers.simulated()) {
            org.rdmalab.verbs.MemoryRegion source = peers.a.pd.registerMemory(1500,
                    org.rdmalab.verbs.AccessFlag.LOCAL_WRITE.value());
            peers.a.qp.postSend(SendWorkRequest.write(1, new org.rdmalab.verbs.ScatterGatherElement(source.address(),
                    2048, source.lkey()), peers.b.mr.address(), peers.b.mr.rkey(), SIGNALED));
            peers.run();
            assertEquals(List.of(WcStatus.LOC_PROT_ERR), statuses(Peers.drain(peers.a)));
            assertEquals(1, peers.a.counter(Counter.SENT_PKTS), "the first 1024 bytes lie inside and went out");
        }
    }

    // ---- reset: rxe_qp_reset empties the queues ---------------------------------------------

    /**
     * A WRITE posted in ERR is accepted (to be flushed); when the QP is reset before the
     * transport takes it (the simulation runs a modify at once and a post later, as a loaded
     * machine may), it must not survive into the reconnected QP and go on the wire.
     */
    @Test
    void aSendAcceptedInErrDoesNotSurviveAReset() throws Exception {
        Peers.Setup setup = new Peers.Setup();
        setup.capabilities = new QpCapabilities(1, 1, 1, 1, 0);
        try (Peers peers = Peers.simulated(setup)) {
            peers.a.mr.write(0, new byte[] {1, 2, 3, 4, 5, 6, 7, 8});
            moveTo(peers.a, QpState.ERR);
            peers.a.qp.postSend(SendWorkRequest.write(1, peers.a.mr.sge(0, 8), peers.b.mr.address(),
                    peers.b.mr.rkey(), SIGNALED));
            moveTo(peers.a, QpState.RESET);
            Peers.connect(peers.a, peers.b, setup, 0, 0);
            peers.run();
            assertEquals(List.of(), Peers.drain(peers.a), "the reset dropped it: no completion");
            assertArrayEquals(new byte[8], peers.b.mr.read(0, 8), "and it never reached the peer");
            assertEquals(0, peers.a.counter(Counter.SENT_PKTS));
            // Its slot is free again: the one-entry send queue takes a new request.
            peers.a.qp.postSend(SendWorkRequest.write(2, peers.a.mr.sge(0, 8), peers.b.mr.address() + 64,
                    peers.b.mr.rkey(), SIGNALED));
            peers.run();
            WorkCompletion done = Peers.drain(peers.a).get(0);
            assertEquals(2, done.wrId());
            assertEquals(WcStatus.SUCCESS, done.status());
            assertArrayEquals(peers.a.mr.read(0, 8), peers.b.mr.read(64, 8));
        }
    }

    /** The same for a receive: after the reset only the receives posted since exist. */
    @Test
    void aReceiveAcceptedInErrDoesNotSurviveAReset() throws Exception {
        Peers.Setup setup = new Peers.Setup();
        setup.capabilities = new QpCapabilities(1, 1, 1, 1, 0);
        try (Peers peers = Peers.simulated(setup)) {
            moveTo(peers.b, QpState.ERR);
            peers.b.qp.postRecv(ReceiveWorkRequest.of(10, peers.b.mr.sge(0, 64)));
            moveTo(peers.b, QpState.RESET);
            Peers.connect(peers.b, peers.a, setup, 0, 0);
            peers.b.qp.postRecv(ReceiveWorkRequest.of(11, peers.b.mr.sge(128, 64)));
            peers.a.qp.postSend(SendWorkRequest.send(1, peers.a.mr.sge(0, 16), SIGNALED));
            peers.run();
            List<WorkCompletion> received = Peers.drain(peers.b);
            assertEquals(1, received.size(), received.toString());
            assertEquals(11, received.get(0).wrId(), "the SEND lands in the receive posted after the reset");
            assertEquals(WcOpcode.RECV, received.get(0).opcode());
            assertEquals(WcStatus.SUCCESS, received.get(0).status());
            assertEquals(List.of(WcStatus.SUCCESS), statuses(Peers.drain(peers.a)));
        }
    }

    /** A reset with work in both queues empties them and frees every slot, without completions. */
    @Test
    void aResetEmptiesBothQueuesAndFreesTheirSlots() throws Exception {
        Peers.Setup setup = new Peers.Setup();
        setup.capabilities = new QpCapabilities(3, 3, 1, 1, 0);
        try (Peers peers = Peers.simulated(setup)) {
            peers.net.intercept((src, dst, datagram) -> 0); // nothing arrives: the requests stay outstanding
            for (int i = 0; i < 3; i++) {
                peers.a.qp.postSend(SendWorkRequest.write(i, peers.a.mr.sge(0, 8), peers.b.mr.address(),
                        peers.b.mr.rkey(), SIGNALED));
                peers.a.qp.postRecv(ReceiveWorkRequest.of(100 + i, peers.a.mr.sge(4096, 64)));
            }
            peers.net.advance(java.time.Duration.ofMillis(1));
            moveTo(peers.a, QpState.RESET);
            peers.run();
            assertEquals(List.of(), Peers.drain(peers.a), "a reset completes nothing");
            peers.net.intercept((src, dst, datagram) -> 1);
            Peers.connect(peers.a, peers.b, setup, 100, 0);
            moveTo(peers.b, QpState.RESET);
            Peers.connect(peers.b, peers.a, setup, 0, 100);
            for (int i = 0; i < 3; i++) {
                peers.a.qp.postSend(SendWorkRequest.write(10 + i, peers.a.mr.sge(0, 8), peers.b.mr.address(),
                        peers.b.mr.rkey(), SIGNALED));
                peers.a.qp.postRecv(ReceiveWorkRequest.of(200 + i, peers.a.mr.sge(4096, 64)));
            }
            peers.run();
            List<WorkCompletion> done = Peers.drain(peers.a);
            assertEquals(List.of(10L, 11L, 12L), done.stream().map(WorkCompletion::wrId).toList());
            assertTrue(done.stream().allMatch(WorkCompletion::isSuccess), done.toString());
        }
    }
}
