package org.rdmalab.verbs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.rdmalab.verbs.spi.DeviceOptions;

/**
 * The value types a user types or reads: GIDs (their text as ibv_devinfo and the kernel write it,
 * which entries are link-local or carry an IPv4 address), the software device's options with the
 * bounds the command line enforces, the one-shot faults of the Wire tab and a packet's fault text.
 */
class VerbsValueTypesTest {

    private static Gid hex(String hex) {
        return Gid.of(HexFormat.of().parseHex(hex));
    }

    @Test
    void aGidIsWrittenWithTheLongestRunOfZeroGroupsShortened() {
        assertEquals("::1", hex("00000000000000000000000000000001").toString());
        assertEquals("fe80::", hex("fe800000000000000000000000000000").toString());
        assertEquals("::", Gid.ZERO.toString());
        // Two runs: the longer one is shortened, and of two equal ones the first.
        assertEquals("2001:0:0:1::1", hex("20010000000000010000000000000001").toString());
        assertEquals("2001::1:0:0:1", hex("20010000000000000001000000000001").toString());
        assertEquals("1::1:0:0:1:1", hex("00010000000000010000000000010001").toString());
        // A single zero group stays as 0.
        assertEquals("2001:db8:0:1:1:1:1:1", hex("20010db8000000010001000100010001").toString());
        assertEquals("1:2:3:4:5:6:7:8", hex("00010002000300040005000600070008").toString());
    }

    @Test
    void aGidIsParsedFromEitherTextFormAndAnythingElseIsRefused() {
        assertEquals(hex("fe80000000000000505400fffe123456"), Gid.parse(" fe80::5054:ff:fe12:3456 "));
        assertEquals(hex("00000000000000000000ffff0a00020f"), Gid.parse("00000000000000000000FFFF0A00020F"));
        assertEquals(hex("00000000000000000000ffff0a00020f"), Gid.parse("::ffff:10.0.2.15"));
        assertEquals("'10.0.2.15' is not a GID (use IPv6 notation or 32 hex digits)",
                assertThrows(IllegalArgumentException.class, () -> Gid.parse("10.0.2.15")).getMessage());
        assertEquals("'fe80::zz' is not a GID (use IPv6 notation or 32 hex digits)",
                assertThrows(IllegalArgumentException.class, () -> Gid.parse("fe80::zz")).getMessage());
        assertEquals("a GID is 16 bytes, got 15",
                assertThrows(IllegalArgumentException.class, () -> Gid.of(new byte[15])).getMessage());
        assertEquals("a MAC address is 6 bytes, got 5",
                assertThrows(IllegalArgumentException.class, () -> Gid.linkLocal(new byte[5])).getMessage());
    }

    @Test
    void theLinkLocalGidOfAMacFlipsTheUniversalBit() {
        assertEquals("fe80::5054:ff:fe12:3456", Gid.linkLocal(new byte[] {0x52, 0x54, 0, 0x12, 0x34, 0x56}).toString());
        assertEquals("fe80::200:ff:fe00:1", Gid.linkLocal(new byte[] {0, 0, 0, 0, 0, 1}).toString());
    }

    @Test
    void theTwoHalvesOfAGidAreItsSubnetPrefixAndInterfaceId() {
        Gid gid = hex("fe80000000000001505400fffe123456");
        assertEquals(0xfe80000000000001L, gid.subnetPrefix());
        assertEquals(0x505400fffe123456L, gid.interfaceId());
        byte[] target = new byte[20];
        gid.copyTo(target, 3);
        assertArrayEquals(HexFormat.of().parseHex("000000fe80000000000001505400fffe12345600"), target);
        byte[] raw = gid.raw();
        raw[0] = 0;
        assertEquals(0xfe80000000000001L, gid.subnetPrefix(), "raw() is a copy");
        assertEquals("fe80000000000001505400fffe123456", gid.toHex());
    }

    @Test
    void onlyTheFe80Slash10PrefixIsLinkLocal() {
        assertTrue(hex("fe800000000000000000000000000001").isLinkLocal());
        assertTrue(hex("febf0000000000000000000000000001").isLinkLocal());
        assertFalse(hex("fec00000000000000000000000000001").isLinkLocal());
        assertFalse(hex("fe400000000000000000000000000001").isLinkLocal());
        assertFalse(hex("ff800000000000000000000000000001").isLinkLocal());
    }

    @Test
    void onlyTenZeroBytesAndFfffCarryAnIpv4Address() {
        assertTrue(hex("00000000000000000000ffff0a00020f").isIpv4Mapped());
        assertEquals("10.0.2.15", hex("00000000000000000000ffff0a00020f").ipv4().getHostAddress());
        assertFalse(hex("00000000000000000001ffff0a00020f").isIpv4Mapped());
        assertFalse(hex("01000000000000000000ffff0a00020f").isIpv4Mapped());
        assertFalse(hex("00000000000000000000ff000a00020f").isIpv4Mapped());
        assertFalse(hex("000000000000000000000fff0a00020f").isIpv4Mapped());
        assertEquals("::ff00:a00:20f", hex("00000000000000000000ff000a00020f").toString());
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> hex("fe80000000000000505400fffe123456").ipv4());
        assertEquals("fe80::5054:ff:fe12:3456 is not an IPv4-mapped GID", e.getMessage());
        assertEquals("::ffff:192.168.1.100", hex("00000000000000000000ffffc0a80164").toString());
    }

    @Test
    void gidsAreEqualByTheirBytes() {
        Gid a = Gid.parse("fe80::1");
        Gid b = hex("fe800000000000000000000000000001");
        assertEquals(a, b);
        assertEquals(a.hashCode(), b.hashCode());
        assertNotEquals(a, Gid.parse("fe80::2"));
        assertNotEquals(a, "fe80::1");
        assertTrue(Gid.ZERO.isZero());
        assertFalse(a.isZero());
    }

    @Test
    void theDevicesOptionsKeepTheirBoundsAndEachWithChangesOneField() {
        DeviceOptions defaults = DeviceOptions.defaults();
        assertEquals("127.0.0.1", defaults.address().getHostAddress());
        assertEquals(4791, defaults.udpPort());
        assertEquals("", defaults.faults());
        assertEquals(1500, defaults.linkMtu());
        DeviceOptions changed = defaults.withUdpPort(0).withLinkMtu(576).withFaults("  drop=0.1 ")
                .withCapture(Path.of("x.pcap")).withAddress(DeviceOptions.parseAddress("10.0.2.15"));
        assertEquals(new DeviceOptions(DeviceOptions.parseAddress("10.0.2.15"), 0, "drop=0.1", Path.of("x.pcap"), 576),
                changed);
        assertEquals(65535, defaults.withUdpPort(65535).udpPort());
        assertEquals(65536, defaults.withLinkMtu(65536).linkMtu());
        assertEquals("link MTU 575 is outside 576..65536",
                assertThrows(IllegalArgumentException.class, () -> defaults.withLinkMtu(575)).getMessage());
        assertEquals("link MTU 65537 is outside 576..65536",
                assertThrows(IllegalArgumentException.class, () -> defaults.withLinkMtu(65537)).getMessage());
        assertEquals("UDP port -1 is outside 0..65535",
                assertThrows(IllegalArgumentException.class, () -> defaults.withUdpPort(-1)).getMessage());
        assertEquals("UDP port 65536 is outside 0..65535",
                assertThrows(IllegalArgumentException.class, () -> defaults.withUdpPort(65536)).getMessage());
        assertEquals("", defaults.withFaults(null).faults());
        assertEquals(DeviceOptions.parseAddress("10.1.2.3"), DeviceOptions.at(DeviceOptions.parseAddress("10.1.2.3"))
                .address());
        assertEquals(4791, DeviceOptions.at(DeviceOptions.parseAddress("10.1.2.3")).udpPort());
    }

    @Test
    void aDeviceSendsToItsOwnUdpPortUnlessAPeerPortIsNamedAndEveryWithKeepsIt() {
        DeviceOptions own = DeviceOptions.defaults().withUdpPort(5000);
        assertEquals(0, own.peerUdpPort());
        assertEquals(5000, own.destinationUdpPort());
        DeviceOptions crossed = own.withPeerUdpPort(5001);
        assertEquals(5001, crossed.destinationUdpPort());
        DeviceOptions changed = crossed.withUdpPort(6000).withLinkMtu(9000).withFaults("drop=0.1")
                .withCapture(Path.of("x.pcap")).withAddress(DeviceOptions.parseAddress("10.0.2.15"));
        assertEquals(new DeviceOptions(DeviceOptions.parseAddress("10.0.2.15"), 6000, "drop=0.1", Path.of("x.pcap"),
                9000, 5001), changed);
        assertEquals(6000, changed.withPeerUdpPort(0).destinationUdpPort());
        assertEquals(65535, own.withPeerUdpPort(65535).destinationUdpPort());
        assertEquals(1, own.withPeerUdpPort(1).destinationUdpPort());
        assertEquals("peer UDP port -1 is outside 0..65535",
                assertThrows(IllegalArgumentException.class, () -> own.withPeerUdpPort(-1)).getMessage());
        assertEquals("peer UDP port 65536 is outside 0..65535",
                assertThrows(IllegalArgumentException.class, () -> own.withPeerUdpPort(65536)).getMessage());
    }

    @Test
    void anIpv4AddressIsFourPartsOfAtMost255() {
        assertEquals("255.0.10.1", DeviceOptions.parseAddress(" 255.0.10.1 ").getHostAddress());
        assertEquals("'256.0.0.1' is not an IPv4 address (each part is 0..255)",
                assertThrows(IllegalArgumentException.class, () -> DeviceOptions.parseAddress("256.0.0.1")).getMessage());
        assertEquals("'1.2.3.999' is not an IPv4 address (each part is 0..255)",
                assertThrows(IllegalArgumentException.class, () -> DeviceOptions.parseAddress("1.2.3.999")).getMessage());
        assertEquals("'1.2.3' is not an IPv4 address (write it like 192.168.1.100)",
                assertThrows(IllegalArgumentException.class, () -> DeviceOptions.parseAddress("1.2.3")).getMessage());
        assertThrows(IllegalArgumentException.class, () -> DeviceOptions.parseAddress("host.example"));
    }

    @Test
    void aOneShotFaultFiresOnceOnTheWayItWatches() {
        OneShotFault drop = OneShotFault.of(OneShotFault.Kind.DROP_NEXT_PACKET, OneShotFault.Way.REQUESTER_TO_RESPONDER);
        assertEquals(FaultKind.DROP, drop.kind().fault());
        assertTrue(drop.matches(true, false));
        assertFalse(drop.matches(false, false));
        assertFalse(drop.matches(false, true));
        assertEquals("drop_next_packet requester_to_responder (armed)", drop.toString());
        assertTrue(drop.waiting());
        assertTrue(drop.claim());
        assertFalse(drop.claim());
        assertFalse(drop.cancel());
        assertTrue(drop.fired());
        assertFalse(drop.waiting());
        assertEquals("drop_next_packet requester_to_responder (fired)", drop.toString());

        OneShotFault back = OneShotFault.of(OneShotFault.Kind.CORRUPT_NEXT_PACKET,
                OneShotFault.Way.RESPONDER_TO_REQUESTER);
        assertEquals(FaultKind.CORRUPT, back.kind().fault());
        assertTrue(back.matches(false, true));
        assertFalse(back.matches(true, false));
        assertTrue(back.cancel());
        assertFalse(back.claim());
        assertFalse(back.fired());
        assertEquals("corrupt_next_packet responder_to_requester (cancelled)", back.toString());
    }

    @Test
    void aDroppedAckIsAlwaysOnTheWayBackAndOnlyAnAckMatches() {
        OneShotFault ack = OneShotFault.of(OneShotFault.Kind.DROP_NEXT_ACK, OneShotFault.Way.REQUESTER_TO_RESPONDER);
        assertEquals(OneShotFault.Way.RESPONDER_TO_REQUESTER, ack.way());
        assertEquals(OneShotFault.Kind.DROP_NEXT_ACK, ack.kind());
        assertTrue(ack.matches(false, true));
        assertFalse(ack.matches(false, false), "a READ response is not an ACK");
        assertFalse(ack.matches(true, false));
    }

    @Test
    void aPacketsFaultsAreSaidByTheirSpecKey() {
        PacketEvent.Fault oneShot = new PacketEvent.Fault(FaultKind.DROP, true, "next ACK");
        assertEquals("drop (one-shot): next ACK", oneShot.toString());
        assertEquals("dup", new PacketEvent.Fault(FaultKind.DUPLICATE, false, null).toString());
        assertEquals("", new PacketEvent.Fault(FaultKind.DELAY, false, null).detail());
        assertEquals("reorder: 2 ms", new PacketEvent.Fault(FaultKind.REORDER, false, "2 ms").toString());
        PacketEvent clean = new PacketEvent(1, PacketEvent.Direction.SENT, "a", "b", "SEND_ONLY", 0x11, 5, true, 60,
                "");
        assertFalse(clean.faulted());
        assertEquals(List.of(), clean.faults());
        PacketEvent dropped = new PacketEvent(1, PacketEvent.Direction.DROPPED, "a", "b", "SEND_ONLY", 0x11, 5, true, 60,
                "", List.of(oneShot), null);
        assertTrue(dropped.faulted());
        assertThrows(NullPointerException.class, () -> new PacketEvent.Fault(null, false, ""));
        assertEquals(List.of("drop", "dup", "reorder", "corrupt", "delay"),
                java.util.Arrays.stream(FaultKind.values()).map(FaultKind::specKey).toList());
    }
}
