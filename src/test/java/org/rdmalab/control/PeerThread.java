package org.rdmalab.control;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/** The other side of a socket test, on one named thread that is always stopped. */
public final class PeerThread<T> implements AutoCloseable {

    private final ExecutorService executor;
    private final Future<T> future;

    private PeerThread(String name, Callable<T> body) {
        executor = Executors.newSingleThreadExecutor(runnable -> {
            Thread thread = new Thread(runnable, "test-peer-" + name);
            thread.setDaemon(true);
            return thread;
        });
        future = executor.submit(body);
    }

    /** Runs {@code body} on a thread named {@code test-peer-<name>}. */
    public static <T> PeerThread<T> start(String name, Callable<T> body) {
        return new PeerThread<>(name, body);
    }

    /** The body's result, or its exception, within {@code timeout}. */
    public T result(Duration timeout) throws Exception {
        try {
            return future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Exception cause) {
                throw cause;
            }
            throw e;
        }
    }

    /** Stops the thread (interrupting it) and waits briefly for it to end. */
    @Override
    public void close() throws InterruptedException {
        executor.shutdownNow();
        executor.awaitTermination(5, TimeUnit.SECONDS);
    }
}
