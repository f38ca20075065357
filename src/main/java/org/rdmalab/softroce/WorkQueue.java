package org.rdmalab.softroce;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * A QP's work queue (rxe's {@code struct rxe_queue}, as {@code qp->sq} and {@code qp->rq}): a ring
 * of slots made with the QP and reused, in posting order. As with rxe's queue in memory shared with
 * the application, a post writes its request into the slot at the producer index
 * ({@link #nextToPost}, {@link #publish}); the loop takes posted slots into the queue proper
 * ({@link #admit}, up to {@link #tail}); the consumer (the {@link Requester} and {@link Completer}
 * for the send queue, the {@link Responder} for the receive queue) works from the {@link #head}.
 *
 * <p>A slot's lifetime: free, then filled by a post (caller's thread, under the QP's post lock,
 * after {@link #reserve} counted it taken), then the loop's until the consumer takes it off the head
 * ({@link #removeHead}, counted free again) and, having copied what the completion needs, posts the
 * completion, as rxe advances the consumer index before it posts the CQE: an application that
 * reposts for each completion never finds the queue full. Nothing reads a slot once it is freed, so
 * a post never overwrites a request the loop still reads. Reused slots are why posting and
 * completing allocate nothing (issue 8).
 *
 * <p>Threads: {@link #reserve} (the ENOMEM check) is thread-safe and the producer index is
 * written under the post lock and read by the loop; the ring's head, tail and the slots once
 * posted live on the transport loop. A reset ({@link #clear}) runs on the loop under the post
 * lock, so no post is half done meanwhile.
 *
 * @param <W> the slot: {@link SendWqe} or {@link RecvWqe}
 */
final class WorkQueue<W extends WorkQueue.Slot> {

    /** A reused slot of the ring. */
    interface Slot {
        /** The slot is free again: drop what it holds on to (called on the loop). */
        void release();
    }

    /** Slots taken: posted and not yet retired. */
    private final AtomicInteger used = new AtomicInteger();
    private final Object[] ring;
    /** Index one past the newest posted request; written under the post lock, read by the loop. */
    private volatile long posted;
    /** Index of the oldest request not yet retired (loop). */
    private long head;
    /** Index one past the newest request the loop has taken in (loop). */
    private long tail;

    /** A ring of {@code depth} slots (at least one), each made by {@code slot}. */
    WorkQueue(int depth, Supplier<W> slot) {
        this.ring = new Object[Math.max(1, depth)];
        for (int i = 0; i < ring.length; i++) {
            ring[i] = slot.get();
        }
    }

    /** The slot of ring index {@code index} (loop, for an index from {@link #head} to {@link #tail}). */
    @SuppressWarnings("unchecked")
    W at(long index) {
        return (W) ring[(int) (index % ring.length)];
    }

    /** Index of the oldest request not yet retired (loop). */
    long head() {
        return head;
    }

    /** Index one past the newest request the loop has taken in (loop). */
    long tail() {
        return tail;
    }

    /** True when the loop holds no request: every one taken in is retired (loop). */
    boolean isEmpty() {
        return head == tail;
    }

    /** The oldest request not yet retired, or null (loop). */
    W peek() {
        return head == tail ? null : at(head);
    }

    /**
     * Counts one more slot taken, unless {@code limit} are taken already (then the post answers
     * ENOMEM). Thread-safe. The loop frees slots as requests complete, concurrently: a
     * compare-and-set that lost to that is retried, never taken for a full queue (it was, and a
     * receiver reposting for each completion got ENOMEM with half of its queue free).
     *
     * @return false when the queue is full
     */
    boolean reserve(int limit) {
        int taken;
        do {
            taken = used.get();
            if (taken >= limit) {
                return false;
            }
        } while (!used.compareAndSet(taken, taken + 1));
        return true;
    }

    /**
     * The free slot the next post fills (caller's thread, under the post lock, after {@link #reserve}
     * counted it: a slot is counted until the loop is done with it, so this one is free now);
     * {@link #publish} makes it visible to the loop.
     */
    W nextToPost() {
        return at(posted);
    }

    /** The slot from {@link #nextToPost} is filled: the loop may take it (under the post lock). */
    void publish() {
        posted = posted + 1;
    }

    /** True while posted requests wait for the loop to take them in (loop). */
    boolean hasPosted() {
        return tail != posted;
    }

    /** Takes the oldest posted request into the queue and returns it (loop; {@link #hasPosted} first). */
    W admit() {
        return at(tail++);
    }

    /**
     * Takes the head request off the queue: what its completion needs must be copied (or the
     * completion made) first, since its slot may be posted into again at once.
     */
    void removeHead() {
        at(head).release();
        head++;
        used.decrementAndGet();
    }

    /**
     * Forgets every request (reset): no completions. Frees every slot, also that of a request in
     * use and those posted that the loop has not taken in yet; call on the loop under the QP's post
     * lock.
     */
    void clear() {
        for (long i = head; i < posted; i++) {
            at(i).release();
        }
        head = tail = 0;
        posted = 0;
        used.set(0);
    }
}
