package org.rdmalab.app.bench;

import java.util.ArrayList;
import java.util.List;
import org.rdmalab.bench.BenchRow;
import org.rdmalab.bench.LatencyStats;

/**
 * The maths of the Bench tab's latency distribution: a CDF thinned to {@link #CDF_POINTS} points, a
 * histogram of {@link #HISTOGRAM_BINS} bins equal on the chart's logarithmic axis, the x range both
 * paths share, and the percentiles marked on it. Pure functions of the sorted samples.
 *
 * <p>Threads: none of its own; any thread.
 */
final class LatencyDistribution {

    /** Points of a drawn CDF (the samples are thinned to this many). */
    static final int CDF_POINTS = 200;
    /** Bins of a drawn histogram. */
    static final int HISTOGRAM_BINS = 40;
    /** The distribution's x axis ends at this multiple of the larger 99.9% percentile. */
    static final double HEADROOM = 1.15;

    private LatencyDistribution() {
    }

    /**
     * The x range (µs) both paths are drawn over: from the smaller minimum to {@link #HEADROOM} times
     * the larger 99.9% percentile; a null or empty path is left out.
     *
     * @return {low, high}, high above low
     */
    static double[] range(LatencyStats rdma, LatencyStats baseline) {
        double low = Double.MAX_VALUE;
        double high = 0;
        for (LatencyStats stats : new LatencyStats[] {rdma, baseline}) {
            if (stats != null && stats.sortedMicros().length > 0) {
                low = Math.min(low, stats.minMicros());
                high = Math.max(high, stats.p999Micros() * HEADROOM);
            }
        }
        if (high <= low) {
            high = low + 1;
        }
        return new double[] {low, high};
    }

    /** {@code stats} drawn as {@code kind} over {@code low..high}; none for no samples. */
    static List<BenchResults.Point> points(LatencyStats stats, BenchResults.Distribution kind, double low,
                                           double high) {
        if (stats == null || stats.sortedMicros().length == 0) {
            return List.of();
        }
        return kind == BenchResults.Distribution.CDF ? cdf(stats.sortedMicros(), high)
                : histogram(stats.sortedMicros(), low, high);
    }

    /** The fraction of samples at or below each x, thinned to {@link #CDF_POINTS}, up to {@code high}. */
    static List<BenchResults.Point> cdf(double[] sorted, double high) {
        List<BenchResults.Point> points = new ArrayList<>();
        int n = sorted.length;
        int step = Math.max(1, n / CDF_POINTS);
        for (int i = 0; i < n; i += step) {
            if (sorted[i] > high) {
                break;
            }
            points.add(new BenchResults.Point(sorted[i], (i + 1) / (double) n));
        }
        int last = n - 1;
        if (sorted[last] <= high && (points.isEmpty() || points.get(points.size() - 1).x() != sorted[last])) {
            points.add(new BenchResults.Point(sorted[last], 1.0));
        }
        return points;
    }

    /**
     * The percentage of samples in each of {@link #HISTOGRAM_BINS} bins from {@code low} to
     * {@code high}, equal on a logarithmic scale as the chart draws them (x: the bin's geometric
     * middle); samples above {@code high} are left out of the picture.
     */
    static List<BenchResults.Point> histogram(double[] sorted, double low, double high) {
        double from = Math.log10(Math.max(low, 1e-3));
        double to = Math.log10(Math.max(high, low * 1.01));
        double width = (to - from) / HISTOGRAM_BINS;
        int[] counts = new int[HISTOGRAM_BINS];
        for (double sample : sorted) {
            int bin = (int) ((Math.log10(Math.max(sample, 1e-3)) - from) / width);
            if (bin >= 0 && bin < HISTOGRAM_BINS) {
                counts[bin]++;
            } else if (bin == HISTOGRAM_BINS && sample <= high) {
                counts[HISTOGRAM_BINS - 1]++;
            }
        }
        List<BenchResults.Point> points = new ArrayList<>();
        for (int i = 0; i < HISTOGRAM_BINS; i++) {
            points.add(new BenchResults.Point(Math.pow(10, from + (i + 0.5) * width),
                    100.0 * counts[i] / sorted.length));
        }
        return points;
    }

    /** Adds t_typical, 99% and 99.9% of {@code path} to {@code marks}; nothing for null. */
    static void addMarkers(List<BenchResults.Marker> marks, BenchRow.Path path, LatencyStats stats) {
        if (stats != null) {
            marks.add(new BenchResults.Marker(path, "t_typical", stats.typicalMicros()));
            marks.add(new BenchResults.Marker(path, "99%", stats.p99Micros()));
            marks.add(new BenchResults.Marker(path, "99.9%", stats.p999Micros()));
        }
    }
}
