package org.rdmalab.softroce.net;

import java.time.Duration;
import java.util.concurrent.Callable;
import org.rdmalab.verbs.Errno;
import org.rdmalab.verbs.VerbsException;

/**
 * What owns a device's transport state: every QP's requester and responder, its timers and its
 * link. One thread at a time is "on the loop" ({@link #inLoop}); only that thread touches the
 * state, so the protocol code needs no locks. Other threads hand work over with {@link #execute}.
 *
 * <p>A real loop ({@link UdpFabric}) has a thread of its own that waits for datagrams, tasks and
 * timers, but a thread that is about to wait for the device anyway may take the loop while it is
 * free and do the work itself ({@link #runOrExecute}, {@link #progress}): a post then sends its
 * packets from the caller's thread, and an empty {@code ibv_poll_cq} reads the socket itself, as
 * Linux's busy polling lets a waiting application drive the NIC's receive queue. That saves the
 * two thread hand-offs per round trip that otherwise dominate a software device's latency. A
 * simulation has one thread and keeps the defaults.
 */
public interface EventLoop {

    /** The loop's clock in nanoseconds (virtual in simulations). */
    long nanoTime();

    /** Runs {@code task} on the loop, after the tasks already handed over. Thread-safe. */
    void execute(Runnable task);

    /** Runs {@code task} on the loop after {@code delayNanos}; call on the loop only ({@link #inLoop}). */
    Timer schedule(long delayNanos, Runnable task);

    /** True on the thread that is on the loop now (always true in a simulation, which has one thread). */
    boolean inLoop();

    /**
     * Runs {@code task} on the loop, as {@link #execute} does, unless it waits there already: a
     * task made once and handed over again and again (a QP's posts) is queued at most once at a
     * time, and a real loop queues it without allocating. Thread-safe.
     */
    default void executeOnce(LoopTask task) {
        if (task.claim()) {
            execute(() -> {
                task.release();
                task.run();
            });
        }
    }

    /**
     * Runs {@code task} on the calling thread when the loop is free to be taken now (after the
     * tasks already handed over, and followed by one non-blocking turn of the loop), otherwise
     * hands it over as {@link #executeOnce} does. Thread-safe; never waits.
     */
    default void runOrExecute(LoopTask task) {
        executeOnce(task);
    }

    /**
     * As {@link #runOrExecute}, but the caller's turn ends with {@code task}: it reads no datagram.
     * For work that sends nothing (a receive post): a busy poller reads the socket in its next poll
     * anyway, and an empty read here would only lengthen the post (a system call, about half a
     * microsecond, between a ping-pong's RECV completion and its answer).
     */
    default void runOrExecuteBriefly(LoopTask task) {
        runOrExecute(task);
    }

    /**
     * Lends the calling thread to the loop for one non-blocking turn (handed-over tasks, waiting
     * datagrams, due timers) when the loop is free to be taken now; a thread that busy-waits for
     * the device calls it. Thread-safe; never waits.
     *
     * @return true when the turn did some work
     */
    default boolean progress() {
        return false;
    }

    /**
     * True during a busy-polling caller's {@link #progress} turn (on the loop only): a plain ACK
     * made now may wait until that caller's next packet or next turn, so that the answer it is
     * about to post leaves first and the ACK's send is off the round trip.
     */
    default boolean holdingReplies() {
        return false;
    }

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
