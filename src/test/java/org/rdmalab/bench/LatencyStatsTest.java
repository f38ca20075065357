package org.rdmalab.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** perftest's latency definitions, on samples worked out by hand. */
class LatencyStatsTest {

    private static long[] micros(long... values) {
        long[] nanos = new long[values.length];
        for (int i = 0; i < values.length; i++) {
            nanos[i] = values[i] * 1000;
        }
        return nanos;
    }

    @Test
    void theTwoLargestAreDroppedAndTheMedianOfAnEvenCountIsTheMeanOfTheMiddleTwo() {
        // Shuffled 1..10 µs: 9 and 10 are dropped, n = 8.
        LatencyStats stats = LatencyStats.of(8, 10, micros(7, 3, 10, 1, 9, 5, 2, 8, 4, 6), 10, 1);
        assertEquals(1.0, stats.minMicros(), 1e-9);
        assertEquals(9.0, stats.maxMicros(), 1e-9, "t_max is the sample after the kept ones: the second largest");
        assertEquals(4.5, stats.typicalMicros(), 1e-9);
        assertEquals(4.5, stats.averageMicros(), 1e-9);
        // Population deviation of 1..8: sqrt(sum((i - 4.5)^2) / 8) = sqrt(42 / 8).
        assertEquals(Math.sqrt(42.0 / 8), stats.stdevMicros(), 1e-9);
        // ceil(8 × 0.99) = 8 and ceil(8 × 0.999) = 8: index 8 of the sorted samples.
        assertEquals(9.0, stats.p99Micros(), 1e-9);
        assertEquals(9.0, stats.p999Micros(), 1e-9);
        assertEquals(10, stats.iterations());
        assertArrayEquals(new double[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, stats.sortedMicros(), 1e-9);
    }

    @Test
    void theMedianOfAnOddCountIsTheMiddleSample() {
        // 11 samples, n = 9 kept (1..9 µs): the median is the fifth, 5.
        LatencyStats stats = LatencyStats.of(2, 11, micros(1, 2, 3, 4, 5, 6, 7, 8, 9, 100, 200), 11, 1);
        assertEquals(5.0, stats.typicalMicros(), 1e-9);
        assertEquals(5.0, stats.averageMicros(), 1e-9);
        assertEquals(100.0, stats.maxMicros(), 1e-9);
    }

    @Test
    void writeAndSendReportHalfTheRoundTrip() {
        LatencyStats stats = LatencyStats.of(8, 5, micros(10, 20, 30, 40, 50), 5, 2);
        // Halved: 5, 10, 15 kept (20 and 25 dropped).
        assertEquals(5.0, stats.minMicros(), 1e-9);
        assertEquals(10.0, stats.typicalMicros(), 1e-9);
        assertEquals(20.0, stats.maxMicros(), 1e-9);
    }

    @Test
    void percentilesPickTheSampleAtTheCeilingIndex() {
        long[] samples = new long[1002];
        for (int i = 0; i < samples.length; i++) {
            samples[i] = (i + 1) * 1000L;
        }
        // n = 1000: the 99% index is ceil(990) = 990 → 991 µs; the 99.9% index ceil(999) = 999 → 1000 µs.
        LatencyStats stats = LatencyStats.of(8, 1002, samples, samples.length, 1);
        assertEquals(991.0, stats.p99Micros(), 1e-9);
        assertEquals(1000.0, stats.p999Micros(), 1e-9);
        assertEquals(500.5, stats.typicalMicros(), 1e-9);
    }

    @Test
    void onlyTheFirstCountSamplesAreUsed() {
        LatencyStats stats = LatencyStats.of(8, 3, micros(1, 2, 3, 999, 999), 3, 1);
        assertEquals(1.0, stats.typicalMicros(), 1e-9);
        assertEquals(3, stats.sortedMicros().length);
    }

    @Test
    void tooFewSamplesAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> LatencyStats.of(8, 2, micros(1, 2), 2, 1));
    }
}
