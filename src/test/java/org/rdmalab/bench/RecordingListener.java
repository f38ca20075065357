package org.rdmalab.bench;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

/**
 * A listener that keeps what a run told it, for tests to wait on and look at. Each call wakes the
 * tests waiting on it; they wait for what they need, never for a time.
 */
final class RecordingListener implements BenchListener {

    private static final Duration WAIT = Duration.ofSeconds(90);

    final AtomicInteger started = new AtomicInteger();
    final List<LiveSample> samples = new CopyOnWriteArrayList<>();
    final List<BenchRow> rows = new CopyOnWriteArrayList<>();
    final List<String> notes = new CopyOnWriteArrayList<>();
    final CountDownLatch firstSample = new CountDownLatch(1);
    /** For each sample, how many rows had come before it. */
    private final List<Integer> rowsBeforeSample = new CopyOnWriteArrayList<>();

    @Override
    public void started(BenchInfo info) {
        started.incrementAndGet();
        changed();
    }

    @Override
    public void sample(LiveSample sample) {
        rowsBeforeSample.add(rows.size());
        samples.add(sample);
        firstSample.countDown();
        changed();
    }

    @Override
    public void row(BenchRow row) {
        rows.add(row);
        changed();
    }

    @Override
    public void note(String text) {
        notes.add(text);
        changed();
    }

    private synchronized void changed() {
        notifyAll();
    }

    /** Waits until {@code recorder} has {@code rows} rows; fails after 90 s. */
    static void awaitRows(RecordingListener recorder, int rows) throws InterruptedException {
        recorder.await(() -> recorder.rows.size() >= rows);
        assertTrue(recorder.rows.size() >= rows, "rows so far: " + recorder.rows);
    }

    /**
     * Waits until a live sample comes after the {@code rows}th row, so the run is inside the interval
     * after that row (samples come a few times an interval); fails after 90 s.
     */
    static void awaitSampleAfterRow(RecordingListener recorder, int rows) throws InterruptedException {
        BooleanSupplier sampled = () -> recorder.rowsBeforeSample.stream().anyMatch(before -> before >= rows);
        recorder.await(sampled);
        assertTrue(sampled.getAsBoolean(), "no sample after row " + rows + "; rows so far: " + recorder.rows);
    }

    private synchronized void await(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        long left;
        while (!condition.getAsBoolean() && (left = deadline - System.nanoTime()) > 0) {
            wait(Math.max(1, left / 1_000_000));
        }
    }
}
