package org.rdmalab.softroce.net;

/**
 * A task due at a deadline on an event loop's clock; ordered by deadline (compared as a
 * difference, so the order survives nanoTime wrap-around), then by the order it was scheduled.
 * Used by both the UDP loop and the simulated network; confined to its loop's thread.
 */
final class ScheduledTask implements EventLoop.Timer, Comparable<ScheduledTask> {

    final long deadline;
    final long sequence;
    final Runnable task;
    boolean cancelled;

    ScheduledTask(long deadline, long sequence, Runnable task) {
        this.deadline = deadline;
        this.sequence = sequence;
        this.task = task;
    }

    @Override
    public void cancel() {
        cancelled = true;
    }

    @Override
    public int compareTo(ScheduledTask other) {
        int byTime = Long.compare(deadline - other.deadline, 0);
        return byTime != 0 ? byTime : Long.compare(sequence, other.sequence);
    }
}
