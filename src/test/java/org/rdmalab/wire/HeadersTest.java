package org.rdmalab.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/** RETH, AETH, AtomicETH, AtomicAckETH and ImmDt, byte for byte (IBTA Vol. 1 §9.3). */
class HeadersTest {

    @Test
    void reth() {
        Reth reth = new Reth(0x00007f1234567890L, 0x1234, 11);
        ByteBuffer out = ByteBuffer.allocate(Reth.LENGTH);
        reth.write(out);
        assertArrayEquals(Bytes.hex("00007f1234567890 00001234 0000000b"), out.array());
        assertEquals(reth, Reth.read(ByteBuffer.wrap(out.array())));
        assertEquals("RETH va 0x00007f1234567890 rkey 0x00001234 len 11", reth.toString());
        Reth big = Reth.read(ByteBuffer.wrap(Bytes.hex("ffffffffffffffff ffffffff 80000000")));
        assertEquals(-1L, big.virtualAddress());
        assertEquals(0x80000000L, big.dmaLengthUnsigned());
    }

    @Test
    void aethSyndromes() {
        assertAeth(Aeth.ack(5), "1f 000005");
        assertAeth(Aeth.rnrNak(18, 0x010203), "32 010203");
        assertAeth(Aeth.nak(Aeth.NAK_REMOTE_ACCESS_ERROR, 7), "62 000007");
        assertAeth(Aeth.nak(Aeth.NAK_PSN_SEQUENCE_ERROR, 0xFFFFFF), "60 ffffff");
        assertAeth(Aeth.nak(Aeth.NAK_INVALID_REQUEST, 0), "61 000000");
        assertAeth(Aeth.nak(Aeth.NAK_REMOTE_OPERATIONAL_ERROR, 0), "63 000000");

        Aeth ack = Aeth.ack(5);
        assertTrue(ack.isAck());
        assertFalse(ack.isNak());
        assertFalse(ack.isRnrNak());
        assertEquals(0x1F, ack.code());
        Aeth rnr = Aeth.rnrNak(18, 1);
        assertTrue(rnr.isRnrNak());
        assertEquals(18, rnr.code());
        Aeth nak = Aeth.nak(2, 1);
        assertTrue(nak.isNak());
        assertFalse(nak.isAck());
        assertEquals(2, nak.code());
        Aeth reserved = new Aeth(0x40, 0);
        assertFalse(reserved.isAck() || reserved.isNak() || reserved.isRnrNak());

        assertEquals("AETH ACK msn 5", ack.toString());
        assertEquals("AETH RNR-NAK timer 18 msn 1", rnr.toString());
        assertEquals("AETH NAK remote access error msn 1", nak.toString());
        assertThrows(IllegalArgumentException.class, () -> Aeth.ack(0x1000000));
        assertThrows(IllegalArgumentException.class, () -> Aeth.nak(32, 0));
    }

    private static void assertAeth(Aeth aeth, String hex) {
        ByteBuffer out = ByteBuffer.allocate(Aeth.LENGTH);
        aeth.write(out);
        assertArrayEquals(Bytes.hex(hex), out.array());
        assertEquals(aeth, Aeth.read(ByteBuffer.wrap(out.array())));
    }

    @Test
    void atomicEth() {
        AtomicEth eth = new AtomicEth(0x1122334455667788L, 0xCAFEBABE, 0x0102030405060708L, 0xF1F2F3F4F5F6F7F8L);
        ByteBuffer out = ByteBuffer.allocate(AtomicEth.LENGTH);
        eth.write(out);
        assertArrayEquals(Bytes.hex("1122334455667788 cafebabe 0102030405060708 f1f2f3f4f5f6f7f8"), out.array());
        assertEquals(eth, AtomicEth.read(ByteBuffer.wrap(out.array())));
    }

    @Test
    void atomicAckEth() {
        AtomicAckEth eth = new AtomicAckEth(0x8000000000000001L);
        ByteBuffer out = ByteBuffer.allocate(AtomicAckEth.LENGTH);
        eth.write(out);
        assertArrayEquals(Bytes.hex("8000000000000001"), out.array());
        assertEquals(eth, AtomicAckEth.read(ByteBuffer.wrap(out.array())));
    }

    @Test
    void deth() {
        Deth deth = new Deth(0x80010000, 0x000001);
        ByteBuffer out = ByteBuffer.allocate(Deth.LENGTH);
        deth.write(out);
        assertArrayEquals(Bytes.hex("80010000 00 000001"), out.array());
        // The reserved byte is ignored on receive.
        assertEquals(deth, Deth.read(ByteBuffer.wrap(Bytes.hex("80010000 ff 000001"))));
        assertEquals("DETH qkey 0x80010000 srcqp 0x000001", deth.toString());
    }

    @Test
    void immDt() {
        ByteBuffer out = ByteBuffer.allocate(ImmDt.LENGTH);
        ImmDt.write(out, 0xDEADBEEF);
        assertArrayEquals(Bytes.hex("deadbeef"), out.array());
        assertEquals(0xDEADBEEF, ImmDt.read(ByteBuffer.wrap(out.array())));
    }
}
