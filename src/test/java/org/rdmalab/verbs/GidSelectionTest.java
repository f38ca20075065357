package org.rdmalab.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** perftest's GID choice: IPv4-mapped beats global beats link-local; RoCE v2 beats v1. */
class GidSelectionTest {

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

    @Test
    void anEmptyTableHasNoChoice() {
        assertTrue(GidSelection.best(List.of()).isEmpty());
    }
}
