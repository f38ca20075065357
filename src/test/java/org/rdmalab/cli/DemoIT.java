package org.rdmalab.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.rdmalab.testing.Await;
import org.rdmalab.testing.Jvms;
import org.rdmalab.testing.Ports;

/** The seed's program as users run it: the packaged jar, server and client in two JVMs. */
class DemoIT {

    private static final long PROCESS_TIMEOUT_SECONDS = 90;

    @TempDir
    Path dir;

    private Process start(String name, List<String> args) throws IOException {
        List<String> command = Jvms.java();
        command.addAll(List.of("-jar", System.getProperty("rdmalab.jar", "target/rdma-lab.jar"), "demo"));
        command.addAll(args);
        return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(dir.resolve(name).toFile()).start();
    }

    private String output(String name) throws IOException {
        return Files.readString(dir.resolve(name), StandardCharsets.UTF_8);
    }

    private boolean contains(String name, String text) {
        try {
            return output(name).contains(text);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static int await(Process process) throws InterruptedException {
        if (!process.waitFor(PROCESS_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("the demo did not end within " + PROCESS_TIMEOUT_SECONDS + " s");
        }
        return process.exitValue();
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({"seed, rc-example", "seed, write-only", "lab, rc-example", "lab, write-only"})
    void serverPrintsHelloWorld(String protocol, String flow) throws Exception {
        String tcp = Integer.toString(Ports.freeTcpPort());
        String udp = Integer.toString(Ports.freeUdpPort());
        Path capture = dir.resolve("server.pcap");
        Process server = start("server.out", List.of("127.0.0.1", "soft0", "--protocol", protocol, "--flow", flow,
                "--tcp-port", tcp, "--udp-port", udp, "--timeout", "30", "--pcap", capture.toString()));
        Process client = start("client.out", List.of("127.0.0.2", "soft0", "127.0.0.1", "--protocol", protocol,
                "--flow", flow, "--tcp-port", tcp, "--udp-port", udp, "--timeout", "30"));
        assertEquals(0, await(client), () -> outputs());
        assertEquals(0, await(server), () -> outputs());
        String serverOut = output("server.out");
        assertTrue(serverOut.contains("Contents of server buffer: 'HelloWorld'"), serverOut);
        assertTrue(output("client.out").contains("IBV_WC_SUCCESS opcode IBV_WC_RDMA_WRITE byte_len 11"),
                output("client.out"));
        if (protocol.equals("seed")) {
            assertTrue(serverOut.contains("tcp -> connection block"), serverOut);
            assertTrue(serverOut.contains("(34 bytes)"), serverOut);
        } else {
            assertTrue(serverOut.contains("peer QP 0x"), serverOut);
            assertTrue(serverOut.contains("peer step"), serverOut);
            assertTrue(output("client.out").contains("Contents of the peer's buffer: 'HelloWorld'"),
                    output("client.out"));
        }
        assertTrue(Files.size(capture) > 24, "the server wrote its packets");
    }

    @Test
    void pingpongPrintsItsTwoResultLinesAndWithBaselineTheUdpAndRcDatagramRoundTripsAndTheRatios() throws Exception {
        String tcp = Integer.toString(Ports.freeTcpPort());
        String udp = Integer.toString(Ports.freeUdpPort());
        String baseline = Integer.toString(Ports.freeUdpPort());
        Process server = start("server.out", List.of("127.0.0.1", "soft0", "--protocol", "pingpong", "--iters", "50",
                "--tcp-port", tcp, "--udp-port", udp, "--baseline", "--baseline-port", baseline));
        Process client = start("client.out", List.of("127.0.0.2", "soft0", "127.0.0.1", "--protocol", "pingpong",
                "--iters", "50", "--tcp-port", tcp, "--udp-port", udp, "--baseline", "--baseline-port", baseline));
        assertEquals(0, await(client), () -> outputs());
        assertEquals(0, await(server), () -> outputs());
        for (String name : new String[] {"server.out", "client.out"}) {
            String out = output(name);
            assertTrue(out.matches("(?s).*409600 bytes in [0-9.]+ seconds = [0-9.]+ Mbit/sec.*"), out);
            assertTrue(out.matches("(?s).*50 iters in [0-9.]+ seconds = [0-9.]+ usec/iter\nnote: soft0 is Java: its path "
                    + "was warmed up on private twins before the run, but a run this short still carries .*"), out);
            assertTrue(out.matches("(?s).*UDP baseline: 50 iters in [0-9.]+ seconds = [0-9.]+ usec/iter \\(4096-byte "
                    + "messages in 4 datagrams each, 127\\.0\\.0\\.[12] <-> 127\\.0\\.0\\.[12] UDP port " + baseline
                    + ", no RDMA\\).*"), out);
            assertTrue(out.matches("(?s).*\nratio: [0-9]+\\.[0-9]{2} \\(RDMA ping-pong usec/iter / UDP ping-pong "
                    + "usec/iter\\)\n.*"), out);
            // Each side's round trips as a distribution, and the ratio of the two medians.
            Matcher rdma = Pattern.compile("Ping-pong SEND/RECV: 50 round trips of 4096 bytes in [0-9.]+ s; round trip "
                    + "median ([0-9.]+) usec, 99% ([0-9.]+) usec").matcher(out);
            Matcher baselineTrip = Pattern.compile("\nUDP round trip: median ([0-9.]+) usec, 99% ([0-9.]+) usec\n").matcher(out);
            Matcher ratio = Pattern.compile("\nmedian ratio: ([0-9.]+) \\(RDMA ping-pong median round trip ([0-9.]+) "
                    + "usec / UDP ([0-9.]+) usec\\)\n").matcher(out);
            assertTrue(rdma.find() && baselineTrip.find() && ratio.find(), out);
            assertEquals(rdma.group(1), ratio.group(2));
            assertEquals(baselineTrip.group(1), ratio.group(3));
            double rdmaMedian = Double.parseDouble(rdma.group(1));
            double udpMedian = Double.parseDouble(baselineTrip.group(1));
            assertTrue(rdmaMedian > 0 && rdmaMedian <= Double.parseDouble(rdma.group(2)), out);
            assertTrue(udpMedian > 0 && udpMedian <= Double.parseDouble(baselineTrip.group(2)), out);
            assertEquals(rdmaMedian / udpMedian, Double.parseDouble(ratio.group(1)), 0.01 + 0.01 * rdmaMedian / udpMedian,
                    out);
            // And of the two 99th percentiles, the tail's pair (issue 32's goal 3).
            Matcher tailRatio = Pattern.compile("\n99% ratio: ([0-9.]+) \\(RDMA ping-pong 99% round trip ([0-9.]+) "
                    + "usec / UDP ([0-9.]+) usec\\)\n").matcher(out);
            assertTrue(tailRatio.find(), out);
            assertEquals(rdma.group(2), tailRatio.group(2));
            assertEquals(baselineTrip.group(2), tailRatio.group(3));
            double rdmaTail = Double.parseDouble(rdma.group(2));
            double udpTail = Double.parseDouble(baselineTrip.group(2));
            assertEquals(rdmaTail / udpTail, Double.parseDouble(tailRatio.group(1)), 0.01 + 0.01 * rdmaTail / udpTail, out);
            // Then RC's datagrams alone: the same messages as a SEND's packets, an ACK for each, no device.
            assertTrue(out.matches("(?s).*RC datagrams baseline: 50 iters in [0-9.]+ seconds = [0-9.]+ usec/iter "
                    + "\\(4096-byte messages in 4 datagrams of RC's length each and a 20-byte ACK for each message, "
                    + "unconnected, 127\\.0\\.0\\.[12] <-> 127\\.0\\.0\\.[12] UDP port " + baseline
                    + ", no RDMA\\).*"), out);
            Matcher rcTrip = Pattern.compile("\nRC datagrams round trip: median ([0-9.]+) usec, 99% ([0-9.]+) usec\n")
                    .matcher(out);
            Matcher rcRatio = Pattern.compile("\nmedian ratio to RC's datagrams: ([0-9.]+) \\(RDMA ping-pong median "
                    + "round trip ([0-9.]+) usec / RC datagrams ([0-9.]+) usec\\); RC datagrams / UDP: ([0-9.]+)\n")
                    .matcher(out);
            assertTrue(rcTrip.find() && rcRatio.find(), out);
            assertEquals(rdma.group(1), rcRatio.group(2));
            assertEquals(rcTrip.group(1), rcRatio.group(3));
            double rcMedian = Double.parseDouble(rcTrip.group(1));
            assertEquals(rdmaMedian / rcMedian, Double.parseDouble(rcRatio.group(1)),
                    0.01 + 0.01 * rdmaMedian / rcMedian, out);
            assertEquals(rcMedian / udpMedian, Double.parseDouble(rcRatio.group(4)), 0.01 + 0.01 * rcMedian / udpMedian,
                    out);
            assertTrue(out.contains("[ok]   RC datagrams baseline: 50 RC datagram round trips of 4096 bytes"), out);
        }
        assertTrue(output("client.out").matches("(?s).*tcp -> \"0000:[0-9a-f]{6}:[0-9a-f]{6}:[0-9a-f]{32}\" \\(52 bytes\\).*"),
                output("client.out"));
        assertTrue(output("server.out").contains("Last message received: 'HelloWorld'"), output("server.out"));
    }

    @Test
    void theSeedsGidIndexMinusOneFailsRtrOnRoceWithTheReason() throws Exception {
        String tcp = Integer.toString(Ports.freeTcpPort());
        String udp = Integer.toString(Ports.freeUdpPort());
        Process server = start("server.out", List.of("127.0.0.1", "soft0", "--gid-index", "-1", "--tcp-port", tcp,
                "--udp-port", udp, "--timeout", "10"));
        Process client = start("client.out", List.of("127.0.0.2", "soft0", "127.0.0.1", "--gid-index", "-1",
                "--tcp-port", tcp, "--udp-port", udp, "--timeout", "10"));
        assertEquals(1, await(client));
        assertEquals(1, await(server));
        assertTrue(output("client.out").contains("Modify QP to RTR failed: ibv_modify_qp failed: EINVAL"), outputs());
        assertTrue(output("client.out").contains("is_global"), outputs());
        // The failure line ends with the diagnosis: the field to change and its recommended value.
        assertTrue(output("client.out").matches("(?s).*rdma-lab demo: Modify QP to RTR failed: [^\n]* — query-port.gid_idx: "
                + "EINVAL \\(Invalid argument\\): gid_idx -1 sends no GRH[^\n]* — fix: gid_idx = 3 \\(use GID 3 [^\n]*\\)\n.*"),
                outputs());
    }

    @Test
    void garbageFromThePeerIsOneClearLine() throws Exception {
        try (ServerSocket fake = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            Thread peer = new Thread(() -> {
                try (Socket socket = fake.accept(); OutputStream out = socket.getOutputStream()) {
                    out.write("GET / HTTP/1.0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                    // Holds the connection open, saying nothing more, until the client closes it.
                    while (socket.getInputStream().read() >= 0) {
                        // what the client sends is not read
                    }
                } catch (IOException e) {
                    // The client went.
                }
            }, "garbage peer");
            peer.start();
            Process client = start("client.out", List.of("127.0.0.2", "soft0", "127.0.0.1", "--tcp-port",
                    Integer.toString(fake.getLocalPort()), "--udp-port", Integer.toString(Ports.freeUdpPort()),
                    "--timeout", "3"));
            assertEquals(1, await(client));
            peer.join(TimeUnit.SECONDS.toMillis(PROCESS_TIMEOUT_SECONDS));
            String out = output("client.out");
            assertTrue(out.contains("rdma-lab demo: Exchange connection data failed: control plane:"), out);
            assertFalse(out.contains("Exception"), out);
            assertFalse(out.contains("\tat "), out);
        }
    }

    @Test
    void aPortInUseAndAnUnknownDeviceSayWhatToDo() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            Process server = start("server.out", List.of("127.0.0.1", "soft0", "--tcp-port",
                    Integer.toString(taken.getLocalPort()), "--udp-port", Integer.toString(Ports.freeUdpPort())));
            assertEquals(1, await(server));
            assertTrue(output("server.out").contains("already in use"), output("server.out"));
        }
        Process unknown = start("unknown.out", List.of("127.0.0.1", "mlx9_9"));
        assertEquals(1, await(unknown));
        assertTrue(output("unknown.out").contains("no device named 'mlx9_9'; available: soft0"), output("unknown.out"));
    }

    @Test
    void killingTheClientMidTransferIsReportedByTheServerWithinItsTimeouts() throws Exception {
        String tcp = Integer.toString(Ports.freeTcpPort());
        String udp = Integer.toString(Ports.freeUdpPort());
        Process server = start("server.out", List.of("127.0.0.1", "soft0", "--protocol", "pingpong", "--iters",
                "100000000", "--tcp-port", tcp, "--udp-port", udp, "--poll-timeout", "2000"));
        Process client = start("client.out", List.of("127.0.0.2", "soft0", "127.0.0.1", "--protocol", "pingpong",
                "--iters", "100000000", "--tcp-port", tcp, "--udp-port", udp));
        // Both sides in the ping-pong: the client's last step before it is RTS, the server's the sync.
        Await.until("the ping-pong to start", Duration.ofSeconds(60), () -> contains("client.out",
                "[ok]   Modify QP to RTS") && contains("server.out", "[ok]   Sync 'done'"));
        client.destroyForcibly();
        long killed = System.nanoTime();
        assertEquals(1, await(server), () -> outputs());
        long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - killed);
        assertTrue(seconds < 30, "the server noticed after " + seconds + " s");
        assertTrue(output("server.out").contains("Ping-pong SEND/RECV failed"), () -> outputs());
    }

    private String outputs() {
        try {
            StringBuilder text = new StringBuilder();
            for (String name : new String[] {"server.out", "client.out"}) {
                if (Files.exists(dir.resolve(name))) {
                    text.append("--- ").append(name).append('\n').append(output(name));
                }
            }
            return text.toString();
        } catch (IOException e) {
            return e.toString();
        }
    }
}
