package org.rdmalab.control.seed;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HexFormat;
import org.rdmalab.control.ConnectionData;
import org.rdmalab.control.ControlException;
import org.rdmalab.verbs.Gid;
import org.rdmalab.verbs.Mtu;
import org.rdmalab.verbs.QpType;
import org.junit.jupiter.api.Test;

class SeedBlockTest {

    /** The example of control-protocols.md, typed in by hand. */
    private static final byte[] EXAMPLE = HexFormat.ofDelimiter(" ").parseHex(
            "00 00 7f 12 34 56 78 90" + " 00 00 12 34" + " 00 00 00 11" + " 00 00"
                    + " 00 00 00 00 00 00 00 00 00 00 ff ff c0 a8 01 64");

    private static final SeedBlock EXAMPLE_BLOCK = new SeedBlock(0x00007f1234567890L, 0x1234, 0x11, 0,
            Gid.parse("::ffff:192.168.1.100"));

    @Test
    void exampleBlockSerializesByteForByte() {
        assertEquals(34, EXAMPLE.length);
        assertArrayEquals(EXAMPLE, EXAMPLE_BLOCK.serialize());
    }

    @Test
    void exampleBlockParses() throws ControlException {
        assertEquals(EXAMPLE_BLOCK, SeedBlock.parse(EXAMPLE));
    }

    @Test
    void unsignedFieldsKeepTheirHighBits() throws ControlException {
        byte[] raw = new byte[16];
        for (int i = 0; i < 16; i++) {
            raw[i] = (byte) (0xf0 + i);
        }
        SeedBlock block = new SeedBlock(0xfedcba9876543210L, 0x89abcdef, 0x00ffffff, 0xbeef, Gid.of(raw));
        byte[] wire = block.serialize();
        assertEquals("fedcba987654321089abcdef00ffffffbeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff",
                HexFormat.of().formatHex(wire));
        SeedBlock back = SeedBlock.parse(wire);
        assertEquals(block, back);
        assertEquals(0xbeef, back.lid());
    }

    @Test
    void mapsToTheCommonFormWithTheSeedsDefaults() throws ControlException {
        ConnectionData data = SeedBlock.parse(EXAMPLE).toConnectionData();
        assertEquals(QpType.RC, data.qpType());
        assertEquals(0x11, data.qpn());
        assertEquals(0, data.psn());
        assertEquals(0, data.lid());
        assertEquals(Gid.parse("::ffff:192.168.1.100"), data.gid());
        assertEquals(0x00007f1234567890L, data.addr());
        assertEquals(0x1234, data.rkey());
        assertEquals(11, data.length());
        assertEquals(Mtu.MTU_256, data.pathMtu());
        assertArrayEquals(EXAMPLE, SeedBlock.from(data.withPsn(77).withPathMtu(Mtu.MTU_4096)).serialize());
    }

    @Test
    void wrongLengthIsRejectedWithTheBytesQuoted() {
        ControlException e = assertThrows(ControlException.class, () -> SeedBlock.parse(new byte[] {'h', 'i', 0}));
        assertEquals("a connection block is 34 bytes, got 3: \"hi\\0\"", e.getMessage());
        assertEquals(ControlException.Reason.PROTOCOL, e.reason());
    }

    @Test
    void aQpNumberBeyond24BitsIsNotASeedBlock() throws ControlException {
        byte[] text = "0000:000011:abcdef:000000000000000".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        SeedBlock garbage = SeedBlock.parse(text);
        ControlException e = assertThrows(ControlException.class, garbage::toConnectionData);
        assertTrue(e.getMessage().startsWith("the peer's connection block has qp_num 0x61626364, which no QP has"),
                e.getMessage());
    }
}
