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
        // cq_mod 4, 3 messages: only the last (index 2) is signaled: best = (903 - 3) / 3 = 300 ns,
        // from the first post (from the second: 893 / 2; from the third: 883).
        long[] posted = {3, 10, 20};
        long[] completed = {903, 903, 903};
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

    @Test
    void thePeakCanStartAtALaterPostAndEndAtItsFirstSignaledCompletion() {
        // cq_mod 2 (messages 1, 3 and 5 signaled). The shortest time per message is post 3 to its
        // own completion (index 3): 530 - 520 = 10 ns for one message; from post 2 to completion 3 it
        // is 40 / 2 = 20, from post 0 to the end 650 / 6. The first post is not at 0, so the run's
        // time is 700 - 50 = 650 ns.
        long[] posted = {50, 100, 490, 520, 600, 610};
        long[] completed = {300, 300, 530, 530, 700, 700};
        BandwidthStats stats = BandwidthStats.of(1000, posted, completed, 6, 2, true);
        assertEquals(1000 / 10e-9, stats.peakBytesPerSecond(), 1e-3);
        assertEquals(650, stats.elapsedNanos());
        assertEquals(6 * 1000 / 650e-9, stats.averageBytesPerSecond(), 1e-3);
        assertEquals(6 / 650e-9, stats.messagesPerSecond(), 1e-3);
        assertEquals(6, stats.iterations());
    }

    @Test
    void totalsOverTwoSecondsHalveTheRates() {
        BandwidthStats stats = BandwidthStats.ofTotals(4096, 3000, 2_000_000_000L);
        assertEquals(4096 * 3000 / 2.0, stats.averageBytesPerSecond(), 1e-6);
        assertEquals(1500.0, stats.messagesPerSecond(), 1e-9);
        assertEquals(2_000_000_000L, stats.elapsedNanos());
        assertEquals(3000, stats.iterations());
    }

    @Test
    void bothDirectionsAddPeaksAveragesAndRatesAndKeepThisSidesCounts() {
        BandwidthStats mine = new BandwidthStats(65536, 5000, 300, 200, 7, 1_000);
        BandwidthStats peer = new BandwidthStats(65536, 4000, 30, 20, 2, 9_000);
        BandwidthStats both = mine.plus(peer);
        assertEquals(330.0, both.peakBytesPerSecond());
        assertEquals(220.0, both.averageBytesPerSecond());
        assertEquals(9.0, both.messagesPerSecond());
        assertEquals(5000, both.iterations());
        assertEquals(1_000, both.elapsedNanos());
        assertEquals(65536, both.bytes());
    }

    @Test
    void thePeakIsShownInMebibytesOrGigabits() {
        BandwidthStats stats = new BandwidthStats(8, 1, 250_000_000, 0, 0, 1);
        assertEquals(2.0, stats.peak(true), 1e-12);
        assertEquals(250_000_000 / BandwidthStats.MEBIBYTE, stats.peak(false), 1e-12);
    }
}
