package org.rdmalab.bench;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/** A listener that keeps what a run told it, for tests to wait on and look at. */
final class RecordingListener implements BenchListener {

    private static final Duration WAIT = Duration.ofSeconds(90);

    final AtomicInteger started = new AtomicInteger();
    final List<LiveSample> samples = new CopyOnWriteArrayList<>();
    final List<BenchRow> rows = new CopyOnWriteArrayList<>();
    final List<String> notes = new CopyOnWriteArrayList<>();
    final CountDownLatch firstSample = new CountDownLatch(1);

    @Override
    public void started(BenchInfo info) {
        started.incrementAndGet();
    }

    @Override
    public void sample(LiveSample sample) {
        samples.add(sample);
        firstSample.countDown();
    }

    @Override
    public void row(BenchRow row) {
        rows.add(row);
    }

    @Override
    public void note(String text) {
        notes.add(text);
    }

    /** Waits until {@code recorder} has {@code rows} rows; fails after 90 s. */
    static void awaitRows(RecordingListener recorder, int rows) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (recorder.rows.size() < rows && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertTrue(recorder.rows.size() >= rows, "rows so far: " + recorder.rows);
    }
}
