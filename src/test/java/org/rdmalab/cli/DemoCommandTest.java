package org.rdmalab.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The demo's usage errors: one line saying what is wrong, exit 2, nothing opened. */
class DemoCommandTest {

    @Test
    void aBadLocalAddressIsAUsageError() {
        CliRunner.Result result = CliRunner.run("demo", "127.0.0.300", "soft0");
        assertEquals(2, result.exitCode());
        assertEquals("rdma-lab: '127.0.0.300' is not an IPv4 address (each part is 0..255)\n", result.err());
    }

    @Test
    void aBadServerAddressIsAUsageError() {
        CliRunner.Result result = CliRunner.run("demo", "127.0.0.2", "soft0", "server.example");
        assertEquals(2, result.exitCode());
        assertTrue(result.err().contains("'server.example' is not an IPv4 address"), result.err());
    }

    @Test
    void anUnknownProtocolOrFlowListsTheValidOnes() {
        CliRunner.Result protocol = CliRunner.run("demo", "127.0.0.1", "soft0", "--protocol", "rdmacm");
        assertEquals(2, protocol.exitCode());
        assertTrue(protocol.err().contains("unknown protocol 'rdmacm'; valid protocols: seed, lab, pingpong"),
                protocol.err());
        CliRunner.Result flow = CliRunner.run("demo", "127.0.0.1", "soft0", "--flow", "read-only");
        assertEquals(2, flow.exitCode());
        assertTrue(flow.err().contains("unknown flow 'read-only'; valid flows: rc-example, write-only"), flow.err());
        assertFalse(flow.out().contains("Open device"), "nothing ran");
    }

    @Test
    void aMissingDeviceArgumentShowsTheUsage() {
        CliRunner.Result result = CliRunner.run("demo", "127.0.0.1");
        assertEquals(2, result.exitCode());
        assertTrue(result.err().contains("Missing required parameter: '<device>'"), result.err());
        assertTrue(result.err().contains("Usage: rdma-lab demo"), result.err());
    }

    @Test
    void aBadMtuIsAUsageError() {
        CliRunner.Result result = CliRunner.run("demo", "127.0.0.1", "soft0", "--mtu", "1500");
        assertEquals(2, result.exitCode());
        assertTrue(result.err().contains("MTU 1500 is not one of 256, 512, 1024, 2048, 4096"), result.err());
    }

    @Test
    void exportCWritesTheFlowItWouldRunWithTheChosenValuesAndRunsNothing(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("client.c");
        CliRunner.Result result = CliRunner.run("demo", "127.0.0.2", "soft0", "127.0.0.1", "--flow", "write-only",
                "--mtu", "1024", "--gid-index", "3", "--export-c", file.toString());
        assertEquals(0, result.exitCode(), result.err());
        assertTrue(result.out().startsWith("wrote " + file), result.out());
        assertFalse(result.out().contains("Open device"), "nothing ran");
        String program = Files.readString(file);
        assertTrue(program.contains("attr.path_mtu = IBV_MTU_1024;"), program);
        assertTrue(program.contains("config.gid_idx = 3;"), program);
        assertTrue(program.contains("the seed's write-only flow as one C program, from a client session"), program);
    }

    @Test
    void exportCIntoAMissingFolderOrOfPingpongIsAUsageError(@TempDir Path dir) {
        Path missing = dir.resolve("no-such-folder");
        CliRunner.Result result = CliRunner.run("demo", "127.0.0.1", "soft0", "--export-c",
                missing.resolve("x.c").toString());
        assertEquals(2, result.exitCode());
        assertTrue(result.err().contains("--export-c: the folder " + missing + " does not exist"), result.err());
        assertFalse(Files.exists(missing), "never created");
        CliRunner.Result pingpong = CliRunner.run("demo", "127.0.0.1", "soft0", "--protocol", "pingpong",
                "--export-c", dir.resolve("p.c").toString());
        assertEquals(2, pingpong.exitCode());
        assertTrue(pingpong.err().contains("ibv_rc_pingpong"), pingpong.err());
        assertEquals(1, pingpong.err().strip().lines().count(), pingpong.err());
    }

    @Test
    void baselineIsForThePingpongProtocolOnly() {
        CliRunner.Result result = CliRunner.run("demo", "127.0.0.1", "soft0", "--baseline");
        assertEquals(2, result.exitCode());
        assertEquals("rdma-lab: --baseline compares the pingpong protocol's ping-pong with plain UDP; add "
                + "--protocol pingpong", result.err().strip());
        assertFalse(result.out().contains("Open device"), "nothing ran");
    }

    @Test
    void aClientWhoseServerIsNotUpSaysAtOnceWhatItWaitsForAndWhichCommandStartsTheServer() {
        int tcp = org.rdmalab.testing.Ports.freeTcpPort();
        CliRunner.Result result = CliRunner.run("demo", "127.0.0.2", "soft0", "127.0.0.9", "--timeout", "1",
                "--tcp-port", String.valueOf(tcp), "--udp-port", String.valueOf(org.rdmalab.testing.Ports.freeUdpPort()));
        assertEquals(1, result.exitCode(), result.out() + result.err());
        String command = "rdma-lab demo 127.0.0.9 <device> --tcp-port " + tcp;
        assertTrue(result.out().contains("[ok]   Create QP: ") && result.out().contains("\n       waiting for the server at"
                + " 127.0.0.9:" + tcp + " (up to 1 s; start it there with: " + command + ")\n"), result.out());
        assertTrue(result.err().contains("nothing listens on 127.0.0.9:" + tcp + " (connection refused for 1 s); start the"
                + " server there first (" + command + ")"), result.err());
        // One line, the reason said once: the diagnosis after it names the field and the errno alone.
        assertEquals(1, result.err().strip().lines().count(), result.err());
        assertEquals(1, result.err().split("nothing listens on", -1).length - 1, result.err());
        assertTrue(result.err().contains(" — connect."), result.err());
    }

    @Test
    void aServerWhoseClientNeverComesSaysSoOnceInOneLine() {
        int tcp = org.rdmalab.testing.Ports.freeTcpPort();
        CliRunner.Result result = CliRunner.run("demo", "127.0.0.2", "soft0", "--timeout", "1",
                "--tcp-port", String.valueOf(tcp), "--udp-port", String.valueOf(org.rdmalab.testing.Ports.freeUdpPort()));
        assertEquals(1, result.exitCode(), result.out() + result.err());
        String reason = "no client connected to 127.0.0.2:" + tcp + " within 1 s";
        assertEquals(1, result.err().strip().lines().count(), result.err());
        assertEquals(1, result.err().split(reason, -1).length - 1, result.err());
        assertTrue(result.err().strip().startsWith("rdma-lab demo: Connect TCP failed: control plane: " + reason), result.err());
        assertTrue(result.err().strip().endsWith(" — connect.tcp_port: ETIMEDOUT (Connection timed out)"), result.err());
    }

    @Test
    void theRetriesShowAsALineEveryFiveSecondsOrInPlaceOnATerminal() {
        java.time.Duration limit = java.time.Duration.ofSeconds(30);
        java.util.function.BiFunction<Integer, Long, org.rdmalab.lab.LabEvent> refused = (refusals, millis) ->
                new org.rdmalab.lab.LabEvent.PeerWaiting("10.0.0.9:12025", refusals, java.time.Duration.ofMillis(millis),
                        limit, "rdma-lab demo 10.0.0.9 <device>");
        java.io.StringWriter text = new java.io.StringWriter();
        DemoCommand.Printer lines = new DemoCommand.Printer(new java.io.PrintWriter(text), false);
        lines.print(refused.apply(1, 0L));
        lines.print(refused.apply(2, 4_999L));
        lines.print(refused.apply(3, 5_000L));
        lines.print(refused.apply(4, 9_999L));
        lines.print(refused.apply(5, 10_001L));
        assertEquals(java.util.List.of(
                "       waiting for the server at 10.0.0.9:12025 (up to 30 s; start it there with: rdma-lab demo 10.0.0.9 <device>)",
                "       still waiting for 10.0.0.9:12025: 5 s, 3 attempts",
                "       still waiting for 10.0.0.9:12025: 10.0 s, 5 attempts"), text.toString().lines().toList());

        java.io.StringWriter terminal = new java.io.StringWriter();
        DemoCommand.Printer inPlace = new DemoCommand.Printer(new java.io.PrintWriter(terminal), true);
        inPlace.print(refused.apply(1, 0L));
        inPlace.print(refused.apply(2, 100L));
        inPlace.print(refused.apply(3, 200L));
        inPlace.print(new org.rdmalab.lab.LabEvent.Output("connected"));
        assertTrue(terminal.toString().endsWith("\r       - still waiting for 10.0.0.9:12025: 0.1 s, 2 attempts   "
                + "\r       \\ still waiting for 10.0.0.9:12025: 0.2 s, 3 attempts   \nconnected\n"), terminal.toString());
    }
}
