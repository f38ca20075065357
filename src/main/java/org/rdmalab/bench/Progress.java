package org.rdmalab.bench;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What the measuring loops share with the run: the stop flag, the listener for live samples (sent
 * at most every {@link #SAMPLE_INTERVAL_NANOS}), and the rule for waiting without sleeping: spin a
 * little, then yield the core on every idle pass (the machine may have fewer cores than busy
 * threads); never park or sleep on the data path.
 */
final class Progress {

    /** How often a live sample goes out. */
    static final long SAMPLE_INTERVAL_NANOS = 250_000_000L;
    private final AtomicBoolean stop;
    private final BenchListener listener;
    private BenchRow.Path path = BenchRow.Path.RDMA;
    private int bytes;
    private int sizeIndex;
    private int sizeCount;
    private long total;
    private long start;
    private long lastSampleAt;
    private long lastDone;
    private boolean latency;
    private int rttFactor = 1;

    Progress(AtomicBoolean stop, BenchListener listener) {
        this.stop = stop;
        this.listener = listener;
    }

    /** Starts the measured part of one size on one path. */
    void begin(BenchRow.Path newPath, int newBytes, int index, int count, long newTotal, boolean isLatency,
               int factor) {
        path = newPath;
        bytes = newBytes;
        sizeIndex = index;
        sizeCount = count;
        total = newTotal;
        latency = isLatency;
        rttFactor = factor;
        start = System.nanoTime();
        lastSampleAt = start;
        lastDone = 0;
    }

    /** Throws {@link BenchStopped} once a stop was asked for or this thread was interrupted (its peer failed). */
    void checkStop() throws BenchStopped {
        if (stop.get() || Thread.currentThread().isInterrupted()) {
            throw new BenchStopped();
        }
    }

    /** Called with the messages measured so far; sends a sample when one is due. */
    void tick(long done, long now) {
        if (now - lastSampleAt < SAMPLE_INTERVAL_NANOS) {
            return;
        }
        long interval = now - lastSampleAt;
        long moved = done - lastDone;
        double bandwidth = latency ? 0 : moved * (double) bytes / (interval / 1e9);
        double micros = latency && moved > 0 ? interval / 1000.0 / moved / rttFactor : 0;
        lastSampleAt = now;
        lastDone = done;
        listener.sample(new LiveSample(path, bytes, sizeIndex, sizeCount, done, total, now - start, bandwidth,
                micros));
    }
}
