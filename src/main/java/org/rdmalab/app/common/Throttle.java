package org.rdmalab.app.common;

import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * Runs an action at most once per interval however often it is asked for, and never leaves the
 * last request unanswered: asked again within the interval, it runs once more when the interval
 * has passed. A view that redraws on every change uses it to redraw a few times a second while a
 * packet storm changes it every frame; a single change after a quiet spell is shown at once.
 *
 * <p>One thread only (the JavaFX thread, or a test's).
 */
public final class Throttle {

    private final long intervalNanos;
    private final LongSupplier clock;
    private final Consumer<Runnable> afterInterval;
    private final Runnable action;
    private boolean ran;
    private long last;
    private boolean armed;

    /**
     * @param intervalNanos the least time between two runs (0: every request runs at once)
     * @param clock nanoseconds ({@code System::nanoTime})
     * @param afterInterval runs its task once the interval has passed (a pause transition in the
     *     window)
     * @param action what to run
     */
    public Throttle(long intervalNanos, LongSupplier clock, Consumer<Runnable> afterInterval, Runnable action) {
        this.intervalNanos = intervalNanos;
        this.clock = clock;
        this.afterInterval = afterInterval;
        this.action = action;
    }

    /** A throttle that runs {@code action} at every request, at once. */
    public static Throttle never(Runnable action) {
        return new Throttle(0, () -> 0, Runnable::run, action);
    }

    /**
     * Runs the action now when it last ran at least the interval ago; otherwise once more after
     * the interval (a run already waiting answers this request too).
     */
    public void request() {
        if (armed) {
            return;
        }
        long now = clock.getAsLong();
        if (!ran || now - last >= intervalNanos) {
            run(now);
            return;
        }
        armed = true;
        afterInterval.accept(() -> {
            armed = false;
            run(clock.getAsLong());
        });
    }

    /** Runs the action now, whenever it last ran (a change the user asked for); a run waiting still comes. */
    public void now() {
        run(clock.getAsLong());
    }

    private void run(long now) {
        ran = true;
        last = now;
        action.run();
    }
}
