package org.rdmalab.doctor;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The setup's gid_idx judged against the entry the local checks recommend: every verdict and its words. */
class LabChecksTest {

    private static SideFacts facts(String linkLayer, int gidIndex) {
        return new SideFacts("rxe0", "libibverbs", "10.0.2.15", "eth0", 24, 1500, 1024, -1, linkLayer, "ACTIVE",
                gidIndex, gidIndex < 0 ? "" : "::ffff:10.0.2.15", gidIndex < 0 ? "" : "RoCE v2");
    }

    private static final Optional<SideFacts> ROCE = Optional.of(facts("Ethernet", 3));

    private static String line(Check check) {
        return check.status().symbol() + " " + check.name() + ": " + check.found()
                + (check.failed() ? "\n    fix: " + check.fix() : "");
    }

    @Test
    void theSeedsMinusOneFailsOnRoceAndNamesTheRecommendedEntry() {
        assertEquals("""
                ✗ gid_idx: gid_idx is -1 (the seed's default): the QP gets no GRH, but RoCE carries every packet in\
                 UDP/IP, so ibv_modify_qp to RTR fails with EINVAL
                    fix: use gid_idx 3, the recommended GID[3] ::ffff:10.0.2.15 (RoCE v2) that carries 10.0.2.15""",
                line(LabChecks.gidIndex(" -1 ", ROCE)));
    }

    @Test
    void minusOnePassesOnInfiniBand() {
        assertEquals("✓ gid_idx: gid_idx -1: no GRH, which InfiniBand needs only to leave the subnet",
                line(LabChecks.gidIndex("-1", Optional.of(facts("InfiniBand", 0)))));
    }

    @Test
    void theRecommendedIndexPasses() {
        assertEquals("✓ gid_idx: gid_idx 3 is the recommended GID[3] ::ffff:10.0.2.15 (RoCE v2) for 10.0.2.15",
                line(LabChecks.gidIndex("3", ROCE)));
    }

    @Test
    void anotherIndexFailsWithTheReason() {
        assertEquals("""
                ✗ gid_idx: gid_idx 0 is not the entry that carries 10.0.2.15 as RoCE v2: packets would leave with\
                 another source GID (a link-local fe80:: entry routes nowhere), and the peer answers an address that\
                 is not this one
                    fix: use gid_idx 3, the recommended GID[3] ::ffff:10.0.2.15 (RoCE v2) that carries 10.0.2.15""",
                line(LabChecks.gidIndex("0", ROCE)));
    }

    @Test
    void autoPassesAndSaysWhichEntryCarriesTheAddress() {
        assertEquals("✓ gid_idx: gid_idx auto: the lab takes the entry perftest's scoring ranks best when it queries"
                + " the port; the entry that carries 10.0.2.15 is GID[3] ::ffff:10.0.2.15 (RoCE v2)",
                line(LabChecks.gidIndex("AUTO", ROCE)));
    }

    @Test
    void textThatIsNoIndexFails() {
        assertEquals("""
                ✗ gid_idx: gid_idx 'three' is not -1, auto or an index
                    fix: use gid_idx 3, the recommended GID[3] ::ffff:10.0.2.15 (RoCE v2) that carries 10.0.2.15""",
                line(LabChecks.gidIndex("three", ROCE)));
    }

    @Test
    void withoutAnEntryForTheAddressTheFixSaysToAddItFirst() {
        Optional<SideFacts> none = Optional.of(facts("Ethernet", -1));
        assertEquals("""
                ✗ gid_idx: gid_idx is -1 (the seed's default): the QP gets no GRH, but RoCE carries every packet in\
                 UDP/IP, so ibv_modify_qp to RTR fails with EINVAL
                    fix: first give eth0 the address 10.0.2.15 (see the GID check), then use the index of its RoCE v2\
                 GID""", line(LabChecks.gidIndex("-1", none)));
        assertEquals("- gid_idx: no GID carries 10.0.2.15 (see the GID check), so gid_idx 1 cannot be judged",
                line(LabChecks.gidIndex("1", none)));
    }

    @Test
    void withoutFactsTheCheckIsSkipped() {
        assertEquals("- gid_idx: gid_idx 3 cannot be judged: the device or the address failed its checks above",
                line(LabChecks.gidIndex("3", Optional.empty())));
    }

    /** GID[0] is an entry like any other: an index of 0 is not "no entry". */
    @Test
    void theFirstEntryCanBeTheRecommendedOne() {
        Optional<SideFacts> first = Optional.of(facts("Ethernet", 0));
        assertEquals("✓ gid_idx: gid_idx 0 is the recommended GID[0] ::ffff:10.0.2.15 (RoCE v2) for 10.0.2.15",
                line(LabChecks.gidIndex("0", first)));
        assertEquals("""
                ✗ gid_idx: gid_idx is -1 (the seed's default): the QP gets no GRH, but RoCE carries every packet in\
                 UDP/IP, so ibv_modify_qp to RTR fails with EINVAL
                    fix: use gid_idx 0, the recommended GID[0] ::ffff:10.0.2.15 (RoCE v2) that carries 10.0.2.15""",
                line(LabChecks.gidIndex("-1", first)));
        assertEquals("✓ gid_idx: gid_idx auto: the lab takes the entry perftest's scoring ranks best when it queries"
                + " the port; the entry that carries 10.0.2.15 is GID[0] ::ffff:10.0.2.15 (RoCE v2)",
                line(LabChecks.gidIndex("auto", first)));
        assertEquals("""
                ✗ gid_idx: gid_idx 1 is not the entry that carries 10.0.2.15 as RoCE v2: packets would leave with\
                 another source GID (a link-local fe80:: entry routes nowhere), and the peer answers an address that\
                 is not this one
                    fix: use gid_idx 0, the recommended GID[0] ::ffff:10.0.2.15 (RoCE v2) that carries 10.0.2.15""",
                line(LabChecks.gidIndex("1", first)));
    }

    @Test
    void withoutTheLocalFactsNothingIsJudged() {
        assertEquals("- gid_idx: gid_idx 3 cannot be judged: the device or the address failed its checks above",
                line(LabChecks.gidIndex(" 3", Optional.empty())));
    }

    @Test
    void withoutAnEntryOrANetdevAutoSaysOnlyWhatItDoesAndTheFixNamesNoNetdev() {
        SideFacts bare = new SideFacts("rxe0", "libibverbs", "10.0.2.15", "", -1, -1, 1024, -1, "Ethernet", "ACTIVE",
                -1, "", "");
        assertEquals("✓ gid_idx: gid_idx auto: the lab takes the entry perftest's scoring ranks best when it queries"
                + " the port", line(LabChecks.gidIndex("auto", Optional.of(bare))));
        assertEquals("""
                ✗ gid_idx: gid_idx 'x' is not -1, auto or an index
                    fix: first give the netdev the address 10.0.2.15 (see the GID check), then use the index of its\
                 RoCE v2 GID""", line(LabChecks.gidIndex("x", Optional.of(bare))));
    }

    /** An empty gid_idx field (null from a form that was never filled) is judged as the empty text it shows. */
    @Test
    void anEmptyFieldIsNoIndex() {
        assertEquals("""
                ✗ gid_idx: gid_idx '' is not -1, auto or an index
                    fix: use gid_idx 3, the recommended GID[3] ::ffff:10.0.2.15 (RoCE v2) that carries 10.0.2.15""",
                line(LabChecks.gidIndex(null, ROCE)));
        assertEquals("- gid_idx: gid_idx  cannot be judged: the device or the address failed its checks above",
                line(LabChecks.gidIndex(null, Optional.empty())));
    }
}
