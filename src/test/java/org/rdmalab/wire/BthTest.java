package org.rdmalab.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

class BthTest {

    private static byte[] written(Bth bth) {
        ByteBuffer out = ByteBuffer.allocate(Bth.LENGTH);
        bth.write(out);
        assertEquals(Bth.LENGTH, out.position());
        return out.array();
    }

    @Test
    void writesEveryFieldWhereTheSpecPutsIt() {
        // byte 1 = SE(7) | MigReq(6) | PadCnt(5:4) | TVer(3:0): 1 0 01 0000 = 0x90
        Bth bth = new Bth(Opcode.RC_RDMA_WRITE_ONLY, true, false, 1, 0, 0xFFFF, 0x40, 0x123456, true, 0xABCDEF);
        assertArrayEquals(Bytes.hex("0a 90 ffff 40 123456 80 abcdef"), written(bth));
        assertEquals(bth, Bth.read(ByteBuffer.wrap(written(bth))));
    }

    @Test
    void migReqPadCountAndVersionBits() {
        // 0 1 11 1111 = 0x7F; AckReq clear; P_Key 0x8001
        Bth bth = new Bth(Opcode.UC_SEND_FIRST, false, true, 3, 0xF, 0x8001, 0, 0x000001, false, 0);
        assertArrayEquals(Bytes.hex("20 7f 8001 00 000001 00 000000"), written(bth));
        Bth read = Bth.read(ByteBuffer.wrap(written(bth)));
        assertFalse(read.solicitedEvent());
        assertTrue(read.migReq());
        assertEquals(3, read.padCount());
        assertEquals(0xF, read.transportVersion());
        assertEquals(0x8001, read.pkey());
    }

    @Test
    void fullTwentyFourBitQpAndPsnAndReservedBitsIgnored() {
        // AckReq byte with reserved bits set: only bit 7 counts, the rest is ignored on receive.
        byte[] wire = Bytes.hex("11 00 ffff ff ffffff ff ffffff");
        Bth bth = Bth.read(ByteBuffer.wrap(wire));
        assertSame(Opcode.RC_ACKNOWLEDGE, bth.opcode());
        assertEquals(0xFFFFFF, bth.destQp());
        assertEquals(0xFFFFFF, bth.psn());
        assertEquals(0xFF, bth.resv8a());
        assertTrue(bth.ackRequest());
        assertArrayEquals(Bytes.hex("11 00 ffff ff ffffff 80 ffffff"), written(bth));
        assertEquals(0xFFFFFF, Bth.destQpAt(wire, 0));
        assertEquals(0xFFFFFF, Bth.psnAt(wire, 0));
        assertEquals(0x11, Bth.opcodeAt(wire, 0));
    }

    @Test
    void factoryUsesTheDefaultPkeyAndVersionZero() {
        Bth bth = Bth.of(Opcode.RC_SEND_ONLY, 0x11, 7, true, 2);
        assertArrayEquals(Bytes.hex("04 20 ffff 00 000011 80 000007"), written(bth));
    }

    @Test
    void readsRelativeToThePosition() {
        ByteBuffer in = ByteBuffer.wrap(Bytes.hex("dead 0c 00 ffff 00 000022 00 000100"));
        in.position(2);
        Bth bth = Bth.read(in);
        assertEquals(14, in.position());
        assertSame(Opcode.RC_RDMA_READ_REQUEST, bth.opcode());
        assertEquals(0x22, bth.destQp());
        assertEquals(0x100, bth.psn());
    }

    @Test
    void rejectsFieldsOutOfRange() {
        assertThrows(IllegalArgumentException.class, () -> Bth.of(Opcode.RC_SEND_ONLY, 0x1000000, 0, false, 0));
        assertThrows(IllegalArgumentException.class, () -> Bth.of(Opcode.RC_SEND_ONLY, 1, -1, false, 0));
        assertThrows(IllegalArgumentException.class, () -> Bth.of(Opcode.RC_SEND_ONLY, 1, 0, false, 4));
        assertThrows(IllegalArgumentException.class,
                () -> new Bth(Opcode.RC_SEND_ONLY, false, false, 0, 16, 0, 0, 1, false, 0));
        assertThrows(IllegalArgumentException.class, () -> Bth.of(null, 1, 0, false, 0));
    }
}
