package org.rdmalab.bench;

import java.util.Arrays;
import java.util.List;
import org.rdmalab.verbs.CompletionBuffer;
import org.rdmalab.verbs.CompletionQueue;
import org.rdmalab.verbs.QueuePair;
import org.rdmalab.verbs.SendFlag;
import org.rdmalab.verbs.SendWorkRequest;
import org.rdmalab.verbs.VerbsException;

/**
 * bench's bandwidth loops, for {@link RdmaTraffic}: the client keeps {@code -t} messages in flight
 * on each QP, signals one completion per {@code cq_mod} messages and the last, and stamps every
 * post and completion ({@link SampleTimes}); and ib_send_bw's own client and server loops for a
 * perftest peer. The posts and polls here are the hot path: the loops poll into the queues' one
 * {@link CompletionBuffer} and allocate nothing per message.
 *
 * <p>One thread uses an instance.
 */
final class BandwidthLoop {

    private static final int SIGNALED = SendFlag.SIGNALED.value();

    private final VerbsSide side;
    private final BenchSettings settings;
    private final Progress progress;
    private final TrafficQueues queues;
    private final SampleTimes times;
    private final QueuePair qp;
    private final List<QueuePair> qps;
    private final CompletionQueue cq;
    private final CompletionBuffer completions;

    BandwidthLoop(VerbsSide side, BenchSettings settings, Progress progress, TrafficQueues queues, SampleTimes times) {
        this.side = side;
        this.settings = settings;
        this.progress = progress;
        this.queues = queues;
        this.times = times;
        this.qp = side.qp();
        this.qps = side.qps();
        this.cq = side.cq();
        this.completions = queues.completions();
    }

    /**
     * Measures one report interval of {@code --run_infinitely} (the client): {@code -D} seconds of
     * bandwidth, after the size's warm-up when {@code first}; a SEND test ends it with the stop SEND
     * when {@code stop} (not for a perftest server, which counts). The row has no peak, as perftest's.
     */
    BenchRow measureInterval(int size, boolean first, boolean stop) throws VerbsException, BenchException {
        return bandwidth(size, 0, first ? settings.warmupFor(size) : 0, 0, stop);
    }

    /** Measures one size (the client): its warm-up, then {@code -n} messages or {@code -D} seconds. */
    BenchRow measure(int size, int sizeIndex) throws VerbsException, BenchException {
        return bandwidth(size, sizeIndex, settings.warmupFor(size), settings.timed() ? 0 : settings.iterationsFor(size),
                true);
    }

    /**
     * {@code count} messages (0: for {@code -D}) after {@code warmup} unmeasured ones; a SEND test
     * ends with the stop SEND when {@code stop} (not for a perftest server, which counts).
     */
    private BenchRow bandwidth(int size, int sizeIndex, int warmup, long count, boolean stop)
            throws VerbsException, BenchException {
        int perQp = qps.size();
        if (perQp > 1) {
            return bandwidthOverQps(size, sizeIndex, (warmup + perQp - 1) / perQp, count, stop);
        }
        SendWorkRequest signaled = queues.request(size, 1, SIGNALED);
        SendWorkRequest unsignaled = queues.request(size, 0, 0);
        window(signaled, unsignaled, warmup, 0, false);
        times.ensureCapacity(settings.timed() ? 1 << 16 : count);
        progress.begin(BenchRow.Path.RDMA, size, sizeIndex, settings.sizes().size(), count, false, 1);
        ResourceMeter.Snapshot before = ResourceMeter.snapshot(side.context());
        long deadline = settings.timed() ? System.nanoTime() + settings.durationSeconds() * 1_000_000_000L : 0;
        long moved = window(signaled, unsignaled, count, deadline, true);
        ResourceMeter.Usage usage = ResourceMeter.since(before, side.context(), moved);
        if (settings.test() == BenchTest.SEND && stop) {
            queues.sendStop(size);
            if (settings.bidirectional()) {
                queues.takeSends("the peer's SENDs");
            }
        }
        BandwidthStats stats = BandwidthStats.of(size, times.postTimes, times.completionTimes, (int) moved,
                settings.cqModeration(), !settings.runInfinitely());
        return new BenchRow(BenchRow.Path.RDMA, size, stats, null, usage, 0);
    }

    /**
     * Posts {@code count} messages (or until {@code deadline}, then up to the next signaled one)
     * with {@code -t} in flight; returns how many went.
     */
    private long window(SendWorkRequest signaled, SendWorkRequest unsignaled, long count, long deadline,
                        boolean record) throws VerbsException, BenchException {
        int cqMod = settings.cqModeration();
        int depth = settings.txDepth();
        long[] ring = new long[depth + 2];
        int head = 0;
        int tail = 0;
        long posted = 0;
        long completed = 0;
        long limit = deadline == 0 ? count : Long.MAX_VALUE;
        boolean lastSignaled = true;
        int idle = 0;
        long lastProgress = System.nanoTime();
        long[] postTimes = times.postTimes;
        long[] completionTimes = times.completionTimes;
        while (true) {
            while (posted < limit && posted - completed < depth) {
                long now = System.nanoTime();
                if (limit == Long.MAX_VALUE && now - deadline >= 0) {
                    limit = lastSignaled ? posted : posted + 1;
                    if (posted >= limit) {
                        break;
                    }
                }
                boolean signal = (posted + 1) % cqMod == 0 || posted == limit - 1;
                if (record) {
                    if (posted >= postTimes.length) {
                        times.ensureCapacity(posted * 2);
                        postTimes = times.postTimes;
                        completionTimes = times.completionTimes;
                    }
                    postTimes[(int) posted] = now;
                }
                qp.postSend(signal ? signaled : unsignaled);
                if (signal) {
                    ring[tail] = posted;
                    tail = (tail + 1) % ring.length;
                }
                lastSignaled = signal;
                posted++;
            }
            if (posted >= limit && completed >= posted) {
                return posted;
            }
            int polled = cq.poll(completions);
            if (polled == 0) {
                lastProgress = queues.stallCheck(idle++, lastProgress, "a signaled completion");
                continue;
            }
            long now = System.nanoTime();
            for (int i = 0; i < polled; i++) {
                TrafficQueues.check(completions, i);
                if (TrafficQueues.isReceive(completions, i)) {
                    // -b with SENDs: the peer's stream arrives on the same CQ; its receives go back at once.
                    queues.takeReceive(i);
                    continue;
                }
                long last = ring[head];
                head = (head + 1) % ring.length;
                if (record) {
                    for (long k = completed; k <= last; k++) {
                        completionTimes[(int) k] = now;
                    }
                }
                completed = last + 1;
            }
            idle = 0;
            lastProgress = now;
            if (record) {
                progress.tick(completed, now);
            }
            progress.checkStop();
        }
    }

    /**
     * {@link #bandwidth(int, int, int, long, boolean)} over {@code -q} QPs, as perftest's: each QP
     * sends {@code count} messages (or for {@code -D}) with {@code -t} of its own in flight, a
     * completion signaled on one in {@code cq_mod} of its messages and on its last; the posts go
     * round the QPs, each filling its window in turn, each against its own peer QP's buffer. The
     * row has every QP's messages, as perftest's ({@code #iterations} is {@code -n} × {@code -q});
     * its peak looks at every message, since signaled ones are no longer every {@code cq_mod}-th.
     */
    private BenchRow bandwidthOverQps(int size, int sizeIndex, int warmup, long count, boolean stop)
            throws VerbsException, BenchException {
        SendWorkRequest[] signaled = new SendWorkRequest[qps.size()];
        SendWorkRequest[] unsignaled = new SendWorkRequest[qps.size()];
        for (int q = 0; q < qps.size(); q++) {
            signaled[q] = queues.request(q, size, 1, SIGNALED);
            unsignaled[q] = queues.request(q, size, 0, 0);
        }
        windowOverQps(signaled, unsignaled, warmup, 0, false);
        times.ensureCapacity(settings.timed() ? 1 << 16 : count * qps.size());
        progress.begin(BenchRow.Path.RDMA, size, sizeIndex, settings.sizes().size(), count * qps.size(), false, 1);
        ResourceMeter.Snapshot before = ResourceMeter.snapshot(side.context());
        long deadline = settings.timed() ? System.nanoTime() + settings.durationSeconds() * 1_000_000_000L : 0;
        long moved = windowOverQps(signaled, unsignaled, count, deadline, true);
        ResourceMeter.Usage usage = ResourceMeter.since(before, side.context(), moved);
        if (settings.test() == BenchTest.SEND && stop) {
            queues.sendStop(size);
            if (settings.bidirectional()) {
                queues.takeSends("the peer's SENDs");
            }
        }
        BandwidthStats stats = BandwidthStats.of(size, times.postTimes, times.completionTimes, (int) moved, 1,
                !settings.runInfinitely());
        return new BenchRow(BenchRow.Path.RDMA, size, stats, null, usage, 0);
    }

    /**
     * {@link #window} over every QP: {@code count} messages each (0: until {@code deadline}, then
     * each QP up to its next signaled one); returns how many went in all. With {@code record} the
     * messages are numbered in post order across the QPs, and each one's completion time is that
     * of the signaled completion covering it on its own QP. (With one QP this loop does what
     * {@link #window} does, but {@link #window} stays: run for one QP in its place, {@code write
     * --bw -s 65536 -m 4096 --loopback --baseline} fell from 0.70–0.76 to 0.43–0.66 of the baseline
     * in six alternating runs.)
     */
    private long windowOverQps(SendWorkRequest[] signaled, SendWorkRequest[] unsignaled, long count, long deadline,
                               boolean record) throws VerbsException, BenchException {
        int n = qps.size();
        int cqMod = settings.cqModeration();
        int depth = settings.txDepth();
        long[] posted = new long[n];
        long[] completed = new long[n];
        long[] limit = new long[n];
        boolean[] lastSignaled = new boolean[n];
        // Per QP: the numbers (post order across QPs) of its messages not yet completed, and of its
        // signaled ones in flight, each a ring of depth + 2.
        long[][] open = new long[n][depth + 2];
        int[] openHead = new int[n];
        int[] openTail = new int[n];
        long[][] signals = new long[n][depth + 2];
        int[] signalHead = new int[n];
        int[] signalTail = new int[n];
        Arrays.fill(limit, deadline == 0 ? count : Long.MAX_VALUE);
        Arrays.fill(lastSignaled, true);
        long numbered = 0;
        int idle = 0;
        long lastProgress = System.nanoTime();
        long[] postTimes = times.postTimes;
        long[] completionTimes = times.completionTimes;
        while (true) {
            boolean done = true;
            for (int q = 0; q < n; q++) {
                while (posted[q] < limit[q] && posted[q] - completed[q] < depth) {
                    long now = System.nanoTime();
                    if (limit[q] == Long.MAX_VALUE && now - deadline >= 0) {
                        limit[q] = lastSignaled[q] ? posted[q] : posted[q] + 1;
                        if (posted[q] >= limit[q]) {
                            break;
                        }
                    }
                    boolean signal = (posted[q] + 1) % cqMod == 0 || posted[q] == limit[q] - 1;
                    if (record) {
                        if (numbered >= postTimes.length) {
                            times.ensureCapacity(numbered * 2);
                            postTimes = times.postTimes;
                            completionTimes = times.completionTimes;
                        }
                        postTimes[(int) numbered] = now;
                    }
                    qps.get(q).postSend(signal ? signaled[q] : unsignaled[q]);
                    open[q][openTail[q]] = numbered;
                    openTail[q] = (openTail[q] + 1) % open[q].length;
                    if (signal) {
                        signals[q][signalTail[q]] = posted[q];
                        signalTail[q] = (signalTail[q] + 1) % signals[q].length;
                    }
                    lastSignaled[q] = signal;
                    posted[q]++;
                    numbered++;
                }
                done &= limit[q] != Long.MAX_VALUE && posted[q] >= limit[q] && completed[q] >= posted[q];
            }
            if (done) {
                return numbered;
            }
            int polled = cq.poll(completions);
            if (polled == 0) {
                lastProgress = queues.stallCheck(idle++, lastProgress, "a signaled completion");
                continue;
            }
            long now = System.nanoTime();
            for (int i = 0; i < polled; i++) {
                TrafficQueues.check(completions, i);
                if (TrafficQueues.isReceive(completions, i)) {
                    // -b with SENDs: the peer's streams arrive on the same CQ; each receive goes back at once.
                    queues.takeReceive(i);
                    continue;
                }
                int q = queues.qpIndex(completions.qpNum(i));
                long last = signals[q][signalHead[q]];
                signalHead[q] = (signalHead[q] + 1) % signals[q].length;
                for (long k = completed[q]; k <= last; k++) {
                    long number = open[q][openHead[q]];
                    openHead[q] = (openHead[q] + 1) % open[q].length;
                    if (record) {
                        completionTimes[(int) number] = now;
                    }
                }
                completed[q] = last + 1;
            }
            idle = 0;
            lastProgress = now;
            if (record) {
                long total = 0;
                for (long c : completed) {
                    total += c;
                }
                progress.tick(total, now);
            }
            progress.checkStop();
        }
    }

    /** ib_send_bw's client for a perftest server: {@code iterations} SENDs per QP, no warm-up, no stop SEND. */
    BenchRow perftestSendBandwidthClient(int size, int sizeIndex, int iterations)
            throws VerbsException, BenchException {
        return bandwidth(size, sizeIndex, 0, iterations, false);
    }

    /**
     * ib_send_bw {@code -b} for a perftest peer ({@link TrafficQueues#perftestReceives} first; both sides run
     * it): this side's {@code iterations} SENDs per QP, the server's once its first receive
     * completed, as ib_send_bw's {@code run_iter_bi}; then the rest of the peer's. The row is this
     * side's SENDs.
     */
    BenchRow perftestSendBothWays(int size, int sizeIndex, int iterations, boolean client)
            throws VerbsException, BenchException {
        long target = queues.receivesArrived() + (long) iterations * qps.size();
        if (!client) {
            queues.awaitArrivals(queues.receivesArrived() + 1, "the client's first SEND");
        }
        BenchRow own = bandwidth(size, sizeIndex, 0, iterations, false);
        queues.awaitArrivals(target, "the peer's SENDs");
        return own;
    }

    /**
     * One {@code -D} interval of ib_send_bw's {@code --run_infinitely} server, for a perftest client
     * ({@link TrafficQueues#perftestReceives} first, without a limit): takes SENDs and posts receives again; the
     * row is what arrived in the interval (no peak).
     */
    BenchRow perftestReceiveInterval(int size) throws VerbsException, BenchException {
        long start = System.nanoTime();
        long end = start + settings.durationSeconds() * 1_000_000_000L;
        long before = queues.receivesArrived();
        progress.begin(BenchRow.Path.RDMA, size, 0, 1, 0, false, 1);
        ResourceMeter.Snapshot meter = ResourceMeter.snapshot(side.context());
        int idle = 0;
        long now = start;
        while (now - end < 0) {
            if (queues.reap()) {
                idle = 0;
                now = System.nanoTime();
                progress.tick(queues.receivesArrived() - before, now);
                progress.checkStop();
            } else {
                CompletionQueue.pauseAfterEmptyPoll(idle++);
                if ((idle & 0xff) == 0) {
                    progress.checkStop();
                }
                now = System.nanoTime();
            }
        }
        long arrived = queues.receivesArrived() - before;
        ResourceMeter.Usage usage = ResourceMeter.since(meter, side.context(), arrived);
        return new BenchRow(BenchRow.Path.RDMA, size, BandwidthStats.ofTotals(size, arrived, now - start), null, usage, 0);
    }

    /**
     * ib_send_bw's server for a perftest client ({@link TrafficQueues#perftestReceives} first): takes
     * {@code iterations} SENDs per QP, posting receives as they are used; its row is the bandwidth from
     * the first arrival to the last (no peak: the server sees no post times).
     */
    BenchRow perftestSendBandwidthServer(int size, int sizeIndex, int iterations)
            throws VerbsException, BenchException {
        long total = (long) iterations * qps.size();
        progress.begin(BenchRow.Path.RDMA, size, sizeIndex, settings.sizes().size(), total, false, 1);
        ResourceMeter.Snapshot before = ResourceMeter.snapshot(side.context());
        long target = queues.receivesArrived() + total;
        long first = 0;
        long last = 0;
        long lastProgress = System.nanoTime();
        int idle = 0;
        while (queues.receivesArrived() < target) {
            long had = queues.receivesArrived();
            if (queues.reap()) {
                long now = System.nanoTime();
                if (queues.receivesArrived() > had) {
                    first = first == 0 ? now : first;
                    last = now;
                    progress.tick(total - (target - queues.receivesArrived()), now);
                }
                idle = 0;
                lastProgress = now;
                progress.checkStop();
            } else {
                lastProgress = queues.stallCheck(idle++, lastProgress, "the client's SENDs");
            }
        }
        ResourceMeter.Usage usage = ResourceMeter.since(before, side.context(), total);
        BandwidthStats stats = BandwidthStats.ofTotals(size, total, Math.max(1, last - first));
        return new BenchRow(BenchRow.Path.RDMA, size, stats, null, usage, 0);
    }
}
