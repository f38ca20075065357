package org.rdmalab.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.Inet4Address;
import java.net.InetAddress;
import org.junit.jupiter.api.Test;

class Ipv4HeaderAndUdpPortsTest {

    private static Inet4Address ip(String text) throws Exception {
        return (Inet4Address) InetAddress.getByName(text);
    }

    @Test
    void canonicalHeaderByteForByte() throws Exception {
        // The ConnectX-4 Lx CNP's header (see IcrcTest) with identification 0; checksum worked out by
        // hand: ~(~0x9161 - 0x718c) in ones' complement = 0x02ee.
        byte[] header = Ipv4Header.canonical(ip("10.0.17.1"), ip("10.0.18.1"), 40, 0xC2, 0x40);
        assertArrayEquals(Bytes.hex("45c2 003c 0000 4000 4011 02ee 0a001101 0a001201"), header);
        assertEquals(0, Ipv4Header.checksum(header, 0, 20), "a correct header sums to 0xFFFF");
    }

    @Test
    void checksumOfTheRealHeader() {
        byte[] real = Bytes.hex("45c2 003c 718c 4000 4011 0000 0a001101 0a001201");
        assertEquals(0x9161, Ipv4Header.checksum(real, 0, 20));
    }

    @Test
    void sourcePortFromQpnsOrFlowLabel() {
        // v = 0x11 * 0x12 = 0x132, no high bits to fold: 0xC000 | (0x132 ^ 0).
        assertEquals(0xC132, UdpPorts.sourcePort(0x11, 0x12, 0));
        assertEquals(UdpPorts.sourcePort(0x12, 0x11, 0), UdpPorts.sourcePort(0x11, 0x12, 0));
        // 0xABCDEF * 0x123456 folded: flow label 0xAC3E3 -> 0x03E3 ^ 0x2B = 0x3C8.
        assertEquals(0xAC3E3, UdpPorts.flowLabel(0xABCDEF, 0x123456));
        assertEquals(0xC3C8, UdpPorts.sourcePort(0xABCDEF, 0x123456, 0));
        // Flow label 0x12345: 0x2345 ^ 0x4 = 0x2341.
        assertEquals(0xE341, UdpPorts.sourcePort(0x11, 0x12, 0x12345));
        assertEquals(4791, UdpPorts.ROCE_V2);
    }
}
