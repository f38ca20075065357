package org.rdmalab.testing;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * Waiting in tests for something that tells no one when it happens (a thread's state, a counter, a
 * line another process writes to a file): the condition is looked at every few milliseconds until
 * it holds, and the test fails when it has not held within the limit. Where the code offers a
 * listener, a latch or a future, tests wait on that instead.
 */
public final class Await {

    /** The pause between two looks at the condition. */
    private static final long LOOK_EVERY_NANOS = TimeUnit.MILLISECONDS.toNanos(5);

    private Await() {
    }

    /** Returns as soon as {@code condition} holds; fails naming {@code what} after {@code limit}. */
    public static void until(String what, Duration limit, BooleanSupplier condition) {
        long deadline = System.nanoTime() + limit.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out after " + limit.toMillis() + " ms waiting for " + what);
            }
            LockSupport.parkNanos(LOOK_EVERY_NANOS);
            if (Thread.interrupted()) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while waiting for " + what);
            }
        }
    }

    /**
     * Returns once {@code thread} waits with a timeout (in {@code Thread.sleep} or a timed park),
     * which a test uses to know that a retrying loop has failed once and waits to try again.
     */
    public static void untilTimedWaiting(String what, Duration limit, Thread thread) {
        until(what, limit, () -> thread.getState() == Thread.State.TIMED_WAITING);
    }
}
