package org.rdmalab.verbs;

import java.util.concurrent.locks.LockSupport;

/**
 * How a thread waits between two empty polls of a CQ (or of anything else that another thread
 * fills): it spins for {@value #SPIN_NANOS} ns first, then parks for pauses that double from 1 µs
 * up to 100 µs. A completion that arrives while it spins is seen within a microsecond, as with
 * C's busy poll; a long wait costs little CPU, and since the spin is bounded a machine with fewer
 * cores than busy threads still runs the thread that produces the completion. The spin does not
 * call {@link Thread#yield}: on a loaded machine a yield gives the processor to another process
 * for a whole time slice. Not thread-safe: one per waiting thread.
 */
public final class PollBackoff {

    /** How long a waiter spins before it parks. */
    public static final long SPIN_NANOS = 50_000;
    private static final long FIRST_PAUSE_NANOS = 1_000;
    private static final long LONGEST_PAUSE_NANOS = 100_000;

    private boolean spinning;
    private long spinStart;
    private long pause;

    /** Waits a little after an empty poll: a spin step while the spin lasts, then a park. */
    public void idle() {
        if (pause == 0) {
            long now = System.nanoTime();
            if (!spinning) {
                spinning = true;
                spinStart = now;
            }
            if (now - spinStart < SPIN_NANOS) {
                Thread.onSpinWait();
                return;
            }
            pause = FIRST_PAUSE_NANOS;
        }
        LockSupport.parkNanos(pause);
        pause = Math.min(pause * 2, LONGEST_PAUSE_NANOS);
    }
}
