package org.rdmalab.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** perftest's bandwidth definitions on post and completion times worked out by hand. */
class BandwidthStatsTest {

    @Test
    void averageIsAllBytesOverFirstPostToLastCompletion() {
        long[] posted = {0, 100, 200, 300};
        long[] completed = {1000, 1000, 1500, 1500};
        BandwidthStats stats = BandwidthStats.of(1000, posted, completed, 4, 2, true);
        assertEquals(4 * 1000 / 1500e-9, stats.averageBytesPerSecond(), 1e-3);
        assertEquals(4 / 1500e-9, stats.messagesPerSecond(), 1e-3);
        assertEquals(1500, stats.elapsedNanos());
    }

    @Test
    void peakIsTheShortestTimePerMessageFromAPostToASignaledCompletion() {
        // cq_mod 2: messages 1 and 3 are signaled. Per message: from post 0 to completion 3 is
        // 1500 / 4 = 375 ns, the shortest of all (i, j) pairs; from post 0 to completion 1 is 500.
        long[] posted = {0, 100, 200, 300};
        long[] completed = {1000, 1000, 1500, 1500};
        BandwidthStats stats = BandwidthStats.of(1000, posted, completed, 4, 2, true);
        assertEquals(1000 / 375e-9, stats.peakBytesPerSecond(), 1e-3);
    }

    @Test
    void theLastMessageCountsAsSignaledWhenTheCountIsNotAMultipleOfCqMod() {
        // cq_mod 4, 3 messages: only the last (index 2) is signaled: best = (900 - 0) / 3 = 300 ns.
        long[] posted = {0, 10, 20};
        long[] completed = {900, 900, 900};
        BandwidthStats stats = BandwidthStats.of(600, posted, completed, 3, 4, true);
        assertEquals(600 / 300e-9, stats.peakBytesPerSecond(), 1e-3);
    }

    @Test
    void unitsAreMebibytesOrGigabits() {
        BandwidthStats stats = BandwidthStats.ofTotals(1 << 20, 1000, 1_000_000_000L);
        assertEquals(1000.0, stats.average(false), 1e-9);
        assertEquals(1000.0 * (1 << 20) * 8 / 1e9, stats.average(true), 1e-9);
        assertEquals(0.001, stats.messageRateMpps(), 1e-12);
        assertEquals(0.0, stats.peak(false));
    }

    @Test
    void withoutPeakThePeakIsZero() {
        BandwidthStats stats = BandwidthStats.of(10, new long[] {0}, new long[] {100}, 1, 1, false);
        assertEquals(0.0, stats.peakBytesPerSecond());
        assertThrows(IllegalArgumentException.class, () -> BandwidthStats.of(10, new long[0], new long[0], 0, 1, true));
    }
}
