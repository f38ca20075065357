package org.rdmalab.bench;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import org.rdmalab.verbs.Context;
import org.rdmalab.verbs.VerbsException;

/**
 * Heap allocation and garbage collection of this process over a stretch of a run, from the JVM's
 * own counters: {@code com.sun.management.ThreadMXBean.getThreadAllocatedBytes} summed over every
 * live thread, and the collection counts and times of every {@link GarbageCollectorMXBean}. Bytes
 * allocated by a thread that ended during the stretch are not counted. With a device context, also
 * what its port's hardware counters ({@link Context#queryCounters()}: rxe's {@code hw_counters},
 * soft0's same names) moved: retransmissions, duplicates and sequence errors explain a slow run.
 */
public final class ResourceMeter {

    /**
     * The counters at one moment.
     *
     * @param allocatedBytes bytes allocated so far by the live threads, or -1 when the JVM cannot say
     * @param gcCount collections so far
     * @param gcMillis milliseconds spent collecting so far
     * @param counters the device's counters by name, empty when not asked for or the device has none
     */
    public record Snapshot(long allocatedBytes, long gcCount, long gcMillis, Map<String, Long> counters) {

        public Snapshot {
            counters = Collections.unmodifiableMap(new LinkedHashMap<>(counters));
        }
    }

    /**
     * What happened between two snapshots.
     *
     * @param allocatedBytes bytes allocated (-1 when unknown)
     * @param messages messages moved in that time
     * @param gcCount collections
     * @param gcMillis milliseconds spent collecting
     * @param counters the device counters that moved, by how much, in the device's order (empty when none did
     *                 or the device has none)
     */
    public record Usage(long allocatedBytes, long messages, long gcCount, long gcMillis, Map<String, Long> counters) {

        public Usage {
            counters = Collections.unmodifiableMap(new LinkedHashMap<>(counters));
        }

        /** Without device counters. */
        public Usage(long allocatedBytes, long messages, long gcCount, long gcMillis) {
            this(allocatedBytes, messages, gcCount, gcMillis, Map.of());
        }

        /** Bytes allocated per message, or -1 when unknown. */
        public double bytesPerMessage() {
            return allocatedBytes < 0 || messages <= 0 ? -1 : (double) allocatedBytes / messages;
        }
    }

    private ResourceMeter() {
    }

    /** The JVM's counters now. */
    public static Snapshot snapshot() {
        return snapshot(null);
    }

    /**
     * The JVM's counters and, unless {@code device} is null, the device's, now. The device is read
     * first, so what reading it allocates falls before the stretch this snapshot starts.
     */
    public static Snapshot snapshot(Context device) {
        Map<String, Long> counters = deviceCounters(device);
        return jvm(counters);
    }

    /** What happened since {@code start}, over {@code messages} messages. */
    public static Usage since(Snapshot start, long messages) {
        return since(start, null, messages);
    }

    /**
     * What happened since {@code start} (taken with {@code device}), over {@code messages} messages;
     * the JVM is read before the device, so reading the device is not counted either.
     */
    public static Usage since(Snapshot start, Context device, long messages) {
        Snapshot end = jvm(Map.of());
        Map<String, Long> now = deviceCounters(device);
        long allocated = start.allocatedBytes() < 0 || end.allocatedBytes() < 0 ? -1
                : Math.max(0, end.allocatedBytes() - start.allocatedBytes());
        Map<String, Long> moved = new LinkedHashMap<>();
        for (Map.Entry<String, Long> counter : now.entrySet()) {
            Long before = start.counters().get(counter.getKey());
            long delta = counter.getValue() - (before == null ? 0 : before);
            if (delta != 0) {
                moved.put(counter.getKey(), delta);
            }
        }
        return new Usage(allocated, messages, end.gcCount() - start.gcCount(), end.gcMillis() - start.gcMillis(),
                moved);
    }

    private static Map<String, Long> deviceCounters(Context device) {
        if (device == null) {
            return Map.of();
        }
        try {
            return device.queryCounters();
        } catch (VerbsException | RuntimeException e) {
            // A device whose counters cannot be read shows none.
            return Map.of();
        }
    }

    private static Snapshot jvm(Map<String, Long> counters) {
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
        return new Snapshot(allocated, count, millis, counters);
    }
}
