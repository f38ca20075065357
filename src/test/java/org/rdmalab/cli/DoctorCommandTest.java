package org.rdmalab.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.rdmalab.testing.Ports;

/**
 * {@code doctor} on soft0 as a user runs it: a healthy pair passes, a dropping side is a black hole
 * naming UDP 4791 and the GIDs and IPs, a path MTU above the active MTU is caught before the probe,
 * a peer that is not running is reported, and usage errors exit 2 with one line.
 */
class DoctorCommandTest {

    private final String tcp = Integer.toString(Ports.freeTcpPort());
    private final String udp = Integer.toString(Ports.freeUdpPort());

    /** Runs a serving doctor on 127.0.0.1 and a client on 127.0.0.2 with the extra arguments of each. */
    private CliRunner.Result[] pair(String[] serverExtra, String[] clientExtra) throws Exception {
        CompletableFuture<CliRunner.Result> server = CompletableFuture.supplyAsync(() -> CliRunner.run(
                concat(new String[] {"doctor", "--serve", "127.0.0.1", "soft0", "--tcp-port", tcp, "--udp-port", udp,
                    "--timeout", "20"}, serverExtra)));
        CliRunner.Result client = CliRunner.run(concat(new String[] {"doctor", "127.0.0.2", "soft0", "127.0.0.1",
            "--tcp-port", tcp, "--udp-port", udp, "--timeout", "20"}, clientExtra));
        return new CliRunner.Result[] {server.get(60, TimeUnit.SECONDS), client};
    }

    private static String[] concat(String[] a, String[] b) {
        String[] all = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }

    @Test
    void aHealthyPairPassesEveryCheckAndEveryWrite() throws Exception {
        CliRunner.Result[] results = pair(new String[0], new String[0]);
        CliRunner.Result server = results[0];
        CliRunner.Result client = results[1];
        assertEquals(0, client.exitCode(), client.out() + client.err());
        assertEquals(0, server.exitCode(), server.out() + server.err());
        assertTrue(client.out().startsWith("doctor: soft0 on 127.0.0.2, peer 127.0.0.1:" + tcp + "\n"), client.out());
        assertTrue(client.out().contains("✓ compare GID: both use RoCE v2: here GID[3] ::ffff:127.0.0.2 (RoCE v2),"
                + " peer GID[3] ::ffff:127.0.0.1 (RoCE v2)\n"), client.out());
        assertTrue(client.out().contains("✓ compare MTU: path MTU 1024 fits the active MTU 1024 on the server, 1024 on"
                + " the client\n"), client.out());
        assertTrue(client.out().contains("✓ probe: small write client → server: 16-byte RDMA WRITE client → server:"
                + " IBV_WC_SUCCESS; the server received 1 packet(s) from 127.0.0.2, bytes arrived intact\n"),
                client.out());
        assertTrue(server.out().contains("✓ probe: full write server → client: 1024-byte RDMA WRITE server → client:"
                + " IBV_WC_SUCCESS; the client received 1 packet(s) from 127.0.0.1, bytes arrived intact\n"),
                server.out());
        assertTrue(client.out().contains("\nresult: all "), client.out());
        assertEquals("", client.err());
    }

    @Test
    void aSideThatDropsEverythingIsABlackHoleNamingUdp4791AndTheAddresses() throws Exception {
        CliRunner.Result[] results = pair(new String[0], new String[] {"--fault", "drop=1"});
        CliRunner.Result server = results[0];
        CliRunner.Result client = results[1];
        assertEquals(1, client.exitCode(), client.out());
        assertEquals(1, server.exitCode(), server.out());
        String verdict = "IBV_WC_RETRY_EXC_ERR; the server saw no packet from 127.0.0.2";
        String suspects = ": a black hole; suspects: a firewall dropping UDP 4791 on either machine, the wrong GID or"
                + " IP (127.0.0.2 → 127.0.0.1, GID[3] ::ffff:127.0.0.2 (RoCE v2) → GID[3] ::ffff:127.0.0.1 (RoCE v2)),"
                + " or ARP or the route from 127.0.0.2 to 127.0.0.1\n    fix: check the firewall line of 'doctor' on"
                + " both machines (allow UDP 4791), that 127.0.0.1 is the peer's address on its RDMA netdev, and ip"
                + " neigh / ip route get 127.0.0.1\n";
        assertTrue(client.out().contains("✗ probe: small write client → server: 16-byte RDMA WRITE client → server: "
                + verdict + " (this side's --fault dropped 4 packet(s))" + suspects), client.out());
        assertTrue(server.out().contains("✗ probe: small write client → server: 16-byte RDMA WRITE client → server: "
                + verdict + " (the client's --fault dropped 4 packet(s))" + suspects), server.out());
        assertFalse(client.out().contains("server → client"), "the probe stops at the first failure");
    }

    @Test
    void acknowledgementsLostOnTheWayBackAreAOneWayBlackHole() throws Exception {
        CliRunner.Result[] results = pair(new String[] {"--fault", "drop=1"}, new String[0]);
        CliRunner.Result client = results[1];
        assertEquals(1, client.exitCode(), client.out());
        assertTrue(client.out().contains("IBV_WC_RETRY_EXC_ERR; the server received 4 packet(s) from 127.0.0.2 (the"
                + " server's --fault dropped 4 packet(s)) but no acknowledgement came back: a black hole from the server"
                + " to the client; suspects: a firewall dropping UDP 4791 on either machine, the wrong GID or IP"
                + " (127.0.0.1 → 127.0.0.2, GID[3] ::ffff:127.0.0.1 (RoCE v2) → GID[3] ::ffff:127.0.0.2 (RoCE v2)),"
                + " or ARP or the route from 127.0.0.1 to 127.0.0.2\n    fix: check the firewall on the client (UDP 4791"
                + " in) and the route from 127.0.0.1 back to 127.0.0.2\n"), client.out());
    }

    @Test
    void aPathMtuAboveTheActiveMtuIsCaughtBeforeTheProbe() throws Exception {
        CliRunner.Result[] results = pair(new String[0], new String[] {"--mtu", "4096"});
        CliRunner.Result server = results[0];
        CliRunner.Result client = results[1];
        assertEquals(1, client.exitCode(), client.out());
        assertEquals(1, server.exitCode(), server.out());
        String caught = "✗ compare MTU: path MTU 4096 is above the active MTU 1024 on the server, 1024 on the client;"
                + " caught before the probe, which does not run\n    fix: use --mtu 1024 or less, or raise the smaller"
                + " netdev MTU\n";
        assertTrue(client.out().contains(caught), client.out());
        assertTrue(server.out().contains(caught), server.out());
        assertTrue(client.out().contains("✗ MTU: path MTU 4096 is above the active MTU 1024; lo's MTU 65536 leaves"
                + " 65456 bytes for RoCE payload\n    fix: use --mtu 1024 or less, or give soft0 a jumbo link on both"
                + " sides (--link-mtu 9000; its active MTU follows that option as rxe's follows its netdev)\n"), client.out());
        assertFalse(client.out().contains("probe:"), client.out());
        assertFalse(server.out().contains("probe:"), server.out());
    }

    @Test
    void aJumboLinkOnBothSidesLetsTheFullSizeProbeRunAt4096() throws Exception {
        String[] jumbo = {"--link-mtu", "9000", "--mtu", "4096"};
        CliRunner.Result[] results = pair(new String[] {"--link-mtu", "9000"}, jumbo);
        CliRunner.Result client = results[1];
        assertEquals(0, client.exitCode(), client.out());
        assertTrue(client.out().contains("✓ probe: full write server → client: 4096-byte RDMA WRITE server → client:"
                + " IBV_WC_SUCCESS; the client received 1 packet(s) from 127.0.0.1, bytes arrived intact\n"),
                client.out());
    }

    @Test
    void aPeerThatIsNotRunningIsReportedAsSuch() {
        CliRunner.Result client = CliRunner.run("doctor", "127.0.0.2", "soft0", "127.0.0.1", "--tcp-port", tcp,
                "--udp-port", udp, "--timeout", "1");
        assertEquals(1, client.exitCode(), client.out());
        assertTrue(client.out().contains("✗ peer: no doctor answers at 127.0.0.1:" + tcp + ": nothing listens on"
                + " 127.0.0.1:" + tcp), client.out());
        assertTrue(client.out().contains("    fix: the peer is not running: start 'doctor --serve 127.0.0.1 <device>'"
                + " there first (same --tcp-port), and check the peer IP\n"), client.out());
    }

    @Test
    void aServerThatNoPeerReachesSaysWhatToStart() {
        CliRunner.Result server = CliRunner.run("doctor", "--serve", "127.0.0.1", "soft0", "--tcp-port", tcp,
                "--udp-port", udp, "--timeout", "1");
        assertEquals(1, server.exitCode(), server.out());
        assertTrue(server.out().contains("waiting for a peer on 127.0.0.1:" + tcp + " (up to 1 s)\n✗ peer: no client"
                + " connected to 127.0.0.1:" + tcp + " within 1 s"), server.out());
        assertTrue(server.out().contains("    fix: start 'doctor <peer_ip> soft0 127.0.0.1' on the other machine within"
                + " the timeout\n"), server.out());
    }

    @Test
    void theLocalChecksOfSoft0PassAndSayWhatTheyFound() {
        CliRunner.Result result = CliRunner.run("doctor", "127.0.0.1", "soft0", "--udp-port", udp);
        assertEquals(0, result.exitCode(), result.out());
        assertTrue(result.out().contains("✓ port: soft0 port 1: ACTIVE (LINK_UP), link layer Ethernet\n"),
                result.out());
        assertTrue(result.out().contains("✓ GID: 127.0.0.1 is GID[2] ::ffff:127.0.0.1 RoCE v1 and GID[3]"
                + " ::ffff:127.0.0.1 RoCE v2; recommended GID[3]: IPv4-mapped (+100): it carries the IPv4 address"
                + " 127.0.0.1, so its packets are routed by IP; not link-local (+10); RoCE v2 (+2): UDP port 4791,"
                + " crosses routers; best by perftest's scoring; GID[0] is fe80::7fff:fe00:1, which is link-local and routes"
                + " nowhere\n"), result.out());
        assertTrue(result.out().startsWith("doctor: soft0 on 127.0.0.1\n- libibverbs: soft0 is RDMA Lab's own software"
                + " device and needs no libibverbs, kernel modules, device nodes or locked memory"), result.out());
    }

    @Test
    void jsonCarriesTheChecksAndTheFacts() {
        CliRunner.Result result = CliRunner.run("doctor", "127.0.0.1", "soft0", "--udp-port", udp, "--json");
        assertEquals(0, result.exitCode(), result.out());
        assertTrue(result.out().startsWith("{\n  \"mode\": \"local\",\n  \"passed\": true,\n  \"checks\": ["),
                result.out());
        assertTrue(result.out().contains("\"name\": \"GID\",\n      \"status\": \"pass\""), result.out());
        assertTrue(result.out().contains("\"facts\": {\n    \"device\": \"soft0\",\n    \"backend\": \"software\",\n"
                + "    \"ip\": \"127.0.0.1\""), result.out());
        assertTrue(result.out().contains("\"gid_index\": \"3\""), result.out());
        assertFalse(result.out().contains("✓"), "no text lines in JSON");
    }

    @Test
    void usageErrorsExit2WithOneLine() {
        assertUsage(new String[] {"doctor", "127.0.0.1"}, "rdma-lab: give <device> after <local_ip> (e.g. 'doctor"
                + " 10.0.2.15 rxe0'), or neither for the host checks alone\n");
        assertUsage(new String[] {"doctor", "--serve"}, "rdma-lab: --serve takes <local_ip> and <device>, and no"
                + " <peer_ip>: 'doctor --serve 10.0.2.15 rxe0'\n");
        assertUsage(new String[] {"doctor", "--serve", "127.0.0.1", "soft0", "127.0.0.2"}, "rdma-lab: --serve takes"
                + " <local_ip> and <device>, and no <peer_ip>: 'doctor --serve 10.0.2.15 rxe0'\n");
        assertUsage(new String[] {"doctor", "10.0.2.15", "rxe0", "--fault", "drop=1"}, "rdma-lab: --fault applies to"
                + " the software device only: give soft0 as <device>\n");
        assertUsage(new String[] {"doctor", "10.0.2.300", "soft0"}, "rdma-lab: '10.0.2.300' is not an IPv4 address"
                + " (each part is 0..255)\n");
        assertUsage(new String[] {"doctor", "127.0.0.1", "soft0", "peer.example"}, "rdma-lab: 'peer.example' is not an"
                + " IPv4 address (write it like 192.168.1.100)\n");
        assertUsage(new String[] {"doctor", "127.0.0.1", "soft0", "--mtu", "1500"}, "rdma-lab: --mtu 1500 is not one"
                + " of 256, 512, 1024, 2048, 4096\n");
        assertUsage(new String[] {"doctor", "127.0.0.1", "soft0", "--fault", "drop=2"}, null);
    }

    private static void assertUsage(String[] args, String expected) {
        CliRunner.Result result = CliRunner.run(args);
        assertEquals(2, result.exitCode(), String.join(" ", args) + ": " + result.out() + result.err());
        assertEquals("", result.out(), "nothing checked");
        if (expected != null) {
            assertEquals(expected, result.err());
        } else {
            assertEquals(1, result.err().lines().count(), result.err());
        }
    }
}
