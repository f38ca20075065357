package org.rdmalab.lab;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** demo --pattern's bytes: position-dependent, one pattern per message, the text kept, zlib's CRC32. */
class BufferPatternTest {

    private static final int SIZE = 256 * 1024;

    private static byte[] pattern(int message) {
        return BufferPattern.fill(new byte[SIZE + 1], message); // the leading NUL is kept, the rest filled
    }

    @Test
    void aPacketAtAnotherOffsetOrLeftOverFromAnotherMessageDiffersAlmostEverywhere() {
        byte[] send = pattern(BufferPattern.SEND);
        // Every path MTU and a few shifts: the bytes one packet further on are others.
        for (int shift : new int[] {1, 4, 256, 512, 1024, 2048, 4096, 65536}) {
            int same = 0;
            for (int i = 1; i + shift < send.length; i++) {
                same += send[i] == send[i + shift] ? 1 : 0;
            }
            assertTrue(same < (send.length - shift) / 64, shift + "-byte shift: " + same + " bytes equal");
        }
        for (int[] pair : new int[][] {{BufferPattern.SEND, BufferPattern.READ}, {BufferPattern.READ, BufferPattern.WRITE},
                {BufferPattern.SEND, BufferPattern.WRITE}}) {
            byte[] a = pattern(pair[0]);
            byte[] b = pattern(pair[1]);
            int same = 0;
            for (int i = 1; i < a.length; i++) {
                same += a[i] == b[i] ? 1 : 0;
            }
            assertTrue(same < SIZE / 64, Arrays.toString(pair) + ": " + same + " bytes equal");
        }
        // Not a repeated byte: every value occurs, none much more often than 1 in 256.
        int[] counts = new int[256];
        for (int i = 1; i < send.length; i++) {
            counts[send[i] & 0xff]++;
        }
        for (int count : counts) {
            assertTrue(count > SIZE / 512 && count < SIZE / 128, Arrays.toString(counts));
        }
    }

    @Test
    void fillKeepsTheTextAndItsNulAndFillsEveryByteAfterIt() {
        byte[] buffer = new byte[64];
        byte[] text = "ServerSend\0".getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(text, 0, buffer, 0, text.length);
        buffer[20] = 'x';
        byte[] filled = BufferPattern.fill(buffer, BufferPattern.WRITE);
        assertArrayEquals(text, Arrays.copyOf(filled, text.length));
        for (int i = text.length; i < filled.length; i++) {
            assertEquals(BufferPattern.at(i, BufferPattern.WRITE), filled[i], "byte " + i);
        }
        assertEquals('x', buffer[20], "the buffer given is not changed");
        // A buffer without a NUL is all text: nothing to fill.
        byte[] full = "HelloWorld".getBytes(StandardCharsets.US_ASCII);
        assertArrayEquals(full, BufferPattern.fill(full, BufferPattern.SEND));
        // The first byte after the NUL is filled, the NUL is not.
        byte[] empty = BufferPattern.fill(new byte[3], BufferPattern.SEND);
        assertEquals(0, empty[0]);
        assertEquals(BufferPattern.at(1, BufferPattern.SEND), empty[1]);
        assertEquals(BufferPattern.at(2, BufferPattern.SEND), empty[2]);
    }

    @Test
    void theChecksumIsZlibsCrc32AndTheLineNamesItsBufferAndLength() {
        // The check value of CRC-32 (IEEE 802.3) over "123456789".
        byte[] check = "123456789".getBytes(StandardCharsets.US_ASCII);
        assertEquals(0xCBF43926L, BufferPattern.crc32(check));
        assertEquals("crc32 of the SEND's buffer: 0xcbf43926 over 9 bytes", BufferPattern.line("the SEND's buffer", check));
        assertEquals("crc32 of x: 0x00000000 over 0 bytes", BufferPattern.line("x", new byte[0]));
    }
}
