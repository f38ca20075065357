package org.rdmalab.app.lab;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What the buffer pane highlights after an operation: the ranges where the bytes changed, each as
 * (offset, length), with both ends of every range checked (a first byte, a last byte, a range that
 * ends at the buffer's end, bytes beyond the shorter snapshot).
 */
class BuffersDiffTest {

    private static String ranges(byte[] before, byte[] after) {
        return BuffersViewModel.diff(before, after).stream().map(r -> r[0] + "+" + r[1]).toList().toString();
    }

    @Test
    void equalBuffersChangeNothing() {
        assertEquals("[]", ranges(new byte[] {1, 2, 3}, new byte[] {1, 2, 3}));
    }

    @Test
    void aChangeAtEachEndAndInTheMiddle() {
        byte[] before = {0, 0, 0, 0, 0, 0, 0, 0};
        assertEquals("[0+1]", ranges(before, new byte[] {9, 0, 0, 0, 0, 0, 0, 0}));
        assertEquals("[7+1]", ranges(before, new byte[] {0, 0, 0, 0, 0, 0, 0, 9}));
        assertEquals("[2+3]", ranges(before, new byte[] {0, 0, 7, 8, 9, 0, 0, 0}));
        assertEquals("[0+8]", ranges(before, new byte[] {1, 1, 1, 1, 1, 1, 1, 1}));
    }

    @Test
    void separateRangesStaySeparate() {
        assertEquals("[0+2, 3+1, 6+2]", ranges(new byte[] {0, 0, 0, 0, 0, 0, 0, 0},
                new byte[] {5, 5, 0, 5, 0, 0, 5, 5}));
        // One unchanged byte between two changes splits them.
        assertEquals("[1+1, 3+1]", ranges(new byte[] {0, 0, 0, 0, 0}, new byte[] {0, 1, 0, 1, 0}));
    }

    @Test
    void bytesBeyondTheShorterSnapshotCountAsChanged() {
        assertEquals("[3+2]", ranges(new byte[] {1, 2, 3}, new byte[] {1, 2, 3, 4, 5}));
        assertEquals("[3+2]", ranges(new byte[] {1, 2, 3, 4, 5}, new byte[] {1, 2, 3}));
        assertEquals("[2+3]", ranges(new byte[] {1, 2, 3}, new byte[] {1, 2, 9, 4, 5}));
    }

    @Test
    void aBufferNotYetReadHighlightsNothing() {
        assertEquals("[]", ranges(new byte[0], new byte[] {1, 2, 3}));
    }

    @Test
    void theRangesAreLongArraysOfOffsetAndLength() {
        List<long[]> ranges = BuffersViewModel.diff(new byte[] {0, 0, 0, 0}, new byte[] {0, 7, 7, 0});
        assertEquals(1, ranges.size());
        assertEquals(1, ranges.get(0)[0]);
        assertEquals(2, ranges.get(0)[1]);
    }
}
