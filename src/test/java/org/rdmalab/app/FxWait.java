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
}
