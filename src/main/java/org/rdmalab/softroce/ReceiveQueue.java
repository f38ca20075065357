package org.rdmalab.softroce;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * A QP's receive queue (rxe's {@code qp->rq}): a ring of receive slots, made with the QP and
 * reused, in posting order, consumed by the {@link Responder}. As with the {@link SendQueue}, a
 * post writes into the slot at the producer index ({@link #posted}); the loop takes posted slots in
 * ({@link #admit}); the responder uses the {@link #head} receive until it completes; then it
 * frees the slot ({@link #removeHead}, counted free in {@link #used}) and only after that posts the
 * completion, as rxe advances the consumer index before it posts the CQE, so an application that
 * reposts for each completion never finds the queue full. Nothing reads a slot once it is freed,
 * so a post never overwrites a receive the loop still reads, and posting and completing allocate
 * nothing (issue 8).
 *
 * <p>Threads: {@link #used} (the ENOMEM check) and {@link #posted} are shared; {@link #head},
 * {@link #tail} and the slots once posted live on the transport loop. A reset ({@link #clear})
 * runs on the loop under the post lock.
 */
final class ReceiveQueue {

    /** Slots taken: posted and not yet completed. */
    final AtomicInteger used = new AtomicInteger();
    private final RecvWqe[] ring;
    /** Index one past the newest posted receive; written under the post lock, read by the loop. */
    private volatile long posted;
    /** Index of the oldest receive not yet completed (loop). */
    private long head;
    /** Index one past the newest receive the loop has taken in (loop). */
    private long tail;

    ReceiveQueue(int depth, int maxSge) {
        this.ring = new RecvWqe[Math.max(1, depth)];
        for (int i = 0; i < ring.length; i++) {
            ring[i] = new RecvWqe(maxSge);
        }
    }

    private RecvWqe at(long index) {
        return ring[(int) (index % ring.length)];
    }

    /** The free slot the next post fills (under the post lock, after it took a slot in {@link #used}). */
    RecvWqe nextToPost() {
        return at(posted);
    }

    /** The slot from {@link #nextToPost} is filled: the loop may take it (under the post lock). */
    void publish() {
        posted = posted + 1;
    }

    /** True while posted receives wait for the loop to take them in (loop). */
    boolean hasPosted() {
        return tail != posted;
    }

    /** Takes the oldest posted receive into the queue and returns it (loop; {@link #hasPosted} first). */
    RecvWqe admit() {
        return at(tail++);
    }

    /** The oldest receive not yet completed, or null (loop). */
    RecvWqe head() {
        return head == tail ? null : at(head);
    }

    /** The head receive is done: its completion must already be made, since its slot may be posted into at once. */
    void removeHead() {
        at(head).release();
        head++;
        used.decrementAndGet();
    }

    /**
     * Forgets every receive (reset): no completions. Frees every slot, also those of the receive
     * in use and of posts the loop has not taken in yet; call on the loop under the QP's post lock.
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
