package org.rdmalab.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import org.junit.jupiter.api.Test;

/** perftest's GID choice: IPv4-mapped beats global beats link-local; RoCE v2 beats v1. */
class GidSelectionTest {

    private static Inet4Address ip(String literal) {
        try {
            return (Inet4Address) InetAddress.getByName(literal);
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    private static GidEntry entry(int index, String gid, GidType type) {
        return new GidEntry(index, 1, Gid.parse(gid), type, "eth0", "");
    }

    @Test
    void anRxeTablePicksTheIpv4MappedRoceV2Entry() {
        List<GidEntry> table = List.of(
                entry(0, "fe80::5054:ff:fe12:3456", GidType.ROCE_V1),
                entry(1, "fe80::5054:ff:fe12:3456", GidType.ROCE_V2),
                entry(2, "::ffff:192.168.1.100", GidType.ROCE_V1),
                entry(3, "::ffff:192.168.1.100", GidType.ROCE_V2),
                entry(4, "2001:db8::1", GidType.ROCE_V2));
        assertEquals(3, GidSelection.best(table).orElseThrow().index());
        assertEquals(112, GidSelection.score(table.get(3)));
        assertEquals(12, GidSelection.score(table.get(4)));
        assertEquals(1, GidSelection.score(table.get(0)));
    }

    /** rxe on eth0 with two addresses, as `rdma link add rxe0 type rxe netdev eth0` lists it. */
    private static List<GidEntry> twoAddressTable() {
        return List.of(
                entry(0, "fe80::5054:ff:fe12:3456", GidType.ROCE_V2),
                entry(1, "::ffff:10.0.2.15", GidType.ROCE_V2),
                entry(2, "::ffff:10.0.2.16", GidType.ROCE_V2),
                entry(3, "fec0::5054:ff:fe12:3456", GidType.ROCE_V2));
    }

    @Test
    void theLocalAddressPicksTheGidThatCarriesIt() {
        GidSelection.Choice choice = GidSelection.forAddress(twoAddressTable(),
                ip("10.0.2.16")).orElseThrow();
        assertEquals(2, choice.entry().index());
        assertEquals("the GID of 10.0.2.16", choice.reason());
        assertEquals(1, GidSelection.forAddress(twoAddressTable(),
                ip("10.0.2.15")).orElseThrow().entry().index());
    }

    @Test
    void theReasonNamesEveryRuleWithItsPointsAndWhatItMeansOnTheWire() {
        assertEquals("IPv4-mapped (+100): it carries the IPv4 address 10.0.2.15, so its packets are routed by IP;"
                + " not link-local (+10); RoCE v2 (+2): UDP port 4791, crosses routers; best by perftest's scoring",
                GidSelection.reason(new GidEntry(1, 1, Gid.parse("::ffff:10.0.2.15"), GidType.ROCE_V2, "eth0",
                        "10.0.2.15")));
        assertEquals("not IPv4-mapped; link-local: it routes nowhere beyond its link; RoCE v1 (+1): a bare Ethernet"
                + " frame, stays in one L2 network; best by perftest's scoring",
                GidSelection.reason(entry(0, "fe80::5054:ff:fe12:3456", GidType.ROCE_V1)));
    }

    @Test
    void anAddressNoGidCarriesFallsBackToScoringAndSaysSo() {
        GidSelection.Choice choice = GidSelection.forAddress(twoAddressTable(),
                ip("192.168.7.7")).orElseThrow();
        assertEquals(1, choice.entry().index());
        assertTrue(choice.reason().startsWith("no GID carries 192.168.7.7"), choice.reason());
    }

    @Test
    void roceV2WinsAmongTheEntriesOfOneAddress() {
        List<GidEntry> table = List.of(
                entry(2, "::ffff:192.168.1.100", GidType.ROCE_V1),
                entry(3, "::ffff:192.168.1.100", GidType.ROCE_V2));
        assertEquals(3, GidSelection.carrying(table,
                ip("192.168.1.100")).orElseThrow().index());
    }

    @Test
    void anEmptyTableHasNoChoice() {
        assertTrue(GidSelection.best(List.of()).isEmpty());
    }

    /** RoCE v2 ranks above v1, which ranks above an IB entry, by 2 and 1 points. */
    @Test
    void theGidTypeAddsTwoForRoceV2AndOneForRoceV1() {
        Gid gid = Gid.parse("::ffff:10.0.2.15");
        int ib = GidSelection.score(new GidEntry(0, 1, gid, GidType.IB, "eth0", "10.0.2.15"));
        assertEquals(ib + 1, GidSelection.score(new GidEntry(1, 1, gid, GidType.ROCE_V1, "eth0", "10.0.2.15")));
        assertEquals(ib + 2, GidSelection.score(new GidEntry(2, 1, gid, GidType.ROCE_V2, "eth0", "10.0.2.15")));
    }

    @Test
    void aMappedEntryWithoutItsAddressIsSaidToCarryAnIpv4Address() {
        Gid gid = Gid.parse("::ffff:10.0.2.15");
        for (String address : new String[] {null, ""}) {
            assertTrue(GidSelection.reason(new GidEntry(3, 1, gid, GidType.ROCE_V2, "eth0", address))
                    .startsWith("IPv4-mapped (+100): it carries an IPv4 address, so its packets are routed by IP"));
        }
    }
}
