package org.rdmalab.bench;

import java.util.Objects;

/**
 * The result of one message size on one path: the RDMA device, or the raw UDP baseline.
 *
 * @param path which path was measured
 * @param bytes message size
 * @param bandwidth the bandwidth row (bandwidth tests), else null
 * @param latency the latency row (latency tests), else null
 * @param usage allocation and GC during the measured messages
 * @param lostMessages baseline only: messages whose datagrams or answer never came (UDP does not
 *     retransmit); always 0 for RDMA, which retransmits
 */
public record BenchRow(Path path, int bytes, BandwidthStats bandwidth, LatencyStats latency,
                       ResourceMeter.Usage usage, long lostMessages) {

    /** The path a row measured. */
    public enum Path {
        /** The RDMA device through the verbs API. */
        RDMA,
        /** Plain UDP datagrams between the same addresses, no RDMA logic. */
        BASELINE
    }

    public BenchRow {
        Objects.requireNonNull(path, "path");
        if ((bandwidth == null) == (latency == null)) {
            throw new IllegalArgumentException("a row holds a bandwidth or a latency result");
        }
    }

    /**
     * The figure a ratio compares: average bandwidth in bytes per second, or t_typical in µs (a
     * timed latency run: t_avg).
     */
    public double headline() {
        return bandwidth != null ? bandwidth.averageBytesPerSecond() : latency.typicalMicros();
    }
}
