package org.rdmalab.softroce;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * A QP's send queue (rxe's {@code qp->sq}): a ring of work request slots, made with the QP and
 * reused, in posting order. As with rxe's queue in memory shared with the application, a post
 * writes its request into the slot at the producer index ({@link #posted}); the loop takes posted
 * slots into the queue proper ({@link #admit}, up to {@link #tail}); the {@link Requester} walks it
 * from its own index and the {@link Completer} retires from its {@link #head}.
 *
 * <p>A slot's lifetime: free, then filled by a post (caller's thread, under the QP's post lock),
 * then the loop's until the completer takes it off the head ({@link #removeHead}, counted free in
 * {@link #used}) and, having copied what the completion needs, posts the completion, as rxe
 * advances the consumer index before it posts the CQE. Nothing reads a slot once it is freed, so a
 * post never overwrites a request the loop still reads. Reused slots are why posting and completing
 * allocate nothing (issue 8).
 *
 * <p>Threads: {@link #used} (the ENOMEM check) and {@link #posted} are shared; the ring's
 * {@link #head}, {@link #tail} and the slots once posted live on the transport loop. A reset
 * ({@link #clear}) runs on the loop under the post lock, so no post is half done meanwhile.
 */
final class SendQueue {

    /** Slots taken: posted and not yet retired. */
    final AtomicInteger used = new AtomicInteger();
    private final SendWqe[] ring;
    /** Index one past the newest posted request; written under the post lock, read by the loop. */
    private volatile long posted;
    /** Index of the oldest work request not yet completed (loop). */
    long head;
    /** Index one past the newest work request the loop has taken in (loop). */
    long tail;

    SendQueue(int depth, int maxSge) {
        this.ring = new SendWqe[Math.max(1, depth)];
        for (int i = 0; i < ring.length; i++) {
            ring[i] = new SendWqe(maxSge);
        }
    }

    SendWqe at(long index) {
        return ring[(int) (index % ring.length)];
    }

    boolean isEmpty() {
        return head == tail;
    }

    /**
     * The free slot the next post fills (caller's thread, under the post lock, after it took a
     * slot in {@link #used}); {@link #publish} makes it visible to the loop.
     */
    SendWqe nextToPost() {
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
    SendWqe admit() {
        return at(tail++);
    }

    /**
     * Takes the head work request off the queue: what its completion needs must be copied first,
     * since its slot may be posted into again at once.
     */
    void removeHead() {
        at(head).release();
        head++;
        used.decrementAndGet();
    }

    /**
     * Forgets every work request (reset): no completions. Frees every slot, also those posted that
     * the loop has not taken in yet; call on the loop under the QP's post lock.
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
