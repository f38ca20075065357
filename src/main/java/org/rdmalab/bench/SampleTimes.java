package org.rdmalab.bench;

import java.util.Arrays;

/**
 * The times one side's loops stamp, for {@link BandwidthStats} and {@link LatencyStats}: when each
 * message was posted ({@link System#nanoTime}, by its number in post order) and when its completion
 * was seen, or, for a latency run, the time between two posts. The arrays grow as a size needs and
 * are kept for the next size, so a run allocates them once for its largest count.
 *
 * <p>One thread uses an instance.
 */
final class SampleTimes {

    /** When each message was posted; grown by {@link #ensureCapacity}, so read it again after that. */
    long[] postTimes = new long[0];
    /** When each message's completion was seen (bandwidth), or the time between two posts (latency). */
    long[] completionTimes = new long[0];

    /** Room for {@code wanted} messages in both arrays, their times so far kept. */
    void ensureCapacity(long wanted) {
        if (wanted > Integer.MAX_VALUE - 8) {
            throw new IllegalStateException("too many messages to keep their times");
        }
        if (postTimes.length < wanted) {
            postTimes = Arrays.copyOf(postTimes, (int) wanted);
            completionTimes = Arrays.copyOf(completionTimes, (int) wanted);
        }
    }

    /** The time between posts {@code k} and {@code k + 1} into {@code completionTimes[k]}, for k < {@code count}. */
    void postIntervals(int count) {
        for (int k = 0; k < count; k++) {
            completionTimes[k] = postTimes[k + 1] - postTimes[k];
        }
    }
}
