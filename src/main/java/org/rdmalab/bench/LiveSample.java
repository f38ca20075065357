package org.rdmalab.bench;

/**
 * Where a run stands, a few times a second, for a progress line or a live chart.
 *
 * @param path RDMA or the baseline
 * @param bytes the message size running
 * @param sizeIndex which size of the sweep (0-based)
 * @param sizeCount how many sizes the sweep has
 * @param done messages measured so far at this size
 * @param total messages this size measures (0 for a timed run)
 * @param elapsedNanos time since the size's measured part began
 * @param recentBytesPerSecond bandwidth since the previous sample (0 for latency tests)
 * @param recentMicros mean one-way (or READ/atomic round-trip) time since the previous sample (0 for bandwidth)
 */
public record LiveSample(BenchRow.Path path, int bytes, int sizeIndex, int sizeCount, long done, long total,
                         long elapsedNanos, double recentBytesPerSecond, double recentMicros) {
}
