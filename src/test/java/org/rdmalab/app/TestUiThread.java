package org.rdmalab.app;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.rdmalab.testing.Await;

/**
 * A single thread standing in for the JavaFX thread in the view-model tests: view models are made
 * and read on it, and waits poll a condition on it.
 */
public final class TestUiThread implements Executor {

    private final ExecutorService thread = Executors.newSingleThreadExecutor(runnable -> new Thread(runnable, "test ui"));
    private final Duration callLimit;

    /** {@code callLimit}: how long one call on the thread may take before the test fails. */
    public TestUiThread(Duration callLimit) {
        this.callLimit = callLimit;
    }

    @Override
    public void execute(Runnable command) {
        thread.execute(command);
    }

    /** Runs {@code action} on the thread and returns its result. */
    public <T> T call(Callable<T> action) {
        try {
            return thread.submit(action).get(callLimit.toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    /** Polls {@code condition} on the thread until it holds; fails naming {@code what} after 30 s. */
    public void await(String what, BooleanSupplier condition) {
        Await.until(what, Duration.ofSeconds(30), () -> call(condition::getAsBoolean));
    }

    /** Ends the thread; false when it did not end within 5 s. */
    public boolean stop() throws InterruptedException {
        thread.shutdown();
        return thread.awaitTermination(5, TimeUnit.SECONDS);
    }
}
