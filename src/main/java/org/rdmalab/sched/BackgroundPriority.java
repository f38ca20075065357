package org.rdmalab.sched;

import java.util.OptionalInt;

/**
 * Whether this process's background threads yield the processor to the window. The window's
 * launchers call {@link #yieldToWindow()} once; from then on a thread that does background work
 * (soft0's device loops, the lab's workers, the capture writer) lowers its own priority when it
 * starts ({@link #applyHere()}, {@link #yielding(Runnable)}). On a machine with few cores the
 * JavaFX thread then gets a core first when it has a frame to make, and the device threads take
 * what is left; they still get all of an idle core. Nothing else calls {@code yieldToWindow}: the
 * command line's {@code bench} and {@code demo} keep every thread at normal priority, so their
 * figures do not change. Where the operating system cannot lower one thread ({@link ThreadNice}),
 * every method is a no-op.
 *
 * <p>Background threads run {@value #DEFAULT_STEPS} nice steps below the thread that asked (the
 * launcher's, which runs at the process's priority; at most nice 19) unless
 * {@code -Drdmalab.backgroundNice=N} (0 to 19; 0 leaves every thread at the process's priority)
 * says otherwise. The JIT's compiler threads keep their priority: lowering them as well gained
 * nothing measurable (docs/ladder.md).
 *
 * <p>Threads: any thread may call any method; the setting is one volatile field.
 */
public final class BackgroundPriority {

    /** How many nice steps below the window background threads run, by default. */
    public static final int DEFAULT_STEPS = 10;

    private static final BackgroundPriority PROCESS = new BackgroundPriority();

    /** The nice value a background thread takes as it starts; -1 while nothing asked to yield. */
    private volatile int nice = -1;

    BackgroundPriority() {
    }

    /** The process's setting, which the window's launchers turn on. */
    public static BackgroundPriority process() {
        return PROCESS;
    }

    /**
     * From now on background threads that start run {@code rdmalab.backgroundNice}
     * ({@value #DEFAULT_STEPS} by default) nice steps below the calling thread. Called by the
     * window's launchers only.
     */
    public static void yieldToWindow() {
        PROCESS.yieldBelowCaller(property("rdmalab.backgroundNice", DEFAULT_STEPS));
    }

    /**
     * Background threads that start from now on run {@code steps} nice steps below the calling
     * thread (at most nice 19); 0 steps, or a platform where nothing can be lowered, leaves them
     * at the priority they inherit.
     */
    void yieldBelowCaller(int steps) {
        if (steps < 0 || steps > ThreadNice.MAX_NICE) {
            throw new IllegalArgumentException(steps + " nice steps is outside 0..19");
        }
        nice = steps == 0 ? -1 : below(steps);
    }

    /** The nice value {@code steps} below the calling thread's, at most 19; -1 where unknown. */
    private static int below(int steps) {
        OptionalInt tid = ThreadNice.currentTid();
        OptionalInt own = tid.isPresent() ? ThreadNice.niceOf(tid.getAsInt()) : OptionalInt.empty();
        return own.isPresent() ? Math.min(ThreadNice.MAX_NICE, own.getAsInt() + steps) : -1;
    }

    private static int property(String name, int fallback) {
        String value = System.getProperty(name);
        if (value == null) {
            return fallback;
        }
        try {
            int parsed = Integer.parseInt(value.strip());
            return parsed >= 0 && parsed <= ThreadNice.MAX_NICE ? parsed : fallback;
        } catch (NumberFormatException e) {
            return fallback;
        }
    }

    /** The nice value background threads take as they start; -1 when they keep the one they inherit. */
    public int nice() {
        return nice;
    }

    /**
     * Lowers the calling thread's priority if the window asked background threads to yield;
     * otherwise (the command line), does nothing.
     */
    public void applyHere() {
        int value = nice;
        if (value >= 0) {
            ThreadNice.lowerCurrent(value);
        }
    }

    /** {@code task} run on a thread that first {@linkplain #applyHere() yields if asked}; for thread factories. */
    public Runnable yielding(Runnable task) {
        return () -> {
            applyHere();
            task.run();
        };
    }
}
