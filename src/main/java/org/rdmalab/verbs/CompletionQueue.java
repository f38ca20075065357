package org.rdmalab.verbs;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.locks.LockSupport;

/**
 * {@code struct ibv_cq}. A CQ is bounded: when a completion finds it full the CQ overflows, which
 * is an error (the QPs using it go to ERR), never a silent drop.
 */
public interface CompletionQueue extends AutoCloseable {

    /**
     * The number of entries the device granted ({@code cq->cqe}), which may be more than asked
     * for: rxe rounds up to {@code 2^k - 1}, NICs to their own sizes.
     */
    int capacity();

    /** The channel it reports to, or null. */
    CompletionChannel channel();

    /** {@code ibv_poll_cq}: takes up to {@code maxEntries} completions, oldest first; never blocks. */
    List<WorkCompletion> poll(int maxEntries) throws VerbsException;

    /**
     * {@code ibv_poll_cq} into a buffer the caller keeps, as C polls into its own {@code ibv_wc}
     * array: takes up to {@code into.capacity()} completions, oldest first, and never blocks. What
     * the buffer held before is replaced; it holds the returned number of entries. Neither
     * backend allocates for the result, where {@link #poll(int)} returns a new list (and, on the
     * native backend, a new record per completion). Fails as {@link #poll(int)} does, with the
     * same exceptions, and then leaves the buffer empty.
     *
     * @return how many completions were taken (0 when the CQ was empty)
     */
    default int poll(CompletionBuffer into) throws VerbsException {
        into.clear();
        List<WorkCompletion> completions = poll(into.capacity());
        for (WorkCompletion completion : completions) {
            into.add(completion);
        }
        return into.size();
    }

    /** {@code ibv_req_notify_cq}: arms the CQ so the next completion raises a channel event. */
    void requestNotify(boolean solicitedOnly) throws VerbsException;

    /** {@code ibv_ack_cq_events}. */
    void ackEvents(int count);

    /**
     * Polls one completion until {@code timeout} passes, as the seed's {@code poll_completion}
     * does with MAX_POLL_CQ_TIMEOUT; empty when none arrived in time.
     */
    default Optional<WorkCompletion> pollOne(Duration timeout) throws VerbsException {
        long deadline = System.nanoTime() + timeout.toNanos();
        long pause = 1_000;
        while (true) {
            List<WorkCompletion> completions = poll(1);
            if (!completions.isEmpty()) {
                return Optional.of(completions.get(0));
            }
            if (System.nanoTime() - deadline >= 0) {
                return Optional.empty();
            }
            LockSupport.parkNanos(pause);
            // Back off to at most 100 µs: close to C's busy poll in latency without burning a core.
            pause = Math.min(pause * 2, 100_000);
        }
    }

    /**
     * Busy-polls into {@code into} until it holds at least one completion or {@code timeout}
     * passes, as C's {@code do { ne = ibv_poll_cq(cq, n, wc); } while (ne == 0)} does: it spins
     * briefly, then yields the core on each further empty poll (the machine may have fewer cores
     * than busy threads) but never sleeps, so a completion is seen as soon as it is there. A
     * software device also does its work on the polling thread while the CQ is empty. Allocates
     * nothing ({@link #poll(CompletionBuffer)}).
     *
     * @return how many completions {@code into} holds, or 0 when none arrived in time
     */
    default int busyPoll(CompletionBuffer into, Duration timeout) throws VerbsException {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (int idle = 0; ; idle++) {
            int polled = poll(into);
            if (polled > 0) {
                return polled;
            }
            if ((idle & 0xff) == 0xff && System.nanoTime() - deadline >= 0) {
                return 0;
            }
            pauseAfterEmptyPoll(idle);
        }
    }

    /** Empty polls in a row that {@link #busyPoll} spins through before each further one yields. */
    int SPINS_BEFORE_YIELD = 64;

    /**
     * The pause after the {@code idle}-th empty poll in a row (counted from 0), as
     * {@link #busyPoll} makes it: a spin for the first {@link #SPINS_BEFORE_YIELD}, then a
     * yield, never a sleep. Other busy waits that should wait as a CQ poll does (a benchmark's
     * UDP baseline) use it too.
     */
    static void pauseAfterEmptyPoll(int idle) {
        if (idle < SPINS_BEFORE_YIELD) {
            Thread.onSpinWait();
        } else {
            Thread.yield();
        }
    }

    /** {@code ibv_destroy_cq}; idempotent. */
    @Override
    void close();
}
