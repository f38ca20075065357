package org.rdmalab.softroce;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * A QP's send queue (rxe's {@code qp->sq}): a ring of posted work requests in posting order. The
 * {@link Requester} walks it from its own index, the {@link Completer} retires from its head.
 *
 * <p>Threads: the ring and its indexes live on the transport loop; {@link #used} counts the
 * occupied slots for {@code ibv_post_send}'s ENOMEM check on the caller's thread.
 */
final class SendQueue {

    final AtomicInteger used = new AtomicInteger();
    private final SendWqe[] ring;
    /** Index of the oldest work request not yet completed. */
    long head;
    /** Index one past the newest work request. */
    long tail;

    SendQueue(int depth) {
        this.ring = new SendWqe[Math.max(1, depth)];
    }

    SendWqe at(long index) {
        return ring[(int) (index % ring.length)];
    }

    boolean isEmpty() {
        return head == tail;
    }

    void add(SendWqe wqe) {
        ring[(int) (tail % ring.length)] = wqe;
        tail++;
    }

    /** Removes the head work request and frees its slot. */
    SendWqe removeHead() {
        int slot = (int) (head % ring.length);
        SendWqe wqe = ring[slot];
        ring[slot] = null;
        head++;
        used.decrementAndGet();
        return wqe;
    }

    /**
     * Forgets every work request (reset): no completions. Frees every slot, also those of posts
     * that have not reached the loop yet (they are dropped there); call under the QP's post lock.
     */
    void clear() {
        for (long i = head; i < tail; i++) {
            ring[(int) (i % ring.length)] = null;
        }
        head = tail = 0;
        used.set(0);
    }
}
