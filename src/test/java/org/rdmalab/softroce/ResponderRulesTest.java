package org.rdmalab.softroce;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.rdmalab.softroce.net.Fabric;
import org.rdmalab.verbs.AccessFlag;
import org.rdmalab.verbs.MemoryRegion;
import org.rdmalab.verbs.QpState;
import org.rdmalab.verbs.QpType;
import org.rdmalab.verbs.ReceiveWorkRequest;
import org.rdmalab.verbs.SendFlag;
import org.rdmalab.verbs.SendWorkRequest;
import org.rdmalab.verbs.WcFlag;
import org.rdmalab.verbs.WcOpcode;
import org.rdmalab.verbs.WcStatus;
import org.rdmalab.verbs.WorkCompletion;
import org.rdmalab.verbs.spi.DeviceOptions;
import org.rdmalab.wire.AtomicEth;
import org.rdmalab.wire.Opcode;
import org.rdmalab.wire.Reth;
import org.rdmalab.wire.RocePacket;
import org.rdmalab.wire.RocePacketEncoder;

/**
 * The responder's checks and answers as rxe's {@code rxe_resp.c} makes them, each on both sides
 * of its rule: the QP access each operation needs alone, a RETH of 2 GiB and one byte more, each
 * packet position's payload at the MTU and one byte off, a SEND that fills its receive and one
 * byte more, the receive's completion fields, zero-length WRITEs and READs that name no memory,
 * an atomic misaligned on the wire, another PD's region for every remote operation, duplicate
 * atomics and READs answered from what was saved, packets out of their message's sequence,
 * max_dest_rd_atomic 0, and UC's dropped messages. Requests that a requester would not send are
 * injected as datagrams from a to b, built with the wire encoder.
 */
class ResponderRulesTest {

    private static final int A = Fabric.toInt(DeviceOptions.parseAddress("127.0.0.1"));
    private static final int B = Fabric.toInt(DeviceOptions.parseAddress("127.0.0.2"));
    private static final int SIGNALED = SendFlag.SIGNALED.value();
    private static final int MTU = 1024;
    private static final int NAK_INVALID = 0x61;
    private static final int NAK_ACCESS = 0x62;
    private static final int NAK_OPERATIONAL = 0x63;

    /** A request from a to b: {@code payload} bytes counting up from {@code first}, signed. */
    private static byte[] request(Peers peers, Opcode op, int psn, Reth reth, AtomicEth atomic, int payload, int first) {
        return request(peers, op, psn, reth, atomic, payload, first, true);
    }

    private static byte[] request(Peers peers, Opcode op, int psn, Reth reth, AtomicEth atomic, int payload, int first,
                                  boolean ackRequest) {
        ByteBuffer out = ByteBuffer.allocate(payload + 128);
        byte[] data = new byte[payload];
        for (int i = 0; i < payload; i++) {
            data[i] = (byte) (first + i);
        }
        int length = RocePacketEncoder.encode(out, op, peers.b.qp.qpNum(), psn, ackRequest, false, reth, null, atomic, null,
                0x5150, data, 0, payload);
        return SoftRoceVerbsTest.resign(Arrays.copyOf(out.array(), length + 4), A, B);
    }

    /** Every packet b sends, decoded. */
    private static List<RocePacket> fromB(Peers peers) {
        List<RocePacket> packets = new ArrayList<>();
        peers.net.intercept((src, dst, datagram) -> {
            if (src == B) {
                packets.add(SoftRoceTransportTest.decode(datagram));
            }
            return 1;
        });
        return packets;
    }

    private static List<Integer> naks(List<RocePacket> packets) {
        return packets.stream().filter(p -> p.opcode() == Opcode.RC_ACKNOWLEDGE && !p.aeth().isAck())
                .map(p -> p.aeth().syndrome()).toList();
    }

    private static void inject(Peers peers, byte[]... datagrams) {
        for (byte[] datagram : datagrams) {
            peers.net.inject(A, 4791, B, 4791, datagram);
        }
        peers.run();
    }

    private static List<WcStatus> statuses(List<WorkCompletion> completions) {
        return completions.stream().map(WorkCompletion::status).toList();
    }

    /** b's receive completions, b's state and b's NAKs after the injected requests. */
    private static String outcome(Peers peers, List<RocePacket> fromB, byte[]... datagrams) throws Exception {
        inject(peers, datagrams);
        return statuses(Peers.drain(peers.b)) + " " + peers.b.qp.state() + " naks " + naks(fromB);
    }

    @Test
    void eachRemoteOperationNeedsOnlyItsOwnRightAndASendNone() throws Exception {
        record Case(AccessFlag right, int qpAccess) {
        }
        for (AccessFlag right : List.of(AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_READ, AccessFlag.REMOTE_ATOMIC)) {
            Peers.Setup setup = new Peers.Setup();
            setup.qpAccess = right.value();
            try (Peers peers = Peers.simulated(setup)) {
                long remote = peers.b.mr.address() + 64;
                int rkey = peers.b.mr.rkey();
                SendWorkRequest wr = switch (right) {
                    case REMOTE_WRITE -> SendWorkRequest.write(1, peers.a.mr.sge(0, 8), remote, rkey, SIGNALED);
                    case REMOTE_READ -> SendWorkRequest.read(1, peers.a.mr.sge(0, 8), remote, rkey, SIGNALED);
                    default -> SendWorkRequest.fetchAdd(1, peers.a.mr.sge(0, 8), remote, rkey, 1, SIGNALED);
                };
                peers.a.qp.postSend(wr);
                if (right == AccessFlag.REMOTE_ATOMIC) {
                    peers.a.qp.postSend(SendWorkRequest.compareSwap(2, peers.a.mr.sge(8, 8), remote, rkey, 1, 5, SIGNALED));
                }
                int expected = right == AccessFlag.REMOTE_ATOMIC ? 2 : 1;
                assertEquals(java.util.Collections.nCopies(expected, WcStatus.SUCCESS),
                        statuses(peers.runUntilCompletions(peers.a, expected)), right + " alone");
            }
        }
        Peers.Setup none = new Peers.Setup();
        none.qpAccess = 0;
        try (Peers peers = Peers.simulated(none)) {
            peers.b.qp.postRecv(ReceiveWorkRequest.of(1, peers.b.mr.sge(0, 64)));
            peers.a.qp.postSend(SendWorkRequest.send(1, peers.a.mr.sge(0, 8), SIGNALED));
            assertEquals(List.of(WcStatus.SUCCESS), statuses(peers.runUntilCompletions(peers.a, 1)), "a SEND needs no right");
        }
    }

    @Test
    void aRethOfTwoGibibytesIsCheckedAgainstTheRegionAndOneByteMoreIsAnInvalidRequest() throws Exception {
        int twoGib = (int) (1L << 31);
        int beyond = (int) ((1L << 31) + 1);
        for (Opcode op : List.of(Opcode.RC_RDMA_READ_REQUEST, Opcode.RC_RDMA_WRITE_ONLY, Opcode.RC_RDMA_WRITE_FIRST)) {
            for (int dmaLength : new int[] {twoGib, beyond}) {
                try (Peers peers = Peers.simulated()) {
                    List<RocePacket> packets = fromB(peers);
                    Reth reth = new Reth(peers.b.mr.address(), peers.b.mr.rkey(), dmaLength);
                    int payload = op == Opcode.RC_RDMA_WRITE_FIRST ? MTU : 0;
                    String result = outcome(peers, packets, request(peers, op, 0, reth, null, payload, 0));
                    int nak = dmaLength == twoGib ? NAK_ACCESS : NAK_INVALID;
                    assertEquals("[] ERR naks [" + nak + "]", result, op + " of " + Integer.toUnsignedString(dmaLength));
                }
            }
        }
    }

    @Test
    void eachPacketPositionCarriesItsPayloadAndOneByteOffIsAnInvalidRequest() throws Exception {
        record Case(String what, Opcode first, int firstPayload, Opcode second, int secondPayload, boolean ok) {
        }
        List<Case> cases = List.of(
                new Case("ONLY of one MTU", Opcode.RC_SEND_ONLY, MTU, null, 0, true),
                new Case("ONLY of one MTU + 1", Opcode.RC_SEND_ONLY, MTU + 1, null, 0, false),
                new Case("ONLY of 0", Opcode.RC_SEND_ONLY, 0, null, 0, true),
                new Case("FIRST of one MTU - 1", Opcode.RC_SEND_FIRST, MTU - 1, null, 0, false),
                new Case("FIRST of one MTU + 1", Opcode.RC_SEND_FIRST, MTU + 1, null, 0, false),
                new Case("MIDDLE of one MTU - 1", Opcode.RC_SEND_FIRST, MTU, Opcode.RC_SEND_MIDDLE, MTU - 1, false),
                new Case("MIDDLE of one MTU + 1", Opcode.RC_SEND_FIRST, MTU, Opcode.RC_SEND_MIDDLE, MTU + 1, false),
                new Case("LAST of one MTU", Opcode.RC_SEND_FIRST, MTU, Opcode.RC_SEND_LAST, MTU, true),
                new Case("LAST of one byte", Opcode.RC_SEND_FIRST, MTU, Opcode.RC_SEND_LAST, 1, true),
                new Case("LAST of one MTU + 1", Opcode.RC_SEND_FIRST, MTU, Opcode.RC_SEND_LAST, MTU + 1, false));
        for (Case c : cases) {
            try (Peers peers = Peers.simulated()) {
                List<RocePacket> packets = fromB(peers);
                peers.b.qp.postRecv(ReceiveWorkRequest.of(1, peers.b.mr.sge(0, 8192)));
                List<byte[]> datagrams = new ArrayList<>();
                datagrams.add(request(peers, c.first(), 0, null, null, c.firstPayload(), 1));
                if (c.second() != null) {
                    datagrams.add(request(peers, c.second(), 1, null, null, c.secondPayload(), 2));
                }
                String result = outcome(peers, packets, datagrams.toArray(new byte[0][]));
                assertEquals(c.ok() ? "[SUCCESS] RTS naks []" : "[REM_INV_REQ_ERR] ERR naks [97]", result, c.what());
            }
        }
    }

    @Test
    void aSendThatFillsItsReceiveCompletesWithEveryFieldAndOneByteMoreIsAMalformedReceive() throws Exception {
        try (Peers peers = Peers.simulated()) {
            byte[] data = new byte[2500];
            for (int i = 0; i < data.length; i++) {
                data[i] = (byte) (i * 7 + 3);
            }
            peers.a.mr.write(0, data);
            peers.b.qp.postRecv(ReceiveWorkRequest.of(11, peers.b.mr.sge(4096, 2500)));
            peers.b.qp.postRecv(ReceiveWorkRequest.of(12, peers.b.mr.sge(8192, 100)));
            peers.a.qp.postSend(SendWorkRequest.send(1, peers.a.mr.sge(0, 2500), SIGNALED));
            peers.a.qp.postSend(SendWorkRequest.sendWithImm(2, peers.a.mr.sge(0, 100), 0x0A0B0C0D, SIGNALED));
            assertEquals(List.of(WcStatus.SUCCESS, WcStatus.SUCCESS), statuses(peers.runUntilCompletions(peers.a, 2)));
            List<WorkCompletion> received = peers.runUntilCompletions(peers.b, 2);
            int qpn = peers.b.qp.qpNum();
            int src = peers.a.qp.qpNum();
            assertEquals(new WorkCompletion(11, WcStatus.SUCCESS, WcOpcode.RECV, 0, 2500, 0, qpn, src, 0),
                    received.get(0), "three packets, one completion of the whole length");
            assertEquals(new WorkCompletion(12, WcStatus.SUCCESS, WcOpcode.RECV, 0, 100, 0x0A0B0C0D, qpn, src,
                    WcFlag.WITH_IMM.value()), received.get(1), "exactly full, with its immediate");
            assertArrayEquals(data, peers.b.mr.read(4096, 2500), "each packet in its place");
            assertArrayEquals(Arrays.copyOf(data, 100), peers.b.mr.read(8192, 100));

            peers.b.qp.postRecv(ReceiveWorkRequest.of(13, peers.b.mr.sge(8192, 100)));
            peers.a.qp.postSend(SendWorkRequest.send(3, peers.a.mr.sge(0, 101), SIGNALED));
            peers.run();
            assertEquals(List.of(WcStatus.REM_OP_ERR), statuses(Peers.drain(peers.a)), "one byte more than the receive");
            assertEquals(List.of(WcStatus.LOC_QP_OP_ERR), statuses(Peers.drain(peers.b)));
        }
    }

    @Test
    void zeroLengthWritesAndReadsNameNoMemory() throws Exception {
        try (Peers peers = Peers.simulated()) {
            List<RocePacket> packets = fromB(peers);
            Reth nowhere = new Reth(0x1000, 0x4242, 0);
            assertEquals("[] RTS naks []", outcome(peers, packets,
                    request(peers, Opcode.RC_RDMA_WRITE_ONLY, 0, nowhere, null, 0, 0),
                    request(peers, Opcode.RC_RDMA_READ_REQUEST, 1, nowhere, null, 0, 0)));
            assertEquals(List.of(Opcode.RC_ACKNOWLEDGE, Opcode.RC_RDMA_READ_RESPONSE_ONLY),
                    packets.stream().map(RocePacket::opcode).toList());
            assertEquals(0, packets.get(1).payloadLength());
            // One byte with the same RETH is checked.
            inject(peers, request(peers, Opcode.RC_RDMA_WRITE_ONLY, 2, new Reth(0x1000, 0x4242, 1), null, 1, 0));
            assertEquals(List.of(NAK_ACCESS), naks(packets));
        }
        try (Peers peers = Peers.simulated()) {
            List<RocePacket> packets = fromB(peers);
            assertEquals("[] ERR naks [98]", outcome(peers, packets,
                    request(peers, Opcode.RC_RDMA_READ_REQUEST, 0, new Reth(0x1000, 0x4242, 1), null, 0, 0)));
        }
    }

    @Test
    void aWriteOnlyMustCarryItsWholeRethAndAFirstNoMoreThanOneMtu() throws Exception {
        try (Peers peers = Peers.simulated()) {
            List<RocePacket> packets = fromB(peers);
            Reth twoMtus = new Reth(peers.b.mr.address(), peers.b.mr.rkey(), 2 * MTU);
            assertEquals("[] ERR naks [97]", outcome(peers, packets,
                    request(peers, Opcode.RC_RDMA_WRITE_ONLY, 0, twoMtus, null, MTU, 0)), "ONLY of half its RETH");
        }
        try (Peers peers = Peers.simulated()) {
            List<RocePacket> packets = fromB(peers);
            Reth threeMtus = new Reth(peers.b.mr.address() + 8, peers.b.mr.rkey(), 3 * MTU);
            assertEquals("[] RTS naks []", outcome(peers, packets,
                    request(peers, Opcode.RC_RDMA_WRITE_FIRST, 0, threeMtus, null, MTU, 0),
                    request(peers, Opcode.RC_RDMA_WRITE_MIDDLE, 1, null, null, MTU, 4),
                    request(peers, Opcode.RC_RDMA_WRITE_LAST, 2, null, null, MTU, 8)));
            byte[] expected = new byte[3 * MTU];
            for (int i = 0; i < 3 * MTU; i++) {
                int packet = i / MTU;
                expected[i] = (byte) (packet * 4 + i % MTU);
            }
            assertArrayEquals(expected, peers.b.mr.read(8, 3 * MTU), "each packet at its offset");
        }
        try (Peers peers = Peers.simulated()) {
            List<RocePacket> packets = fromB(peers);
            Reth threeMtus = new Reth(peers.b.mr.address(), peers.b.mr.rkey(), 3 * MTU);
            assertEquals("[] ERR naks [97]", outcome(peers, packets,
                    request(peers, Opcode.RC_RDMA_WRITE_FIRST, 0, threeMtus, null, MTU, 0),
                    request(peers, Opcode.RC_RDMA_WRITE_LAST, 1, null, null, MTU, 0)), "LAST with a MTU still missing");
        }
    }

    @Test
    void anAtomicMisalignedOnTheWireIsAnInvalidRequestAndChangesNothing() throws Exception {
        for (long offset : new long[] {4, 1, 8}) {
            try (Peers peers = Peers.simulated()) {
                List<RocePacket> packets = fromB(peers);
                peers.b.mr.write(0, new byte[] {1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0});
                AtomicEth eth = new AtomicEth(peers.b.mr.address() + offset, peers.b.mr.rkey(), 0x10, 0);
                String result = outcome(peers, packets, request(peers, Opcode.RC_FETCH_ADD, 0, null, eth, 0, 0));
                if (offset == 8) {
                    assertEquals("[] RTS naks []", result);
                    assertArrayEquals(new byte[] {1, 0, 0, 0, 0, 0, 0, 0, 0x12, 0, 0, 0, 0, 0, 0, 0},
                            peers.b.mr.read(0, 16));
                } else {
                    assertEquals("[] ERR naks [97]", result, "offset " + offset);
                    assertArrayEquals(new byte[] {1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0}, peers.b.mr.read(0, 16));
                }
            }
        }
    }

    @Test
    void anotherPdsRegionIsARemoteAccessErrorForEveryRemoteOperation() throws Exception {
        for (String op : List.of("WRITE", "READ", "CAS", "FAA")) {
            try (Peers peers = Peers.simulated()) {
                List<RocePacket> packets = fromB(peers);
                MemoryRegion other = peers.b.context.allocatePd().registerMemory(4096, peers.b.mr.accessFlags());
                long remote = other.address();
                int rkey = other.rkey();
                peers.a.qp.postSend(switch (op) {
                    case "WRITE" -> SendWorkRequest.write(1, peers.a.mr.sge(0, 8), remote, rkey, SIGNALED);
                    case "READ" -> SendWorkRequest.read(1, peers.a.mr.sge(0, 8), remote, rkey, SIGNALED);
                    case "CAS" -> SendWorkRequest.compareSwap(1, peers.a.mr.sge(0, 8), remote, rkey, 0, 1, SIGNALED);
                    default -> SendWorkRequest.fetchAdd(1, peers.a.mr.sge(0, 8), remote, rkey, 1, SIGNALED);
                });
                assertEquals(List.of(WcStatus.REM_ACCESS_ERR), statuses(peers.runUntilCompletions(peers.a, 1)), op);
                assertEquals(List.of(NAK_ACCESS), naks(packets), op);
                assertArrayEquals(new byte[8], other.read(0, 8), op + ": the other PD's memory is untouched");
            }
        }
    }

    @Test
    void aDuplicateAtomicIsAnsweredFromItsSavedValueAndADuplicateReadIsReadAgain() throws Exception {
        try (Peers peers = Peers.simulated()) {
            List<RocePacket> packets = fromB(peers);
            peers.b.mr.write(0, new byte[] {7, 0, 0, 0, 0, 0, 0, 0});
            AtomicEth add = new AtomicEth(peers.b.mr.address(), peers.b.mr.rkey(), 5, 0);
            Reth read = new Reth(peers.b.mr.address() + 4096, peers.b.mr.rkey(), 2 * MTU);
            byte[] atomic = request(peers, Opcode.RC_FETCH_ADD, 0, null, add, 0, 0);
            byte[] readRequest = request(peers, Opcode.RC_RDMA_READ_REQUEST, 1, read, null, 0, 0);
            inject(peers, atomic, readRequest);
            peers.b.mr.write(4096 + MTU, new byte[] {9, 9});
            inject(peers, atomic, readRequest);
            assertArrayEquals(new byte[] {12, 0, 0, 0, 0, 0, 0, 0}, peers.b.mr.read(0, 8), "added once");
            List<String> answers = packets.stream().map(p -> p.opcode().name() + " " + p.psn()
                    + (p.opcode() == Opcode.RC_ATOMIC_ACKNOWLEDGE ? " original " + p.atomicAckEth().originalData() : "")
                    + (p.payloadLength() > 0 ? " byte " + p.buffer()[p.payloadOffset()] : "")).toList();
            assertEquals(List.of(
                    "RC_ATOMIC_ACKNOWLEDGE 0 original 7", "RC_RDMA_READ_RESPONSE_FIRST 1 byte 0",
                    "RC_RDMA_READ_RESPONSE_LAST 2 byte 0",
                    "RC_ATOMIC_ACKNOWLEDGE 0 original 7", "RC_RDMA_READ_RESPONSE_FIRST 1 byte 0",
                    "RC_RDMA_READ_RESPONSE_LAST 2 byte 9"), answers);
            assertEquals(QpState.RTS, peers.b.qp.state());
            // The READ's second half asked for again starts at its PSN: a LAST alone.
            Reth rest = new Reth(peers.b.mr.address() + 4096 + MTU, peers.b.mr.rkey(), MTU);
            packets.clear();
            inject(peers, request(peers, Opcode.RC_RDMA_READ_REQUEST, 2, rest, null, 0, 0));
            assertEquals(List.of("RC_RDMA_READ_RESPONSE_LAST 2"),
                    packets.stream().map(p -> p.opcode().name() + " " + p.psn()).toList());
            // An atomic at a PSN that was a READ's is not answered from the READ.
            packets.clear();
            inject(peers, request(peers, Opcode.RC_FETCH_ADD, 1, null, add, 0, 0));
            assertArrayEquals(new byte[] {12, 0, 0, 0, 0, 0, 0, 0}, peers.b.mr.read(0, 8), "not executed again");
        }
    }

    @Test
    void packetsOutOfTheirMessagesSequenceAreInvalidRequests() throws Exception {
        record Case(String what, Opcode first, Opcode second, String outcome) {
        }
        // The receive posted is flushed when the QP goes to ERR, unless the refusal completes it.
        List<Case> cases = List.of(
                new Case("SEND_MIDDLE with no message", Opcode.RC_SEND_MIDDLE, null, "[WR_FLUSH_ERR] ERR naks [97]"),
                new Case("SEND_LAST with no message", Opcode.RC_SEND_LAST, null, "[WR_FLUSH_ERR] ERR naks [97]"),
                new Case("WRITE_MIDDLE with no message", Opcode.RC_RDMA_WRITE_MIDDLE, null, "[WR_FLUSH_ERR] ERR naks [97]"),
                new Case("SEND_ONLY inside a SEND", Opcode.RC_SEND_FIRST, Opcode.RC_SEND_ONLY,
                        "[REM_INV_REQ_ERR] ERR naks [97]"),
                new Case("WRITE_MIDDLE inside a SEND", Opcode.RC_SEND_FIRST, Opcode.RC_RDMA_WRITE_MIDDLE,
                        "[WR_FLUSH_ERR] ERR naks [97]"),
                new Case("SEND_MIDDLE inside a SEND", Opcode.RC_SEND_FIRST, Opcode.RC_SEND_MIDDLE, "[] RTS naks []"));
        for (Case c : cases) {
            try (Peers peers = Peers.simulated()) {
                List<RocePacket> packets = fromB(peers);
                peers.b.qp.postRecv(ReceiveWorkRequest.of(1, peers.b.mr.sge(0, 8192)));
                List<byte[]> datagrams = new ArrayList<>();
                datagrams.add(request(peers, c.first(), 0, null, null, MTU, 0));
                if (c.second() != null) {
                    datagrams.add(request(peers, c.second(), 1, null, null, c.second().isOnly() ? 8 : MTU, 0));
                }
                assertEquals(c.outcome(), outcome(peers, packets, datagrams.toArray(new byte[0][])), c.what());
            }
        }
    }

    @Test
    void withMaxDestRdAtomicZeroReadsAndAtomicsAreInvalidRequests() throws Exception {
        for (int slots : new int[] {0, 1}) {
            Peers.Setup setup = new Peers.Setup();
            setup.maxDestRdAtomic = slots;
            for (String op : List.of("READ", "FAA")) {
                try (Peers peers = Peers.simulated(setup)) {
                    long remote = peers.b.mr.address();
                    int rkey = peers.b.mr.rkey();
                    peers.a.qp.postSend(op.equals("READ")
                            ? SendWorkRequest.read(1, peers.a.mr.sge(0, 8), remote, rkey, SIGNALED)
                            : SendWorkRequest.fetchAdd(1, peers.a.mr.sge(0, 8), remote, rkey, 1, SIGNALED));
                    assertEquals(List.of(slots == 0 ? WcStatus.REM_INV_REQ_ERR : WcStatus.SUCCESS),
                            statuses(peers.runUntilCompletions(peers.a, 1)), op + " with max_dest_rd_atomic " + slots);
                }
            }
        }
    }

    @Test
    void onUcAGapDropsTheMessageInProgressAndTheNextStartsTheReceiveAfresh() throws Exception {
        Peers.Setup setup = new Peers.Setup();
        setup.type = QpType.UC;
        try (Peers peers = Peers.simulated(setup)) {
            List<RocePacket> packets = fromB(peers);
            peers.b.qp.postRecv(ReceiveWorkRequest.of(1, peers.b.mr.sge(0, 8192)));
            inject(peers, request(peers, Opcode.UC_SEND_FIRST, 0, null, null, MTU, 1),
                    request(peers, Opcode.UC_SEND_LAST, 2, null, null, 10, 2),
                    request(peers, Opcode.UC_SEND_MIDDLE, 3, null, null, MTU, 3),
                    request(peers, Opcode.UC_SEND_ONLY, 4, null, null, 20, 4));
            List<WorkCompletion> received = Peers.drain(peers.b);
            assertEquals(1, received.size(), received.toString());
            assertEquals(20, received.get(0).byteLength(), "only the message after the gap, from the receive's start");
            assertEquals(4, peers.b.mr.read(0, 1)[0]);
            // A gap inside a WRITE drops its rest; a FIRST after it starts a new one.
            Reth reth = new Reth(peers.b.mr.address() + 16384, peers.b.mr.rkey(), 2 * MTU);
            inject(peers, request(peers, Opcode.UC_RDMA_WRITE_FIRST, 5, reth, null, MTU, 1),
                    request(peers, Opcode.UC_RDMA_WRITE_LAST, 7, null, null, MTU, 2),
                    request(peers, Opcode.UC_RDMA_WRITE_FIRST, 8, reth, null, MTU, 3),
                    request(peers, Opcode.UC_RDMA_WRITE_LAST, 9, null, null, MTU, 4));
            assertEquals(3, peers.b.mr.read(16384, 1)[0]);
            assertEquals(4, peers.b.mr.read(16384 + MTU, 1)[0]);
            assertEquals(QpState.RTS, peers.b.qp.state());
            assertEquals(List.of(), packets, "UC answers nothing");
        }
    }
    @Test
    void aRefusedRequestIsAnsweredWithItsNakAloneAndARequestWithoutAckReqWithNothing() throws Exception {
        record Case(String what, Opcode op, boolean goodRkey, int payload, int dmaLength, int nak) {
        }
        List<Case> cases = List.of(
                new Case("WRITE with a bad rkey", Opcode.RC_RDMA_WRITE_ONLY, false, 8, 8, NAK_ACCESS),
                new Case("WRITE_ONLY shorter than its RETH", Opcode.RC_RDMA_WRITE_ONLY, true, 8, 16, NAK_INVALID),
                new Case("SEND longer than its receive", Opcode.RC_SEND_ONLY, true, 65, 0, NAK_OPERATIONAL),
                new Case("READ with a bad rkey", Opcode.RC_RDMA_READ_REQUEST, false, 0, 8, NAK_ACCESS));
        for (Case c : cases) {
            try (Peers peers = Peers.simulated()) {
                List<RocePacket> packets = fromB(peers);
                peers.b.qp.postRecv(ReceiveWorkRequest.of(1, peers.b.mr.sge(0, 64)));
                Reth reth = c.op().hasReth() ? new Reth(peers.b.mr.address(), c.goodRkey() ? peers.b.mr.rkey()
                        : peers.b.mr.rkey() ^ 0x100, c.dmaLength()) : null;
                inject(peers, request(peers, c.op(), 0, reth, null, c.payload(), 0));
                assertEquals(List.of("RC_ACKNOWLEDGE " + c.nak()), packets.stream()
                        .map(p -> p.opcode().name() + " " + p.aeth().syndrome()).toList(), c.what());
                assertEquals(QpState.ERR, peers.b.qp.state(), c.what());
            }
        }
        try (Peers peers = Peers.simulated()) {
            List<RocePacket> packets = fromB(peers);
            peers.b.qp.postRecv(ReceiveWorkRequest.of(1, peers.b.mr.sge(0, 64)));
            Reth reth = new Reth(peers.b.mr.address(), peers.b.mr.rkey(), 8);
            inject(peers, request(peers, Opcode.RC_RDMA_WRITE_ONLY, 0, reth, null, 8, 0, false),
                    request(peers, Opcode.RC_SEND_ONLY, 1, null, null, 8, 0, false));
            assertEquals(List.of(), packets, "no AckReq, no ACK");
            assertEquals(1, Peers.drain(peers.b).size(), "though the SEND was received");
            inject(peers, request(peers, Opcode.RC_RDMA_WRITE_ONLY, 2, reth, null, 8, 0, true));
            assertEquals(List.of("RC_ACKNOWLEDGE 2"), packets.stream().map(p -> p.opcode().name() + " " + p.psn()).toList());
        }
    }

    @Test
    void aWriteTakesNoReceiveAndAWriteWithImmediateTakesOne() throws Exception {
        try (Peers peers = Peers.simulated()) {
            List<RocePacket> packets = fromB(peers);
            long remote = peers.b.mr.address();
            int rkey = peers.b.mr.rkey();
            peers.a.qp.postSend(SendWorkRequest.write(1, peers.a.mr.sge(0, 8), remote, rkey, SIGNALED));
            assertEquals(List.of(WcStatus.SUCCESS), statuses(peers.runUntilCompletions(peers.a, 1)), "no receive needed");
            assertEquals(0, peers.b.counter(Counter.SEND_RNR_ERR));
            peers.b.qp.postRecv(ReceiveWorkRequest.of(5, peers.b.mr.sge(64, 8)));
            peers.a.qp.postSend(SendWorkRequest.write(2, peers.a.mr.sge(0, 8), remote, rkey, SIGNALED));
            peers.a.qp.postSend(SendWorkRequest.writeWithImm(3, peers.a.mr.sge(0, 8), remote, rkey, 77, SIGNALED));
            assertEquals(List.of(WcStatus.SUCCESS, WcStatus.SUCCESS), statuses(peers.runUntilCompletions(peers.a, 2)));
            List<WorkCompletion> received = Peers.drain(peers.b);
            assertEquals(1, received.size());
            assertEquals(5, received.get(0).wrId(), "the receive went to the WRITE_WITH_IMM, not the WRITE before it");
            assertEquals(WcOpcode.RECV_RDMA_WITH_IMM, received.get(0).opcode());
            assertEquals(77, received.get(0).immData());
            assertEquals(List.of(), naks(packets));
        }
    }

    @Test
    void aUcSendWithNoReceiveIsDroppedWithoutAnRnrNak() throws Exception {
        Peers.Setup setup = new Peers.Setup();
        setup.type = QpType.UC;
        try (Peers peers = Peers.simulated(setup)) {
            List<RocePacket> packets = fromB(peers);
            inject(peers, request(peers, Opcode.UC_SEND_ONLY, 0, null, null, 8, 1));
            assertEquals(List.of(), packets);
            assertEquals(0, peers.b.counter(Counter.SEND_RNR_ERR));
            peers.b.qp.postRecv(ReceiveWorkRequest.of(1, peers.b.mr.sge(0, 64)));
            inject(peers, request(peers, Opcode.UC_SEND_ONLY, 1, null, null, 8, 1));
            assertEquals(1, Peers.drain(peers.b).size(), "the next one lands");
            assertEquals(QpState.RTS, peers.b.qp.state());
        }
    }

    @Test
    void duplicatesAreAnsweredOnlyFromWhatWasSaved() throws Exception {
        try (Peers peers = Peers.simulated()) {
            List<RocePacket> packets = fromB(peers);
            peers.b.qp.postRecv(ReceiveWorkRequest.of(1, peers.b.mr.sge(0, 64)));
            Reth write = new Reth(peers.b.mr.address(), peers.b.mr.rkey(), 8);
            Reth read = new Reth(peers.b.mr.address() + 4096, peers.b.mr.rkey(), 2 * MTU);
            inject(peers, request(peers, Opcode.RC_SEND_ONLY, 0, null, null, 8, 0),
                    request(peers, Opcode.RC_RDMA_WRITE_ONLY, 1, write, null, 8, 0),
                    request(peers, Opcode.RC_RDMA_READ_REQUEST, 2, read, null, 0, 0),
                    request(peers, Opcode.RC_RDMA_READ_REQUEST, 4, new Reth(0x10, 0x4242, 0), null, 0, 0));
            packets.clear();
            // A SEND or WRITE again: an ACK of the last PSN executed.
            inject(peers, request(peers, Opcode.RC_SEND_ONLY, 0, null, null, 8, 0));
            inject(peers, request(peers, Opcode.RC_RDMA_WRITE_ONLY, 1, write, null, 8, 0));
            assertEquals(List.of("RC_ACKNOWLEDGE 4", "RC_ACKNOWLEDGE 4"),
                    packets.stream().map(p -> p.opcode().name() + " " + p.psn()).toList());
            packets.clear();
            // A READ again outside the saved range, or with another rkey: no answer.
            inject(peers, request(peers, Opcode.RC_RDMA_READ_REQUEST, 2,
                    new Reth(peers.b.mr.address() + 4095, peers.b.mr.rkey(), 2 * MTU), null, 0, 0));
            inject(peers, request(peers, Opcode.RC_RDMA_READ_REQUEST, 2,
                    new Reth(peers.b.mr.address() + 4096, peers.b.mr.rkey(), 2 * MTU + 1), null, 0, 0));
            inject(peers, request(peers, Opcode.RC_RDMA_READ_REQUEST, 3,
                    new Reth(peers.b.mr.address() + 4096 + MTU, peers.b.mr.rkey() ^ 0x100, MTU), null, 0, 0));
            // An atomic at the READ's PSN: no atomic was saved there.
            inject(peers, request(peers, Opcode.RC_FETCH_ADD, 2, null,
                    new AtomicEth(peers.b.mr.address(), peers.b.mr.rkey(), 1, 0), 0, 0));
            assertEquals(List.of(), packets);
            // The empty READ again: answered empty, its bogus rkey not looked at.
            inject(peers, request(peers, Opcode.RC_RDMA_READ_REQUEST, 4, new Reth(0x10, 0x4242, 0), null, 0, 0));
            assertEquals(List.of("RC_RDMA_READ_RESPONSE_ONLY 4"),
                    packets.stream().map(p -> p.opcode().name() + " " + p.psn()).toList());
            assertEquals(QpState.RTS, peers.b.qp.state());
        }
    }
}
