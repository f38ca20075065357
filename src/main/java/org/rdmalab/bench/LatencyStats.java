package org.rdmalab.bench;

import java.util.Arrays;

/**
 * One row of a latency table, computed as perftest's {@code ib_*_lat} computes it. The input is one
 * time per iteration (for WRITE and SEND the ping-pong round trip, for READ and atomics the time from
 * post to completion). Each is divided by the round-trip factor (2 for WRITE and SEND, which report
 * half the round trip; 1 for READ and atomics); the times are sorted and the two largest dropped
 * (perftest's LAT_MEASURE_TAIL); of the {@code n} left:
 * <ul>
 *   <li>{@code t_min} is the smallest;</li>
 *   <li>{@code t_max} is the sample just above the kept ones (index {@code n} of the sorted array,
 *       the second largest of all);</li>
 *   <li>{@code t_typical} is the median: the middle sample, or the mean of the two middle ones when
 *       {@code n} is even;</li>
 *   <li>{@code t_avg} and {@code t_stdev} are the mean and the population standard deviation
 *       (divided by {@code n});</li>
 *   <li>the 99% and 99.9% percentiles are the samples at index {@code ceil(n × 0.99)} and
 *       {@code ceil(n × 0.999)} of the sorted array.</li>
 * </ul>
 *
 * @param bytes message size
 * @param iterations measured iterations
 * @param minMicros {@code t_min[usec]}
 * @param maxMicros {@code t_max[usec]}
 * @param typicalMicros {@code t_typical[usec]}, the median
 * @param averageMicros {@code t_avg[usec]}
 * @param stdevMicros {@code t_stdev[usec]}
 * @param p99Micros {@code 99% percentile[usec]}
 * @param p999Micros {@code 99.9% percentile[usec]}
 * @param sortedMicros every sample after the division, sorted (for a histogram or a CDF)
 */
public record LatencyStats(int bytes, long iterations, double minMicros, double maxMicros, double typicalMicros,
                           double averageMicros, double stdevMicros, double p99Micros, double p999Micros,
                           double[] sortedMicros) {

    /** Samples perftest drops from the top before computing the statistics. */
    public static final int MEASURE_TAIL = 2;

    /**
     * The statistics of the first {@code count} entries of {@code nanos}.
     *
     * @param iterations the number printed in {@code #iterations}
     * @param rttFactor 2 when a sample is a ping-pong round trip reported as one way, else 1
     * @throws IllegalArgumentException with fewer than {@link #MEASURE_TAIL} + 1 samples
     */
    public static LatencyStats of(int bytes, long iterations, long[] nanos, int count, int rttFactor) {
        if (count < MEASURE_TAIL + 1) {
            throw new IllegalArgumentException("latency needs at least " + (MEASURE_TAIL + 1) + " samples, not " + count);
        }
        double[] sorted = new double[count];
        for (int i = 0; i < count; i++) {
            sorted[i] = nanos[i] / 1000.0 / rttFactor;
        }
        Arrays.sort(sorted);
        int n = count - MEASURE_TAIL;
        double median = (n % 2 == 0) ? (sorted[n / 2 - 1] + sorted[n / 2]) / 2 : sorted[n / 2];
        double sum = 0;
        for (int i = 0; i < n; i++) {
            sum += sorted[i];
        }
        double average = sum / n;
        double squares = 0;
        for (int i = 0; i < n; i++) {
            double deviation = sorted[i] - average;
            squares += deviation * deviation;
        }
        double stdev = Math.sqrt(squares / n);
        double p99 = sorted[Math.min(count - 1, (int) Math.ceil(n * 0.99))];
        double p999 = sorted[Math.min(count - 1, (int) Math.ceil(n * 0.999))];
        return new LatencyStats(bytes, iterations, sorted[0], sorted[n], median, average, stdev, p99, p999, sorted);
    }

    /** Mean time over {@code iterations} messages in {@code elapsedNanos} (perftest's duration report). */
    public static double averageMicros(long elapsedNanos, long iterations, int rttFactor) {
        return elapsedNanos / 1000.0 / rttFactor / iterations;
    }
}
