package org.rdmalab.ladder;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.rdmalab.capture.PcapWriter;
import org.rdmalab.wire.Aeth;
import org.rdmalab.wire.Icrc;
import org.rdmalab.wire.Ipv4Header;
import org.rdmalab.wire.Opcode;
import org.rdmalab.wire.Reth;
import org.rdmalab.wire.RocePacketEncoder;

/**
 * Packets between two hosts, built with the encoder and the canonical ICRC, written as classic
 * pcap (Ethernet, through PcapWriter) or as pcapng with Linux cooked frames (as tcpdump -i any
 * writes), at the times the test gives.
 */
public final class Wire {

    static final int A = 0x0A010001; // 10.1.0.1, the requester
    static final int B = 0x0A010002; // 10.1.0.2, the responder
    static final int QP_A = 0x11;
    static final int QP_B = 0x12;
    static final int PORT_A = 0xC132;
    static final int PORT_B = 0xD0A4;

    /** One packet: when, which way, its UDP payload. */
    record Packet(long nanos, boolean fromA, byte[] payload) {
    }

    final List<Packet> packets = new ArrayList<>();
    long now = 1_700_000_000_000_000_000L;

    /** Moves the clock on by {@code nanos}. */
    public Wire after(long nanos) {
        now += nanos;
        return this;
    }

    public Wire request(Opcode opcode, int psn, boolean ackReq, Reth reth, int payload) {
        return add(true, opcode, QP_B, psn, ackReq, reth, null, payload);
    }

    public Wire response(Opcode opcode, int psn, Aeth aeth, int payload) {
        return add(false, opcode, QP_A, psn, false, null, aeth, payload);
    }

    /** The last packet again, byte for byte, {@code nanos} later. */
    public Wire again(long nanos) {
        Packet last = packets.get(packets.size() - 1);
        now += nanos;
        packets.add(new Packet(now, last.fromA(), last.payload().clone()));
        return this;
    }

    /** Flips one bit of the last packet's payload byte {@code at} after its ICRC was computed. */
    public Wire corruptLast(int at) {
        packets.get(packets.size() - 1).payload()[at] ^= 0x04;
        return this;
    }

    private Wire add(boolean fromA, Opcode opcode, int destQp, int psn, boolean ackReq, Reth reth, Aeth aeth, int len) {
        byte[] data = new byte[len];
        for (int i = 0; i < len; i++) {
            data[i] = (byte) (psn * 7 + i);
        }
        ByteBuffer out = ByteBuffer.allocate(len + 128);
        RocePacketEncoder.encode(out, opcode, destQp, psn, ackReq, false, reth, aeth, null, null, 0, data, 0, len);
        int length = Icrc.appendCanonicalIpv4(fromA ? A : B, fromA ? B : A, fromA ? PORT_A : PORT_B, 4791, out, 0);
        byte[] payload = new byte[length];
        out.get(0, payload);
        now += 1_000;
        packets.add(new Packet(now, fromA, payload));
        return this;
    }

    public void writePcap(Path file) throws IOException {
        try (PcapWriter writer = PcapWriter.open(file)) {
            for (Packet packet : packets) {
                writer.write(packet.nanos(), packet.fromA() ? A : B, packet.fromA() ? PORT_A : PORT_B,
                        packet.fromA() ? B : A, 4791, 0x02, 64, packet.payload(), 0, packet.payload().length);
            }
        }
    }

    /** pcapng, one section, one Linux cooked (SLL) interface in microseconds, an enhanced packet block per packet. */
    public void writePcapng(Path file) throws IOException {
        ByteOrder le = ByteOrder.LITTLE_ENDIAN;
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        bytes.write(block(le, 0x0A0D0D0A, ByteBuffer.allocate(16).order(le).putInt(0x1A2B3C4D).putShort((short) 1)
                .putShort((short) 0).putLong(-1).array()));
        bytes.write(block(le, 1, ByteBuffer.allocate(8).order(le).putShort((short) 113).putShort((short) 0)
                .putInt(0).array()));
        for (Packet packet : packets) {
            byte[] frame = cooked(packet);
            long micros = packet.nanos() / 1000;
            ByteBuffer body = ByteBuffer.allocate(20 + frame.length).order(le);
            body.putInt(0).putInt((int) (micros >>> 32)).putInt((int) micros).putInt(frame.length).putInt(frame.length)
                    .put(frame);
            bytes.write(block(le, 6, body.array()));
        }
        Files.write(file, bytes.toByteArray());
    }

    private static byte[] cooked(Packet packet) {
        byte[] payload = packet.payload();
        ByteBuffer frame = ByteBuffer.allocate(16 + 20 + 8 + payload.length);
        frame.putShort((short) (packet.fromA() ? 4 : 0)).putShort((short) 1).putShort((short) 6)
                .put(new byte[] {2, 0, 0, 0, 0, 1, 0, 0}).putShort((short) 0x0800);
        int src = packet.fromA() ? A : B;
        int dst = packet.fromA() ? B : A;
        Ipv4Header.write(frame, src, dst, 8 + payload.length, 0x02, 64, 0);
        frame.putShort((short) (packet.fromA() ? PORT_A : PORT_B)).putShort((short) 4791)
                .putShort((short) (8 + payload.length)).putShort((short) 0).put(payload);
        return frame.array();
    }

    private static byte[] block(ByteOrder order, int type, byte[] body) {
        int padded = (body.length + 3) & ~3;
        ByteBuffer buffer = ByteBuffer.allocate(12 + padded).order(order);
        buffer.putInt(type).putInt(12 + padded).put(body);
        buffer.position(8 + padded);
        buffer.putInt(12 + padded);
        return buffer.array();
    }
}
