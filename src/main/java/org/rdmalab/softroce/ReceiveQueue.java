package org.rdmalab.softroce;

import java.util.ArrayDeque;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A QP's receive queue (rxe's {@code qp->rq}): posted receives in order, consumed by the
 * {@link Responder}.
 *
 * <p>Threads: the queue lives on the transport loop; {@link #used} counts the posted receives for
 * {@code ibv_post_recv}'s ENOMEM check on the caller's thread.
 */
final class ReceiveQueue {

    final AtomicInteger used = new AtomicInteger();
    private final ArrayDeque<RecvWqe> queue = new ArrayDeque<>();

    void add(RecvWqe wqe) {
        queue.add(wqe);
    }

    /** The oldest posted receive, removed, or null. */
    RecvWqe poll() {
        return queue.poll();
    }

    /**
     * Forgets every receive (reset): no completions. Frees every slot, also those of the receive
     * in use and of posts that have not reached the loop yet; call under the QP's post lock.
     */
    void clear() {
        queue.clear();
        used.set(0);
    }
}
