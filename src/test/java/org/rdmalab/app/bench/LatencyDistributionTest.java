package org.rdmalab.app.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.rdmalab.bench.BenchRow;
import org.rdmalab.bench.LatencyStats;

/**
 * The Bench tab's latency distribution from samples chosen by hand: the x range both paths share,
 * the CDF's points and where it stops, the histogram's bins at both ends of the axis, the marks.
 */
class LatencyDistributionTest {

    /** Statistics with only the fields the distribution reads set, each to its own value. */
    private static LatencyStats stats(double min, double typical, double p99, double p999, double... sorted) {
        return new LatencyStats(8, sorted.length, min, 999, typical, 0, 0, p99, p999, sorted);
    }

    private static String points(List<BenchResults.Point> points) {
        return points.stream().map(p -> p.x() + "@" + p.y()).toList().toString();
    }

    @Test
    void theRangeRunsFromTheSmallerMinimumToHeadroomOverTheLarger999Percentile() {
        LatencyStats small = stats(2, 0, 0, 10, 2, 10);
        LatencyStats large = stats(5, 0, 0, 20, 5, 20);
        assertArrayEquals(new double[] {2, 23}, LatencyDistribution.range(small, large), 1e-9);
        assertArrayEquals(new double[] {2, 23}, LatencyDistribution.range(large, small), 1e-9);
        assertArrayEquals(new double[] {2, 11.5}, LatencyDistribution.range(small, null), 1e-9);
        assertArrayEquals(new double[] {5, 23}, LatencyDistribution.range(null, large), 1e-9);
        assertArrayEquals(new double[] {2, 11.5}, LatencyDistribution.range(small, stats(1, 0, 0, 100)), 1e-9,
                "a path without samples is left out");
    }

    @Test
    void aRangeThatWouldBeEmptyIsOneMicrosecondWide() {
        // 1.15 × 1.0 is exactly the minimum: the range would be empty.
        assertArrayEquals(new double[] {1.15, 2.15}, LatencyDistribution.range(stats(1.15, 0, 0, 1.0, 1.15), null),
                1e-12);
        assertArrayEquals(new double[] {1.15, 1.15 * 1.15}, LatencyDistribution.range(
                stats(1.15, 0, 0, 1.15, 1.15), null), 1e-12);
    }

    @Test
    void theCdfGivesEachSampleItsFractionAndStopsAtTheAxisEnd() {
        double[] sorted = {1, 2, 3, 4};
        assertEquals("[1.0@0.25, 2.0@0.5, 3.0@0.75, 4.0@1.0]", points(LatencyDistribution.cdf(sorted, 10)));
        assertEquals("[1.0@0.25, 2.0@0.5, 3.0@0.75, 4.0@1.0]", points(LatencyDistribution.cdf(sorted, 4)),
                "a sample at the end is drawn, once");
        assertEquals("[1.0@0.25, 2.0@0.5, 3.0@0.75]", points(LatencyDistribution.cdf(sorted, 3)));
        assertEquals("[1.0@0.25, 2.0@0.5]", points(LatencyDistribution.cdf(sorted, 2.5)));
    }

    @Test
    void aCdfOfManySamplesIsThinnedAndStillEndsAtTheLargest() {
        double[] fourHundred = IntStream.rangeClosed(1, 400).asDoubleStream().toArray();
        List<BenchResults.Point> cdf = LatencyDistribution.cdf(fourHundred, 1000);
        assertEquals(201, cdf.size(), "every second sample, then the last");
        assertEquals(new BenchResults.Point(1, 1 / 400.0), cdf.get(0));
        assertEquals(new BenchResults.Point(3, 3 / 400.0), cdf.get(1));
        assertEquals(new BenchResults.Point(399, 399 / 400.0), cdf.get(199));
        assertEquals(new BenchResults.Point(400, 1.0), cdf.get(200));
        double[] fewer = IntStream.rangeClosed(1, 399).asDoubleStream().toArray();
        assertEquals(399, LatencyDistribution.cdf(fewer, 1000).size(), "below twice the points, every sample");
    }

    @Test
    void histogramBinsAreEqualOnTheLogAxisAndHoldTheSamplesAtBothEnds() {
        // From 1 to 1000 µs: 3 decades in 40 bins of 0.075 each.
        double[] sorted = {0.5, 1, 10, 100, 1000, 2000};
        List<BenchResults.Point> bins = LatencyDistribution.histogram(sorted, 1, 1000);
        assertEquals(LatencyDistribution.HISTOGRAM_BINS, bins.size());
        List<Integer> filled = new ArrayList<>();
        for (int i = 0; i < bins.size(); i++) {
            if (bins.get(i).y() != 0) {
                filled.add(i);
                assertEquals(100.0 / 6, bins.get(i).y(), 1e-9, "one sample of six in bin " + i);
            }
        }
        // 1 at the axis' start, 10 and 100 inside, 1000 at its end in the last bin; 0.5 and 2000 are outside.
        assertEquals(List.of(0, 13, 26, 39), filled);
        assertEquals(Math.pow(10, 0.0375), bins.get(0).x(), 1e-9, "a bin's x is its geometric middle");
        assertEquals(Math.pow(10, 3 - 0.0375), bins.get(39).x(), 1e-9);
    }

    @Test
    void aHistogramStartingAtZeroBeginsAtOneNanosecond() {
        List<BenchResults.Point> bins = LatencyDistribution.histogram(new double[] {0, 1}, 0, 1);
        // From 1e-3 to 1 µs: 3 decades; 0 counts as 1e-3, in the first bin, and 1 in the last.
        assertEquals(Math.pow(10, -3 + 0.0375), bins.get(0).x(), 1e-9);
        assertEquals(50.0, bins.get(0).y(), 1e-9);
        assertEquals(50.0, bins.get(39).y(), 1e-9);
    }

    @Test
    void eachPathGetsItsTypicalAnd99And999Marks() {
        List<BenchResults.Marker> marks = new ArrayList<>();
        LatencyDistribution.addMarkers(marks, BenchRow.Path.RDMA, stats(1, 2.5, 7.5, 9.5, 1, 2, 3));
        LatencyDistribution.addMarkers(marks, BenchRow.Path.RDMA, null);
        assertEquals(List.of(new BenchResults.Marker(BenchRow.Path.RDMA, "t_typical", 2.5),
                new BenchResults.Marker(BenchRow.Path.RDMA, "99%", 7.5),
                new BenchResults.Marker(BenchRow.Path.RDMA, "99.9%", 9.5)), marks);
    }

    @Test
    void pointsFollowTheChosenKindAndNoSamplesDrawNothing() {
        LatencyStats some = stats(1, 0, 0, 4, 1, 2, 3, 4);
        assertEquals(LatencyDistribution.cdf(some.sortedMicros(), 10),
                LatencyDistribution.points(some, BenchResults.Distribution.CDF, 1, 10));
        assertEquals(LatencyDistribution.histogram(some.sortedMicros(), 1, 10),
                LatencyDistribution.points(some, BenchResults.Distribution.HISTOGRAM, 1, 10));
        assertTrue(LatencyDistribution.points(stats(1, 0, 0, 4), BenchResults.Distribution.CDF, 1, 10).isEmpty());
        assertTrue(LatencyDistribution.points(null, BenchResults.Distribution.HISTOGRAM, 1, 10).isEmpty());
    }
}
