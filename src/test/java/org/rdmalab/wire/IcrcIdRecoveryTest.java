package org.rdmalab.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A receiver that cannot see the IPv4 identification (a UDP socket) finds it from the ICRC: packets
 * built with the project's encoder and an ICRC over a header with a non-zero ID, as kernel rxe and
 * NICs send them.
 */
class IcrcIdRecoveryTest {

    private static final int SRC = 0x0A010002; // 10.1.0.2
    private static final int DST = 0x0A010001; // 10.1.0.1
    private static final int SRC_PORT = 49713;  // rxe's port for QPNs 0x11 and 0x21
    private static final int DST_PORT = UdpPorts.ROCE_V2;

    /** A packet as it arrives: the UDP payload, its ICRC computed over an IPv4 header with {@code id}. */
    private static byte[] packet(Opcode opcode, Reth reth, Aeth aeth, int payloadLength, int id, long seed) {
        byte[] payload = new byte[payloadLength];
        new Random(seed).nextBytes(payload);
        ByteBuffer out = ByteBuffer.allocate(payloadLength + 64);
        int length = RocePacketEncoder.encode(out, opcode, 0x21, 0x123456, true, false, reth, aeth, null, null, 0,
                payload, 0, payloadLength);
        byte[] roce = new byte[length + Icrc.LENGTH];
        System.arraycopy(out.array(), 0, roce, 0, length);
        byte[] ip = new byte[Ipv4Header.LENGTH];
        Ipv4Header.write(ByteBuffer.wrap(ip), SRC, DST, 8 + roce.length, 0, 64);
        ip[4] = (byte) (id >>> 8);
        ip[5] = (byte) id;
        byte[] udp = ByteBuffer.allocate(8).putShort((short) SRC_PORT).putShort((short) DST_PORT)
                .putShort((short) (8 + roce.length)).putShort((short) 0).array();
        Icrc.append(ip, 0, Ipv4Header.LENGTH, udp, 0, roce, 0, length);
        return roce;
    }

    private static int recover(byte[] roce) {
        return Icrc.recoverIpv4Id(SRC, DST, SRC_PORT, DST_PORT, roce, 0, roce.length);
    }

    @Test
    void theIdComesBackForEveryPacketShapeAndManyIds() {
        Random random = new Random(7);
        Reth reth = new Reth(0x7f3a5c400000L, 0x13c, 5000);
        for (int round = 0; round < 300; round++) {
            int id = 1 + random.nextInt(0xFFFF);
            byte[] write = packet(Opcode.RC_RDMA_WRITE_FIRST, reth, null, 1024, id, round);
            byte[] send = packet(Opcode.RC_SEND_ONLY, null, null, random.nextInt(100), id, round);
            byte[] readRequest = packet(Opcode.RC_RDMA_READ_REQUEST, reth, null, 0, id, round);
            byte[] ack = packet(Opcode.RC_ACKNOWLEDGE, null, Aeth.ack(round), 0, id, round);
            byte[] readResponse = packet(Opcode.RC_RDMA_READ_RESPONSE_LAST, null, Aeth.ack(round), 962 - 32, id, round);
            for (byte[] roce : new byte[][] {write, send, readRequest, ack, readResponse}) {
                assertEquals(id, recover(roce), "ID 0x" + Integer.toHexString(id) + ", " + roce.length + " bytes");
            }
        }
    }

    @Test
    void idZeroIsTheCanonicalHeader() {
        byte[] roce = packet(Opcode.RC_SEND_ONLY, null, null, 11, 0, 1);
        assertEquals(0, recover(roce));
        assertEquals(true, Icrc.verifyCanonicalIpv4(SRC, DST, SRC_PORT, DST_PORT, roce, 0, roce.length));
    }

    @Test
    void aNicsFrameGivesBackItsId() {
        // IcrcTest's ConnectX-4 CNP: 10.0.17.1:0 -> 10.0.18.1:4791, ID 0x718c, ICRC by the NIC.
        byte[] roce = Bytes.hex("8100 ffff 4000 0118 0000 0000" + "0000 0000 0000 0000 0000 0000 0000 0000" + "82fd 002a");
        assertEquals(0x718c, Icrc.recoverIpv4Id(0x0A001101, 0x0A001201, 0, 4791, roce, 0, roce.length));
    }

    @Test
    void aCorruptedPacketFindsNoId() {
        // One flipped bit anywhere in a full WRITE packet: no ID makes it match (the 16 bits left
        // check it). Which error patterns slip through is fixed by the CRC, so this is deterministic.
        byte[] roce = packet(Opcode.RC_RDMA_WRITE_MIDDLE, null, null, 1024, 0x33e7, 3);
        int rejected = 0;
        for (int bit = 0; bit < roce.length * 8; bit++) {
            if (bit / 8 == 4) {
                continue; // BTH byte 4 (FECN, BECN, reserved) is masked: flips there do not count
            }
            roce[bit / 8] ^= (byte) (1 << (bit & 7));
            if (recover(roce) == -1) {
                rejected++;
            }
            roce[bit / 8] ^= (byte) (1 << (bit & 7));
        }
        assertEquals(roce.length * 8 - 8, rejected);
        // Another address or port than the packet travelled with fails too.
        assertEquals(-1, Icrc.recoverIpv4Id(SRC + 1, DST, SRC_PORT, DST_PORT, roce, 0, roce.length));
        assertEquals(-1, Icrc.recoverIpv4Id(SRC, DST, SRC_PORT + 1, DST_PORT, roce, 0, roce.length));
        assertEquals(0x33e7, recover(roce));
    }

    @Test
    void tooShortIsNoPacket() {
        assertEquals(-1, Icrc.recoverIpv4Id(SRC, DST, SRC_PORT, DST_PORT, new byte[15], 0, 15));
    }
}
