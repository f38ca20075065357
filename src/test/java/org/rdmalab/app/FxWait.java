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
        try {
            WaitForAsyncUtils.waitFor(seconds, TimeUnit.SECONDS, condition::getAsBoolean);
        } catch (TimeoutException e) {
            throw new AssertionError("timed out waiting for " + what, e);
        }
        WaitForAsyncUtils.waitForFxEvents();
    }

    /**
     * {@code work}'s answer, computed on the JavaFX thread, where the layout lives; an assertion
     * that fails there fails the test as it is.
     */
    public static <T> T onFx(java.util.concurrent.Callable<T> work) {
        try {
            return WaitForAsyncUtils.asyncFx(work).get(10, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof AssertionError failure) {
                throw failure;
            }
            throw new AssertionError(e.getCause());
        } catch (InterruptedException | TimeoutException e) {
            throw new AssertionError("the JavaFX thread did not answer", e);
        }
    }
}
