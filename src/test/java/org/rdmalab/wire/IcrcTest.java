package org.rdmalab.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

class IcrcTest {

    /**
     * A RoCEv2 CNP captured on a Mellanox ConnectX-4 Lx, whose NIC computed the ICRC. Published as
     * the hex dump of the test case "RoCE CNP captured on ConnectX-4 Lx" in Scapy's RoCE regression
     * tests (github.com/secdev/scapy, test/contrib/roce.uts); only the packet bytes are taken.
     * Ethernet (14) | IPv4 (20, TOS 0xc2, ID 0x718c, DF, TTL 0x40) | UDP (8, 0 -> 4791, checksum 0)
     * | BTH (opcode 0x81, BECN, QP 0x118) | 16 reserved bytes | ICRC 82 fd 00 2a.
     */
    private static final byte[] CONNECTX4_CNP = Bytes.hex(
            "e41d2dab2bc2 7cfe90643b32 0800"
            + "45c2 003c 718c 4000 4011 9161 0a00 1101 0a00 1201"
            + "0000 12b7 0028 0000"
            + "8100 ffff 4000 0118 0000 0000"
            + "0000 0000 0000 0000 0000 0000 0000 0000"
            + "82fd 002a");

    private static final int IP = 14;
    private static final int UDP = 34;
    private static final int ROCE = 42;

    @Test
    void realConnectX4FrameVerifies() throws Exception {
        byte[] frame = CONNECTX4_CNP.clone();
        int roceLength = frame.length - ROCE;
        assertEquals(32, roceLength);
        int computed = Icrc.compute(frame, IP, 20, frame, UDP, frame, ROCE, roceLength - 4);
        assertEquals(0x2a00fd82, computed, "least significant byte first on the wire: 82 fd 00 2a");
        assertEquals(computed, Icrc.read(frame, frame.length - 4));
        assertTrue(Icrc.verify(frame, IP, 20, frame, UDP, frame, ROCE, roceLength));

        RocePacket packet = RocePacket.decode(frame, ROCE, roceLength);
        assertSame(Opcode.CNP, packet.opcode());
        assertEquals(0x118, packet.bth().destQp());
        assertEquals(computed, packet.icrc());
        assertEquals("CNP qp 0x000118 psn 0 becn payload 16", packet.summary());
    }

    @Test
    void appendRestoresTheNicsIcrc() {
        byte[] frame = CONNECTX4_CNP.clone();
        Icrc.write(frame, frame.length - 4, 0);
        int roceLength = frame.length - ROCE;
        assertEquals(roceLength, Icrc.append(frame, IP, 20, frame, UDP, frame, ROCE, roceLength - 4));
        assertEquals("82 fd 00 2a", Bytes.hex(frame, frame.length - 4, 4));
    }

    @Test
    void maskedFieldsDoNotMatterOthersDo() {
        int roceLength = CONNECTX4_CNP.length - ROCE;
        // TOS, TTL, IP checksum, UDP checksum and BTH byte 4 are masked.
        for (int index : new int[] {IP + 1, IP + 8, IP + 10, IP + 11, UDP + 6, UDP + 7, ROCE + 4}) {
            byte[] frame = CONNECTX4_CNP.clone();
            frame[index] ^= 0x5A;
            assertTrue(Icrc.verify(frame, IP, 20, frame, UDP, frame, ROCE, roceLength), "byte " + index);
        }
        // Identification, addresses, ports, P_Key, QPN, payload and the ICRC itself are covered.
        for (int index : new int[] {IP + 4, IP + 12, IP + 19, UDP, UDP + 3, ROCE + 2, ROCE + 7, ROCE + 20,
                CONNECTX4_CNP.length - 1}) {
            byte[] frame = CONNECTX4_CNP.clone();
            frame[index] ^= 0x01;
            assertFalse(Icrc.verify(frame, IP, 20, frame, UDP, frame, ROCE, roceLength), "byte " + index);
        }
    }

    /** CRC-32 bit by bit (reflected polynomial 0xEDB88320, init and final XOR all ones), for comparison. */
    private static int bitwiseCrc32(byte[]... parts) {
        int crc = 0xFFFFFFFF;
        for (byte[] part : parts) {
            for (byte b : part) {
                crc ^= b & 0xFF;
                for (int bit = 0; bit < 8; bit++) {
                    crc = (crc & 1) != 0 ? (crc >>> 1) ^ 0xEDB88320 : crc >>> 1;
                }
            }
        }
        return ~crc;
    }

    // An RC_RDMA_WRITE_ONLY of "hello world" written out by hand: BTH, RETH, payload, pad.
    private static final byte[] WRITE_ONLY = Bytes.hex(
            "0a10ffff 00000011 80000000"
            + "00007f1234567890 00001234 0000000b"
            + "68656c6c6f20776f726c64 00");

    @Test
    void ipv4FrameAgainstAnIndependentCrc() {
        // IPv4 192.168.1.1 -> 192.168.1.2, ID 0x1234, TOS 0x02, TTL 64; UDP 0xc132 -> 4791, checksum 0x1111.
        byte[] ip = Bytes.hex("4502 0048 1234 4000 4011 abcd c0a80101 c0a80102");
        byte[] udp = Bytes.hex("c132 12b7 0034 1111");
        byte[] maskedIp = Bytes.hex("45ff 0048 1234 4000 ff11 ffff c0a80101 c0a80102");
        byte[] maskedUdp = Bytes.hex("c132 12b7 0034 ffff");
        byte[] maskedRoce = WRITE_ONLY.clone();
        maskedRoce[4] = (byte) 0xFF;
        int expected = bitwiseCrc32(Bytes.hex("ffffffffffffffff"), maskedIp, maskedUdp, maskedRoce);
        assertEquals(expected, Icrc.compute(ip, 0, 20, udp, 0, WRITE_ONLY, 0, WRITE_ONLY.length));
    }

    @Test
    void ipv6FrameAgainstAnIndependentCrc() {
        // Traffic class 0x12, flow label 0x34567, hop limit 64, next header UDP; fe80::1 -> fe80::2.
        byte[] ip = Bytes.hex("61234567 0034 11 40"
                + "fe800000000000000000000000000001 fe800000000000000000000000000002");
        byte[] udp = Bytes.hex("c132 12b7 0034 2222");
        byte[] maskedIp = Bytes.hex("6fffffff 0034 11 ff"
                + "fe800000000000000000000000000001 fe800000000000000000000000000002");
        byte[] maskedUdp = Bytes.hex("c132 12b7 0034 ffff");
        byte[] maskedRoce = WRITE_ONLY.clone();
        maskedRoce[4] = (byte) 0xFF;
        int expected = bitwiseCrc32(Bytes.hex("ffffffffffffffff"), maskedIp, maskedUdp, maskedRoce);
        assertEquals(expected, Icrc.compute(ip, 0, 40, udp, 0, WRITE_ONLY, 0, WRITE_ONLY.length));
    }

    @Test
    void canonicalIpv4AgainstAnIndependentCrc() throws Exception {
        Inet4Address src = (Inet4Address) InetAddress.getByName("127.0.0.1");
        Inet4Address dst = (Inet4Address) InetAddress.getByName("127.0.0.2");
        // Total length 20 + 8 + 40 + 4 = 72 = 0x48; ID 0, DF; UDP length 52 = 0x34.
        byte[] maskedIp = Bytes.hex("45ff 0048 0000 4000 ff11 ffff 7f000001 7f000002");
        byte[] maskedUdp = Bytes.hex("c132 12b7 0034 ffff");
        byte[] maskedRoce = WRITE_ONLY.clone();
        maskedRoce[4] = (byte) 0xFF;
        int expected = bitwiseCrc32(Bytes.hex("ffffffffffffffff"), maskedIp, maskedUdp, maskedRoce);
        assertEquals(expected, Icrc.forCanonicalIpv4(src, dst, 0xC132, 4791, WRITE_ONLY, 0, WRITE_ONLY.length));
        assertEquals(expected, Icrc.forCanonicalIpv4(0x7f000001, 0x7f000002, 0xC132, 4791, WRITE_ONLY, 0,
                WRITE_ONLY.length));

        // The same through the real canonical header bytes, any TOS and TTL.
        byte[] header = Ipv4Header.canonical(src, dst, 8 + WRITE_ONLY.length + 4, 0x88, 3);
        assertEquals(expected, Icrc.compute(header, 0, 20, Bytes.hex("c132 12b7 0034 0000"), 0, WRITE_ONLY, 0,
                WRITE_ONLY.length));

        for (ByteBuffer buffer : new ByteBuffer[] {ByteBuffer.allocate(100), ByteBuffer.allocateDirect(100)}) {
            buffer.position(7);
            buffer.put(WRITE_ONLY);
            int total = Icrc.appendCanonicalIpv4(src, dst, 0xC132, 4791, buffer, 7);
            assertEquals(WRITE_ONLY.length + 4, total);
            assertEquals(7 + total, buffer.position());
            assertEquals(100, buffer.limit());
            byte[] packet = new byte[total];
            buffer.get(7, packet);
            assertEquals(expected, Icrc.read(packet, WRITE_ONLY.length));
            assertEquals((byte) expected, packet[WRITE_ONLY.length], "least significant byte first");
            assertTrue(Icrc.verifyCanonicalIpv4(0x7f000001, 0x7f000002, 0xC132, 4791, packet, 0, total));
            assertFalse(Icrc.verifyCanonicalIpv4(0x7f000001, 0x7f000003, 0xC132, 4791, packet, 0, total));
        }
    }

    @Test
    void readWriteLittleEndian() {
        byte[] buf = new byte[4];
        Icrc.write(buf, 0, 0x2a00fd82);
        assertEquals("82 fd 00 2a", Bytes.hex(buf, 0, 4));
        ByteBuffer out = ByteBuffer.allocate(4);
        Icrc.write(out, 0x01020304);
        assertEquals("04 03 02 01", Bytes.hex(out.array(), 0, 4));
    }

    @Test
    void rejectsOtherIpVersions() {
        byte[] ip = Bytes.hex("5500 0048 0000 4000 4011 0000 7f000001 7f000002");
        assertThrows(IllegalArgumentException.class,
                () -> Icrc.compute(ip, 0, 20, new byte[8], 0, WRITE_ONLY, 0, WRITE_ONLY.length));
    }
}
