package org.rdmalab.softroce;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.rdmalab.softroce.net.Fabric;
import org.rdmalab.verbs.ReceiveWorkRequest;
import org.rdmalab.verbs.ScatterGatherElement;
import org.rdmalab.verbs.SendFlag;
import org.rdmalab.verbs.SendWorkRequest;
import org.rdmalab.verbs.WcStatus;
import org.rdmalab.verbs.WorkCompletion;
import org.rdmalab.verbs.WrOpcode;
import org.rdmalab.verbs.spi.DeviceOptions;
import org.rdmalab.wire.Opcode;
import org.rdmalab.wire.RocePacket;

/**
 * The request packets soft0's requester sends, as rxe's {@code rxe_req.c} makes them: an AckReq on
 * a message's last packet and on the packet that finds more than RXE_MAX_PKT_PER_ACK (64) sent
 * without one; at most RXE_MAX_UNACKED_PSNS (128) PSNs ahead of the acknowledged one; at most
 * max_rd_atomic READs and atomics outstanding; the solicited event only on the last packet of a
 * SEND or WRITE_WITH_IMM; one empty packet for an empty message; and a packet's payload gathered
 * from one SGE or across several.
 */
class RequesterPacketsTest {

    private static final int A = Fabric.toInt(DeviceOptions.parseAddress("127.0.0.1"));
    private static final int SIGNALED = SendFlag.SIGNALED.value();

    /** Every request a sends, decoded, while {@code deliver[0]} says whether it reaches b. */
    private static List<RocePacket> fromA(Peers peers, boolean[] deliver, boolean[] answer) {
        List<RocePacket> packets = new ArrayList<>();
        peers.net.intercept((src, dst, datagram) -> {
            if (src == A) {
                packets.add(SoftRoceTransportTest.decode(datagram));
                return deliver[0] ? 1 : 0;
            }
            return answer[0] ? 1 : 0;
        });
        return packets;
    }

    @Test
    void anAckIsAskedForOnTheLastPacketAndAfterSixtyFourWithout() throws Exception {
        try (Peers peers = Peers.simulated()) {
            List<RocePacket> packets = fromA(peers, new boolean[] {true}, new boolean[] {true});
            int count = 200;
            peers.writeFromA(1, 0, count * 1024, SIGNALED);
            assertEquals(WcStatus.SUCCESS, peers.runUntilCompletions(peers.a, 1).get(0).status());
            assertEquals(count, packets.size(), "no retransmission");
            List<Integer> asking = new ArrayList<>();
            for (RocePacket packet : packets) {
                if (packet.ackRequest()) {
                    asking.add(packet.psn());
                }
            }
            assertEquals(List.of(65, 131, 197, 199), asking, "the 66th packet since the last AckReq asks, and the last");
            // A READ in between starts the count again.
            packets.clear();
            peers.writeFromA(2, 0, 60 * 1024, 0);
            peers.readIntoA(3, 0, 8, 0);
            peers.writeFromA(4, 0, 70 * 1024, SIGNALED);
            assertEquals(WcStatus.SUCCESS, peers.runUntilCompletions(peers.a, 1).get(0).status());
            asking.clear();
            for (RocePacket packet : packets) {
                if (packet.ackRequest()) {
                    asking.add(packet.psn() - 200);
                }
            }
            assertEquals(List.of(59, 60, 61 + 65, 61 + 69), asking);
        }
    }

    @Test
    void atMost128PsnsAreSentAheadOfTheAcknowledgedOne() throws Exception {
        Peers.Setup setup = new Peers.Setup();
        setup.psnA = 0xFFFF00; // the window wraps round the 24-bit PSN space
        try (Peers peers = Peers.simulated(setup)) {
            boolean[] answer = {false};
            List<RocePacket> packets = fromA(peers, new boolean[] {true}, answer);
            peers.writeFromA(1, 0, 75 * 1024, SIGNALED);
            peers.writeFromA(2, 0, 100 * 1024, SIGNALED);
            peers.net.advance(Duration.ofMillis(1));
            TreeSet<Integer> offsets = new TreeSet<>();
            packets.forEach(p -> offsets.add((p.psn() - 0xFFFF00) & 0xFFFFFF));
            assertEquals(128, offsets.size(), "PSNs sq_psn .. sq_psn + 127 and not one more");
            assertEquals(127, offsets.last());
            answer[0] = true;
            assertEquals(List.of(WcStatus.SUCCESS, WcStatus.SUCCESS),
                    peers.runUntilCompletions(peers.a, 2).stream().map(WorkCompletion::status).toList());
        }
    }

    @Test
    void atMostMaxRdAtomicReadsAndAtomicsAreOutstanding() throws Exception {
        for (int limit : new int[] {1, 2, 3}) {
            Peers.Setup setup = new Peers.Setup();
            setup.maxRdAtomic = limit;
            try (Peers peers = Peers.simulated(setup)) {
                boolean[] answer = {false};
                List<RocePacket> packets = fromA(peers, new boolean[] {true}, answer);
                for (int i = 0; i < 4; i++) {
                    peers.a.qp.postSend(i % 2 == 0
                            ? SendWorkRequest.read(i, peers.a.mr.sge(i * 8, 8), peers.b.mr.address(), peers.b.mr.rkey(),
                                    SIGNALED)
                            : SendWorkRequest.fetchAdd(i, peers.a.mr.sge(i * 8, 8), peers.b.mr.address(),
                                    peers.b.mr.rkey(), 1, SIGNALED));
                }
                peers.net.advance(Duration.ofMillis(1));
                assertEquals(limit, packets.stream().map(RocePacket::psn).distinct().count(), "max_rd_atomic " + limit);
                answer[0] = true;
                assertEquals(4, peers.runUntilCompletions(peers.a, 4).size());
            }
        }
    }

    @Test
    void theSolicitedEventIsOnTheLastPacketOfASendOrWriteWithImmediateOnly() throws Exception {
        try (Peers peers = Peers.simulated()) {
            List<RocePacket> packets = fromA(peers, new boolean[] {true}, new boolean[] {true});
            for (int i = 0; i < 3; i++) {
                peers.b.qp.postRecv(ReceiveWorkRequest.of(i, peers.b.mr.sge(0, 8192)));
            }
            int solicited = SendFlag.SOLICITED.value() | SIGNALED;
            peers.a.qp.postSend(SendWorkRequest.send(1, peers.a.mr.sge(0, 2500), solicited));
            peers.a.qp.postSend(SendWorkRequest.writeWithImm(2, peers.a.mr.sge(0, 2500), peers.b.mr.address(),
                    peers.b.mr.rkey(), 9, solicited));
            peers.a.qp.postSend(SendWorkRequest.write(3, peers.a.mr.sge(0, 2500), peers.b.mr.address(),
                    peers.b.mr.rkey(), solicited));
            peers.a.qp.postSend(SendWorkRequest.send(4, peers.a.mr.sge(0, 10), SIGNALED));
            assertEquals(4, peers.runUntilCompletions(peers.a, 4).size());
            List<String> marked = new ArrayList<>();
            for (RocePacket packet : packets) {
                marked.add(packet.opcode().name().replace("RC_", "") + (packet.solicitedEvent() ? " SE" : ""));
            }
            assertEquals(List.of("SEND_FIRST", "SEND_MIDDLE", "SEND_LAST SE",
                    "RDMA_WRITE_FIRST", "RDMA_WRITE_MIDDLE", "RDMA_WRITE_LAST_WITH_IMMEDIATE SE",
                    "RDMA_WRITE_FIRST", "RDMA_WRITE_MIDDLE", "RDMA_WRITE_LAST",
                    "SEND_ONLY"), marked);
        }
    }

    @Test
    void anEmptyMessageIsOneEmptyPacketAndAPayloadIsGatheredAcrossSges() throws Exception {
        try (Peers peers = Peers.simulated()) {
            List<RocePacket> packets = fromA(peers, new boolean[] {true}, new boolean[] {true});
            byte[] data = new byte[3000];
            for (int i = 0; i < data.length; i++) {
                data[i] = (byte) (i % 251);
            }
            peers.a.mr.write(0, java.util.Arrays.copyOfRange(data, 0, 700));
            peers.a.mr.write(10_000, java.util.Arrays.copyOfRange(data, 700, 2000));
            peers.a.mr.write(20_000, java.util.Arrays.copyOfRange(data, 2000, 3000));
            List<ScatterGatherElement> three = List.of(peers.a.mr.sge(0, 700), peers.a.mr.sge(10_000, 1300),
                    peers.a.mr.sge(20_000, 1000));
            peers.b.qp.postRecv(ReceiveWorkRequest.of(1, peers.b.mr.sge(0, 8192)));
            peers.b.qp.postRecv(ReceiveWorkRequest.of(2, peers.b.mr.sge(0, 8192)));
            peers.a.qp.postSend(SendWorkRequest.send(1, peers.a.mr.sge(0, 0), SIGNALED));
            peers.a.qp.postSend(new SendWorkRequest(2, three, WrOpcode.RDMA_WRITE, SIGNALED, 0, peers.b.mr.address() + 4096,
                    peers.b.mr.rkey(), 0, 0));
            peers.a.qp.postSend(new SendWorkRequest(3, three, WrOpcode.SEND, SIGNALED, 0, 0, 0, 0, 0));
            assertEquals(List.of(WcStatus.SUCCESS, WcStatus.SUCCESS, WcStatus.SUCCESS),
                    peers.runUntilCompletions(peers.a, 3).stream().map(WorkCompletion::status).toList());
            assertEquals(Opcode.RC_SEND_ONLY, packets.get(0).opcode());
            assertEquals(0, packets.get(0).payloadLength());
            assertEquals(List.of(1024, 1024, 952), packets.subList(1, 4).stream().map(RocePacket::payloadLength).toList());
            assertArrayEquals(data, peers.b.mr.read(4096, 3000), "the WRITE's bytes, packet by packet");
            List<WorkCompletion> received = peers.runUntilCompletions(peers.b, 2);
            assertEquals(0, received.get(0).byteLength());
            assertEquals(3000, received.get(1).byteLength());
            assertArrayEquals(data, peers.b.mr.read(0, 3000), "the SEND's bytes");
        }
    }
    @Test
    void aReadReservesOnePsnPerMtuAndAnAtomicOne() throws Exception {
        try (Peers peers = Peers.simulated()) {
            List<RocePacket> packets = fromA(peers, new boolean[] {true}, new boolean[] {true});
            long remote = peers.b.mr.address();
            int rkey = peers.b.mr.rkey();
            peers.a.qp.postSend(SendWorkRequest.read(1, peers.a.mr.sge(0, 3 * 1024), remote, rkey, SIGNALED));
            peers.a.qp.postSend(SendWorkRequest.write(2, peers.a.mr.sge(0, 8), remote, rkey, SIGNALED));
            peers.a.qp.postSend(SendWorkRequest.fetchAdd(3, peers.a.mr.sge(8192, 8), remote, rkey, 1, SIGNALED));
            peers.a.qp.postSend(SendWorkRequest.read(4, peers.a.mr.sge(16384, 3 * 1024 + 1), remote, rkey, SIGNALED));
            peers.a.qp.postSend(SendWorkRequest.read(5, peers.a.mr.sge(0, 0), remote, rkey, SIGNALED));
            peers.a.qp.postSend(SendWorkRequest.write(6, peers.a.mr.sge(0, 8), remote, rkey, SIGNALED));
            assertEquals(6, peers.runUntilCompletions(peers.a, 6).size());
            assertEquals(List.of("RDMA_READ_REQUEST 0", "RDMA_WRITE_ONLY 3", "FETCH_ADD 4", "RDMA_READ_REQUEST 5",
                    "RDMA_READ_REQUEST 9", "RDMA_WRITE_ONLY 10"),
                    packets.stream().map(p -> p.opcode().name().replace("RC_", "") + " " + p.psn()).toList());
        }
    }

    @Test
    void aMessageOfTwoGibibytesIsSentAndOneByteMoreIsALocalLengthError() throws Exception {
        try (Peers peers = Peers.simulated()) {
            boolean[] answer = {false};
            List<RocePacket> packets = fromA(peers, new boolean[] {true}, answer);
            int half = 1 << 30;
            ScatterGatherElement first = new ScatterGatherElement(peers.a.mr.address(), half, peers.a.mr.lkey());
            ScatterGatherElement second = new ScatterGatherElement(peers.a.mr.address(), half, peers.a.mr.lkey());
            ScatterGatherElement one = peers.a.mr.sge(0, 1);
            peers.a.qp.postSend(new SendWorkRequest(1, List.of(first, second, one), WrOpcode.SEND, SIGNALED, 0, 0, 0, 0, 0));
            peers.net.advance(Duration.ofMillis(1));
            assertEquals(List.of(WcStatus.LOC_LEN_ERR), Peers.drain(peers.a).stream().map(WorkCompletion::status).toList());
            assertEquals(0, packets.size(), "nothing sent");
        }
        try (Peers peers = Peers.simulated()) {
            boolean[] answer = {false};
            List<RocePacket> packets = fromA(peers, new boolean[] {true}, answer);
            int half = 1 << 30;
            ScatterGatherElement first = new ScatterGatherElement(peers.a.mr.address(), half, peers.a.mr.lkey());
            peers.a.qp.postSend(new SendWorkRequest(1, List.of(first, first), WrOpcode.SEND, SIGNALED, 0, 0, 0, 0, 0));
            peers.net.advance(Duration.ofMillis(1));
            assertEquals(List.of(), Peers.drain(peers.a), "2^31 bytes is a message: it goes out");
            assertEquals(128, packets.size(), "as far as the window lets it");
            assertEquals(Opcode.RC_SEND_FIRST, packets.get(0).opcode());
        }
    }

    @Test
    void aReadOrAtomicWhoseScatterListIsNotWritableFailsLocallyAndNothingAfterItIsSent() throws Exception {
        for (String op : List.of("READ", "CAS", "FAA")) {
            try (Peers peers = Peers.simulated()) {
                List<RocePacket> packets = fromA(peers, new boolean[] {true}, new boolean[] {true});
                org.rdmalab.verbs.MemoryRegion readOnly = peers.a.pd.registerMemory(64,
                        org.rdmalab.verbs.AccessFlag.REMOTE_READ.value());
                long remote = peers.b.mr.address();
                int rkey = peers.b.mr.rkey();
                peers.a.qp.postSend(switch (op) {
                    case "READ" -> SendWorkRequest.read(1, readOnly.sge(0, 8), remote, rkey, SIGNALED);
                    case "CAS" -> SendWorkRequest.compareSwap(1, readOnly.sge(0, 8), remote, rkey, 0, 1, SIGNALED);
                    default -> SendWorkRequest.fetchAdd(1, readOnly.sge(0, 8), remote, rkey, 1, SIGNALED);
                });
                peers.a.qp.postSend(SendWorkRequest.write(2, peers.a.mr.sge(0, 8), remote, rkey, SIGNALED));
                List<WorkCompletion> done = peers.runUntilCompletions(peers.a, 2);
                assertEquals(List.of(WcStatus.LOC_PROT_ERR, WcStatus.WR_FLUSH_ERR),
                        done.stream().map(WorkCompletion::status).toList(), op);
                assertEquals(List.of(), packets, op + ": nothing went out");
            }
        }
    }

    @Test
    void aUcQpHasNoWindowAndCompletesAsItSends() throws Exception {
        Peers.Setup setup = new Peers.Setup();
        setup.type = org.rdmalab.verbs.QpType.UC;
        try (Peers peers = Peers.simulated(setup)) {
            List<RocePacket> packets = fromA(peers, new boolean[] {false}, new boolean[] {true});
            peers.writeFromA(1, 0, 200 * 1024, SIGNALED);
            peers.writeFromA(2, 0, 8, SIGNALED);
            assertEquals(List.of(WcStatus.SUCCESS, WcStatus.SUCCESS),
                    peers.runUntilCompletions(peers.a, 2).stream().map(WorkCompletion::status).toList());
            assertEquals(201, packets.size(), "every packet, none acknowledged");
            assertEquals(Opcode.UC_RDMA_WRITE_ONLY, packets.get(200).opcode());
        }
    }

    @Test
    void aSequenceNakInsideAMessageResendsFromItsPsnOnly() throws Exception {
        try (Peers peers = Peers.simulated()) {
            boolean[] deliver = {false};
            List<RocePacket> packets = fromA(peers, deliver, new boolean[] {true});
            peers.writeFromA(1, 0, 5 * 1024, SIGNALED);
            peers.readIntoA(2, 8192, 3 * 1024, SIGNALED);
            peers.net.advance(Duration.ofMillis(1));
            packets.clear();
            java.nio.ByteBuffer out = java.nio.ByteBuffer.allocate(64);
            int length = org.rdmalab.wire.RocePacketEncoder.encodeResponse(out, Opcode.RC_ACKNOWLEDGE,
                    peers.a.qp.qpNum(), 2, org.rdmalab.wire.Aeth.nakSyndrome(0), 0, null, 0, 0);
            peers.net.inject(Fabric.toInt(DeviceOptions.parseAddress("127.0.0.2")), 4791, A, 4791,
                    SoftRoceVerbsTest.resign(java.util.Arrays.copyOf(out.array(), length + 4),
                            Fabric.toInt(DeviceOptions.parseAddress("127.0.0.2")), A));
            peers.net.advance(Duration.ofMillis(1));
            assertEquals(List.of("RDMA_WRITE_MIDDLE 2", "RDMA_WRITE_MIDDLE 3", "RDMA_WRITE_LAST 4",
                    "RDMA_READ_REQUEST 5"),
                    packets.stream().map(p -> p.opcode().name().replace("RC_", "") + " " + p.psn()).toList());
            deliver[0] = true;
            assertEquals(2, peers.runUntilCompletions(peers.a, 2).size());
        }
    }
}
