package org.rdmalab.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.rdmalab.verbs.Mtu;

/**
 * What one benchmark measures, with perftest's option names in its error messages. Both sides of
 * a server/client run must use the same settings, as with perftest.
 *
 * @param test the verb (write, read, send, atomic)
 * @param mode bandwidth or latency
 * @param device the RDMA device ({@code -d}; soft0, rxe0, mlx5_0)
 * @param ibPort the device port ({@code -i}, default 1)
 * @param gidIndex the GID index ({@code -x}), or -1 to choose as perftest does
 * @param sizes message sizes in bytes, in the order they run (one, or the {@code -a} sweep)
 * @param iterations messages per size ({@code -n}); with {@code -a}, large sizes run fewer (see
 *     {@link #iterationsFor(int)})
 * @param durationSeconds run each size this long instead ({@code -D}); 0 for {@code -n}
 * @param mtu the path MTU ({@code -m}), or null for the port's active MTU
 * @param txDepth messages in flight ({@code -t}; perftest: 128 for bandwidth, 1 for latency)
 * @param reportGbits bandwidth in Gb/sec instead of MB/sec ({@code --report_gbits})
 * @param baseline also run the same pattern over plain UDP datagrams ({@code --baseline})
 * @param sweepByteBudget with {@code -a}, the most bytes one size moves (iterations are cut to fit)
 * @param runInfinitely a bandwidth test that runs until stopped and reports a row every
 *     {@code durationSeconds} ({@code --run_infinitely}; perftest reports every 5 seconds unless
 *     {@code -D} says otherwise)
 * @param bidirectional both sides send at once and each row is the sum of both directions
 *     ({@code -b}, perftest's duplex bandwidth)
 * @param qps connected QP pairs the traffic goes over ({@code -q}; bandwidth only): each QP keeps
 *     {@code -t} messages in flight and sends {@code -n} of them, as perftest's
 */
public record BenchSettings(BenchTest test, BenchMode mode, String device, int ibPort, int gidIndex,
                            List<Integer> sizes, int iterations, int durationSeconds, Mtu mtu, int txDepth,
                            boolean reportGbits, boolean baseline, long sweepByteBudget, boolean runInfinitely,
                            boolean bidirectional, int qps) {

    /** perftest's largest message (MAX_SIZE, 8 MiB); also the end of the {@code -a} sweep. */
    public static final int MAX_SIZE = 1 << 23;
    /** perftest's fewest iterations (MIN_ITER). */
    public static final int MIN_ITERATIONS = 5;
    /** The most iterations one size may run (perftest allows 10^8; the samples are kept in memory). */
    public static final int MAX_ITERATIONS = 10_000_000;
    /** The deepest send queue this tool asks for. */
    public static final int MAX_TX_DEPTH = 16384;
    /** perftest's default iterations. */
    public static final int DEFAULT_ITERATIONS_BW = 5000;
    public static final int DEFAULT_ITERATIONS_LAT = 1000;
    /** perftest's default sizes: 64 KiB for bandwidth, 2 bytes for latency. */
    public static final int DEFAULT_SIZE_BW = 65536;
    public static final int DEFAULT_SIZE_LAT = 2;
    /** perftest's default TX depth for bandwidth (latency tests keep one message in flight). */
    public static final int DEFAULT_TX_DEPTH_BW = 128;
    /** perftest's CQ moderation for bandwidth: one signaled completion per 100 messages. */
    public static final int DEFAULT_CQ_MOD = 100;
    /** With -a, each size moves at most this many bytes (256 MiB), so the sweep ends in minutes, not hours. */
    public static final long DEFAULT_SWEEP_BUDGET = 256L << 20;
    /** The most QPs {@code -q} asks for. */
    public static final int MAX_QPS = 64;
    /** perftest's report interval with {@code --run_infinitely} and no {@code -D} (DEF_DURATION). */
    public static final int DEFAULT_REPORT_INTERVAL = 5;

    public BenchSettings {
        Objects.requireNonNull(test, "test");
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(device, "device");
        sizes = List.copyOf(sizes);
        if (sizes.isEmpty()) {
            throw new IllegalArgumentException("no message size given (-s N or -a)");
        }
        for (int size : sizes) {
            checkSize(test, size);
        }
        if (ibPort < 1 || ibPort > 255) {
            throw new IllegalArgumentException("-i " + ibPort + ": the port number must be 1..255");
        }
        if (gidIndex < -1 || gidIndex > 255) {
            throw new IllegalArgumentException("-x " + gidIndex + ": the GID index must be 0..255");
        }
        if (durationSeconds < 0 || durationSeconds > 3600) {
            throw new IllegalArgumentException("-D " + durationSeconds + ": the duration must be 1..3600 seconds");
        }
        if (durationSeconds == 0 && (iterations < MIN_ITERATIONS || iterations > MAX_ITERATIONS)) {
            throw new IllegalArgumentException("-n " + iterations + ": iterations must be " + MIN_ITERATIONS + ".."
                    + MAX_ITERATIONS);
        }
        if (txDepth < 1 || txDepth > MAX_TX_DEPTH) {
            throw new IllegalArgumentException("-t " + txDepth + ": the TX depth must be 1.." + MAX_TX_DEPTH);
        }
        if (sweepByteBudget < 1) {
            throw new IllegalArgumentException("the sweep budget must be positive");
        }
        if (runInfinitely) {
            if (mode != BenchMode.BW) {
                throw new IllegalArgumentException("--run_infinitely is for bandwidth tests (--bw), as perftest's is");
            }
            if (sizes.size() != 1) {
                throw new IllegalArgumentException("--run_infinitely runs one size until stopped; give -s N, not -a");
            }
            if (baseline) {
                throw new IllegalArgumentException("--run_infinitely never ends a size, so the baseline would never run;"
                        + " drop --baseline");
            }
            if (durationSeconds < 1) {
                throw new IllegalArgumentException("--run_infinitely needs its report interval (-D SECONDS, default "
                        + DEFAULT_REPORT_INTERVAL + ")");
            }
        }
        if (qps < 1 || qps > MAX_QPS) {
            throw new IllegalArgumentException("-q " + qps + ": the number of QPs must be 1.." + MAX_QPS);
        }
        if (qps > 1 && mode != BenchMode.BW) {
            throw new IllegalArgumentException("-q is for bandwidth tests (--bw), as perftest's is; a latency"
                    + " test has one message in flight on one QP");
        }
        if (bidirectional && mode != BenchMode.BW) {
            throw new IllegalArgumentException("-b is for bandwidth tests (--bw), as perftest's is; a latency"
                    + " test is a ping-pong both ways already");
        }
    }

    private static void checkSize(BenchTest test, int size) {
        if (test == BenchTest.ATOMIC && size != BenchTest.ATOMIC_SIZE) {
            throw new IllegalArgumentException("-s " + size + ": atomic operations move " + BenchTest.ATOMIC_SIZE
                    + " bytes, so atomic tests take -s 8 (or no -s)");
        }
        if (size < 1 || size > MAX_SIZE) {
            throw new IllegalArgumentException("-s " + size + ": the message size must be 1.." + MAX_SIZE
                    + " bytes (8 MiB, perftest's largest)");
        }
    }

    /**
     * perftest's defaults for {@code test} and {@code mode}: one size (64 KiB for bandwidth, 2 bytes
     * for latency, 8 for atomics), its iterations, TX depth 128 for bandwidth and 1 for latency, soft0
     * port 1, GID chosen, the port's MTU.
     */
    public static BenchSettings defaults(BenchTest test, BenchMode mode) {
        int size = test == BenchTest.ATOMIC ? BenchTest.ATOMIC_SIZE
                : mode == BenchMode.BW ? DEFAULT_SIZE_BW : DEFAULT_SIZE_LAT;
        return new BenchSettings(test, mode, "soft0", 1, -1, List.of(size),
                mode == BenchMode.BW ? DEFAULT_ITERATIONS_BW : DEFAULT_ITERATIONS_LAT, 0, null,
                mode == BenchMode.BW ? DEFAULT_TX_DEPTH_BW : 1, false, false, DEFAULT_SWEEP_BUDGET, false, false, 1);
    }

    /** perftest's {@code -a}: 2, 4, ... 2^23 bytes (atomics: 8 only). */
    public static List<Integer> sweep(BenchTest test) {
        if (test == BenchTest.ATOMIC) {
            return List.of(BenchTest.ATOMIC_SIZE);
        }
        List<Integer> sizes = new ArrayList<>();
        for (int size = 2; size <= MAX_SIZE; size <<= 1) {
            sizes.add(size);
        }
        return sizes;
    }

    public BenchSettings withDevice(String value) {
        return new BenchSettings(test, mode, value, ibPort, gidIndex, sizes, iterations, durationSeconds, mtu,
                txDepth, reportGbits, baseline, sweepByteBudget, runInfinitely, bidirectional, qps);
    }

    public BenchSettings withPort(int value) {
        return new BenchSettings(test, mode, device, value, gidIndex, sizes, iterations, durationSeconds, mtu,
                txDepth, reportGbits, baseline, sweepByteBudget, runInfinitely, bidirectional, qps);
    }

    public BenchSettings withGidIndex(int value) {
        return new BenchSettings(test, mode, device, ibPort, value, sizes, iterations, durationSeconds, mtu,
                txDepth, reportGbits, baseline, sweepByteBudget, runInfinitely, bidirectional, qps);
    }

    public BenchSettings withSizes(List<Integer> value) {
        return new BenchSettings(test, mode, device, ibPort, gidIndex, value, iterations, durationSeconds, mtu,
                txDepth, reportGbits, baseline, sweepByteBudget, runInfinitely, bidirectional, qps);
    }

    public BenchSettings withIterations(int value) {
        return new BenchSettings(test, mode, device, ibPort, gidIndex, sizes, value, durationSeconds, mtu,
                txDepth, reportGbits, baseline, sweepByteBudget, runInfinitely, bidirectional, qps);
    }

    public BenchSettings withDuration(int seconds) {
        return new BenchSettings(test, mode, device, ibPort, gidIndex, sizes, iterations, seconds, mtu,
                txDepth, reportGbits, baseline, sweepByteBudget, runInfinitely, bidirectional, qps);
    }

    public BenchSettings withMtu(Mtu value) {
        return new BenchSettings(test, mode, device, ibPort, gidIndex, sizes, iterations, durationSeconds, value,
                txDepth, reportGbits, baseline, sweepByteBudget, runInfinitely, bidirectional, qps);
    }

    public BenchSettings withTxDepth(int value) {
        return new BenchSettings(test, mode, device, ibPort, gidIndex, sizes, iterations, durationSeconds, mtu,
                value, reportGbits, baseline, sweepByteBudget, runInfinitely, bidirectional, qps);
    }

    public BenchSettings withReportGbits(boolean value) {
        return new BenchSettings(test, mode, device, ibPort, gidIndex, sizes, iterations, durationSeconds, mtu,
                txDepth, value, baseline, sweepByteBudget, runInfinitely, bidirectional, qps);
    }

    public BenchSettings withBaseline(boolean value) {
        return new BenchSettings(test, mode, device, ibPort, gidIndex, sizes, iterations, durationSeconds, mtu,
                txDepth, reportGbits, value, sweepByteBudget, runInfinitely, bidirectional, qps);
    }

    public BenchSettings withSweepByteBudget(long value) {
        return new BenchSettings(test, mode, device, ibPort, gidIndex, sizes, iterations, durationSeconds, mtu,
                txDepth, reportGbits, baseline, value, runInfinitely, bidirectional, qps);
    }

    /**
     * The same settings running until stopped ({@code --run_infinitely}), a row every {@code seconds};
     * or, with false, back to a run of {@link #iterations} (the interval dropped).
     */
    public BenchSettings withRunInfinitely(boolean value, int seconds) {
        return new BenchSettings(test, mode, device, ibPort, gidIndex, sizes, iterations, value ? seconds : 0, mtu,
                txDepth, reportGbits, baseline, sweepByteBudget, value, bidirectional, qps);
    }

    /** The same settings over {@code count} QPs ({@code -q}). */
    public BenchSettings withQps(int count) {
        return new BenchSettings(test, mode, device, ibPort, gidIndex, sizes, iterations, durationSeconds, mtu,
                txDepth, reportGbits, baseline, sweepByteBudget, runInfinitely, bidirectional, count);
    }

    /** The same settings with both sides sending at once ({@code -b}), or not. */
    public BenchSettings withBidirectional(boolean value) {
        return new BenchSettings(test, mode, device, ibPort, gidIndex, sizes, iterations, durationSeconds, mtu,
                txDepth, reportGbits, baseline, sweepByteBudget, runInfinitely, value, qps);
    }

    /** True when each size runs for {@link #durationSeconds} rather than a number of iterations. */
    public boolean timed() {
        return durationSeconds > 0;
    }

    /**
     * The iterations measured at {@code size}: {@link #iterations}, cut so that one size moves at most
     * {@link #sweepByteBudget} bytes when several sizes run (never below {@link #MIN_ITERATIONS}).
     */
    public int iterationsFor(int size) {
        if (sizes.size() == 1) {
            return iterations;
        }
        long fit = sweepByteBudget / size;
        return (int) Math.max(MIN_ITERATIONS, Math.min(iterations, fit));
    }

    /**
     * Iterations run before the measured ones, whose times are dropped (caches warm up, and the
     * JIT compiles the packet path: a Java device such as soft0 runs its first tens of thousands
     * of packets interpreted or lightly compiled): {@value #WARMUP_LIMIT}, but at most
     * {@value #WARMUP_BYTES} bytes of messages and at least 10, whatever {@code -n} is. (As many as
     * were measured was too few: after 5 000 64 KiB WRITEs soft0 still ran at half its speed, and
     * reached it only some 10 000 messages in.)
     */
    public int warmupFor(int size) {
        long byBytes = WARMUP_BYTES / Math.max(1, size);
        return (int) Math.max(10, Math.min(Integer.getInteger(WARMUP_LIMIT_PROPERTY, WARMUP_LIMIT), byBytes));
    }

    /** The most warm-up iterations per size. */
    public static final int WARMUP_LIMIT = 10_000;
    /**
     * A JVM property that sets the most warm-up iterations per size instead of
     * {@value #WARMUP_LIMIT} (at least 10 still run). The test suite sets it low: its runs check
     * what a run reports, not how fast soft0 is, and the full warm-up was most of their time
     * (docs/testing.md). Both sides of a run read their own.
     */
    public static final String WARMUP_LIMIT_PROPERTY = "rdmalab.bench.warmupLimit";
    /** The most bytes of warm-up messages per size. */
    public static final long WARMUP_BYTES = 1L << 30;

    /** Signaled completions: one per {@link #DEFAULT_CQ_MOD} messages (never more than the TX depth); 1 for latency. */
    public int cqModeration() {
        return mode == BenchMode.LAT ? 1 : Math.max(1, Math.min(DEFAULT_CQ_MOD, txDepth));
    }

    /** The largest size that runs. */
    public int maxSize() {
        int max = 0;
        for (int size : sizes) {
            max = Math.max(max, size);
        }
        return max;
    }

    /**
     * The words both sides compare before they run, so two sides started with different options
     * stop with a clear message instead of measuring nonsense.
     */
    public String agreement() {
        return test.cliName() + " " + mode.name().toLowerCase(java.util.Locale.ROOT) + " sizes " + sizes.get(0) + ".."
                + maxSize()
                + " (" + sizes.size() + ") " + (timed() ? "D" + durationSeconds : "n" + iterations) + " t" + txDepth
                + " baseline " + baseline + (runInfinitely ? " until stopped" : "") + (bidirectional ? " both ways" : "")
                + (qps > 1 ? " qps " + qps : "");
    }
}
