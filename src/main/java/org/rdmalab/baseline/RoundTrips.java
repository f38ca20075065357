package org.rdmalab.baseline;

import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * The distribution of one side's round trips in a ping-pong (the RDMA one and its UDP baseline):
 * each round trip's time, kept in an HdrHistogram to three significant digits, so that a run of
 * any length records without allocating and the median says what a typical round trip costs.
 * ibv_rc_pingpong prints only the mean ({@code usec/iter}), which on soft0 also carries the JIT
 * compiler's warm-up and the odd stall when another thread takes a spinning thread's core.
 *
 * <p>Not thread-safe: the thread that runs the ping-pong records.
 */
public final class RoundTrips {

    /** Longer round trips are recorded as this long (a poll timeout ends a run well before). */
    private static final long LONGEST_NANOS = TimeUnit.HOURS.toNanos(1);

    private final Histogram histogram = new Histogram(1, LONGEST_NANOS, 3);

    /** Records one round trip of {@code nanos} (negative ones, from a clock that stepped back, as 0). */
    public void record(long nanos) {
        histogram.recordValue(Math.max(0, Math.min(nanos, LONGEST_NANOS)));
    }

    public long count() {
        return histogram.getTotalCount();
    }

    /** The median round trip in microseconds; NaN when none was recorded. */
    public double medianMicros() {
        return percentileMicros(50);
    }

    /** The 99th percentile round trip in microseconds; NaN when none was recorded. */
    public double p99Micros() {
        return percentileMicros(99);
    }

    private double percentileMicros(double percentile) {
        if (count() == 0) {
            return Double.NaN;
        }
        // The middle of the value's bucket (3 significant digits), not its upper end.
        return histogram.medianEquivalentValue(histogram.getValueAtPercentile(percentile)) / 1e3;
    }

    /** "median 12.82 usec, 99% 32.91 usec". */
    public String summary() {
        return String.format("median %.2f usec, 99%% %.2f usec", medianMicros(), p99Micros());
    }
}
