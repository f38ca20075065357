package org.rdmalab.bench;

import static org.rdmalab.bench.RdmaTraffic.STALL_NANOS;
import static org.rdmalab.bench.RdmaTraffic.STOP_BYTE;
import static org.rdmalab.bench.RdmaTraffic.STOP_IMM;

import java.util.Arrays;
import java.util.List;
import java.util.function.LongSupplier;
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
 * One side's queues during a bench run, for {@link RdmaTraffic}'s loops: the work requests against
 * the peer's landing slots, a post that waits for room in the send queue, the poll that counts
 * send and receive completions, the receives kept posted (all at once, or as a perftest peer needs
 * them), the in-band end of a SEND test, and the waits for a completion, an arrival or a byte in
 * memory. Every wait busy-polls (spin, then yield: {@link CompletionQueue#pauseAfterEmptyPoll}) and
 * gives up after {@link RdmaTraffic#STALL_NANOS} without progress. A wait reads the clock only from
 * its 256th empty poll in a row on ({@link #stallCheck}), so the waits of a round trip that is
 * answered within a few polls read none: the latency loop's one timestamp per round trip is its
 * only clock read.
 *
 * <p>One thread uses an instance.
 */
final class TrafficQueues {

    private static final int SIGNALED = SendFlag.SIGNALED.value();
    /**
     * What a wait's {@code lastProgress} holds until its clock has started: a wait starts it at its
     * 256th empty poll in a row, not when it begins or when something arrives ({@link #stallCheck}).
     */
    static final long NOT_TIMED = Long.MIN_VALUE;

    private final VerbsSide side;
    /** The peer's connection data per QP ({@code -q}: QP i's WRITEs, READs and atomics go to its i-th). */
    private final List<ConnectionData> remotes;
    private final BenchSettings settings;
    private final Progress progress;
    private final QueuePair qp;
    private final CompletionQueue cq;
    private final MemoryRegion mr;
    /** What each poll fills: the loops poll without allocating a list or a record per completion. */
    private final CompletionBuffer completions = new CompletionBuffer(16);
    /** Per QP, the receive that takes a whole landing slot, so it fits any size. */
    private final ReceiveWorkRequest[] receives;
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

    TrafficQueues(VerbsSide side, List<ConnectionData> remotes, BenchSettings settings, Progress progress) {
        if (remotes.size() != side.qps().size()) {
            throw new IllegalArgumentException(remotes.size() + " peer QPs for " + side.qps().size() + " QPs");
        }
        this.side = side;
        this.remotes = List.copyOf(remotes);
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

    /** The buffer every poll fills; a loop that polls itself reads its completions there. */
    CompletionBuffer completions() {
        return completions;
    }

    /** Receives that completed so far, on every QP. */
    long receivesArrived() {
        return receivesArrived;
    }

    /** A new size: no "STOP" SEND has arrived. */
    void clearStops() {
        stopsArrived = 0;
    }

    /** Posts receives until every QP's receive queue is full. */
    void fillReceives() throws VerbsException {
        for (int q = 0; q < qps.size(); q++) {
            while (receivesPosted[q] < side.rxDepth()) {
                repostReceive(q);
            }
        }
    }

    /** QP 0's work request of {@code size} bytes against its peer QP's landing slot. */
    SendWorkRequest request(int size, long wrId, int flags) {
        return request(0, size, wrId, flags);
    }

    /**
     * QP {@code q}'s work request of {@code size} bytes against its peer QP's landing slot; READ and
     * atomic results land in QP {@code q}'s own.
     */
    SendWorkRequest request(int q, int size, long wrId, int flags) {
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

    /** Ends a SEND test's size: a SEND with immediate {@link RdmaTraffic#STOP_IMM} on each QP. */
    void sendStop(int size) throws VerbsException, BenchException {
        // One on each QP (-q): the peer's size ends once every QP's stream has ended.
        SendWorkRequest stop = SendWorkRequest.sendWithImm(3, mr.sge(0, Math.min(size, 1)), STOP_IMM, SIGNALED);
        for (int q = 1; q < qps.size(); q++) {
            postSend(qps.get(q), stop);
        }
        postSend(stop);
        awaitSends();
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
    void takeReceive(int i) throws VerbsException {
        int q = received(i);
        if (receivesToPost == null) {
            repostReceive(q);
        } else {
            topUpReceives();
        }
    }

    void postSend(SendWorkRequest request) throws VerbsException, BenchException {
        postSend(qp, request);
    }

    void postSend(QueuePair target, SendWorkRequest request) throws VerbsException, BenchException {
        long lastProgress = NOT_TIMED;
        int idle = 0;
        while (sendsOutstanding >= side.sendDepth() - 1) {
            if (reap()) {
                idle = 0;
                lastProgress = NOT_TIMED;
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
    void takeSends(String what) throws VerbsException, BenchException {
        long lastProgress = NOT_TIMED;
        int idle = 0;
        while (!stopArrived()) {
            if (reap()) {
                idle = 0;
                lastProgress = NOT_TIMED;
                fillReceives();
                progress.checkStop();
            } else {
                lastProgress = stallCheck(idle++, lastProgress, what);
            }
        }
    }

    private boolean isReceive(int i) {
        return isReceive(completions, i);
    }

    /** True when completion {@code i} of {@code polled} is a receive's (its opcode has bit 7 set, IBV_WC_RECV). */
    static boolean isReceive(CompletionBuffer polled, int i) {
        return polled.opcode(i).value() >= 128;
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
    boolean stopArrived() {
        return stopsArrived >= qps.size();
    }

    /** Which of {@link #qps} has QP number {@code qpNum} (a completion's). */
    int qpIndex(int qpNum) {
        for (int q = 0; q < qpNums.length; q++) {
            if (qpNums[q] == qpNum) {
                return q;
            }
        }
        throw new IllegalStateException("a completion of QP 0x" + Integer.toHexString(qpNum) + ", not one of this side's");
    }

    void repostReceive(int q) throws VerbsException {
        qps.get(q).postRecv(receives[q]);
        receivesPosted[q]++;
    }

    /** Polls once; true when something completed. A perftest peer's receives are topped up. */
    boolean reap() throws VerbsException, BenchException {
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

    void awaitSends() throws VerbsException, BenchException {
        long lastProgress = NOT_TIMED;
        int idle = 0;
        while (sendsOutstanding > 0) {
            if (reap()) {
                idle = 0;
                lastProgress = NOT_TIMED;
            } else {
                lastProgress = stallCheck(idle++, lastProgress, "a send completion");
            }
        }
    }

    void awaitReceive(String what) throws VerbsException, BenchException {
        awaitArrivals(receivesArrived + 1, what);
    }

    /** Waits until {@code target} receives in all have completed (some may have while waiting for sends). */
    void awaitArrivals(long target, String what) throws VerbsException, BenchException {
        long lastProgress = NOT_TIMED;
        int idle = 0;
        while (receivesArrived < target) {
            if (reap()) {
                idle = 0;
                lastProgress = NOT_TIMED;
            } else {
                lastProgress = stallCheck(idle++, lastProgress, what);
            }
        }
    }

    void awaitByte(int offset, byte value, String what) throws VerbsException, BenchException {
        long lastProgress = NOT_TIMED;
        int idle = 0;
        while (mr.readByte(offset) != value) {
            if (reap()) {
                idle = 0;
                lastProgress = NOT_TIMED;
            } else if (mr.readByte(offset) != value) {
                // (A software device's turn inside that poll may just have written the byte: look
                // before pausing, as a NIC's DMA would be seen at once.)
                lastProgress = stallCheck(idle++, lastProgress, what);
            }
        }
    }

    /** Waits for {@code value} at {@code offset}; false when the client's stop byte arrived instead. */
    boolean awaitByteOrStop(int offset, byte value) throws VerbsException, BenchException {
        long lastProgress = NOT_TIMED;
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
                lastProgress = NOT_TIMED;
            } else if (mr.readByte(offset) == seen) {
                // (Unchanged after the poll, whose device turn may have written it: pause.)
                lastProgress = stallCheck(idle++, lastProgress, "the client's WRITE");
            }
        }
    }

    /**
     * One idle pass of a wait: the pause after its {@code idle}-th empty poll in a row; on every
     * 256th, the stop check and the clock. {@code lastProgress} is when the wait last saw progress,
     * or {@link #NOT_TIMED}: then this pass starts its clock (returns the time it read), so a wait
     * reads the clock once per 256 empty polls and never before its 256th, and gives up
     * {@link RdmaTraffic#STALL_NANOS} after that pass without progress (256 polls later than its
     * last progress: microseconds, at most milliseconds where each yield lets another thread run).
     *
     * @return the {@code lastProgress} for the next pass
     */
    long stallCheck(int idle, long lastProgress, String what) throws BenchException {
        return stallCheck(System::nanoTime, progress, idle, lastProgress, what);
    }

    /** {@link #stallCheck(int, long, String)} with its clock and stop flag given (tests count the reads). */
    static long stallCheck(LongSupplier clock, Progress progress, int idle, long lastProgress, String what)
            throws BenchException {
        CompletionQueue.pauseAfterEmptyPoll(idle);
        if ((idle & 0xff) != 0xff) {
            return lastProgress;
        }
        progress.checkStop();
        long now = clock.getAsLong();
        if (lastProgress == NOT_TIMED) {
            return now;
        }
        if (now - lastProgress > STALL_NANOS) {
            throw new PeerGone("nothing arrived for " + STALL_NANOS / 1_000_000_000L + " s while waiting for "
                    + what + "; the other side stopped, or its packets do not reach this side");
        }
        return lastProgress;
    }

    static void check(CompletionBuffer completions, int i) throws BenchException {
        if (!completions.isSuccess(i)) {
            WorkCompletion wc = completions.get(i);
            throw new BenchException("a work request completed with " + wc.status().cName() + " (" + wc.opcode()
                    + ", wr_id " + wc.wrId() + ", vendor_err " + wc.vendorError() + ")");
        }
    }
}
