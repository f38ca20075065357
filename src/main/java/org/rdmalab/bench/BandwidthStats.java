package org.rdmalab.bench;

/**
 * One row of a bandwidth table, computed as perftest's {@code ib_*_bw} computes it from the time of
 * each post ({@code tposted[i]}) and of each completion ({@code tcompleted[j]}; with CQ moderation
 * only every {@code cq_mod}-th message and the last one are signaled, and the others complete with
 * the next signaled one):
 * <ul>
 *   <li>{@code BW average} = iterations × size / (last completion − first post);</li>
 *   <li>{@code BW peak} = size / the shortest time per message over any run of messages from a post
 *       {@code i} to a signaled completion {@code j ≥ i}: min of (tcompleted[j] − tposted[i]) / (j − i + 1);</li>
 *   <li>{@code MsgRate} = iterations / (last completion − first post), in millions per second.</li>
 * </ul>
 * Both bandwidths are bytes per second here; {@link BenchFormat} prints them in MB/sec (2^20 bytes
 * per second, as perftest) or Gb/sec (10^9 bits per second).
 *
 * @param bytes message size
 * @param iterations messages measured
 * @param peakBytesPerSecond {@code BW peak}, or 0 when it was not computed (a timed run)
 * @param averageBytesPerSecond {@code BW average}
 * @param messagesPerSecond {@code MsgRate} × 10^6
 * @param elapsedNanos first post to last completion
 */
public record BandwidthStats(int bytes, long iterations, double peakBytesPerSecond, double averageBytesPerSecond,
                             double messagesPerSecond, long elapsedNanos) {

    /** perftest's MB: 2^20 bytes. */
    public static final double MEBIBYTE = 0x100000;
    /** perftest's Gb: 10^9 bits = 1.25 × 10^8 bytes. */
    public static final double GIGABIT_BYTES = 125_000_000;
    /** Above this many (i, j) pairs the peak search samples the posts it starts from. */
    static final long PEAK_PAIR_BUDGET = 200_000_000L;

    /**
     * The row for {@code count} messages.
     *
     * @param posted post times in ns, one per message
     * @param completed completion times in ns, one per message (a message completes when the
     *     signaled completion covering it arrives)
     * @param cqMod every {@code cqMod}-th message (index {@code cqMod - 1}, ...) and the last are signaled
     * @param withPeak false to skip the peak search (prints 0, as perftest's --disable_peak does)
     */
    public static BandwidthStats of(int bytes, long[] posted, long[] completed, int count, int cqMod, boolean withPeak) {
        if (count < 1) {
            throw new IllegalArgumentException("bandwidth needs at least one message");
        }
        long elapsed = Math.max(1, completed[count - 1] - posted[0]);
        double seconds = elapsed / 1e9;
        double average = (double) bytes * count / seconds;
        double rate = count / seconds;
        double peak = 0;
        if (withPeak) {
            double best = Math.max(1, completed[0] - posted[0]);
            long pairs = (long) count * (count / Math.max(1, cqMod) + 1);
            int step = (int) Math.max(1, pairs / PEAK_PAIR_BUDGET);
            for (int i = 0; i < count; i += step) {
                int first = ((i + 1 + cqMod - 1) / cqMod) * cqMod - 1;
                for (int j = first; j < count; j += cqMod) {
                    best = Math.min(best, (double) (completed[j] - posted[i]) / (j - i + 1));
                }
                if (count % cqMod != 0) {
                    int j = count - 1;
                    best = Math.min(best, (double) (completed[j] - posted[i]) / (j - i + 1));
                }
            }
            peak = bytes / (Math.max(best, 1) / 1e9);
        }
        return new BandwidthStats(bytes, count, peak, average, rate, elapsed);
    }

    /** A row from totals alone (a timed run, or the baseline): average and rate, no peak. */
    public static BandwidthStats ofTotals(int bytes, long messages, long elapsedNanos) {
        double seconds = Math.max(1, elapsedNanos) / 1e9;
        return new BandwidthStats(bytes, messages, 0, bytes * (double) messages / seconds, messages / seconds,
                elapsedNanos);
    }

    /**
     * Both directions of a {@code -b} run, as perftest's duplex report sums them: the peaks, averages
     * and message rates added; this side's iterations and elapsed time.
     */
    public BandwidthStats plus(BandwidthStats peer) {
        return new BandwidthStats(bytes, iterations, peakBytesPerSecond + peer.peakBytesPerSecond,
                averageBytesPerSecond + peer.averageBytesPerSecond, messagesPerSecond + peer.messagesPerSecond,
                elapsedNanos);
    }

    /** {@code BW average} in the table's unit. */
    public double average(boolean gbits) {
        return averageBytesPerSecond / (gbits ? GIGABIT_BYTES : MEBIBYTE);
    }

    /** {@code BW peak} in the table's unit. */
    public double peak(boolean gbits) {
        return peakBytesPerSecond / (gbits ? GIGABIT_BYTES : MEBIBYTE);
    }

    /** {@code MsgRate[Mpps]}. */
    public double messageRateMpps() {
        return messagesPerSecond / 1e6;
    }
}
