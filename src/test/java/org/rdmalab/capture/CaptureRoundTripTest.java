package org.rdmalab.capture;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rdmalab.wire.Aeth;
import org.rdmalab.wire.Icrc;
import org.rdmalab.wire.Opcode;
import org.rdmalab.wire.Reth;

class CaptureRoundTripTest {

    @TempDir
    Path dir;

    private static SampleCapture three() {
        return new SampleCapture()
                .request(Opcode.RC_SEND_ONLY, 0, true, null, null, 0, 5)
                .response(Opcode.RC_ACKNOWLEDGE, 0, Aeth.ack(1), null, 0)
                .request(Opcode.RC_RDMA_WRITE_ONLY, 1, true, new Reth(0x00007f1234567890L, 0x1234, 11), null, 0, 11);
    }

    @Test
    void writtenFileHasTheExpectedBytes() throws IOException {
        Path file = dir.resolve("one.pcap");
        three().write(file);
        byte[] bytes = Files.readAllBytes(file);
        HexFormat hex = HexFormat.of();
        // File header: nanosecond magic, version 2.4, zone 0, sigfigs 0, snaplen 262144, Ethernet.
        assertEquals("a1b23c4d" + "00020004" + "00000000" + "00000000" + "00040000" + "00000001",
                hex.formatHex(bytes, 0, 24));
        // Record header: 1700000000 s, 123456789 ns, 14 + 20 + 8 + 24 = 66 bytes twice.
        assertEquals("6553f100" + "075bcd15" + "00000042" + "00000042", hex.formatHex(bytes, 24, 40));
        // Ethernet: made-up MACs from the addresses, IPv4.
        assertEquals("02000a010002" + "02000a010001" + "0800", hex.formatHex(bytes, 40, 54));
        // Canonical IPv4: TOS 2, length 52, ID 0, DF, TTL 64, UDP; UDP c132 -> 12b7, length 32, checksum 0.
        // Header checksum worked out by hand (RFC 791 ones' complement sum): 0x26b3.
        assertEquals("4502 0034 0000 4000 4011 26b3 0a010001 0a010002".replace(" ", ""),
                hex.formatHex(bytes, 54, 74));
        assertEquals("c13212b700200000", hex.formatHex(bytes, 74, 82));
        // UDP payloads: SEND_ONLY 12+5+3+4 = 24, ACK 12+4+4 = 20, WRITE_ONLY 12+16+11+1+4 = 44.
        assertEquals(24 + 3 * 16 + (42 + 24) + (42 + 20) + (42 + 44), bytes.length);
    }

    @Test
    void readerGivesBackWhatWasWritten() throws IOException {
        SampleCapture capture = three();
        Path file = dir.resolve("three.pcap");
        capture.write(file);
        try (PcapReader reader = PcapReader.open(file)) {
            for (int i = 0; i < 3; i++) {
                PcapReader.Datagram datagram = reader.next();
                assertNotNull(datagram);
                SampleCapture.Sent sent = capture.sent().get(i);
                assertEquals(i + 1, datagram.frameNumber());
                assertEquals(1_700_000_000_123_456_789L + i * 1_000L, datagram.timestampNanos());
                assertTrue(datagram.complete());
                byte[] payload = Arrays.copyOfRange(datagram.frame(), datagram.payloadOffset(),
                        datagram.payloadOffset() + datagram.payloadLength());
                assertArrayEquals(sent.udpPayload(), payload);
                assertEquals(sent.fromClient() ? "10.1.0.1:49458" : "10.1.0.2:49458", datagram.source());
                assertEquals(sent.fromClient() ? "10.1.0.2:4791" : "10.1.0.1:4791", datagram.destination());
                assertEquals(14, datagram.ipOffset());
                assertEquals(20, datagram.ipHeaderLength());
                // The header in the file is the one the ICRC was computed over.
                assertTrue(Icrc.verify(datagram.frame(), datagram.ipOffset(), 20, datagram.frame(),
                        datagram.udpOffset(), datagram.frame(), datagram.payloadOffset(), datagram.payloadLength()));
            }
            assertNull(reader.next());
            assertEquals(3, reader.frames());
        }
    }

    @Test
    void inspectorSaysOkThenBadAfterOneFlippedByte() throws IOException {
        Path file = dir.resolve("three.pcap");
        three().write(file);
        List<String> lines = CaptureInspector.inspect(file);
        assertEquals(List.of(
                "1 10.1.0.1:49458 -> 10.1.0.2:4791 RC_SEND_ONLY qp 0x000012 psn 0 ackreq payload 5 ICRC ok",
                "2 10.1.0.2:49458 -> 10.1.0.1:4791 RC_ACKNOWLEDGE qp 0x000011 psn 0 AETH ACK msn 1 ICRC ok",
                "3 10.1.0.1:49458 -> 10.1.0.2:4791 RC_RDMA_WRITE_ONLY qp 0x000012 psn 1 ackreq RETH va"
                        + " 0x00007f1234567890 rkey 0x00001234 len 11 payload 11 ICRC ok",
                "3 RoCEv2 packets: 3 ICRC ok, 0 ICRC bad, 0 malformed"), lines);

        byte[] bytes = Files.readAllBytes(file);
        int secondPayload = 24 + 16 + 42 + 24 + 16 + 42; // file header, frame 1, record header 2, headers
        bytes[secondPayload + 15] ^= 0x01; // low byte of the MSN: 1 becomes 0
        Files.write(file, bytes);
        List<String> bad = CaptureInspector.inspect(file);
        assertTrue(bad.get(0).endsWith("ICRC ok"), bad.get(0));
        assertTrue(bad.get(1).matches("2 .* AETH ACK msn 0 ICRC bad \\(got 0x[0-9a-f]{8}, want 0x[0-9a-f]{8}\\)"),
                bad.get(1));
        assertEquals("3 RoCEv2 packets: 2 ICRC ok, 1 ICRC bad, 0 malformed", bad.get(3));
        CaptureInspector.Result result = CaptureInspector.inspect(file, line -> { });
        assertFalse(result.allOk());
        assertEquals(1, result.icrcBad());
    }

    @Test
    void malformedAndTruncatedPacketsAreReported() throws IOException {
        Path file = dir.resolve("bad.pcap");
        try (PcapWriter writer = PcapWriter.open(file)) {
            byte[] unknown = HexFormat.of().parseHex("15 00 ffff 00 000011 00 000000 00000000".replace(" ", ""));
            writer.write(0, SampleCapture.CLIENT, 1, SampleCapture.SERVER, 4791, 0, 64, unknown, 0, unknown.length);
        }
        List<String> lines = CaptureInspector.inspect(file);
        assertEquals("1 10.1.0.1:1 -> 10.1.0.2:4791 malformed: unknown opcode 0x15", lines.get(0));
        assertEquals("1 RoCEv2 packet: 0 ICRC ok, 0 ICRC bad, 1 malformed", lines.get(1));

        // Cut the file inside the frame: an error line, and the result is not ok.
        byte[] bytes = Files.readAllBytes(file);
        Files.write(file, Arrays.copyOf(bytes, bytes.length - 3));
        CaptureInspector.Result result = CaptureInspector.inspect(file, line -> { });
        assertFalse(result.allOk());
        assertTrue(result.error().endsWith("ends inside frame 1 (55 of 58 bytes)"), result.error());
    }

    /** Builds a classic pcap file by hand: µs or ns magic, either byte order, any link type. */
    private Path handMade(String name, boolean littleEndian, boolean nanos, int linkType, byte[]... frames)
            throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(4096);
        buffer.order(littleEndian ? java.nio.ByteOrder.LITTLE_ENDIAN : java.nio.ByteOrder.BIG_ENDIAN);
        buffer.putInt(nanos ? 0xA1B23C4D : 0xA1B2C3D4).putShort((short) 2).putShort((short) 4).putInt(0).putInt(0)
                .putInt(65535).putInt(linkType);
        int second = 100;
        for (byte[] frame : frames) {
            buffer.putInt(second++).putInt(nanos ? 999_999_999 : 999_999).putInt(frame.length).putInt(frame.length)
                    .put(frame);
        }
        Path file = dir.resolve(name);
        Files.write(file, Arrays.copyOf(buffer.array(), buffer.position()));
        return file;
    }

    /** The ConnectX-4 Lx CNP of IcrcTest (Scapy's "RoCE CNP captured on ConnectX-4 Lx"), from its IP header on. */
    static final byte[] CNP_IP = HexFormat.of().parseHex(
            "45c2003c718c400040119161 0a001101 0a001201 000012b7 00280000 8100ffff40000118 00000000"
                    .replace(" ", "") + "00".repeat(16) + "82fd002a");
    static final String CNP_LINE =
            "10.0.17.1:0 -> 10.0.18.1:4791 CNP qp 0x000118 psn 0 becn payload 16 ICRC ok";

    private static byte[] concat(String hexPrefix, byte[] rest) {
        byte[] prefix = HexFormat.of().parseHex(hexPrefix);
        byte[] all = Arrays.copyOf(prefix, prefix.length + rest.length);
        System.arraycopy(rest, 0, all, prefix.length, rest.length);
        return all;
    }

    @Test
    void readsRealHeadersInEveryLinkTypeAndByteOrder() throws IOException {
        byte[] ethernet = concat("e41d2dab2bc2 7cfe90643b32 0800".replace(" ", ""), CNP_IP);
        byte[] vlan = concat("e41d2dab2bc2 7cfe90643b32 8100 0064 0800".replace(" ", ""), CNP_IP);
        byte[] qinq = concat("e41d2dab2bc2 7cfe90643b32 88a8 0001 8100 0064 0800".replace(" ", ""), CNP_IP);
        byte[] sll = concat("0000 0001 0006 7cfe90643b32 0000 0800".replace(" ", ""), CNP_IP);
        byte[] sll2 = concat("0800 0000 00000002 0001 00 06 7cfe90643b320000".replace(" ", ""), CNP_IP);
        byte[] arp = HexFormat.of().parseHex("ffffffffffff7cfe90643b320806" + "00".repeat(28));
        List<Path> files = List.of(
                handMade("le-us-eth.pcap", true, false, 1, arp, ethernet, vlan, qinq),
                handMade("be-ns-eth.pcap", false, true, 1, arp, ethernet, vlan, qinq),
                handMade("raw.pcap", true, false, 101, CNP_IP),
                handMade("ipv4.pcap", false, false, 228, CNP_IP),
                handMade("sll.pcap", true, true, 113, sll),
                handMade("sll2.pcap", false, false, 276, sll2));
        for (Path file : files) {
            CaptureInspector.Result result = CaptureInspector.inspect(file, line ->
                    assertTrue(line.endsWith(CNP_LINE), file.getFileName() + ": " + line));
            assertTrue(result.allOk(), file.getFileName().toString());
            assertTrue(result.packets() >= 1);
        }
        try (PcapReader reader = PcapReader.open(files.get(0))) {
            PcapReader.Datagram datagram = reader.next();
            assertEquals(2, datagram.frameNumber(), "the ARP frame is counted and skipped");
            assertEquals(101_999_999_000L, datagram.timestampNanos());
            assertEquals(1, reader.skipped());
        }
        try (PcapReader reader = PcapReader.open(files.get(1))) {
            assertEquals(101_999_999_999L, reader.next().timestampNanos());
        }
        assertEquals("3 RoCEv2 packets: 3 ICRC ok, 0 ICRC bad, 0 malformed (1 other frame skipped)",
                CaptureInspector.inspect(files.get(0)).get(3));
    }

    @Test
    void ipv6() throws IOException {
        byte[] roce = Arrays.copyOfRange(CNP_IP, 28, CNP_IP.length);
        byte[] udp = HexFormat.of().parseHex("c00012b700280000");
        byte[] ip = HexFormat.of().parseHex(("6b812345 0028 11 40" + "fe800000000000000000000000000001"
                + "fe800000000000000000000000000002").replace(" ", ""));
        Icrc.write(roce, roce.length - 4, Icrc.compute(ip, 0, 40, udp, 0, roce, 0, roce.length - 4));
        byte[] frame = new byte[40 + 8 + roce.length];
        System.arraycopy(ip, 0, frame, 0, 40);
        System.arraycopy(udp, 0, frame, 40, 8);
        System.arraycopy(roce, 0, frame, 48, roce.length);
        Path file = handMade("v6.pcap", true, false, 229, frame);
        List<String> lines = CaptureInspector.inspect(file);
        assertEquals("1 [fe80:0:0:0:0:0:0:1]:49152 -> [fe80:0:0:0:0:0:0:2]:4791 CNP qp 0x000118 psn 0 becn"
                + " payload 16 ICRC ok", lines.get(0));
    }

    @Test
    void clearErrorsForFilesThatAreNotPcap() throws IOException {
        Path pcapng = dir.resolve("x.pcapng");
        // A pcapng section header whose byte-order magic is neither 1a2b3c4d nor 4d3c2b1a.
        Files.write(pcapng, HexFormat.of().parseHex("0a0d0d0a1c0000001a2b3c4e01000000ffffffffffffffff1c000000"));
        IOException e = assertThrows(IOException.class, () -> CaptureInspector.inspect(pcapng));
        assertTrue(e.getMessage().endsWith("x.pcapng: pcapng section header has byte-order magic 0x1a2b3c4e; the"
                + " file is damaged"), e.getMessage());

        Path text = dir.resolve("notes.txt");
        Files.writeString(text, "these are not packets, just some words");
        e = assertThrows(IOException.class, () -> CaptureInspector.inspect(text));
        assertTrue(e.getMessage().endsWith("notes.txt is not a pcap or pcapng file (magic number 0x74686573)"), e.getMessage());

        Path tiny = dir.resolve("tiny.pcap");
        Files.write(tiny, new byte[] {(byte) 0xA1, (byte) 0xB2});
        e = assertThrows(IOException.class, () -> CaptureInspector.inspect(tiny));
        assertTrue(e.getMessage().endsWith("tiny.pcap is not a pcap or pcapng file: only 2 bytes"), e.getMessage());

        e = assertThrows(IOException.class, () -> CaptureInspector.inspect(dir.resolve("missing.pcap")));
        assertTrue(e.getMessage().startsWith("no such file: "), e.getMessage());

        Path wifi = handMade("wifi.pcap", true, false, 105);
        e = assertThrows(IOException.class, () -> CaptureInspector.inspect(wifi));
        assertTrue(e.getMessage().endsWith("link type 105 is not supported (Ethernet, raw IP and Linux cooked"
                + " captures are)"), e.getMessage());
    }

    @Test
    void writeErrorsAreKeptAndThrownOnClose() throws IOException {
        Path full = Path.of("/dev/full");
        Assumptions.assumeTrue(Files.isWritable(full), "needs Linux's /dev/full to simulate a full disk");
        PcapWriter writer = PcapWriter.open(full); // the header stays in the buffer
        byte[] payload = new byte[1000];
        for (int i = 0; i < 100; i++) {
            writer.write(i, SampleCapture.CLIENT, 1, SampleCapture.SERVER, 4791, 0, 64, payload, 0, payload.length);
        }
        assertNotNull(writer.failure(), "100 kB overflow the 64 kB buffer, so the disk error has happened");
        long written = writer.packets();
        writer.write(0, SampleCapture.CLIENT, 1, SampleCapture.SERVER, 4791, 0, 64, payload, 0, payload.length);
        assertEquals(written, writer.packets(), "writes after a failure are dropped");
        IOException e = assertThrows(IOException.class, writer::close);
        assertTrue(e.getMessage().contains("is incomplete"), e.getMessage());
        writer.close(); // idempotent
    }
}
