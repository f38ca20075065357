package org.rdmalab.bench;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/**
 * Heap allocation and garbage collection of this process over a stretch of a run, from the JVM's
 * own counters: {@code com.sun.management.ThreadMXBean.getThreadAllocatedBytes} summed over every
 * live thread, and the collection counts and times of every {@link GarbageCollectorMXBean}. Bytes
 * allocated by a thread that ended during the stretch are not counted.
 */
public final class ResourceMeter {

    /**
     * The counters at one moment.
     *
     * @param allocatedBytes bytes allocated so far by the live threads, or -1 when the JVM cannot say
     * @param gcCount collections so far
     * @param gcMillis milliseconds spent collecting so far
     */
    public record Snapshot(long allocatedBytes, long gcCount, long gcMillis) {
    }

    /**
     * What happened between two snapshots.
     *
     * @param allocatedBytes bytes allocated (-1 when unknown)
     * @param messages messages moved in that time
     * @param gcCount collections
     * @param gcMillis milliseconds spent collecting
     */
    public record Usage(long allocatedBytes, long messages, long gcCount, long gcMillis) {

        /** Bytes allocated per message, or -1 when unknown. */
        public double bytesPerMessage() {
            return allocatedBytes < 0 || messages <= 0 ? -1 : (double) allocatedBytes / messages;
        }
    }

    private ResourceMeter() {
    }

    /** The counters now. */
    public static Snapshot snapshot() {
        long allocated = -1;
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        if (threads instanceof com.sun.management.ThreadMXBean counting && counting.isThreadAllocatedMemorySupported()
                && counting.isThreadAllocatedMemoryEnabled()) {
            long[] ids = threads.getAllThreadIds();
            long[] bytes = counting.getThreadAllocatedBytes(ids);
            allocated = 0;
            for (long value : bytes) {
                if (value > 0) {
                    allocated += value;
                }
            }
        }
        long count = 0;
        long millis = 0;
        for (GarbageCollectorMXBean collector : ManagementFactory.getGarbageCollectorMXBeans()) {
            count += Math.max(0, collector.getCollectionCount());
            millis += Math.max(0, collector.getCollectionTime());
        }
        return new Snapshot(allocated, count, millis);
    }

    /** What happened since {@code start}, over {@code messages} messages. */
    public static Usage since(Snapshot start, long messages) {
        Snapshot end = snapshot();
        long allocated = start.allocatedBytes() < 0 || end.allocatedBytes() < 0 ? -1
                : Math.max(0, end.allocatedBytes() - start.allocatedBytes());
        return new Usage(allocated, messages, end.gcCount() - start.gcCount(), end.gcMillis() - start.gcMillis());
    }
}
