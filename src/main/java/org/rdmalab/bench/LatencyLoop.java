package org.rdmalab.bench;

import org.rdmalab.verbs.MemoryRegion;
import org.rdmalab.verbs.SendFlag;
import org.rdmalab.verbs.SendWorkRequest;
import org.rdmalab.verbs.VerbsException;

/**
 * bench's latency loops, for {@link RdmaTraffic}'s client: WRITE latency (ib_write_lat: write the
 * whole message into the peer's landing slot, busy-poll the last byte of this side's slot until
 * the peer's answer with the same counter arrives), SEND latency (the same ping-pong with SEND and
 * RECV completions), READ and atomic latency (one request, its completion: a full round trip);
 * and ib_write_lat's and ib_send_lat's own loops for a perftest peer, which both sides run. A sample
 * is the time between two posts of this side ({@link SampleTimes#postIntervals}), halved where it is
 * a ping-pong.
 *
 * <p>One thread uses an instance.
 */
final class LatencyLoop {

    private static final int SIGNALED = SendFlag.SIGNALED.value();

    private final VerbsSide side;
    private final BenchSettings settings;
    private final Progress progress;
    private final TrafficQueues queues;
    private final SampleTimes times;
    private final MemoryRegion mr;

    LatencyLoop(VerbsSide side, BenchSettings settings, Progress progress, TrafficQueues queues, SampleTimes times) {
        this.side = side;
        this.settings = settings;
        this.progress = progress;
        this.queues = queues;
        this.times = times;
        this.mr = side.mr();
    }

    /** Measures one size (the client): its warm-up, then {@code -n} round trips or {@code -D} seconds. */
    BenchRow measure(int size, int sizeIndex) throws VerbsException, BenchException {
        int warmup = settings.warmupFor(size);
        long count = settings.timed() ? Long.MAX_VALUE : settings.iterationsFor(size);
        times.ensureCapacity(settings.timed() ? 1 << 16 : count + 1);
        SendWorkRequest request = queues.request(size, 1, SIGNALED);
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
                if (k >= times.postTimes.length) {
                    times.ensureCapacity(k * 2);
                }
                times.postTimes[(int) k] = now;
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
        times.postIntervals((int) measured);
        LatencyStats stats = LatencyStats.of(size, measured, times.completionTimes, (int) measured, factor);
        return new BenchRow(BenchRow.Path.RDMA, size, null, stats, usage, 0);
    }

    /** One measured exchange of the client. */
    private void roundTrip(int size, long i, SendWorkRequest request) throws VerbsException, BenchException {
        switch (settings.test()) {
            case WRITE -> {
                byte value = RdmaTraffic.counter(i);
                mr.writeByte(size - 1, value);
                queues.postSend(request);
                queues.awaitByte(side.landing(0) + size - 1, value, "the server's WRITE");
            }
            case SEND -> {
                queues.postSend(request);
                queues.awaitReceive("the server's SEND");
                queues.repostReceive(0);
            }
            default -> {
                queues.postSend(request);
                queues.awaitSends();
            }
        }
    }

    /** Ends a latency size so the server stops answering (WRITE / SEND), then drains this side's sends. */
    private void endLatency(int size) throws VerbsException, BenchException {
        if (settings.test() == BenchTest.WRITE) {
            mr.writeByte(size - 1, RdmaTraffic.STOP_BYTE);
            queues.postSend(queues.request(size, 3, SIGNALED));
        } else if (settings.test() == BenchTest.SEND) {
            queues.sendStop(size);
        }
        queues.awaitSends();
    }

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
        SendWorkRequest request = queues.request(size, 1, SIGNALED);
        ResourceMeter.Snapshot before = beginPingPong(size, sizeIndex, iterations);
        int sent = 0;
        int seen = 0;
        while (sent < iterations || seen < iterations) {
            if (seen < iterations && (client || sent > 0)) {
                seen++;
                queues.awaitByte(side.landing(0) + size - 1, (byte) seen, "the peer's WRITE");
            }
            if (sent < iterations) {
                mr.writeByte(size - 1, (byte) (sent + 1));
                postAndAwait(request, sent++);
            }
        }
        return pingPongRow(size, iterations, before);
    }

    /**
     * ib_send_lat's loop, for a perftest peer (both sides run it; {@link TrafficQueues#perftestReceives} first):
     * no warm-up, the client sends first, each side waits for the peer's SEND, then sends its own
     * and waits for its completion (ib_send_lat's TX depth of 1 signals every SEND),
     * {@code iterations} times. A sample is the time between two of this side's
     * posts, halved.
     */
    BenchRow perftestSendLatency(int size, int sizeIndex, int iterations, boolean client)
            throws VerbsException, BenchException {
        SendWorkRequest request = queues.request(size, 1, SIGNALED);
        ResourceMeter.Snapshot before = beginPingPong(size, sizeIndex, iterations);
        long arrivedBefore = queues.receivesArrived();
        int sent = 0;
        int seen = 0;
        while (sent < iterations || seen < iterations) {
            if (seen < iterations && !(client && sent == 0)) {
                // The peer's SEND may have completed already, while this side waited for its own.
                queues.awaitArrivals(arrivedBefore + ++seen, "the peer's SEND");
            }
            if (sent < iterations) {
                postAndAwait(request, sent++);
            }
        }
        return pingPongRow(size, iterations, before);
    }

    /** A perftest ping-pong's start: room for its post times, the progress line, the meter's first reading. */
    private ResourceMeter.Snapshot beginPingPong(int size, int sizeIndex, int iterations) {
        times.ensureCapacity(iterations);
        progress.begin(BenchRow.Path.RDMA, size, sizeIndex, settings.sizes().size(), iterations, true, 2);
        return ResourceMeter.snapshot(side.context());
    }

    /** One post of a perftest ping-pong, its time kept as sample {@code index}, and its completion. */
    private void postAndAwait(SendWorkRequest request, int index) throws VerbsException, BenchException {
        long now = System.nanoTime();
        times.postTimes[index] = now;
        queues.postSend(request);
        queues.awaitSends();
        progress.tick(index + 1, now);
        progress.checkStop();
    }

    /** A perftest ping-pong's row: the times between this side's posts, halved. */
    private BenchRow pingPongRow(int size, int iterations, ResourceMeter.Snapshot before) {
        ResourceMeter.Usage usage = ResourceMeter.since(before, side.context(), iterations);
        times.postIntervals(iterations - 1);
        LatencyStats stats = LatencyStats.of(size, iterations, times.completionTimes, iterations - 1, 2);
        return new BenchRow(BenchRow.Path.RDMA, size, null, stats, usage, 0);
    }
}
