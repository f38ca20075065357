package org.rdmalab.doctor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rdmalab.verbs.Mtu;
import org.rdmalab.verbs.spi.Backends;

/** The comparison of two sides' facts: each mismatch found and worded, and whether the probe may run. */
class PeerCompareTest {

    @TempDir
    Path root;

    private static SideFacts side(String ip, int prefix, int netdevMtu, int activeMtu, int pathMtu, int gidIndex,
            String gidType) {
        return new SideFacts("rxe0", "libibverbs", ip, "eth0", prefix, netdevMtu, activeMtu, pathMtu, "Ethernet",
                "ACTIVE", gidIndex, gidIndex < 0 ? "" : "::ffff:" + ip, gidType);
    }

    private final SideFacts server = side("10.0.2.15", 24, 1500, 1024, -1, 3, "RoCE v2");

    private Optional<Mtu> compare(List<Check> checks, SideFacts client, FakeHost fake) {
        PeerDoctor doctor = new PeerDoctor(new Backends(List.of()), fake.host());
        return doctor.compare(checks, client, server, server, client);
    }

    private static String text(List<Check> checks) {
        StringBuilder out = new StringBuilder();
        for (Check check : checks) {
            out.append(check.status().symbol()).append(' ').append(check.name()).append(": ").append(check.found());
            if (check.failed()) {
                out.append("\n    fix: ").append(check.fix());
            }
            out.append('\n');
        }
        return out.toString();
    }

    @Test
    void twoMatchingSidesProbeAtTheSmallerActiveMtu() {
        List<Check> checks = new ArrayList<>();
        SideFacts client = side("10.0.2.16", 24, 1500, 1024, -1, 2, "RoCE v2");
        assertEquals(Optional.of(Mtu.MTU_1024), compare(checks, client, new FakeHost(root)));
        assertEquals("""
                ✓ compare GID: both use RoCE v2: here GID[2] ::ffff:10.0.2.16 (RoCE v2), peer GID[3] ::ffff:10.0.2.15 (RoCE v2)
                ✓ compare subnet: both in 10.0.2.0/24
                ✓ compare netdev MTU: both 1500
                ✓ compare MTU: path MTU 1024 fits the active MTU 1024 on the server, 1024 on the client
                """, text(checks));
    }

    @Test
    void aGidTypeMismatchIsNamedAndTheProbeStillRuns() {
        List<Check> checks = new ArrayList<>();
        SideFacts client = side("10.0.2.16", 24, 1500, 1024, -1, 2, "RoCE v1");
        assertTrue(compare(checks, client, new FakeHost(root)).isPresent());
        assertEquals("""
                ✗ compare GID: this side uses GID[2] ::ffff:10.0.2.16 (RoCE v1), the peer GID[3] ::ffff:10.0.2.15 (RoCE v2): RoCE v1 and RoCE v2 do not talk to each other
                    fix: use RoCE v2 GIDs on both sides (--gid-index of the ::ffff:<ip> entry of type RoCE v2)
                """, text(checks.subList(0, 1)));
    }

    @Test
    void aSideWithoutAGidStopsTheProbe() {
        List<Check> checks = new ArrayList<>();
        assertTrue(compare(checks, side("10.0.2.16", 24, 1500, 1024, -1, -1, ""), new FakeHost(root)).isEmpty());
        assertEquals("✗ compare GID: no usable GID on this side; see its GID check\n    fix: fix the GID check first\n",
                text(checks.subList(0, 1)));
    }

    @Test
    void netdevMtusThatDifferAndAPathMtuAboveAnActiveMtu() {
        List<Check> checks = new ArrayList<>();
        SideFacts client = side("10.0.2.16", 24, 9000, 4096, 4096, 2, "RoCE v2");
        assertTrue(compare(checks, client, new FakeHost(root)).isEmpty());
        assertEquals("""
                ✗ compare netdev MTU: netdev MTU 9000 here (eth0), 1500 on the peer (eth0): frames that fit one side are dropped by the other
                    fix: set the same MTU on both: sudo ip link set dev <netdev> mtu 1500
                ✗ compare MTU: path MTU 4096 is above the active MTU 1024 on the server, 4096 on the client; caught before the probe, which does not run
                    fix: use --mtu 1024 or less, or raise the smaller netdev MTU
                """, text(checks.subList(2, 4)));
    }

    @Test
    void anotherSubnetNeedsARoute() {
        FakeHost fake = new FakeHost(root);
        List<Check> checks = new ArrayList<>();
        compare(checks, side("10.9.0.7", 24, 1500, 1024, -1, 2, "RoCE v2"), fake);
        assertEquals("""
                ✗ compare subnet: 10.0.2.15 is outside 10.9.0.0/24 and there is no route to it
                    fix: add one (sudo ip route add 10.0.2.15 via <gateway>) or put both on one subnet
                """, text(checks.subList(1, 2)));
        fake.commands.put("ip route get 10.0.2.15", new CommandRunner.Result(true, 0,
                "10.0.2.15 via 10.9.0.1 dev eth0 src 10.9.0.7 uid 0 \n    cache \n"));
        checks.clear();
        compare(checks, side("10.9.0.7", 24, 1500, 1024, -1, 2, "RoCE v2"), fake);
        assertEquals("✓ compare subnet: 10.0.2.15 is outside 10.9.0.0/24; RoCE v2 is routed: 10.0.2.15 via 10.9.0.1"
                + " dev eth0 src 10.9.0.7 uid 0\n", text(checks.subList(1, 2)));
    }
}
