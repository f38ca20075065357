package org.rdmalab.bench;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.channels.DatagramChannel;
import java.util.Arrays;
import org.rdmalab.baseline.Datagrams;
import org.rdmalab.verbs.CompletionQueue;
import org.rdmalab.verbs.spi.DeviceOptions;

/**
 * The baseline: the same traffic pattern as {@link RdmaTraffic} over plain UDP datagrams between
 * the same two addresses, from the same threads, with no RDMA logic (no PSNs, no retransmission, no
 * memory regions). A message of {@code size} bytes goes out as ceil(size / payload) datagrams of at
 * most {@code payload} bytes (the path MTU, as a RoCE packet carries), each behind a 12-byte header
 * (type, last-flag, index, message number, message size; RoCE's BTH is also 12 bytes): the
 * {@link Datagrams} of {@code demo --baseline}'s ping-pong, with this traffic's own types.
 *
 * <ul>
 *   <li>WRITE / SEND bandwidth: {@code -t} messages in flight ({@code -q} × {@code -t} with several
 *       QPs), the server answers each message's last datagram with a header-only ack, as an RC
 *       responder acks.</li>
 *   <li>READ / atomic bandwidth: {@code -t} requests in flight; the server answers each with the
 *       message's datagrams.</li>
 *   <li>{@code -b}: both sides run the bandwidth window at once, each answering the other's
 *       traffic as it goes and then until the other's END; each measures its own direction.</li>
 *   <li>WRITE / SEND latency: ping-pong of whole messages (reported halved);
 *       READ / atomic latency: request then response (full round trip).</li>
 * </ul>
 * UDP does not retransmit: a message whose answer has not come {@link #LOSS_NANOS} after the last
 * progress is counted lost (its bytes are not counted as moved; a lost ping-pong is not a sample).
 * Sockets are non-blocking and busy-polled as the CQ is (spin, then yield); buffers are direct and
 * reused, so the steady state allocates nothing.
 *
 * <p>One thread uses an instance; {@link #close()} closes the socket and is idempotent.
 */
final class UdpBaseline implements AutoCloseable {

    static final byte DATA = 1;
    static final byte ACK = 2;
    static final byte REQUEST = 3;
    static final byte RESPONSE = 4;
    static final byte END = 5;
    /** type, flags, index (u16), message number (s32), message size (s32): {@link Datagrams}'. */
    static final int HEADER = Datagrams.HEADER;
    /** The bytes a READ / atomic request carries after the header (RETH: address, rkey, length). */
    static final int REQUEST_BYTES = 16;
    /** The same socket buffers as the software device's (4 MiB). */
    static final int SOCKET_BUFFER = 4 << 20;
    /** A message not answered this long after the last progress is lost. */
    static final long LOSS_NANOS = 100_000_000L;
    /** The server gives up after this long without a datagram. */
    static final long SILENCE_NANOS = 30_000_000_000L;
    /** With {@code -b}, a side done with its own traffic takes a peer silent this long to be done. */
    static final long PEER_DONE_NANOS = 1_000_000_000L;

    private final Datagrams link;
    private final BenchSettings settings;
    private final Progress progress;
    private long[] postTimes = new long[0];
    private long[] completionTimes = new long[0];
    /** With {@code -b}: the peer's END arrived (its traffic of this size is over). */
    private boolean peerEnded;

    private UdpBaseline(DatagramChannel channel, BenchSettings settings, Progress progress, int payload) {
        this.link = new Datagrams(channel, null, payload, HEADER, HEADER + Math.max(payload, REQUEST_BYTES));
        this.settings = settings;
        this.progress = progress;
    }

    /**
     * Binds {@code localIp:port}, connects to {@code peerIp:port}.
     *
     * @param payload bytes of message data per datagram (the path MTU)
     */
    static UdpBaseline open(String localIp, String peerIp, int port, BenchSettings settings, int payload,
                            Progress progress) throws BenchException {
        DatagramChannel channel = null;
        try {
            channel = DatagramChannel.open(StandardProtocolFamily.INET);
            channel.setOption(StandardSocketOptions.SO_RCVBUF, SOCKET_BUFFER);
            channel.setOption(StandardSocketOptions.SO_SNDBUF, SOCKET_BUFFER);
            channel.bind(new InetSocketAddress(DeviceOptions.parseAddress(localIp), port));
            channel.connect(new InetSocketAddress(DeviceOptions.parseAddress(peerIp), port));
            channel.configureBlocking(false);
            return new UdpBaseline(channel, settings, progress, payload);
        } catch (IOException e) {
            if (channel != null) {
                try {
                    channel.close();
                } catch (IOException ignored) {
                    // Closing a socket that failed to bind.
                }
            }
            throw new BenchException("the UDP baseline cannot use " + localIp + ":" + port + " (" + e.getMessage()
                    + "); choose another --baseline-port", e);
        }
    }

    /** Datagrams a message of {@code size} bytes needs. */
    int datagrams(int size) {
        return link.count(size);
    }

    // ---------------------------------------------------------------- client

    /**
     * Measures one size, then tells the peer this side's traffic is over (the client; with
     * {@code -b} both sides, each also answering the peer's traffic meanwhile and then until the
     * peer's END: the row is this side's direction).
     */
    BenchRow measure(int size, int sizeIndex) throws BenchException {
        try {
            peerEnded = false;
            BenchRow row = settings.mode() == BenchMode.BW ? bandwidth(size, sizeIndex) : latency(size, sizeIndex);
            for (int i = 0; i < 3; i++) {
                send(END, false, 0, 0, 0, 0);
            }
            if (settings.bidirectional()) {
                // A side still sending sends all the time: a silent peer is done (its END was lost).
                answerUntilEnd(true, PEER_DONE_NANOS, true);
            }
            return row;
        } catch (IOException e) {
            throw new BenchException("the UDP baseline failed: " + e.getMessage(), e);
        }
    }

    private boolean oneSided() {
        return settings.test().fullRoundTrip();
    }

    /**
     * Bandwidth: with {@code -q N} the window holds N × {@code -t} messages and N × {@code -n} go in
     * all, the RDMA traffic's N QPs sharing one UDP socket pair as a device's QPs share its socket;
     * the row's {@code #iterations} counts them all, as the RDMA row's (perftest's).
     */
    private BenchRow bandwidth(int size, int sizeIndex) throws IOException, BenchException {
        int qps = settings.qps();
        window(size, settings.warmupFor(size), 0, false);
        long count = settings.timed() ? 0 : settings.iterationsFor(size) * qps;
        ensureCapacity(settings.timed() ? 1 << 16 : count);
        progress.begin(BenchRow.Path.BASELINE, size, sizeIndex, settings.sizes().size(), count, false, 1);
        ResourceMeter.Snapshot before = ResourceMeter.snapshot();
        long deadline = settings.timed() ? System.nanoTime() + settings.durationSeconds() * 1_000_000_000L : 0;
        long[] result = window(size, count, deadline, true);
        long moved = result[0];
        long lost = result[1];
        ResourceMeter.Usage usage = ResourceMeter.since(before, moved);
        BandwidthStats all = BandwidthStats.of(size, postTimes, completionTimes, (int) moved, 1, true);
        double delivered = moved == 0 ? 0 : (double) (moved - lost) / moved;
        BandwidthStats stats = new BandwidthStats(size, moved, all.peakBytesPerSecond(),
                all.averageBytesPerSecond() * delivered, all.messagesPerSecond() * delivered, all.elapsedNanos());
        return new BenchRow(BenchRow.Path.BASELINE, size, stats, null, usage, lost);
    }

    /** {messages sent, messages lost}. */
    private long[] window(int size, long count, long deadline, boolean record) throws IOException, BenchException {
        int depth = settings.txDepth() * settings.qps();
        long posted = 0;
        long completed = 0;
        long lost = 0;
        long limit = deadline == 0 ? count : Long.MAX_VALUE;
        long lastProgress = System.nanoTime();
        int idle = 0;
        while (true) {
            while (posted < limit && posted - completed < depth) {
                long now = System.nanoTime();
                if (limit == Long.MAX_VALUE && now - deadline >= 0) {
                    limit = posted;
                    break;
                }
                if (record) {
                    if (posted >= postTimes.length) {
                        ensureCapacity(posted * 2);
                    }
                    postTimes[(int) posted] = now;
                }
                if (oneSided()) {
                    send(REQUEST, true, 0, (int) posted, size, REQUEST_BYTES);
                } else {
                    sendMessage(DATA, (int) posted, size);
                }
                posted++;
            }
            if (posted >= limit && completed >= posted) {
                return new long[] {posted, lost};
            }
            byte type = receive();
            long now = System.nanoTime();
            if (settings.bidirectional() && (type == DATA || type == REQUEST || type == END)) {
                answer(type, true); // the peer's own traffic (-b)
                continue;
            }
            boolean answer = (type == ACK || (type == RESPONSE && link.last())) && link.seq() >= completed && link.seq() < posted;
            if (answer) {
                if (record) {
                    for (long k = completed; k <= link.seq(); k++) {
                        completionTimes[(int) k] = now;
                    }
                }
                completed = link.seq() + 1L;
                lastProgress = now;
                idle = 0;
                if (record) {
                    progress.tick(completed, now);
                }
                continue;
            }
            if (type != 0) {
                continue;
            }
            CompletionQueue.pauseAfterEmptyPoll(idle++);
            if (now - lastProgress > LOSS_NANOS) {
                lost += posted - completed;
                if (record) {
                    for (long k = completed; k < posted; k++) {
                        completionTimes[(int) k] = now;
                    }
                }
                completed = posted;
                lastProgress = now;
                progress.checkStop();
            }
            if ((idle & 0xff) == 0xff) {
                progress.checkStop();
            }
        }
    }

    private BenchRow latency(int size, int sizeIndex) throws IOException, BenchException {
        int warmup = settings.warmupFor(size);
        long count = settings.timed() ? Long.MAX_VALUE : settings.iterationsFor(size);
        ensureCapacity(settings.timed() ? 1 << 16 : count);
        int factor = oneSided() ? 1 : 2;
        ResourceMeter.Snapshot before = null;
        long deadline = 0;
        long samples = 0;
        long lost = 0;
        long attempts = 0;
        for (long i = 0; ; i++) {
            long start = System.nanoTime();
            boolean measuring = i >= warmup;
            if (measuring) {
                if (i == warmup) {
                    progress.begin(BenchRow.Path.BASELINE, size, sizeIndex, settings.sizes().size(),
                            settings.timed() ? 0 : count, true, factor);
                    before = ResourceMeter.snapshot();
                    deadline = start + settings.durationSeconds() * 1_000_000_000L;
                }
                if (attempts == count || (settings.timed() && start - deadline >= 0
                        && samples > LatencyStats.MEASURE_TAIL)) {
                    break;
                }
                progress.tick(samples, start);
                progress.checkStop();
            }
            if (oneSided()) {
                send(REQUEST, true, 0, (int) i, size, REQUEST_BYTES);
            } else {
                sendMessage(DATA, (int) i, size);
            }
            boolean answered = awaitAnswer((int) i);
            long end = System.nanoTime();
            if (measuring) {
                attempts++;
                if (answered) {
                    if (samples >= postTimes.length) {
                        ensureCapacity(samples * 2);
                    }
                    postTimes[(int) samples++] = end - start;
                } else {
                    lost++;
                }
            }
        }
        ResourceMeter.Usage usage = ResourceMeter.since(before, samples);
        if (samples < LatencyStats.MEASURE_TAIL + 1) {
            throw new BenchException("the UDP baseline lost " + lost + " of " + attempts
                    + " round trips; too few answers to report");
        }
        LatencyStats stats = LatencyStats.of(size, attempts, postTimes, (int) samples, factor);
        return new BenchRow(BenchRow.Path.BASELINE, size, null, stats, usage, lost);
    }

    /** Waits for the last datagram of the answer to message {@code seq}; false when it was lost. */
    private boolean awaitAnswer(int seq) throws IOException, BenchException {
        return link.awaitLast(DATA, RESPONSE, seq, LOSS_NANOS, progress::checkStop);
    }

    private void ensureCapacity(long wanted) {
        if (postTimes.length < wanted) {
            postTimes = Arrays.copyOf(postTimes, (int) Math.min(Integer.MAX_VALUE - 8, wanted));
            completionTimes = Arrays.copyOf(completionTimes, postTimes.length);
        }
    }

    // ---------------------------------------------------------------- server

    /** Answers one size until the client's END (the server). */
    void serve() throws BenchException {
        try {
            peerEnded = false;
            answerUntilEnd(settings.mode() == BenchMode.BW, SILENCE_NANOS, false);
        } catch (IOException e) {
            throw new BenchException("the UDP baseline failed: " + e.getMessage(), e);
        }
    }

    /**
     * Answers the peer's datagrams until its END. After {@code silenceNanos} without one it fails
     * (a server whose client is gone), or with {@code silenceEnds} takes the peer to be done.
     */
    private void answerUntilEnd(boolean bandwidth, long silenceNanos, boolean silenceEnds)
            throws IOException, BenchException {
        long lastDatagram = System.nanoTime();
        int idle = 0;
        while (!peerEnded) {
            byte type = receive();
            if (type == 0) {
                CompletionQueue.pauseAfterEmptyPoll(idle++);
                if ((idle & 0xff) == 0xff) {
                    progress.checkStop();
                    if (System.nanoTime() - lastDatagram > silenceNanos) {
                        if (silenceEnds) {
                            return;
                        }
                        throw new BenchException("the UDP baseline heard nothing from the client for "
                                + silenceNanos / 1_000_000_000L + " s");
                    }
                }
                continue;
            }
            idle = 0;
            lastDatagram = System.nanoTime();
            answer(type, bandwidth);
        }
    }

    /**
     * Answers one datagram of the peer's traffic as a responder does: the last datagram of a
     * message is acked ({@code bandwidth}) or echoed whole, a request is answered with the data,
     * and the peer's END sets {@link #peerEnded}.
     */
    private void answer(byte type, boolean bandwidth) throws IOException, BenchException {
        switch (type) {
            case DATA -> {
                if (link.last()) {
                    if (bandwidth) {
                        send(ACK, true, 0, link.seq(), 0, 0);
                    } else {
                        sendMessage(DATA, link.seq(), link.size());
                    }
                }
            }
            case REQUEST -> sendMessage(RESPONSE, link.seq(), link.size());
            case END -> peerEnded = true;
            default -> {
                // A stray answer type: ignore it, as a responder drops what it does not expect.
            }
        }
    }

    // ---------------------------------------------------------------- datagrams

    private void sendMessage(byte type, int seq, int size) throws IOException {
        link.sendMessage(type, seq, size);
    }

    private void send(byte type, boolean last, int index, int seq, int size, int length) throws IOException {
        link.send(type, last, index, seq, size, length);
    }

    /** Reads one datagram if one is there: its type (its header is then {@link #link}'s), or 0. */
    private byte receive() throws IOException {
        return link.receive();
    }

    @Override
    public void close() {
        try {
            link.close();
        } catch (IOException e) {
            // Closing a datagram socket does not fail in practice; nothing is left to release.
        }
    }
}
