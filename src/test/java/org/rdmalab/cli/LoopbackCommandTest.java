package org.rdmalab.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.rdmalab.testing.Ports;
import org.rdmalab.testing.Tools;

/** The {@code loopback} command's contract: usage errors, output a student reads, exit codes, capture. */
@Timeout(60)
class LoopbackCommandTest {

    private record Result(int exitCode, String out, String err) {
    }

    private static Result execute(String... args) {
        CliRunner.Result result = CliRunner.run(args);
        return new Result(result.exitCode(), result.out(), result.err());
    }

    @Test
    void listNamesEveryScenario() {
        Result result = execute("loopback", "--list");
        assertEquals(0, result.exitCode(), result.err());
        for (String name : List.of("seed", "bulk", "send", "atomic", "bad-rkey", "out-of-bounds",
                "mr-no-remote-write", "qp-no-remote-write", "rnr", "retry-exceeded", "bad-transition")) {
            assertTrue(result.out().lines().anyMatch(line -> line.startsWith(name + " ")), name + "\n" + result.out());
        }
    }

    @Test
    void anUnknownScenarioListsTheValidNames() {
        Result result = execute("loopback", "--scenario", "hello");
        assertEquals(2, result.exitCode());
        assertEquals(1, result.err().lines().count(), result.err());
        assertTrue(result.err().contains("unknown scenario 'hello'"), result.err());
        assertTrue(result.err().contains("seed, bulk, send, atomic"), result.err());
    }

    @ParameterizedTest
    @ValueSource(strings = {"--mtu=300", "--mtu=abc", "--mtu=8192", "--size=0", "--size=65M", "--size=x",
        "--size=99999999999999999999", "--udp-port=0", "--server-address=localhost", "--client-address=127.0.0.1",
        "--poll-timeout=0", "--fault=bogus=1", "--fault=drop=2"})
    void badValuesAreOneClearLineAndExitTwo(String option) {
        Result result = execute("loopback", option);
        assertEquals(2, result.exitCode(), result.out() + result.err());
        assertEquals(1, result.err().lines().count(), result.err());
        assertTrue(result.err().startsWith("rdma-lab: "), result.err());
        assertFalse(result.err().contains("at org."), result.err());
        assertEquals("", result.out());
    }

    @Test
    void aMissingCaptureFolderIsAUsageError(@TempDir Path dir) {
        Result result = execute("loopback", "--pcap", dir.resolve("no/such/x.pcap").toString());
        assertEquals(2, result.exitCode());
        assertTrue(result.err().contains("does not exist"), result.err());
    }

    @Test
    void theSeedPrintsEveryStepAndCompletionAndWritesACapture(@TempDir Path dir) throws Exception {
        int port = Ports.freeUdpPort();
        Path pcap = dir.resolve("seed.pcap");
        Result result = execute("loopback", "--udp-port", Integer.toString(port), "--pcap", pcap.toString());
        assertEquals(0, result.exitCode(), result.out() + result.err());
        String out = result.out();
        for (String expected : List.of("ibv_open_device", "ibv_query_port", "ibv_query_gid_ex", "::ffff:127.0.0.1",
                "::ffff:127.0.0.2", "ibv_alloc_pd", "ibv_reg_mr", "rkey 0x", "ibv_create_cq", "ibv_create_qp",
                "RESET -> INIT", "INIT -> RTR", "IBV_MTU_256", "RTR -> RTS", "IBV_WR_RDMA_WRITE", "IBV_WR_RDMA_READ",
                "IBV_WC_SUCCESS  opcode IBV_WC_RDMA_WRITE", "IBV_WC_SUCCESS  opcode IBV_WC_RDMA_READ  byte_len 11",
                "\"HelloWorld\\0\"", "ibv_destroy_qp", "ibv_close_device", "result: as expected")) {
            assertTrue(out.contains(expected), expected + "\n" + out);
        }
        assertTrue(Files.size(pcap) > 24, "the capture holds packets, not only the pcap header");
        Result inspect = execute("pcap", "inspect", pcap.toString());
        assertEquals(0, inspect.exitCode(), "every ICRC in the capture verifies:\n" + inspect.out() + inspect.err());
        Path tshark = Tools.require("tshark", "tshark");
        List<String> roce = tshark(tshark, pcap, port, "infiniband");
        String packets = String.join("\n", roce);
        assertTrue(roce.size() >= 4, "WRITE, its ACK, READ request and response:\n" + packets);
        for (String kind : List.of("RDMA Write Only", "Acknowledge", "RDMA Read Request", "RDMA Read Response Only")) {
            assertTrue(packets.contains(kind), kind + "\n" + packets);
        }
        List<String> malformed = tshark(tshark, pcap, port, "_ws.malformed || _ws.expert.severity >= \"warning\"");
        assertEquals(List.of(), malformed);
    }

    @Test
    void anErrorScenarioShowsTheStatusesAndExitsZeroWhenTheyHappen() {
        int port = Ports.freeUdpPort();
        Result result = execute("loopback", "--scenario", "bad-rkey", "--udp-port", Integer.toString(port));
        assertEquals(0, result.exitCode(), result.out() + result.err());
        assertTrue(result.out().contains("wr_id 1  IBV_WC_REM_ACCESS_ERR"), result.out());
        assertTrue(result.out().contains("wr_id 2  IBV_WC_WR_FLUSH_ERR"), result.out());
        assertTrue(result.out().contains("IBV_QPS_ERR"), result.out());
    }

    @Test
    void allRunsEveryScenarioAndSumsThemUp() {
        int port = Ports.freeUdpPort();
        Result result = execute("loopback", "--scenario", "all", "--udp-port", Integer.toString(port));
        assertEquals(0, result.exitCode(), result.out() + result.err());
        String summary = result.out().substring(result.out().indexOf("summary on soft0:"));
        for (String name : List.of("seed", "bulk", "send", "atomic", "bad-rkey", "out-of-bounds",
                "mr-no-remote-write", "qp-no-remote-write", "rnr", "retry-exceeded", "bad-transition")) {
            assertTrue(result.out().contains("scenario " + name + ": "), name);
            assertTrue(summary.lines().anyMatch(line -> line.matches("  " + name + " +as expected")), name + "\n" + summary);
        }
    }

    @Test
    void eachPeerSendsFromTheGidOfItsOwnAddress() {
        int port = Ports.freeUdpPort();
        Result result = execute("loopback", "--udp-port", Integer.toString(port));
        assertEquals(0, result.exitCode(), result.out() + result.err());
        assertTrue(result.out().contains("::ffff:127.0.0.1 RoCE v2 (the GID of 127.0.0.1"), result.out());
        assertTrue(result.out().contains("::ffff:127.0.0.2 RoCE v2 (the GID of 127.0.0.2"), result.out());
    }

    @Test
    void softwareOnlyOptionsOnAnotherDeviceAreAUsageError() {
        Result result = execute("loopback", "--device", "rxe0", "--fault", "drop=0.1", "--udp-port", "5000");
        assertEquals(2, result.exitCode(), result.out() + result.err());
        assertEquals(1, result.err().lines().count(), result.err());
        assertTrue(result.err().contains("--fault, --udp-port only work on soft0"), result.err());
    }

    @Test
    void soft0AndAKernelDeviceCannotBeMixed() {
        Result result = execute("loopback", "--client-device", "rxeB");
        assertEquals(2, result.exitCode(), result.out() + result.err());
        assertEquals("rdma-lab: --device soft0 and --client-device rxeB mix soft0 with a kernel device, which holds UDP"
                + " port 4791 on this machine; use two soft0 peers or two libibverbs devices", result.err().strip());
    }

    @Test
    void anUnknownDeviceSaysWhichExist() {
        Result result = execute("loopback", "--device", "nosuch0");
        assertEquals(1, result.err().lines().count(), result.err());
        assertTrue(result.err().contains("no device named 'nosuch0'"), result.err());
        assertTrue(result.err().contains("soft0"), result.err());
        assertFalse(result.exitCode() == 0);
    }

    @Test
    void aScenarioThatDoesNotEndAsExpectedExitsOne() {
        int port = Ports.freeUdpPort();
        // Every datagram lost: the seed's WRITE gets no completion within the 300 ms poll.
        Result result = execute("loopback", "--fault", "drop=1", "--poll-timeout", "300", "--udp-port",
                Integer.toString(port));
        assertEquals(1, result.exitCode(), result.out() + result.err());
        assertTrue(result.out().contains("result: NOT as expected"), result.out());
        assertFalse(result.out().contains("result: as expected"), result.out());
    }

    @Test
    void bulkWithFaultsStillVerifies() {
        int port = Ports.freeUdpPort();
        Result result = execute("loopback", "--scenario", "bulk", "--size", "32K", "--mtu", "1024",
                "--fault", "drop=0.05,dup=0.01,reorder=0.02,corrupt=0.001,seed=7", "--udp-port", Integer.toString(port));
        assertEquals(0, result.exitCode(), result.out() + result.err());
        assertTrue(result.out().contains("the server's buffer matches byte for byte (32768 bytes"), result.out());
        assertTrue(result.out().contains("the client's buffer matches byte for byte (32768 bytes"), result.out());
    }

    /** The packets tshark shows for {@code filter}, decoding the test's UDP port as RoCE v2 as it does 4791. */
    private static List<String> tshark(Path tshark, Path pcap, int port, String filter)
            throws IOException, InterruptedException {
        Process process = new ProcessBuilder(tshark.toString(), "-r", pcap.toString(), "--disable-protocol",
                "rpcordma", "-d", "udp.port==" + port + ",infiniband", "-Y", filter)
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        ByteArrayOutputStream output = new ByteArrayOutputStream();
        try (InputStream in = process.getInputStream()) {
            in.transferTo(output);
        }
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "tshark finished");
        assertEquals(0, process.exitValue(), output.toString(StandardCharsets.UTF_8));
        List<String> lines = new ArrayList<>();
        output.toString(StandardCharsets.UTF_8).lines().filter(line -> !line.isBlank()).forEach(lines::add);
        return lines;
    }
}
