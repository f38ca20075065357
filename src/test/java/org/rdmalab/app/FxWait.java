package org.rdmalab.app;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import org.testfx.util.WaitForAsyncUtils;

/** Waits in the window tests: for a condition the workers make true, then for the JavaFX thread to settle. */
public final class FxWait {

    private FxWait() {
    }

    /** Waits up to {@code seconds} for {@code condition}; a timeout fails the test naming {@code what}. */
    public static void waitFor(String what, long seconds, BooleanSupplier condition) {
        waitFor(() -> what, seconds, condition);
    }

    /**
     * Like {@link #waitFor(String, long, BooleanSupplier)}, with {@code what} read only on a timeout,
     * so that the failure can say what was there instead.
     */
    public static void waitFor(java.util.function.Supplier<String> what, long seconds, BooleanSupplier condition) {
        try {
            WaitForAsyncUtils.waitFor(seconds, TimeUnit.SECONDS, condition::getAsBoolean);
        } catch (TimeoutException e) {
            throw new AssertionError("timed out waiting for " + what.get(), e);
        }
        pulse();
    }

    /**
     * Waits for the end of the next pulse: what the JavaFX thread was given before has run, and
     * what it changed has had its CSS and layout.
     */
    public static void pulse() {
        afterNextPulse(() -> null);
    }

    /**
     * Like {@link #waitFor}, but reads {@code condition} on the JavaFX thread: for a condition that
     * walks the scene graph, which a lookup from the test's thread may find half-changed (a list's
     * cells being laid out).
     */
    public static void waitForOnFx(String what, long seconds, BooleanSupplier condition) {
        waitFor(what, seconds, () -> onFx(condition::getAsBoolean));
    }

    /**
     * {@code work}'s answer, computed on the JavaFX thread, where the layout lives; an assertion
     * that fails there fails the test as it is.
     */
    public static <T> T onFx(java.util.concurrent.Callable<T> work) {
        return answer(WaitForAsyncUtils.asyncFx(work), "the JavaFX thread did not answer");
    }

    /** {@code future}'s value within 10 s; an assertion that failed in it fails the test as it is. */
    private static <T> T answer(java.util.concurrent.Future<T> future, String silence) {
        try {
            return future.get(10, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof AssertionError failure) {
                throw failure;
            }
            throw new AssertionError(e.getCause());
        } catch (InterruptedException | TimeoutException e) {
            throw new AssertionError(silence, e);
        }
    }

    /**
     * {@code read}'s answer on the JavaFX thread right after the next pulse (once that pulse's CSS
     * and layout are done); fails when no pulse comes within 10 s.
     */
    public static <T> T afterNextPulse(java.util.concurrent.Callable<T> read) {
        java.util.concurrent.CompletableFuture<T> seen = new java.util.concurrent.CompletableFuture<>();
        javafx.application.Platform.runLater(() -> new javafx.animation.AnimationTimer() {
            @Override
            public void handle(long now) {
                stop();
                // Runs after this pulse, once its CSS and layout are done.
                javafx.application.Platform.runLater(() -> {
                    try {
                        seen.complete(read.call());
                    } catch (Exception | AssertionError e) {
                        seen.completeExceptionally(e);
                    }
                });
            }
        }.start());
        return answer(seen, "no pulse came");
    }

    /**
     * Lets layout and CSS settle: pulse after pulse until {@code boxes} (read after each pulse) stays
     * the same over {@code stillPulses} pulses in a row, at most {@code maxPulses}.
     */
    public static void settle(java.util.concurrent.Callable<String> boxes, int stillPulses, int maxPulses) {
        String before = afterNextPulse(boxes);
        int still = 0;
        for (int pulse = 0; pulse < maxPulses && still < stillPulses; pulse++) {
            String now = afterNextPulse(boxes);
            still = now.equals(before) ? still + 1 : 0;
            before = now;
        }
    }
}
