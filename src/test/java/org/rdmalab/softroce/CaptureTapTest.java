package org.rdmalab.softroce;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rdmalab.capture.PcapReader;
import org.rdmalab.softroce.net.Fabric;
import org.rdmalab.verbs.spi.DeviceOptions;

/**
 * A device's tap into a pcap file: devices given the same path share one file, which stays open
 * until the last of them leaves (each leaving once, however often it closes); a packet received
 * from a device that writes to the same file is left to its sender, one from any other address is
 * written; a send is written only when the socket took it.
 */
class CaptureTapTest {

    private static final int A = ip("127.0.0.1");
    private static final int B = ip("127.0.0.2");
    /** Same first two bytes as A and B, another host. */
    private static final int C = ip("127.0.0.3");
    private static final int FAR = ip("10.0.0.9");

    private static int ip(String text) {
        return Fabric.toInt(DeviceOptions.parseAddress(text));
    }

    /** A datagram whose bytes name it. */
    private static byte[] datagram(int mark) {
        byte[] bytes = new byte[24];
        Arrays.fill(bytes, (byte) mark);
        return bytes;
    }

    /** "time source > destination mark" of every datagram in the file (sends at 2000 ns, receives at 1000 ns). */
    private static List<String> read(Path file) throws Exception {
        List<String> lines = new ArrayList<>();
        try (PcapReader reader = PcapReader.open(file)) {
            for (PcapReader.Datagram d = reader.next(); d != null; d = reader.next()) {
                lines.add(d.timestampNanos() + " " + d.source() + " > " + d.destination() + " " + d.frame()[d.payloadOffset()]);
            }
        }
        return lines;
    }

    private static void received(CaptureTap tap, int source, int destination, int mark) {
        tap.write(1_000, source, 4791, destination, 4791, 0, 64, 0, datagram(mark), 0, 24, false);
    }

    private static Fabric.SendResult sent(CaptureTap tap, int source, int destination, int mark,
                                          Fabric.SendResult result) {
        return tap.writeIfSent(2_000, source, 4791, destination, 4791, 0, 64, datagram(mark), 0, 24, () -> result);
    }

    @Test
    void twoDevicesShareOneFileUntilTheLastLeaves(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("shared.pcap");
        CaptureTap a = CaptureTap.open(file, A, 4791);
        CaptureTap b = CaptureTap.open(dir.resolve("./shared.pcap"), B, 4791);
        assertEquals(Fabric.SendResult.SENT, sent(a, A, B, 1, Fabric.SendResult.SENT));
        received(b, A, B, 1); // b's copy of a's packet: a wrote it when it sent it
        assertEquals(Fabric.SendResult.SENT, sent(b, B, A, 2, Fabric.SendResult.SENT));
        received(a, B, A, 2);
        a.close();
        a.close(); // once is enough: b still writes
        assertEquals(Fabric.SendResult.SENT, sent(b, B, A, 3, Fabric.SendResult.SENT));
        b.close();
        assertEquals(List.of("2000 127.0.0.1:4791 > 127.0.0.2:4791 1", "2000 127.0.0.2:4791 > 127.0.0.1:4791 2",
                "2000 127.0.0.2:4791 > 127.0.0.1:4791 3"), read(file), "each once, as sent");
    }

    @Test
    void aPacketFromADeviceNotWritingTheFileIsWrittenWhenReceived(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("a.pcap");
        CaptureTap a = CaptureTap.open(file, A, 4791);
        received(a, FAR, A, 4);
        received(a, C, A, 5);
        received(a, A, C, 6); // from a itself: written when a sent it
        a.write(3_000, A, 4792, C, 4791, 0, 64, 0, datagram(7), 0, 24, false); // a's address, another port
        a.close();
        assertEquals(List.of("1000 10.0.0.9:4791 > 127.0.0.1:4791 4", "1000 127.0.0.3:4791 > 127.0.0.1:4791 5",
                "3000 127.0.0.1:4792 > 127.0.0.3:4791 7"), read(file));
    }

    @Test
    void aSendIsWrittenOnlyWhenTheSocketTookIt(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("a.pcap");
        CaptureTap a = CaptureTap.open(file, A, 4791);
        assertEquals(Fabric.SendResult.BLOCKED, sent(a, A, B, 8, Fabric.SendResult.BLOCKED));
        assertEquals(Fabric.SendResult.FAILED, sent(a, A, B, 9, Fabric.SendResult.FAILED));
        assertEquals(Fabric.SendResult.SENT, sent(a, A, B, 10, Fabric.SendResult.SENT));
        a.close();
        assertEquals(List.of("2000 127.0.0.1:4791 > 127.0.0.2:4791 10"), read(file));
        try (PcapReader reader = PcapReader.open(file)) {
            PcapReader.Datagram only = reader.next();
            assertArrayEquals(datagram(10), Arrays.copyOfRange(only.frame(), only.payloadOffset(),
                    only.payloadOffset() + 24));
            assertNull(reader.next());
        }
        assertNull(CaptureTap.open(null, A, 4791), "no file, no tap");
    }
}
