package org.rdmalab.capture;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.rdmalab.wire.Aeth;
import org.rdmalab.wire.AtomicAckEth;
import org.rdmalab.wire.AtomicEth;
import org.rdmalab.wire.Icrc;
import org.rdmalab.wire.Opcode;
import org.rdmalab.wire.Reth;
import org.rdmalab.wire.RocePacketEncoder;

/** Builds captures the way the software device will: encoder, canonical ICRC, PcapWriter. */
final class SampleCapture {

    static final Inet4Address CLIENT = address("10.1.0.1");
    static final Inet4Address SERVER = address("10.1.0.2");
    static final int CLIENT_QP = 0x11;
    static final int SERVER_QP = 0x12;
    static final int SOURCE_PORT = 0xC132;

    /** One packet as written: opcode, destination QP, PSN, and which way it went. */
    record Sent(Opcode opcode, int destQp, int psn, boolean fromClient, byte[] udpPayload) {
    }

    private final List<Sent> sent = new ArrayList<>();

    private static Inet4Address address(String text) {
        try {
            return (Inet4Address) InetAddress.getByName(text);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    List<Sent> sent() {
        return sent;
    }

    /** A request from client to server. */
    SampleCapture request(Opcode opcode, int psn, boolean ackReq, Reth reth, AtomicEth atomic, int imm,
                          int payloadLength) {
        return add(opcode, SERVER_QP, psn, ackReq, true, reth, null, atomic, null, imm, payloadLength);
    }

    /** A response from server to client. */
    SampleCapture response(Opcode opcode, int psn, Aeth aeth, AtomicAckEth atomicAck, int payloadLength) {
        return add(opcode, CLIENT_QP, psn, false, false, null, aeth, null, atomicAck, 0, payloadLength);
    }

    private SampleCapture add(Opcode opcode, int destQp, int psn, boolean ackReq, boolean fromClient, Reth reth,
                              Aeth aeth, AtomicEth atomic, AtomicAckEth atomicAck, int imm, int payloadLength) {
        byte[] payload = new byte[payloadLength];
        for (int i = 0; i < payloadLength; i++) {
            payload[i] = (byte) ('a' + (psn + i) % 26);
        }
        ByteBuffer out = ByteBuffer.allocate(4096);
        RocePacketEncoder.encode(out, opcode, destQp, psn, ackReq, false, reth, aeth, atomic, atomicAck, imm,
                payload, 0, payloadLength);
        Inet4Address src = fromClient ? CLIENT : SERVER;
        Inet4Address dst = fromClient ? SERVER : CLIENT;
        int length = Icrc.appendCanonicalIpv4(src, dst, SOURCE_PORT, 4791, out, 0);
        byte[] datagram = new byte[length];
        out.get(0, datagram);
        sent.add(new Sent(opcode, destQp, psn, fromClient, datagram));
        return this;
    }

    /** Writes every packet, 1 µs apart, TOS 0x02 and TTL 64 as rxe would by default. */
    void write(Path file) throws IOException {
        long time = 1_700_000_000_123_456_789L;
        try (PcapWriter writer = PcapWriter.open(file)) {
            for (Sent packet : sent) {
                Inet4Address src = packet.fromClient ? CLIENT : SERVER;
                Inet4Address dst = packet.fromClient ? SERVER : CLIENT;
                writer.write(time, src, SOURCE_PORT, dst, 4791, 0x02, 64, packet.udpPayload, 0,
                        packet.udpPayload.length);
                time += 1_000;
            }
        }
    }

    /** Every kind of RC packet the device sends: the variety the tshark test checks. */
    static SampleCapture variety() {
        SampleCapture capture = new SampleCapture();
        Reth write = new Reth(0x00007f0000001000L, 0x1234, 2500);
        capture.request(Opcode.RC_SEND_ONLY, 0, true, null, null, 0, 10)
                .response(Opcode.RC_ACKNOWLEDGE, 0, Aeth.ack(1), null, 0)
                .request(Opcode.RC_RDMA_WRITE_FIRST, 1, false, write, null, 0, 1024)
                .request(Opcode.RC_RDMA_WRITE_MIDDLE, 2, false, null, null, 0, 1024)
                .request(Opcode.RC_RDMA_WRITE_LAST, 3, true, null, null, 0, 452)
                .response(Opcode.RC_ACKNOWLEDGE, 3, Aeth.ack(2), null, 0)
                .request(Opcode.RC_RDMA_WRITE_ONLY, 4, true, new Reth(0x00007f0000002000L, 0x1234, 11), null, 0,
                        11)
                .response(Opcode.RC_ACKNOWLEDGE, 4, Aeth.nak(Aeth.NAK_REMOTE_ACCESS_ERROR, 2), null, 0)
                .request(Opcode.RC_RDMA_READ_REQUEST, 5, true, new Reth(0x00007f0000003000L, 0x5678, 1500), null,
                        0, 0)
                .response(Opcode.RC_RDMA_READ_RESPONSE_FIRST, 5, Aeth.ack(3), null, 1024)
                .response(Opcode.RC_RDMA_READ_RESPONSE_LAST, 6, Aeth.ack(3), null, 476)
                .request(Opcode.RC_COMPARE_SWAP, 7, true, null, new AtomicEth(0x00007f0000004000L, 0x9abc, 5, 0),
                        0, 0)
                .response(Opcode.RC_ATOMIC_ACKNOWLEDGE, 7, Aeth.ack(4), new AtomicAckEth(0), 0)
                .request(Opcode.RC_FETCH_ADD, 8, true, null, new AtomicEth(0x00007f0000004000L, 0x9abc, 1, 0), 0, 0)
                .response(Opcode.RC_ATOMIC_ACKNOWLEDGE, 8, Aeth.ack(5), new AtomicAckEth(5), 0)
                .request(Opcode.RC_SEND_ONLY_WITH_IMMEDIATE, 9, true, null, null, 0x01020304, 7)
                .response(Opcode.RC_ACKNOWLEDGE, 9, Aeth.rnrNak(14, 6), null, 0)
                .request(Opcode.UC_SEND_ONLY, 0xFFFFFF, false, null, null, 0, 3);
        return capture;
    }
}
