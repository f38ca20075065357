package org.rdmalab.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rdmalab.testing.Tools;

/** pcapng as dumpcap and Wireshark write it (IETF draft "PCAP Next Generation Dump File Format"). */
class PcapngTest {

    @TempDir
    Path dir;

    /** One block: type, total length, body padded to 4 bytes, total length again. */
    private static byte[] block(ByteOrder order, int type, byte[] body) {
        int padded = (body.length + 3) & ~3;
        ByteBuffer buffer = ByteBuffer.allocate(12 + padded).order(order);
        buffer.putInt(type).putInt(12 + padded).put(body);
        buffer.position(8 + padded);
        buffer.putInt(12 + padded);
        return buffer.array();
    }

    private static byte[] section(ByteOrder order) {
        // byte-order magic, version 1.0, section length unknown (-1)
        return block(order, 0x0A0D0D0A, ByteBuffer.allocate(16).order(order).putInt(0x1A2B3C4D).putShort((short) 1)
                .putShort((short) 0).putLong(-1).array());
    }

    private static byte[] interfaceBlock(ByteOrder order, int linkType, Integer tsresol) {
        ByteBuffer body = ByteBuffer.allocate(20).order(order);
        body.putShort((short) linkType).putShort((short) 0).putInt(0);
        if (tsresol != null) {
            body.putShort((short) 9).putShort((short) 1).put((byte) (int) tsresol).put(new byte[3]);
            body.putShort((short) 0).putShort((short) 0); // opt_endofopt
        }
        return block(order, 1, Arrays.copyOf(body.array(), body.position()));
    }

    private static byte[] enhanced(ByteOrder order, int interfaceId, long timestamp, byte[] frame) {
        ByteBuffer body = ByteBuffer.allocate(20 + frame.length).order(order);
        body.putInt(interfaceId).putInt((int) (timestamp >>> 32)).putInt((int) timestamp).putInt(frame.length)
                .putInt(frame.length).put(frame);
        return block(order, 6, body.array());
    }

    private static byte[] simple(ByteOrder order, byte[] frame) {
        ByteBuffer body = ByteBuffer.allocate(4 + frame.length).order(order);
        body.putInt(frame.length).put(frame);
        return block(order, 3, body.array());
    }

    @Test
    void sectionsInterfacesAndPacketBlocks() throws Exception {
        ByteOrder le = ByteOrder.LITTLE_ENDIAN;
        ByteOrder be = ByteOrder.BIG_ENDIAN;
        byte[] ethernet = HexFormat.of().parseHex("e41d2dab2bc27cfe90643b320800");
        ByteArrayOutputStream file = new ByteArrayOutputStream();
        file.write(section(le));
        file.write(interfaceBlock(le, 1, 9)); // Ethernet, nanoseconds
        file.write(interfaceBlock(le, 105, null)); // 802.11: not understood, its packets are skipped
        file.write(enhanced(le, 1, 0, new byte[30])); // frame 1
        file.write(enhanced(le, 0, 1_000_000_001L, concat(ethernet, CaptureRoundTripTest.CNP_IP))); // frame 2
        file.write(block(le, 4, new byte[8])); // name resolution: ignored
        file.write(simple(le, concat(ethernet, CaptureRoundTripTest.CNP_IP))); // frame 3
        file.write(section(be)); // a second section in the other byte order
        file.write(interfaceBlock(be, 101, null)); // raw IP, microseconds
        file.write(enhanced(be, 0, 5, CaptureRoundTripTest.CNP_IP)); // frame 4
        Path path = dir.resolve("mixed.pcapng");
        Files.write(path, file.toByteArray());

        List<String> lines = CaptureInspector.inspect(path);
        assertEquals(List.of(
                "2 " + CaptureRoundTripTest.CNP_LINE,
                "3 " + CaptureRoundTripTest.CNP_LINE,
                "4 " + CaptureRoundTripTest.CNP_LINE,
                "3 RoCEv2 packets: 3 ICRC ok, 0 ICRC bad, 0 malformed (1 other frame skipped)"), lines);
        try (PcapReader reader = PcapReader.open(path)) {
            assertEquals(1_000_000_001L, reader.next().timestampNanos());
            reader.next();
            assertEquals(5_000L, reader.next().timestampNanos());
        }
        assertEquals(500_000_000L, PcapReader.nanoseconds(1, 0x81), "tsresol 2^-1 s");
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] all = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }

    @Test
    void damagedBlocksAreReported() throws Exception {
        ByteOrder le = ByteOrder.LITTLE_ENDIAN;
        ByteArrayOutputStream file = new ByteArrayOutputStream();
        file.write(section(le));
        file.write(enhanced(le, 0, 0, new byte[4])); // no interface described
        Path path = dir.resolve("noif.pcapng");
        Files.write(path, file.toByteArray());
        CaptureInspector.Result result = CaptureInspector.inspect(path, line -> { });
        assertTrue(result.error().endsWith("frame 1 names interface 0, which the file does not describe"),
                result.error());

        byte[] cut = Arrays.copyOf(section(le), 20);
        Files.write(path, cut);
        IOException e = assertThrows(IOException.class,
                () -> CaptureInspector.inspect(path));
        assertTrue(e.getMessage().endsWith("noif.pcapng ends inside a pcapng block"), e.getMessage());
    }

    @Test
    void editcapConversionGivesTheSameReport() throws Exception {
        Path editcap = Tools.require("editcap", "wireshark-common");
        Path classic = dir.resolve("variety.pcap");
        Path next = dir.resolve("variety.pcapng");
        SampleCapture.variety().write(classic);
        Process process = new ProcessBuilder(editcap.toString(), "-F", "pcapng", classic.toString(), next.toString())
                .redirectErrorStream(true).redirectOutput(dir.resolve("editcap.out").toFile()).start();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            fail("editcap did not finish within 60 s");
        }
        assertEquals(0, process.exitValue(), Files.readString(dir.resolve("editcap.out")));
        List<String> fromPcapng = new ArrayList<>(CaptureInspector.inspect(next));
        assertEquals(CaptureInspector.inspect(classic), fromPcapng);
        assertEquals("18 RoCEv2 packets: 18 ICRC ok, 0 ICRC bad, 0 malformed", fromPcapng.get(18));
    }
}
