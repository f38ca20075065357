package org.rdmalab.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rdmalab.capture.PcapWriter;
import org.rdmalab.wire.Aeth;
import org.rdmalab.wire.Icrc;
import org.rdmalab.wire.Opcode;
import org.rdmalab.wire.RocePacketEncoder;

/** {@code pcap inspect} through {@link Main#execute}: output lines and exit codes. */
class PcapCommandTest {

    @TempDir
    Path dir;

    /** Exit code, stdout lines and stderr of one run. */
    private record Run(int exit, List<String> out, String err) {
    }

    private static Run run(String... args) {
        PrintStream oldOut = System.out;
        PrintStream oldErr = System.err;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit;
        try {
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            exit = Main.execute(args);
        } finally {
            System.setOut(oldOut);
            System.setErr(oldErr);
        }
        return new Run(exit, out.toString(StandardCharsets.UTF_8).lines().toList(),
                err.toString(StandardCharsets.UTF_8));
    }

    private Path capture() throws Exception {
        Inet4Address a = (Inet4Address) InetAddress.getByName("192.168.7.1");
        Inet4Address b = (Inet4Address) InetAddress.getByName("192.168.7.2");
        Path file = dir.resolve("two.pcap");
        try (PcapWriter writer = PcapWriter.open(file)) {
            ByteBuffer out = ByteBuffer.allocate(256);
            byte[] hello = "HelloWorld".getBytes(StandardCharsets.US_ASCII);
            RocePacketEncoder.encode(out, Opcode.RC_SEND_ONLY, 0x12, 100, true, false, null, null, null, null, 0,
                    hello, 0, hello.length);
            int length = Icrc.appendCanonicalIpv4(a, b, 0xC132, 4791, out, 0);
            writer.write(1_000_000_000L, a, 0xC132, b, 4791, 0, 64, out.array(), 0, length);
            out.clear();
            RocePacketEncoder.encode(out, Opcode.RC_ACKNOWLEDGE, 0x11, 100, false, false, null, Aeth.ack(1), null,
                    null, 0, null, 0, 0);
            length = Icrc.appendCanonicalIpv4(b, a, 0xC132, 4791, out, 0);
            writer.write(1_000_010_000L, b, 0xC132, a, 4791, 0, 64, out.array(), 0, length);
        }
        return file;
    }

    @Test
    void goodCaptureExitsZero() throws Exception {
        Run run = run("pcap", "inspect", capture().toString());
        assertEquals(0, run.exit(), run.err());
        assertEquals(List.of(
                "1 192.168.7.1:49458 -> 192.168.7.2:4791 RC_SEND_ONLY qp 0x000012 psn 100 ackreq payload 10 ICRC ok",
                "2 192.168.7.2:49458 -> 192.168.7.1:4791 RC_ACKNOWLEDGE qp 0x000011 psn 100 AETH ACK msn 1 ICRC ok",
                "2 RoCEv2 packets: 2 ICRC ok, 0 ICRC bad, 0 malformed"), run.out());
    }

    @Test
    void corruptedCaptureExitsOne() throws Exception {
        Path file = capture();
        byte[] bytes = Files.readAllBytes(file);
        // First frame's payload starts after the file header (24), record header (16) and 42 bytes of
        // Ethernet, IPv4 and UDP; its SEND payload follows the 12-byte BTH. "HelloWorld" -> "JelloWorld".
        bytes[24 + 16 + 42 + 12] = 'J';
        Files.write(file, bytes);
        Run run = run("pcap", "inspect", file.toString());
        assertEquals(1, run.exit());
        assertTrue(run.out().get(0).matches("1 .* RC_SEND_ONLY .* ICRC bad \\(got 0x[0-9a-f]{8}, want 0x[0-9a-f]{8}\\)"),
                run.out().get(0));
        assertTrue(run.out().get(1).endsWith("ICRC ok"));
        assertEquals("2 RoCEv2 packets: 1 ICRC ok, 1 ICRC bad, 0 malformed", run.out().get(2));
    }

    @Test
    void unreadableFilesGiveOneLine() throws Exception {
        Run missing = run("pcap", "inspect", dir.resolve("nope.pcap").toString());
        assertEquals(1, missing.exit());
        assertEquals("rdma-lab: no such file: " + dir.resolve("nope.pcap"), missing.err().strip());

        Path text = Files.writeString(dir.resolve("notes.pcap"), "definitely not a capture");
        Run notPcap = run("pcap", "inspect", text.toString());
        assertEquals(1, notPcap.exit());
        assertEquals("rdma-lab: " + text + " is not a pcap or pcapng file (magic number 0x64656669)", notPcap.err().strip());
        assertEquals(1, notPcap.err().strip().lines().count(), "one line, no stack trace");

        Run directory = run("pcap", "inspect", dir.toString());
        assertEquals(1, directory.exit());
        assertEquals("rdma-lab: " + dir + " is a directory, not a pcap file", directory.err().strip());
    }

    @Test
    void missingArgumentIsAUsageError() {
        Run run = run("pcap", "inspect");
        assertEquals(2, run.exit());
        assertTrue(run.err().contains("Missing required parameter: 'FILE'"), run.err());
    }
}
