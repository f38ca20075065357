package org.rdmalab.verbs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HexFormat;
import org.junit.jupiter.api.Test;
import org.rdmalab.verbs.spi.DeviceOptions;

class GidTest {

    @Test
    void ipv4MappedGidFromAddress() {
        Gid gid = Gid.ipv4Mapped(DeviceOptions.parseAddress("192.168.1.100"));
        assertArrayEquals(HexFormat.of().parseHex("00000000000000000000ffffc0a80164"), gid.raw());
        assertEquals("::ffff:192.168.1.100", gid.toString());
        assertTrue(gid.isIpv4Mapped());
        assertEquals("192.168.1.100", gid.ipv4().getHostAddress());
        assertEquals(gid, Gid.parse("::ffff:192.168.1.100"));
    }

    @Test
    void linkLocalGidIsTheMacsEui64() {
        Gid gid = Gid.linkLocal(new byte[] {0x52, 0x54, 0x00, 0x12, 0x34, 0x56});
        assertEquals("fe80::5054:ff:fe12:3456", gid.toString());
        assertTrue(gid.isLinkLocal());
        assertEquals(0x505400fffe123456L, gid.interfaceId());
    }

    @Test
    void textFormsRoundTrip() {
        for (String text : new String[] {"fe80::1", "::", "2001:db8::8:800:200c:417a", "fe80:0:0:1::1"}) {
            assertEquals(text, Gid.parse(text).toString());
        }
        assertEquals("fe80000000000000505400fffe123456", Gid.parse("fe80::5054:ff:fe12:3456").toHex());
        assertEquals(Gid.parse("fe80::5054:ff:fe12:3456"), Gid.parse("fe80000000000000505400fffe123456"));
    }
}
