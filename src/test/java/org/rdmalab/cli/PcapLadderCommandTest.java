package org.rdmalab.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rdmalab.ladder.LadderTest;

/** {@code pcap ladder FILE [--json]} on captures written here: its lines, its summary, its JSON and its refusals. */
class PcapLadderCommandTest {

    @TempDir
    Path dir;

    @Test
    void printsOneLinePerPacketThenTheSummary() throws Exception {
        Path pcap = dir.resolve("recovery.pcap");
        LadderTest.recovery().writePcap(pcap);
        CliRunner.Result result = CliRunner.run("pcap", "ladder", pcap.toString());
        assertEquals(0, result.exitCode(), result.err());
        List<String> lines = result.out().lines().toList();
        assertEquals(27 + 4, lines.size());
        assertTrue(lines.get(0).matches("#1 +0\\.000000  10\\.1\\.0\\.1 -> 10\\.1\\.0\\.2  RC_RDMA_WRITE_FIRST psn 1 qp 0x12"
                + " len 1024 RETH va 0x7f0000001000 rkey 0x1234 len 3000  msg 1"), lines.get(0));
        assertTrue(lines.get(3).contains("10.1.0.1 <- 10.1.0.2  RC_ACKNOWLEDGE psn 2 qp 0x11 NAK PSN sequence error msn 0"),
                lines.get(3));
        assertTrue(lines.get(8).contains("RC_RDMA_WRITE_ONLY psn 4 qp 0x12 AckReq len 8")
                && lines.get(8).endsWith("[retransmit timeout 67.0 ms]  RETRANSMISSION of #8"), lines.get(8));
        assertTrue(lines.get(11).contains("RNR NAK timer 14 (1.28 ms) msn 2"), lines.get(11));
        assertTrue(lines.get(15).contains("NAK remote access error msn 3"), lines.get(15));
        assertTrue(lines.get(22).endsWith("DUPLICATE of #22"), lines.get(22));
        assertTrue(lines.get(24).endsWith("ICRC BAD"), lines.get(24));
        assertEquals(List.of(
                "packets: 27 in 1 QP pair",
                "messages: 9 (inferred from the opcodes and PSNs)",
                "retransmitted packets: 5, duplicates: 1, reordered: 1, dropped: 0, ICRC bad: 1",
                "NAKs: 3 (NAK PSN sequence error: 1, NAK remote access error: 1, RNR NAK: 1)"),
                lines.subList(27, 31));
    }

    @Test
    void jsonGivesOneObjectPerPacket() throws Exception {
        Path pcapng = dir.resolve("recovery.pcapng");
        LadderTest.recovery().writePcapng(pcapng);
        CliRunner.Result result = CliRunner.run("pcap", "ladder", "--json", pcapng.toString());
        assertEquals(0, result.exitCode(), result.err());
        String json = result.out().strip();
        assertTrue(json.startsWith("[") && json.endsWith("]"), json);
        assertEquals(27, count(json, "\"opcode\": "));
        assertEquals(5, count(json, "\"retransmission\": true"));
        assertEquals(22, count(json, "\"retransmission\": false"));
        assertEquals(26, count(json, "\"icrc_ok\": true"));
        assertEquals(1, count(json, "\"icrc_ok\": false"));
        // the 7 ACKs and NAKs, and the READ responses FIRST and LAST (a MIDDLE has none)
        assertEquals(7 + 3, count(json, "\"aeth\": {"));
        assertEquals(1, count(json, "\"syndrome\": " + 0x62 + ","), "one remote access error NAK");
        Matcher first = Pattern.compile("\\{\\s*\"index\": 1,\\s*\"time\": 0\\.0,\\s*\"src\": \"10\\.1\\.0\\.1:49458\","
                + "\\s*\"dst\": \"10\\.1\\.0\\.2:4791\",\\s*\"opcode\": \"RC_RDMA_WRITE_FIRST\",\\s*\"qpn\": 18,"
                + "\\s*\"psn\": 1,").matcher(json);
        assertTrue(first.find(), json.substring(0, 400));
        assertTrue(json.contains("\"message\": 1,"), json.substring(0, 600));
    }

    private static int count(String text, String part) {
        int count = 0;
        for (int at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + 1)) {
            count++;
        }
        return count;
    }

    @Test
    void aFileThatIsNoCaptureIsOneLineAndExit2() throws Exception {
        Path text = Files.writeString(dir.resolve("notes.pcap"), "definitely not a capture");
        CliRunner.Result notPcap = CliRunner.run("pcap", "ladder", text.toString());
        assertEquals(2, notPcap.exitCode());
        assertEquals("rdma-lab: " + text + " is not a pcap or pcapng file (magic number 0x64656669)", notPcap.err().strip());
        assertEquals("", notPcap.out());

        CliRunner.Result missing = CliRunner.run("pcap", "ladder", "--json", dir.resolve("nope.pcap").toString());
        assertEquals(2, missing.exitCode());
        assertEquals("rdma-lab: no such file: " + dir.resolve("nope.pcap"), missing.err().strip());

        CliRunner.Result directory = CliRunner.run("pcap", "ladder", dir.toString());
        assertEquals(2, directory.exitCode());
        assertEquals(1, directory.err().strip().lines().count());
    }

    @Test
    void aCaptureCutOffInAFrameSaysSoAndExits2() throws Exception {
        Path pcap = dir.resolve("recovery.pcap");
        LadderTest.recovery().writePcap(pcap);
        byte[] whole = Files.readAllBytes(pcap);
        Path cut = Files.write(dir.resolve("cut.pcap"), java.util.Arrays.copyOf(whole, whole.length - 10));
        CliRunner.Result result = CliRunner.run("pcap", "ladder", cut.toString());
        assertEquals(2, result.exitCode());
        assertTrue(result.out().contains("packets: 26 in 1 QP pair"), result.out());
        assertEquals(1, result.err().strip().lines().count(), result.err());
    }
}
