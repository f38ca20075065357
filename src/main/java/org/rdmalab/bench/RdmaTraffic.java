package org.rdmalab.bench;

import java.util.Arrays;
import java.util.List;
import org.rdmalab.control.ConnectionData;
import org.rdmalab.verbs.CompletionBuffer;
import org.rdmalab.verbs.CompletionQueue;
import org.rdmalab.verbs.MemoryRegion;
import org.rdmalab.verbs.QueuePair;
import org.rdmalab.verbs.ReceiveWorkRequest;
import org.rdmalab.verbs.ScatterGatherElement;
import org.rdmalab.verbs.SendFlag;
import org.rdmalab.verbs.SendWorkRequest;
import org.rdmalab.verbs.VerbsException;
import org.rdmalab.verbs.WcFlag;
import org.rdmalab.verbs.WorkCompletion;

/**
 * perftest's traffic patterns through the verbs API, for one side of a connected pair: the client
 * measures ({@link #measure}), the server answers ({@link #serve}).
 *
 * <ul>
 *   <li>Bandwidth: the client keeps {@code -t} messages in flight, signals one completion per
 *       {@code cq_mod} messages and the last, and stamps every post and completion. A SEND server
 *       keeps receives posted; WRITE, READ and atomic servers do nothing (one-sided).</li>
 *   <li>WRITE latency (ib_write_lat): each side writes the whole message into the peer's landing
 *       slot and busy-polls the last byte of its own slot until the peer's write with the same
 *       counter value arrives, then answers. One sample is the time between two posts of the
 *       client: a round trip, reported halved.</li>
 *   <li>SEND latency: the same ping-pong with SEND and RECV completions.</li>
 *   <li>READ and atomic latency: the client posts one request and polls its completion; a sample is
 *       the full round trip.</li>
 * </ul>
 * Warm-up iterations run first and are not measured. The end of a size is said in-band where the
 * server loops (a last WRITE whose byte is {@link #STOP_BYTE}, a SEND with immediate {@link #STOP_IMM}),
 * so a timed run ({@code -D}) needs no count. The CQ is busy-polled: spin, then yield (see
 * {@link CompletionQueue#pauseAfterEmptyPoll}); no sleeps.
 *
 * <p>One thread uses an instance.
 */
final class RdmaTraffic {

    /** The byte a WRITE latency client writes last to end the ping-pong (counters run 1..254). */
    static final byte STOP_BYTE = (byte) 0xff;
    /** The immediate data of the SEND that ends a SEND test ("STOP"). */
    static final int STOP_IMM = 0x53544f50;
    /** Without a completion for this long a side gives up. */
    static final long STALL_NANOS = 30_000_000_000L;

    private static final int SIGNALED = SendFlag.SIGNALED.value();

    private final VerbsSide side;
    /** The peer's connection data per QP ({@code -q}: QP i's WRITEs, READs and atomics go to its i-th). */
    private final List<ConnectionData> remotes;
    private final ConnectionData remote;
    private final BenchSettings settings;
    private final Progress progress;
    private final QueuePair qp;
    private final CompletionQueue cq;
    private final MemoryRegion mr;
    private final byte[] one = new byte[1];
    /** What each poll fills: the loops poll without allocating a list or a record per completion. */
    private final CompletionBuffer completions = new CompletionBuffer(16);
    /** Per QP, the receive that takes a whole landing slot, so it fits any size. */
    private final ReceiveWorkRequest[] receives;
    private long[] postTimes = new long[0];
    private long[] completionTimes = new long[0];
    /** The QPs ({@code -q}; the first is {@link #qp}) and their QP numbers, for a completion's QP. */
    private final List<QueuePair> qps;
    private final int[] qpNums;
    /** Receives posted and not yet completed, per QP. */
    private final int[] receivesPosted;
    /** "STOP" SENDs that arrived this size: one per QP ends it. */
    private int stopsArrived;
    /**
     * Receives a perftest peer's size still needs posted, per QP ({@link #perftestReceives}); null
     * until then, when a used receive goes back at once instead.
     */
    private long[] receivesToPost;
    private int sendsOutstanding;
    private long receivesArrived;

    RdmaTraffic(VerbsSide side, List<ConnectionData> remotes, BenchSettings settings, Progress progress) {
        if (remotes.size() != side.qps().size()) {
            throw new IllegalArgumentException(remotes.size() + " peer QPs for " + side.qps().size() + " QPs");
        }
        this.side = side;
        this.remotes = List.copyOf(remotes);
        this.remote = remotes.get(0);
        this.settings = settings;
        this.progress = progress;
        this.qp = side.qp();
        this.cq = side.cq();
        this.mr = side.mr();
        this.qps = side.qps();
        this.receives = new ReceiveWorkRequest[qps.size()];
        for (int q = 0; q < receives.length; q++) {
            receives[q] = ReceiveWorkRequest.of(2, mr.sge(side.landing(q), side.slot()));
        }
        this.qpNums = new int[qps.size()];
        for (int i = 0; i < qpNums.length; i++) {
            qpNums[i] = qps.get(i).qpNum();
        }
        this.receivesPosted = new int[qps.size()];
    }

    /**
     * Gets a size ready before the sides meet: clears the counter bytes this side posts and polls,
     * and keeps the receive queue full (SEND tests).
     */
    void prepare(int size) throws VerbsException {
        one[0] = 0;
        mr.write(size - 1, one);
        mr.write(side.landing(0) + size - 1, one);
        stopsArrived = 0;
        if (settings.test() == BenchTest.SEND) {
            for (int q = 0; q < qps.size(); q++) {
                while (receivesPosted[q] < side.rxDepth()) {
                    repostReceive(q);
                }
            }
        }
    }

    // ---------------------------------------------------------------- client

    /** Measures one size (the client). */
    BenchRow measure(int size, int sizeIndex) throws VerbsException, BenchException {
        return settings.mode() == BenchMode.BW ? bandwidth(size, sizeIndex) : latency(size, sizeIndex);
    }

    /**
     * Measures one report interval of {@code --run_infinitely} (the client): {@code -D} seconds of
     * bandwidth, after the size's warm-up when {@code first}; a SEND test ends it with the stop SEND
     * when {@code stop} (not for a perftest server, which counts). The row has no peak, as perftest's.
     */
    BenchRow measureInterval(int size, boolean first, boolean stop) throws VerbsException, BenchException {
        return bandwidth(size, 0, first ? settings.warmupFor(size) : 0, 0, stop);
    }

    private SendWorkRequest request(int size, long wrId, int flags) {
        return request(0, size, wrId, flags);
    }

    /**
     * QP {@code q}'s work request of {@code size} bytes against its peer QP's landing slot; READ and
     * atomic results land in QP {@code q}'s own.
     */
    private SendWorkRequest request(int q, int size, long wrId, int flags) {
        ConnectionData target = remotes.get(q);
        ScatterGatherElement source = mr.sge(0, size);
        ScatterGatherElement landing = mr.sge(side.landing(q), size);
        return switch (settings.test()) {
            case WRITE -> SendWorkRequest.write(wrId, source, target.addr(), target.rkey(), flags);
            case READ -> SendWorkRequest.read(wrId, landing, target.addr(), target.rkey(), flags);
            case SEND -> SendWorkRequest.send(wrId, source, flags);
            case ATOMIC -> SendWorkRequest.fetchAdd(wrId, mr.sge(side.landing(q), BenchTest.ATOMIC_SIZE),
                    target.addr(), target.rkey(), 1, flags);
        };
    }

    private BenchRow bandwidth(int size, int sizeIndex) throws VerbsException, BenchException {
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
        SendWorkRequest signaled = request(size, 1, SIGNALED);
        SendWorkRequest unsignaled = request(size, 0, 0);
        window(signaled, unsignaled, warmup, 0, false);
        ensureCapacity(settings.timed() ? 1 << 16 : count);
        progress.begin(BenchRow.Path.RDMA, size, sizeIndex, settings.sizes().size(), count, false, 1);
        ResourceMeter.Snapshot before = ResourceMeter.snapshot(side.context());
        long deadline = settings.timed() ? System.nanoTime() + settings.durationSeconds() * 1_000_000_000L : 0;
        long moved = window(signaled, unsignaled, count, deadline, true);
        ResourceMeter.Usage usage = ResourceMeter.since(before, side.context(), moved);
        if (settings.test() == BenchTest.SEND && stop) {
            sendStop(size);
            if (settings.bidirectional()) {
                takeSends("the peer's SENDs");
            }
        }
        BandwidthStats stats = BandwidthStats.of(size, postTimes, completionTimes, (int) moved,
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
                        ensureCapacity(posted * 2);
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
                lastProgress = stallCheck(idle++, lastProgress, "a signaled completion");
                continue;
            }
            long now = System.nanoTime();
            for (int i = 0; i < polled; i++) {
                check(completions, i);
                if (isReceive(i)) {
                    // -b with SENDs: the peer's stream arrives on the same CQ; its receives go back at once.
                    takeReceive(i);
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
     * {@link #bandwidth} over {@code -q} QPs, as perftest's: each QP sends {@code count} messages
     * (or for {@code -D}) with {@code -t} of its own in flight, a completion signaled on one in
     * {@code cq_mod} of its messages and on its last; the posts go round the QPs, each filling its
     * window in turn, each against its own peer QP's buffer. The row has every QP's messages, as
     * perftest's ({@code #iterations} is {@code -n} × {@code -q}); its peak looks at every message,
     * since signaled ones are no longer every {@code cq_mod}-th.
     */
    private BenchRow bandwidthOverQps(int size, int sizeIndex, int warmup, long count, boolean stop)
            throws VerbsException, BenchException {
        SendWorkRequest[] signaled = new SendWorkRequest[qps.size()];
        SendWorkRequest[] unsignaled = new SendWorkRequest[qps.size()];
        for (int q = 0; q < qps.size(); q++) {
            signaled[q] = request(q, size, 1, SIGNALED);
            unsignaled[q] = request(q, size, 0, 0);
        }
        windowOverQps(signaled, unsignaled, warmup, 0, false);
        ensureCapacity(settings.timed() ? 1 << 16 : count * qps.size());
        progress.begin(BenchRow.Path.RDMA, size, sizeIndex, settings.sizes().size(), count * qps.size(), false, 1);
        ResourceMeter.Snapshot before = ResourceMeter.snapshot(side.context());
        long deadline = settings.timed() ? System.nanoTime() + settings.durationSeconds() * 1_000_000_000L : 0;
        long moved = windowOverQps(signaled, unsignaled, count, deadline, true);
        ResourceMeter.Usage usage = ResourceMeter.since(before, side.context(), moved);
        if (settings.test() == BenchTest.SEND && stop) {
            sendStop(size);
            if (settings.bidirectional()) {
                takeSends("the peer's SENDs");
            }
        }
        BandwidthStats stats = BandwidthStats.of(size, postTimes, completionTimes, (int) moved, 1,
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
                            ensureCapacity(numbered * 2);
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
                lastProgress = stallCheck(idle++, lastProgress, "a signaled completion");
                continue;
            }
            long now = System.nanoTime();
            for (int i = 0; i < polled; i++) {
                check(completions, i);
                if (isReceive(i)) {
                    // -b with SENDs: the peer's streams arrive on the same CQ; each receive goes back at once.
                    takeReceive(i);
                    continue;
                }
                int q = qpIndex(completions.qpNum(i));
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

    private void ensureCapacity(long wanted) {
        if (wanted > Integer.MAX_VALUE - 8) {
            throw new IllegalStateException("too many messages to keep their times");
        }
        if (postTimes.length < wanted) {
            postTimes = Arrays.copyOf(postTimes, (int) wanted);
            completionTimes = Arrays.copyOf(completionTimes, (int) wanted);
        }
    }

    private BenchRow latency(int size, int sizeIndex) throws VerbsException, BenchException {
        int warmup = settings.warmupFor(size);
        long count = settings.timed() ? Long.MAX_VALUE : settings.iterationsFor(size);
        ensureCapacity(settings.timed() ? 1 << 16 : count + 1);
        SendWorkRequest request = request(size, 1, SIGNALED);
        int factor = settings.test().fullRoundTrip() ? 1 : 2;
        ResourceMeter.Snapshot before = null;
        long deadline = 0;
        long measured = 0;
        for (long i = 0; ; i++) {
            long now = System.nanoTime();
            if (i >= warmup) {
                long k = i - warmup;
                if (k == 0) {
                    progress.begin(BenchRow.Path.RDMA, size, sizeIndex, settings.sizes().size(),
                            settings.timed() ? 0 : count, true, factor);
                    before = ResourceMeter.snapshot(side.context());
                    deadline = now + settings.durationSeconds() * 1_000_000_000L;
                }
                if (k >= postTimes.length) {
                    ensureCapacity(k * 2);
                }
                postTimes[(int) k] = now;
                if (k == count || (settings.timed() && now - deadline >= 0 && k >= LatencyStats.MEASURE_TAIL + 1)) {
                    measured = k;
                    break;
                }
                progress.tick(k, now);
                progress.checkStop();
            }
            roundTrip(size, i, request);
        }
        ResourceMeter.Usage usage = ResourceMeter.since(before, side.context(), measured);
        endLatency(size);
        for (int k = 0; k < measured; k++) {
            completionTimes[k] = postTimes[k + 1] - postTimes[k];
        }
        LatencyStats stats = LatencyStats.of(size, measured, completionTimes, (int) measured, factor);
        return new BenchRow(BenchRow.Path.RDMA, size, null, stats, usage, 0);
    }

    /** One measured exchange of the client. */
    private void roundTrip(int size, long i, SendWorkRequest request) throws VerbsException, BenchException {
        switch (settings.test()) {
            case WRITE -> {
                byte value = counter(i);
                one[0] = value;
                mr.write(size - 1, one);
                postSend(request);
                awaitByte(side.landing(0) + size - 1, value, "the server's WRITE");
            }
            case SEND -> {
                postSend(request);
                awaitReceive("the server's SEND");
                repostReceive(0);
            }
            default -> {
                postSend(request);
                awaitSends();
            }
        }
    }

    /** Ends a latency size so the server stops answering (WRITE / SEND), then drains this side's sends. */
    private void endLatency(int size) throws VerbsException, BenchException {
        if (settings.test() == BenchTest.WRITE) {
            one[0] = STOP_BYTE;
            mr.write(size - 1, one);
            postSend(request(size, 3, SIGNALED));
        } else if (settings.test() == BenchTest.SEND) {
            sendStop(size);
        }
        awaitSends();
    }

    private void sendStop(int size) throws VerbsException, BenchException {
        // One on each QP (-q): the peer's size ends once every QP's stream has ended.
        SendWorkRequest stop = SendWorkRequest.sendWithImm(3, mr.sge(0, Math.min(size, 1)), STOP_IMM, SIGNALED);
        for (int q = 1; q < qps.size(); q++) {
            postSend(qps.get(q), stop);
        }
        postSend(stop);
        awaitSends();
    }

    static byte counter(long i) {
        return (byte) (i % 254 + 1);
    }

    // ---------------------------------------------------------------- a perftest peer

    /**
     * ib_write_lat's own loop, for a perftest peer (both sides run it): no warm-up and no stop byte.
     * The server posts first; after that each side waits until the last byte of its slot holds the
     * count of WRITEs it has seen (1, 2, ... kept as a C {@code char}, so 255 is followed by 0),
     * posts its own WRITE carrying its next count and waits for that WRITE's completion,
     * {@code iterations} times. Each side measures: a sample is the time between two of its posts,
     * a round trip, reported halved.
     */
    BenchRow perftestWriteLatency(int size, int sizeIndex, int iterations, boolean client)
            throws VerbsException, BenchException {
        SendWorkRequest request = request(size, 1, SIGNALED);
        ResourceMeter.Snapshot before = beginPingPong(size, sizeIndex, iterations);
        int sent = 0;
        int seen = 0;
        while (sent < iterations || seen < iterations) {
            if (seen < iterations && (client || sent > 0)) {
                seen++;
                awaitByte(side.landing(0) + size - 1, (byte) seen, "the peer's WRITE");
            }
            if (sent < iterations) {
                one[0] = (byte) (sent + 1);
                mr.write(size - 1, one);
                postAndAwait(request, sent++);
            }
        }
        return pingPongRow(size, iterations, before);
    }

    /**
     * Posts the receives of one size for a perftest peer, which sends exactly {@code iterations}
     * SENDs on each QP ({@link Long#MAX_VALUE}: for as long as it runs): as many as each receive
     * queue holds, the rest as they are used (every poll tops them up from then on), so none is
     * left over for the next size. A receive takes a whole landing slot, so it fits any size.
     */
    void perftestReceives(long iterations) throws VerbsException {
        if (receivesToPost == null) {
            receivesToPost = new long[qps.size()];
        }
        Arrays.fill(receivesToPost, iterations);
        topUpReceives();
    }

    /** Posts what each QP's receive queue has room for of the receives a perftest peer still needs. */
    private void topUpReceives() throws VerbsException {
        for (int q = 0; q < qps.size(); q++) {
            while (receivesToPost[q] > 0 && receivesPosted[q] < side.rxDepth()) {
                repostReceive(q);
                receivesToPost[q]--;
            }
        }
    }

    /** Counts receive completion {@code i}; its receive goes back at once, or as a perftest peer needs. */
    private void takeReceive(int i) throws VerbsException {
        int q = received(i);
        if (receivesToPost == null) {
            repostReceive(q);
        } else {
            topUpReceives();
        }
    }

    /**
     * ib_send_lat's loop, for a perftest peer (both sides run it; {@link #perftestReceives} first):
     * no warm-up, the client sends first, each side waits for the peer's SEND, then sends its own
     * and waits for its completion (ib_send_lat's TX depth of 1 signals every SEND),
     * {@code iterations} times. A sample is the time between two of this side's
     * posts, halved.
     */
    BenchRow perftestSendLatency(int size, int sizeIndex, int iterations, boolean client)
            throws VerbsException, BenchException {
        SendWorkRequest request = request(size, 1, SIGNALED);
        ResourceMeter.Snapshot before = beginPingPong(size, sizeIndex, iterations);
        long arrivedBefore = receivesArrived;
        int sent = 0;
        int seen = 0;
        while (sent < iterations || seen < iterations) {
            if (seen < iterations && !(client && sent == 0)) {
                // The peer's SEND may have completed already, while this side waited for its own.
                awaitArrivals(arrivedBefore + ++seen, "the peer's SEND");
            }
            if (sent < iterations) {
                postAndAwait(request, sent++);
            }
        }
        return pingPongRow(size, iterations, before);
    }

    /** A perftest ping-pong's start: room for its post times, the progress line, the meter's first reading. */
    private ResourceMeter.Snapshot beginPingPong(int size, int sizeIndex, int iterations) {
        ensureCapacity(iterations);
        progress.begin(BenchRow.Path.RDMA, size, sizeIndex, settings.sizes().size(), iterations, true, 2);
        return ResourceMeter.snapshot(side.context());
    }

    /** One post of a perftest ping-pong, its time kept as sample {@code index}, and its completion. */
    private void postAndAwait(SendWorkRequest request, int index) throws VerbsException, BenchException {
        long now = System.nanoTime();
        postTimes[index] = now;
        postSend(request);
        awaitSends();
        progress.tick(index + 1, now);
        progress.checkStop();
    }

    /** A perftest ping-pong's row: the times between this side's posts, halved. */
    private BenchRow pingPongRow(int size, int iterations, ResourceMeter.Snapshot before) {
        ResourceMeter.Usage usage = ResourceMeter.since(before, side.context(), iterations);
        for (int k = 0; k + 1 < iterations; k++) {
            completionTimes[k] = postTimes[k + 1] - postTimes[k];
        }
        LatencyStats stats = LatencyStats.of(size, iterations, completionTimes, iterations - 1, 2);
        return new BenchRow(BenchRow.Path.RDMA, size, null, stats, usage, 0);
    }

    /** ib_send_bw's client for a perftest server: {@code iterations} SENDs per QP, no warm-up, no stop SEND. */
    BenchRow perftestSendBandwidthClient(int size, int sizeIndex, int iterations)
            throws VerbsException, BenchException {
        return bandwidth(size, sizeIndex, 0, iterations, false);
    }

    /**
     * ib_send_bw {@code -b} for a perftest peer ({@link #perftestReceives} first; both sides run
     * it): this side's {@code iterations} SENDs per QP, the server's once its first receive
     * completed, as ib_send_bw's {@code run_iter_bi}; then the rest of the peer's. The row is this
     * side's SENDs.
     */
    BenchRow perftestSendBothWays(int size, int sizeIndex, int iterations, boolean client)
            throws VerbsException, BenchException {
        long target = receivesArrived + (long) iterations * qps.size();
        if (!client) {
            awaitArrivals(receivesArrived + 1, "the client's first SEND");
        }
        BenchRow own = bandwidth(size, sizeIndex, 0, iterations, false);
        awaitArrivals(target, "the peer's SENDs");
        return own;
    }

    /**
     * One {@code -D} interval of ib_send_bw's {@code --run_infinitely} server, for a perftest client
     * ({@link #perftestReceives} first, without a limit): takes SENDs and posts receives again; the
     * row is what arrived in the interval (no peak).
     */
    BenchRow perftestReceiveInterval(int size) throws VerbsException, BenchException {
        long start = System.nanoTime();
        long end = start + settings.durationSeconds() * 1_000_000_000L;
        long before = receivesArrived;
        progress.begin(BenchRow.Path.RDMA, size, 0, 1, 0, false, 1);
        ResourceMeter.Snapshot meter = ResourceMeter.snapshot(side.context());
        int idle = 0;
        long now = start;
        while (now - end < 0) {
            if (reap()) {
                idle = 0;
                now = System.nanoTime();
                progress.tick(receivesArrived - before, now);
                progress.checkStop();
            } else {
                CompletionQueue.pauseAfterEmptyPoll(idle++);
                if ((idle & 0xff) == 0) {
                    progress.checkStop();
                }
                now = System.nanoTime();
            }
        }
        long arrived = receivesArrived - before;
        ResourceMeter.Usage usage = ResourceMeter.since(meter, side.context(), arrived);
        return new BenchRow(BenchRow.Path.RDMA, size, BandwidthStats.ofTotals(size, arrived, now - start), null, usage, 0);
    }

    /**
     * ib_send_bw's server for a perftest client ({@link #perftestReceives} first): takes
     * {@code iterations} SENDs per QP, posting receives as they are used; its row is the bandwidth from
     * the first arrival to the last (no peak: the server sees no post times).
     */
    BenchRow perftestSendBandwidthServer(int size, int sizeIndex, int iterations)
            throws VerbsException, BenchException {
        long total = (long) iterations * qps.size();
        progress.begin(BenchRow.Path.RDMA, size, sizeIndex, settings.sizes().size(), total, false, 1);
        ResourceMeter.Snapshot before = ResourceMeter.snapshot(side.context());
        long target = receivesArrived + total;
        long first = 0;
        long last = 0;
        long lastProgress = System.nanoTime();
        int idle = 0;
        while (receivesArrived < target) {
            long had = receivesArrived;
            if (reap()) {
                long now = System.nanoTime();
                if (receivesArrived > had) {
                    first = first == 0 ? now : first;
                    last = now;
                    progress.tick(total - (target - receivesArrived), now);
                }
                idle = 0;
                lastProgress = now;
                progress.checkStop();
            } else {
                lastProgress = stallCheck(idle++, lastProgress, "the client's SENDs");
            }
        }
        ResourceMeter.Usage usage = ResourceMeter.since(before, side.context(), total);
        BandwidthStats stats = BandwidthStats.ofTotals(size, total, Math.max(1, last - first));
        return new BenchRow(BenchRow.Path.RDMA, size, stats, null, usage, 0);
    }

    // ---------------------------------------------------------------- server

    /** Answers one size (the server); returns when the client's end-of-size arrives, or at once for one-sided tests. */
    void serve(int size) throws VerbsException, BenchException {
        if (settings.test() == BenchTest.SEND) {
            if (settings.mode() == BenchMode.BW) {
                takeSends("the client's SENDs");
            } else {
                SendWorkRequest answer = SendWorkRequest.send(1, mr.sge(0, size), SIGNALED);
                while (true) {
                    awaitReceive("the client's SEND");
                    if (stopArrived()) {
                        break;
                    }
                    repostReceive(0);
                    postSend(answer);
                }
                repostReceive(0);
                awaitSends();
            }
        } else if (settings.test() == BenchTest.WRITE && settings.mode() == BenchMode.LAT) {
            SendWorkRequest answer = SendWorkRequest.write(1, mr.sge(0, size), remote.addr(), remote.rkey(),
                    SIGNALED);
            for (long i = 0; ; i++) {
                byte value = counter(i);
                if (!awaitByteOrStop(side.landing(0) + size - 1, value)) {
                    break;
                }
                one[0] = value;
                mr.write(size - 1, one);
                postSend(answer);
            }
            awaitSends();
        }
        // WRITE / READ / atomic bandwidth and READ / atomic latency are one-sided: nothing to do.
    }

    // ---------------------------------------------------------------- completions

    private void postSend(SendWorkRequest request) throws VerbsException, BenchException {
        postSend(qp, request);
    }

    private void postSend(QueuePair target, SendWorkRequest request) throws VerbsException, BenchException {
        long lastProgress = System.nanoTime();
        int idle = 0;
        while (sendsOutstanding >= side.sendDepth() - 1) {
            if (reap()) {
                idle = 0;
                lastProgress = System.nanoTime();
            } else {
                lastProgress = stallCheck(idle++, lastProgress, "room in the send queue");
            }
        }
        target.postSend(request);
        sendsOutstanding++;
    }

    /**
     * Takes the peer's SENDs, posting receives again as they are used, until its "STOP" SEND
     * arrived (a SEND server; with {@code -b}, each side once its own stream ended).
     */
    private void takeSends(String what) throws VerbsException, BenchException {
        long lastProgress = System.nanoTime();
        int idle = 0;
        while (!stopArrived()) {
            if (reap()) {
                idle = 0;
                lastProgress = System.nanoTime();
                for (int q = 0; q < qps.size(); q++) {
                    while (receivesPosted[q] < side.rxDepth()) {
                        repostReceive(q);
                    }
                }
                progress.checkStop();
            } else {
                lastProgress = stallCheck(idle++, lastProgress, what);
            }
        }
    }

    private boolean isReceive(int i) {
        return completions.opcode(i).value() >= 128;
    }

    /**
     * Counts the receive completion {@code i} and notes a "STOP" SEND (the size ends once every QP
     * had its own); the index of the QP it completed on.
     */
    private int received(int i) {
        int q = qpIndex(completions.qpNum(i));
        receivesPosted[q]--;
        receivesArrived++;
        if (WcFlag.has(completions.wcFlags(i), WcFlag.WITH_IMM) && completions.immData(i) == STOP_IMM) {
            stopsArrived++;
        }
        return q;
    }

    /** True once every QP's "STOP" SEND arrived this size. */
    private boolean stopArrived() {
        return stopsArrived >= qps.size();
    }

    /** Which of {@link #qps} has QP number {@code qpNum} (a completion's). */
    private int qpIndex(int qpNum) {
        for (int q = 0; q < qpNums.length; q++) {
            if (qpNums[q] == qpNum) {
                return q;
            }
        }
        throw new IllegalStateException("a completion of QP 0x" + Integer.toHexString(qpNum) + ", not one of this side's");
    }

    private void repostReceive(int q) throws VerbsException {
        qps.get(q).postRecv(receives[q]);
        receivesPosted[q]++;
    }

    /** Polls once; true when something completed. A perftest peer's receives are topped up. */
    private boolean reap() throws VerbsException, BenchException {
        int polled = cq.poll(completions);
        boolean receives = false;
        for (int i = 0; i < polled; i++) {
            check(completions, i);
            if (isReceive(i)) {
                received(i);
                receives = true;
            } else {
                sendsOutstanding--;
            }
        }
        if (receives && receivesToPost != null) {
            topUpReceives();
        }
        return polled > 0;
    }

    private void awaitSends() throws VerbsException, BenchException {
        long lastProgress = System.nanoTime();
        int idle = 0;
        while (sendsOutstanding > 0) {
            if (reap()) {
                idle = 0;
                lastProgress = System.nanoTime();
            } else {
                lastProgress = stallCheck(idle++, lastProgress, "a send completion");
            }
        }
    }

    private void awaitReceive(String what) throws VerbsException, BenchException {
        awaitArrivals(receivesArrived + 1, what);
    }

    /** Waits until {@code target} receives in all have completed (some may have while waiting for sends). */
    private void awaitArrivals(long target, String what) throws VerbsException, BenchException {
        long lastProgress = System.nanoTime();
        int idle = 0;
        while (receivesArrived < target) {
            if (reap()) {
                idle = 0;
                lastProgress = System.nanoTime();
            } else {
                lastProgress = stallCheck(idle++, lastProgress, what);
            }
        }
    }

    private void awaitByte(int offset, byte value, String what) throws VerbsException, BenchException {
        long lastProgress = System.nanoTime();
        int idle = 0;
        while (mr.readByte(offset) != value) {
            if (reap()) {
                idle = 0;
                lastProgress = System.nanoTime();
            } else if (mr.readByte(offset) != value) {
                // (A software device's turn inside that poll may just have written the byte: look
                // before pausing, as a NIC's DMA would be seen at once.)
                lastProgress = stallCheck(idle++, lastProgress, what);
            }
        }
    }

    /** Waits for {@code value} at {@code offset}; false when the client's stop byte arrived instead. */
    private boolean awaitByteOrStop(int offset, byte value) throws VerbsException, BenchException {
        long lastProgress = System.nanoTime();
        int idle = 0;
        while (true) {
            byte seen = mr.readByte(offset);
            if (seen == value) {
                return true;
            }
            if (seen == STOP_BYTE) {
                return false;
            }
            if (reap()) {
                idle = 0;
                lastProgress = System.nanoTime();
            } else if (mr.readByte(offset) == seen) {
                // (Unchanged after the poll, whose device turn may have written it: pause.)
                lastProgress = stallCheck(idle++, lastProgress, "the client's WRITE");
            }
        }
    }

    /** One idle pass; fails after {@link #STALL_NANOS} without progress, or when stopped. */
    private long stallCheck(int idle, long lastProgress, String what) throws BenchException {
        CompletionQueue.pauseAfterEmptyPoll(idle);
        if ((idle & 0xff) == 0xff) {
            progress.checkStop();
            if (System.nanoTime() - lastProgress > STALL_NANOS) {
                throw new PeerGone("nothing arrived for " + STALL_NANOS / 1_000_000_000L + " s while waiting for "
                        + what + "; the other side stopped, or its packets do not reach this side");
            }
        }
        return lastProgress;
    }

    private static void check(CompletionBuffer completions, int i) throws BenchException {
        if (!completions.isSuccess(i)) {
            WorkCompletion wc = completions.get(i);
            throw new BenchException("a work request completed with " + wc.status().cName() + " (" + wc.opcode()
                    + ", wr_id " + wc.wrId() + ", vendor_err " + wc.vendorError() + ")");
        }
    }
}
