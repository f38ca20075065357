package org.rdmalab.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rdmalab.testing.Tools;

/** Wireshark's InfiniBand dissector reads what the writer and encoder produce, without complaint. */
class TsharkTest {

    private static final int TIMEOUT_SECONDS = 60;

    @TempDir
    Path dir;

    private List<String[]> tshark(Path capture, String... fields) throws Exception {
        Path tshark = Tools.require("tshark", "tshark");
        List<String> command = new ArrayList<>(List.of(tshark.toString(), "-n", "-r", capture.toString(),
                "--disable-protocol", "rpcordma", "-T", "fields", "-E", "separator=|", "-E", "occurrence=f"));
        for (String field : fields) {
            command.add("-e");
            command.add(field);
        }
        Path stdout = dir.resolve("tshark.out");
        Path stderr = dir.resolve("tshark.err");
        Path home = Files.createDirectories(dir.resolve("home"));
        ProcessBuilder builder = new ProcessBuilder(command)
                .redirectOutput(stdout.toFile())
                .redirectError(stderr.toFile());
        // A fresh profile: personal preferences must not change the dissection.
        Map<String, String> environment = builder.environment();
        environment.put("HOME", home.toString());
        environment.put("XDG_CONFIG_HOME", home.toString());
        Process process = builder.start();
        if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            fail("tshark did not finish within " + TIMEOUT_SECONDS + " s");
        }
        String errors = Files.readString(stderr, StandardCharsets.UTF_8);
        assertEquals(0, process.exitValue(), "tshark failed: " + errors);
        List<String[]> rows = new ArrayList<>();
        for (String line : Files.readAllLines(stdout, StandardCharsets.UTF_8)) {
            rows.add(line.split("\\|", -1));
        }
        return rows;
    }

    private static boolean flag(String value) {
        return value.equals("1") || value.equalsIgnoreCase("true");
    }

    @Test
    void everyOpcodeDissectsCleanly() throws Exception {
        SampleCapture capture = SampleCapture.variety();
        Path file = dir.resolve("variety.pcap");
        capture.write(file);
        List<String[]> rows = tshark(file, "frame.number", "infiniband.bth.opcode", "infiniband.bth.psn",
                "infiniband.bth.destqp", "infiniband.bth.a", "infiniband.bth.padcnt", "infiniband.invariant.crc",
                "_ws.expert", "_ws.malformed", "udp.dstport");
        List<SampleCapture.Sent> sent = capture.sent();
        assertEquals(sent.size(), rows.size());
        for (int i = 0; i < sent.size(); i++) {
            String[] row = rows.get(i);
            SampleCapture.Sent packet = sent.get(i);
            String where = "frame " + row[0] + " (" + packet.opcode() + ")";
            assertEquals(String.valueOf(packet.opcode().value()), row[1], where);
            assertEquals(String.valueOf(packet.psn()), row[2], where);
            assertEquals(String.format("0x%06x", packet.destQp()), row[3], where);
            byte[] udp = packet.udpPayload();
            assertEquals((udp[8] & 0x80) != 0, flag(row[4]), where + " AckReq");
            assertEquals(String.valueOf((udp[1] >> 4) & 3), row[5], where + " PadCnt");
            // Wireshark shows the ICRC bytes as one big-endian number; it does not verify it.
            assertEquals("0x" + HexFormat.of().formatHex(udp, udp.length - 4, udp.length), row[6], where);
            assertEquals("", row[7], where + ": expert info " + row[7]);
            assertEquals("", row[8], where + ": malformed");
            assertEquals("4791", row[9], where);
        }
    }

    @Test
    void extensionHeaderFieldsMatch() throws Exception {
        SampleCapture capture = SampleCapture.variety();
        Path file = dir.resolve("variety.pcap");
        capture.write(file);
        List<String[]> rows = tshark(file, "infiniband.bth.opcode", "infiniband.reth.va", "infiniband.reth.r_key",
                "infiniband.reth.dmalen", "infiniband.aeth.syndrome", "infiniband.aeth.msn",
                "infiniband.atomiceth.swapdt", "infiniband.atomicacketh.origremdt", "infiniband.immdt");
        // Frame 3: RDMA_WRITE_FIRST with the RETH of a 2500-byte write.
        assertEquals(List.of("6", "0x00007f0000001000", "0x00001234", "2500", "", "", "", "", ""),
                List.of(rows.get(2)));
        // Frame 8: NAK remote access error (0x62 = 98), MSN 2.
        assertEquals(List.of("17", "", "", "", "98", "2", "", "", ""), List.of(rows.get(7)));
        // Frame 10: READ_RESPONSE_FIRST with an ACK syndrome (0x1f = 31).
        assertEquals("31", rows.get(9)[4]);
        // Frame 12: COMPARE_SWAP, swap value 5. Frame 15: ATOMIC_ACKNOWLEDGE, original 5.
        assertEquals("5", rows.get(11)[6]);
        assertEquals("5", rows.get(14)[7]);
        // Frame 16: SEND_ONLY_WITH_IMMEDIATE, ImmDt 01020304. Frame 17: RNR NAK timer 14 (0x2e = 46).
        assertEquals("01020304", rows.get(15)[8]);
        assertEquals("46", rows.get(16)[4]);
        assertEquals(18, rows.size());
    }

    @Test
    void theSameCaptureVerifiesInTheInspector() throws IOException {
        SampleCapture capture = SampleCapture.variety();
        Path file = dir.resolve("variety.pcap");
        capture.write(file);
        CaptureInspector.Result result = CaptureInspector.inspect(file, line -> { });
        assertEquals(18, result.packets());
        assertTrue(result.allOk());
    }
}
