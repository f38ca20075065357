package org.rdmalab.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class RocePacketTest {

    private static final byte[] HELLO = "hello world".getBytes(StandardCharsets.US_ASCII);
    private static final Reth RETH = new Reth(0x00007f1234567890L, 0x1234, 11);

    private static byte[] withIcrc(ByteBuffer out, int length) {
        Icrc.appendCanonicalIpv4(0x7f000001, 0x7f000002, 0xC000, 4791, out, 0);
        return Arrays.copyOf(out.array(), length + 4);
    }

    @Test
    void writeOnlyByteForByte() throws Exception {
        ByteBuffer out = ByteBuffer.allocate(64);
        int length = RocePacketEncoder.encode(out, Opcode.RC_RDMA_WRITE_ONLY, 0x11, 0, true, false, RETH, null, null,
                null, 0, HELLO, 0, HELLO.length);
        assertEquals(40, length);
        assertEquals(40, RocePacketEncoder.lengthWithoutIcrc(Opcode.RC_RDMA_WRITE_ONLY, 11));
        // PadCnt 1 (11 + 1 = 12): byte 1 = 0x10.
        assertArrayEquals(Bytes.hex("0a10ffff 00000011 80000000 00007f1234567890 00001234 0000000b"
                + "68656c6c6f20776f726c64 00"), Arrays.copyOf(out.array(), length));

        byte[] packet = withIcrc(out, length);
        RocePacket decoded = RocePacket.decode(packet, 0, packet.length);
        assertSame(Opcode.RC_RDMA_WRITE_ONLY, decoded.opcode());
        assertEquals(RETH, decoded.reth());
        assertNull(decoded.aeth());
        assertEquals(28, decoded.payloadOffset());
        assertEquals(11, decoded.payloadLength());
        assertEquals(1, decoded.bth().padCount());
        assertEquals(Icrc.read(packet, 40), decoded.icrc());
        assertEquals("RC_RDMA_WRITE_ONLY qp 0x000011 psn 0 ackreq RETH va 0x00007f1234567890 rkey 0x00001234"
                + " len 11 payload 11", decoded.summary());
        assertEquals("RETH va 0x00007f1234567890 rkey 0x00001234 len 11 payload 11", decoded.detail());
    }

    @Test
    void sendWithImmediateAndAtomicAckByteForByte() throws Exception {
        ByteBuffer out = ByteBuffer.allocate(64);
        int length = RocePacketEncoder.encode(out, Opcode.RC_SEND_ONLY_WITH_IMMEDIATE, 0x22, 0xFFFFFF, true, true,
                null, null, null, null, 0xDEADBEEF, new byte[] {1, 2, 3, 4}, 0, 4);
        assertArrayEquals(Bytes.hex("05 80 ffff 00 000022 80 ffffff deadbeef 01020304"),
                Arrays.copyOf(out.array(), length));
        RocePacket decoded = RocePacket.decode(withIcrc(out, length), 0, length + 4);
        assertTrue(decoded.hasImmDt());
        assertEquals(0xDEADBEEF, decoded.immDt());
        assertTrue(decoded.bth().solicitedEvent());
        assertEquals("RC_SEND_ONLY_WITH_IMMEDIATE qp 0x000022 psn 16777215 ackreq se imm 0xdeadbeef payload 4",
                decoded.summary());

        out.clear();
        length = RocePacketEncoder.encode(out, Opcode.RC_ATOMIC_ACKNOWLEDGE, 0x33, 9, false, false, null,
                Aeth.ack(4), null, new AtomicAckEth(42), 0, null, 0, 0);
        assertArrayEquals(Bytes.hex("12 00 ffff 00 000033 00 000009 1f000004 000000000000002a"),
                Arrays.copyOf(out.array(), length));
        decoded = RocePacket.decode(withIcrc(out, length), 0, length + 4);
        assertEquals("RC_ATOMIC_ACKNOWLEDGE qp 0x000033 psn 9 AETH ACK msn 4 AtomicAckETH orig 0x000000000000002a",
                decoded.summary());
        assertFalse(decoded.hasImmDt());
    }

    @Test
    void everyKnownOpcodeRoundTrips() throws Exception {
        byte[] payload = {9, 8, 7, 6, 5};
        for (int value = 0; value < 0x80; value++) {
            Opcode opcode = Opcode.of(value);
            if (!opcode.isRc() && !opcode.isUc()) {
                continue;
            }
            Reth reth = opcode.hasReth() ? RETH : null;
            Aeth aeth = opcode.hasAeth() ? Aeth.nak(Aeth.NAK_INVALID_REQUEST, 77) : null;
            AtomicEth atomic = opcode.hasAtomicEth() ? new AtomicEth(0x1000, 5, 6, 7) : null;
            AtomicAckEth atomicAck = opcode.hasAtomicAckEth() ? new AtomicAckEth(-1) : null;
            int payloadLength = opcode.hasPayload() ? payload.length : 0;
            ByteBuffer out = ByteBuffer.allocate(128);
            int length = RocePacketEncoder.encode(out, opcode, 0xABCDEF, 0x123456, false, false, reth, aeth, atomic,
                    atomicAck, 0x55AA55AA, payload, 0, payloadLength);
            assertEquals(0, length % 4, opcode.name());
            byte[] packet = withIcrc(out, length);
            RocePacket decoded = RocePacket.decode(packet, 0, packet.length);
            assertSame(opcode, decoded.opcode());
            assertEquals(0xABCDEF, decoded.bth().destQp());
            assertEquals(0x123456, decoded.bth().psn());
            assertEquals(reth, decoded.reth(), opcode.name());
            assertEquals(aeth, decoded.aeth(), opcode.name());
            assertEquals(atomic, decoded.atomicEth(), opcode.name());
            assertEquals(atomicAck, decoded.atomicAckEth(), opcode.name());
            assertEquals(opcode.hasImmDt() ? 0x55AA55AA : 0, decoded.immDt(), opcode.name());
            assertEquals(payloadLength, decoded.payloadLength(), opcode.name());
            assertEquals(12 + opcode.extensionLength(), decoded.payloadOffset(), opcode.name());
            assertEquals(payloadLength == 0 ? 0 : 3, decoded.bth().padCount(), opcode.name());
            assertTrue(Icrc.verifyCanonicalIpv4(0x7f000001, 0x7f000002, 0xC000, 4791, packet, 0, packet.length));
        }
    }

    @Test
    void decodesAtAnOffset() throws Exception {
        ByteBuffer out = ByteBuffer.allocate(64);
        out.position(10);
        int length = RocePacketEncoder.encode(out, Opcode.RC_SEND_LAST, 1, 2, true, false, null, null, null, null,
                0, HELLO, 6, 5);
        Icrc.appendCanonicalIpv4(1, 2, 3, 4, out, 10);
        RocePacket decoded = RocePacket.decode(out.array(), 10, length + 4);
        assertEquals(22, decoded.payloadOffset());
        assertEquals("world", new String(decoded.buffer(), decoded.payloadOffset(), decoded.payloadLength(),
                StandardCharsets.US_ASCII));
        assertEquals(10, decoded.offset());
        assertEquals(length, decoded.lengthWithoutIcrc());
    }

    @Test
    void byteBufferPayloadAndFullBthForms() {
        ByteBuffer expected = ByteBuffer.allocate(64);
        int length = RocePacketEncoder.encode(expected, Opcode.RC_RDMA_WRITE_FIRST, 5, 6, false, false, RETH, null,
                null, null, 0, HELLO, 0, HELLO.length);
        ByteBuffer payload = ByteBuffer.allocateDirect(20);
        payload.put(HELLO).flip();
        ByteBuffer out = ByteBuffer.allocateDirect(64);
        assertEquals(length, RocePacketEncoder.encode(out, Opcode.RC_RDMA_WRITE_FIRST, 5, 6, false, false, RETH,
                null, null, null, 0, payload));
        assertEquals(0, payload.position(), "the payload buffer's position does not move");
        byte[] written = new byte[length];
        out.get(0, written);
        assertArrayEquals(Arrays.copyOf(expected.array(), length), written);

        ByteBuffer viaBth = ByteBuffer.allocate(64);
        Bth bth = new Bth(Opcode.RC_RDMA_WRITE_FIRST, false, true, 0, 0, 0x7FFF, 0x80, 5, false, 6);
        RocePacketEncoder.encode(viaBth, bth, RETH, null, null, null, 0, HELLO, 0, HELLO.length);
        // MigReq and PadCnt 1 in byte 1, P_Key 0x7fff, FECN in byte 4; the rest as before.
        assertEquals("06 50 7f ff 80 00 00 05", Bytes.hex(viaBth.array(), 0, 8));
        assertEquals(Bytes.hex(expected.array(), 8, length - 8), Bytes.hex(viaBth.array(), 8, length - 8));
    }

    @Test
    void encoderRejectsMisuse() {
        ByteBuffer out = ByteBuffer.allocate(64);
        IllegalArgumentException missing = assertThrows(IllegalArgumentException.class, () -> RocePacketEncoder
                .encode(out, Opcode.RC_RDMA_WRITE_ONLY, 1, 0, false, false, null, null, null, null, 0, HELLO, 0, 11));
        assertEquals("RC_RDMA_WRITE_ONLY needs a RETH", missing.getMessage());
        assertThrows(IllegalArgumentException.class, () -> RocePacketEncoder.encode(out, Opcode.RC_SEND_ONLY, 1, 0,
                false, false, RETH, null, null, null, 0, HELLO, 0, 11));
        assertThrows(IllegalArgumentException.class, () -> RocePacketEncoder.encode(out, Opcode.RC_ACKNOWLEDGE, 1, 0,
                false, false, null, Aeth.ack(0), null, null, 0, HELLO, 0, 11));
        assertThrows(IllegalArgumentException.class, () -> RocePacketEncoder.encode(ByteBuffer.allocate(20),
                Opcode.RC_SEND_ONLY, 1, 0, false, false, null, null, null, null, 0, HELLO, 0, 11));
        assertThrows(IllegalArgumentException.class, () -> RocePacketEncoder.encode(out, Opcode.of(0x15), 1, 0,
                false, false, null, null, null, null, 0, null, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> RocePacketEncoder.encode(out, Opcode.UD_SEND_ONLY, 1, 0,
                false, false, null, null, null, null, 0, null, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> RocePacketEncoder.encode(out, Opcode.RC_SEND_ONLY,
                0x1000000, 0, false, false, null, null, null, null, 0, null, 0, 0));
        assertEquals(0, out.position(), "nothing written on misuse");
    }

    @Test
    void udSendWithImmediateFromHandWrittenBytes() throws Exception {
        // A CM-style MAD on QP1: BTH (0x65, pad 0, P_Key 0xffff, QP 1), DETH (Q_Key 0x80010000, source
        // QP 1), ImmDt, 8 payload bytes, ICRC (not checked by decode).
        byte[] packet = Bytes.hex("65 00 ffff 00 000001 00 000005 80010000 00 000001 0000abcd"
                + "0102030405060708 11223344");
        RocePacket decoded = RocePacket.decode(packet, 0, packet.length);
        assertEquals(new Deth(0x80010000, 1), decoded.deth());
        assertEquals(0xABCD, decoded.immDt());
        assertEquals(24, decoded.payloadOffset());
        assertEquals(8, decoded.payloadLength());
        assertEquals(0x44332211, decoded.icrc());
        assertEquals("UD_SEND_ONLY_WITH_IMMEDIATE qp 0x000001 psn 5 DETH qkey 0x80010000 srcqp 0x000001"
                + " imm 0x0000abcd payload 8", decoded.summary());
    }

    private static String malformed(String hex) {
        byte[] packet = Bytes.hex(hex);
        return assertThrows(MalformedPacketException.class, () -> RocePacket.decode(packet, 0, packet.length))
                .getMessage();
    }

    @Test
    void malformedPacketsSayWhy() {
        assertEquals("packet too short: 8 bytes, a BTH and an ICRC need 16", malformed("0a00ffff 00000011"));
        assertEquals("unknown opcode 0x15", malformed("15 00 ffff 00 000011 00 000000 00000000"));
        assertEquals("RC_SEND_ONLY: unsupported transport header version 1 (only 0 is defined)",
                malformed("04 01 ffff 00 000011 00 000000 00000000"));
        assertEquals("RC_RDMA_WRITE_ONLY too short: 24 bytes, its headers and ICRC need 32",
                malformed("0a 00 ffff 00 000011 00 000000 00007f1234567890 00000000"));
        assertEquals("RC_SEND_ONLY: pad count 3 exceeds the 1 bytes after the headers",
                malformed("04 30 ffff 00 000011 00 000000 aa 00000000"));
        assertEquals("RC_ACKNOWLEDGE carries no payload but 4 bytes follow its headers",
                malformed("11 00 ffff 00 000011 00 000000 1f000001 aabbccdd 00000000"));
    }
}
