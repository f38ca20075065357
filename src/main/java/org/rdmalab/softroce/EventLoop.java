package org.rdmalab.softroce;

import java.time.Duration;
import java.util.concurrent.Callable;
import org.rdmalab.verbs.Errno;
import org.rdmalab.verbs.VerbsException;

/**
 * The single thread (real or simulated) that owns a device's transport state: every QP's
 * requester and responder, its timers and its link. Other threads hand work to it with
 * {@link #execute}; only the loop itself may call {@link #schedule}.
 */
interface EventLoop {

    /** The loop's clock in nanoseconds (virtual in simulations). */
    long nanoTime();

    /** Runs {@code task} on the loop, after the tasks already handed over. Thread-safe. */
    void execute(Runnable task);

    /** Runs {@code task} on the loop after {@code delayNanos}; call on the loop only. */
    Timer schedule(long delayNanos, Runnable task);

    /** True on the loop's thread (always true in a simulation, which has one thread). */
    boolean inLoop();

    /** A pending timer. */
    interface Timer {
        /** Stops the timer if it has not run. */
        void cancel();
    }

    /**
     * Runs {@code task} on the loop and waits for its result, at most {@code timeout}; runs it
     * directly when already on the loop.
     *
     * @throws VerbsException ETIMEDOUT naming {@code verb} when the loop did not answer in time
     */
    default <T> T call(String verb, Duration timeout, Callable<T> task) throws VerbsException {
        if (inLoop()) {
            try {
                return task.call();
            } catch (VerbsException | RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
        java.util.concurrent.CompletableFuture<T> result = new java.util.concurrent.CompletableFuture<>();
        execute(() -> {
            try {
                result.complete(task.call());
            } catch (Throwable e) {
                result.completeExceptionally(e);
            }
        });
        try {
            return result.get(timeout.toNanos(), java.util.concurrent.TimeUnit.NANOSECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new VerbsException(verb, Errno.ETIMEDOUT, "the device's transport thread did not answer within "
                    + timeout.toMillis() + " ms");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new VerbsException(verb, Errno.EINTR, "interrupted while waiting for the transport thread");
        } catch (java.util.concurrent.ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof VerbsException verbs) {
                throw verbs;
            }
            if (cause instanceof RuntimeException runtime) {
                throw runtime;
            }
            if (cause instanceof Error error) {
                throw error;
            }
            throw new IllegalStateException(cause);
        }
    }
}
