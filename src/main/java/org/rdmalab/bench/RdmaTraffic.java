package org.rdmalab.bench;

import java.util.List;
import org.rdmalab.control.ConnectionData;
import org.rdmalab.verbs.CompletionQueue;
import org.rdmalab.verbs.MemoryRegion;
import org.rdmalab.verbs.SendFlag;
import org.rdmalab.verbs.SendWorkRequest;
import org.rdmalab.verbs.VerbsException;

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
 * <p>The loops are {@link BandwidthLoop} and {@link LatencyLoop}; {@link TrafficQueues} posts,
 * polls, keeps the receives posted and waits, and {@link SampleTimes} keeps the stamped times. This
 * class is the side's entry: it builds them for one connected side and answers as the server.
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
    private final ConnectionData remote;
    private final BenchSettings settings;
    private final MemoryRegion mr;
    private final TrafficQueues queues;
    private final BandwidthLoop bandwidth;
    private final LatencyLoop latency;

    RdmaTraffic(VerbsSide side, List<ConnectionData> remotes, BenchSettings settings, Progress progress) {
        this.queues = new TrafficQueues(side, remotes, settings, progress);
        this.side = side;
        this.remote = remotes.get(0);
        this.settings = settings;
        this.mr = side.mr();
        SampleTimes times = new SampleTimes();
        this.bandwidth = new BandwidthLoop(side, settings, progress, queues, times);
        this.latency = new LatencyLoop(side, settings, progress, queues, times);
    }

    /**
     * Gets a size ready before the sides meet: clears the counter bytes this side posts and polls,
     * and keeps the receive queue full (SEND tests).
     */
    void prepare(int size) throws VerbsException {
        mr.writeByte(size - 1, (byte) 0);
        mr.writeByte(side.landing(0) + size - 1, (byte) 0);
        queues.clearStops();
        if (settings.test() == BenchTest.SEND) {
            queues.fillReceives();
        }
    }

    /** The counter value of the {@code i}-th WRITE latency exchange: 1..254, never {@link #STOP_BYTE}. */
    static byte counter(long i) {
        return (byte) (i % 254 + 1);
    }

    // ---------------------------------------------------------------- client

    /** Measures one size (the client). */
    BenchRow measure(int size, int sizeIndex) throws VerbsException, BenchException {
        return settings.mode() == BenchMode.BW ? bandwidth.measure(size, sizeIndex) : latency.measure(size, sizeIndex);
    }

    /** One report interval of {@code --run_infinitely} (the client): {@link BandwidthLoop#measureInterval}. */
    BenchRow measureInterval(int size, boolean first, boolean stop) throws VerbsException, BenchException {
        return bandwidth.measureInterval(size, first, stop);
    }

    // ---------------------------------------------------------------- a perftest peer

    /** ib_write_lat's own loop: {@link LatencyLoop#perftestWriteLatency}. */
    BenchRow perftestWriteLatency(int size, int sizeIndex, int iterations, boolean client)
            throws VerbsException, BenchException {
        return latency.perftestWriteLatency(size, sizeIndex, iterations, client);
    }

    /** ib_send_lat's loop ({@link #perftestReceives} first): {@link LatencyLoop#perftestSendLatency}. */
    BenchRow perftestSendLatency(int size, int sizeIndex, int iterations, boolean client)
            throws VerbsException, BenchException {
        return latency.perftestSendLatency(size, sizeIndex, iterations, client);
    }

    /** The receives of one size for a perftest peer: {@link TrafficQueues#perftestReceives}. */
    void perftestReceives(long iterations) throws VerbsException {
        queues.perftestReceives(iterations);
    }

    /** ib_send_bw's client for a perftest server: {@link BandwidthLoop#perftestSendBandwidthClient}. */
    BenchRow perftestSendBandwidthClient(int size, int sizeIndex, int iterations)
            throws VerbsException, BenchException {
        return bandwidth.perftestSendBandwidthClient(size, sizeIndex, iterations);
    }

    /** ib_send_bw {@code -b} for a perftest peer: {@link BandwidthLoop#perftestSendBothWays}. */
    BenchRow perftestSendBothWays(int size, int sizeIndex, int iterations, boolean client)
            throws VerbsException, BenchException {
        return bandwidth.perftestSendBothWays(size, sizeIndex, iterations, client);
    }

    /** One interval of ib_send_bw's {@code --run_infinitely} server: {@link BandwidthLoop#perftestReceiveInterval}. */
    BenchRow perftestReceiveInterval(int size) throws VerbsException, BenchException {
        return bandwidth.perftestReceiveInterval(size);
    }

    /** ib_send_bw's server for a perftest client: {@link BandwidthLoop#perftestSendBandwidthServer}. */
    BenchRow perftestSendBandwidthServer(int size, int sizeIndex, int iterations)
            throws VerbsException, BenchException {
        return bandwidth.perftestSendBandwidthServer(size, sizeIndex, iterations);
    }

    // ---------------------------------------------------------------- server

    /** Answers one size (the server); returns when the client's end-of-size arrives, or at once for one-sided tests. */
    void serve(int size) throws VerbsException, BenchException {
        if (settings.test() == BenchTest.SEND) {
            if (settings.mode() == BenchMode.BW) {
                queues.takeSends("the client's SENDs");
            } else {
                SendWorkRequest answer = SendWorkRequest.send(1, mr.sge(0, size), SIGNALED);
                while (true) {
                    queues.awaitReceive("the client's SEND");
                    if (queues.stopArrived()) {
                        break;
                    }
                    queues.repostReceive(0);
                    queues.postSend(answer);
                }
                queues.repostReceive(0);
                queues.awaitSends();
            }
        } else if (settings.test() == BenchTest.WRITE && settings.mode() == BenchMode.LAT) {
            SendWorkRequest answer = SendWorkRequest.write(1, mr.sge(0, size), remote.addr(), remote.rkey(),
                    SIGNALED);
            for (long i = 0; ; i++) {
                byte value = counter(i);
                if (!queues.awaitByteOrStop(side.landing(0) + size - 1, value)) {
                    break;
                }
                mr.writeByte(size - 1, value);
                queues.postSend(answer);
            }
            queues.awaitSends();
        }
        // WRITE / READ / atomic bandwidth and READ / atomic latency are one-sided: nothing to do.
    }
}
