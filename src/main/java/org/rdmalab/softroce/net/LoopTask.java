package org.rdmalab.softroce.net;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Work that callers hand to a device's loop again and again, made once: a QP's half of its posts
 * (the requester's and the responder's {@code admitPosted}). Like an rxe task, which is
 * scheduled at most once however often it is asked for, it waits in the loop's queue at most once
 * at a time ({@link EventLoop#executeOnce}); a run does the work of every hand-over since the last
 * one, so its work must be idempotent. A real loop ({@link UdpFabric}) links waiting tasks through
 * {@link #next}, so a hand-over allocates nothing (issue 8).
 *
 * <p>Threads: {@link #claim} on any thread; {@link #next} and {@link #release} belong to the loop's
 * queue.
 */
public final class LoopTask implements Runnable {

    private final Runnable work;
    private final AtomicBoolean queued = new AtomicBoolean();
    /** The next task in the loop's queue while this one waits there. */
    LoopTask next;

    public LoopTask(Runnable work) {
        this.work = work;
    }

    /** True when the caller may queue the task: it does not wait in the queue already. */
    boolean claim() {
        return !queued.get() && queued.compareAndSet(false, true);
    }

    /** The task left the queue and is about to run: a later hand-over queues it again. */
    void release() {
        queued.set(false);
    }

    @Override
    public void run() {
        work.run();
    }
}
