package org.rdmalab.bench;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A benchmark in progress, started by {@link BenchEngine#start}. It runs on its own threads
 * ({@code rdmalab-bench-*}); {@link #result()} completes with the report, or exceptionally with a
 * {@link BenchException} whose message is one line for the user. {@link #stop()} ends it early from
 * any thread (a GUI's stop button): the measuring loops see the flag within a few microseconds, a
 * side waiting for its peer is interrupted, every socket and verbs object is closed, and the
 * result is the report of the sizes finished, marked {@link BenchReport#stopped()}.
 */
public final class BenchRun {

    private final AtomicBoolean stop = new AtomicBoolean();
    private final CompletableFuture<BenchReport> result = new CompletableFuture<>();
    private final List<Thread> threads = new CopyOnWriteArrayList<>();
    private final List<AutoCloseable> closeOnStop = new CopyOnWriteArrayList<>();

    BenchRun() {
    }

    /** Asks the run to end; returns at once. Idempotent. */
    public void stop() {
        if (stop.compareAndSet(false, true)) {
            for (AutoCloseable closeable : closeOnStop) {
                try {
                    closeable.close();
                } catch (Exception e) {
                    // Closing only unblocks a waiting side; the run reports what it had.
                }
            }
            for (Thread thread : threads) {
                thread.interrupt();
            }
        }
    }

    /** True once {@link #stop()} was called. */
    public boolean stopRequested() {
        return stop.get();
    }

    /** Completes with the report (or a {@link BenchException}) when the run ends. */
    public CompletableFuture<BenchReport> result() {
        return result;
    }

    /** True once the run has ended. */
    public boolean isDone() {
        return result.isDone();
    }

    /**
     * Waits up to {@code timeout} for the report.
     *
     * @throws BenchException when the run failed (its one-line message)
     * @throws TimeoutException when it is still running; it goes on (call {@link #stop()})
     */
    public BenchReport await(Duration timeout) throws BenchException, TimeoutException, InterruptedException {
        try {
            return result.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof BenchException bench) {
                throw bench;
            }
            throw new BenchException(String.valueOf(e.getCause().getMessage()), e.getCause());
        }
    }

    AtomicBoolean stopFlag() {
        return stop;
    }

    void track(Thread thread) {
        threads.add(thread);
        if (stop.get()) {
            thread.interrupt();
        }
    }

    void closeOnStop(AutoCloseable closeable) {
        closeOnStop.add(closeable);
        if (stop.get()) {
            try {
                closeable.close();
            } catch (Exception e) {
                // As in stop().
            }
        }
    }

    void complete(BenchReport report) {
        result.complete(report);
    }

    void fail(BenchException failure) {
        result.completeExceptionally(failure);
    }
}
