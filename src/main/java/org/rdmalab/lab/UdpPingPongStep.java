package org.rdmalab.lab;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetSocketAddress;
import java.net.PortUnreachableException;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.Optional;
import org.rdmalab.control.ConnectionData;
import org.rdmalab.verbs.CompletionQueue;
import org.rdmalab.verbs.Gid;
import org.rdmalab.verbs.GidEntry;

/**
 * The ping-pong's yardstick ({@code demo --protocol pingpong --baseline}): after the RDMA
 * ping-pong, the same number of round trips of a plain UDP ping-pong between the same two IPv4
 * addresses (the two sides' GIDs), from the same thread, busy-polled as the CQ is (spin, then
 * yield), with no RDMA logic. A message goes out as many datagrams as the RDMA SEND has packets
 * (at most the path MTU of payload each, behind an 8-byte header), and the other side echoes it
 * whole once its last datagram is in. ibv_rc_pingpong's turn also waits for the SEND's ACK; the
 * UDP ping-pong has no ACK, so the ratio shows what RC's acknowledgement and the device cost
 * together (docs/bench.md).
 *
 * <p>The client says hello first and repeats it until the server echoes it, so a server whose
 * socket is not bound yet loses nothing that counts; a round trip not answered within
 * {@link #LOSS_NANOS} is counted lost and the next one begins. Both sides print their time per
 * iteration and its ratio to their own RDMA ping-pong's.
 */
final class UdpPingPongStep extends Step {

    /** type (1), flags (1), index of the datagram in its message (u16), message number (s32). */
    static final int HEADER = 8;
    /** A round trip not answered this long after it began is lost. */
    static final long LOSS_NANOS = 100_000_000L;
    private static final long HELLO_EVERY_NANOS = 10_000_000L;
    private static final byte DATA = 1;
    private static final byte END = 2;
    private static final byte LAST = 1;
    /** The client's first message, repeated until answered; the measured ones are 1..iterations. */
    private static final int HELLO = 0;

    UdpPingPongStep(int iterations, int port, long timeoutMillis) {
        super("udp-baseline", "UDP ping-pong baseline",
                Parameter.integer("iters", "round trips", iterations, 1, 100_000_000),
                Parameter.integer("udp_port", "UDP port on both addresses", port, 1, 65535),
                Parameter.integer("timeout_ms", "longest wait for the peer's first or any later datagram",
                        timeoutMillis, 1, 600_000));
    }

    @Override
    public String cCode(LabSession session) {
        return """
                /* no verbs: plain UDP between the two GIDs' IPv4 addresses, for comparison */
                fd = socket(AF_INET, SOCK_DGRAM, 0);
                bind(fd, &local, sizeof local);  connect(fd, &peer, sizeof peer);
                for (n = 1; n <= iters; ++n) {          /* the server echoes instead */
                    send(fd, msg, size, 0);             /* in datagrams of at most the path MTU */
                    while (recv(fd, buf, sizeof buf, MSG_DONTWAIT) < 0) ;   /* busy */
                }""";
    }

    @Override
    public Optional<Phrase> blockedBy(LabSession session) {
        if (session.remoteData().isEmpty() || session.gidEntry().isEmpty()) {
            return Optional.of(Phrase.of("blocked.exchangeBaseline"));
        }
        return Optional.empty();
    }

    @Override
    protected StepResult execute(LabSession session) throws Exception {
        Gid localGid = session.gidEntry().map(GidEntry::gid).orElseThrow();
        Gid remoteGid = session.remoteData().map(ConnectionData::gid).orElseThrow();
        if (!localGid.isIpv4Mapped() || !remoteGid.isIpv4Mapped()) {
            return StepResult.failed("the UDP baseline runs between the GIDs' IPv4 addresses, and "
                    + (localGid.isIpv4Mapped() ? "the peer's GID " + remoteGid : "this side's GID " + localGid)
                    + " carries none; choose a RoCE v2 GID that carries an IPv4 address (--gid-index)");
        }
        int iterations = parameter("iters").asInt();
        int port = parameter("udp_port").asInt();
        long timeoutNanos = parameter("timeout_ms").asLong() * 1_000_000L;
        int size = session.mr().length();
        int payload = pathMtu(session);
        Inet4Address local = localGid.ipv4();
        Inet4Address remote = remoteGid.ipv4();
        String between = local.getHostAddress() + " <-> " + remote.getHostAddress() + " UDP port " + port;
        Run run;
        try (DatagramChannel channel = DatagramChannel.open(StandardProtocolFamily.INET)) {
            channel.bind(new InetSocketAddress(local, port));
            channel.connect(new InetSocketAddress(remote, port));
            channel.configureBlocking(false);
            Datagrams datagrams = new Datagrams(channel, size, payload);
            run = session.role() == Role.CLIENT ? datagrams.client(iterations, timeoutNanos)
                    : datagrams.server(iterations, timeoutNanos);
        } catch (IOException e) {
            return StepResult.failed("the UDP baseline cannot use " + local.getHostAddress() + ":" + port + " ("
                    + e.getMessage() + "); choose another --baseline-port");
        }
        if (run.failure() != null) {
            return StepResult.failed(run.failure());
        }
        int measured = iterations - (int) run.lost();
        double microsPerIteration = run.nanos() / 1e3 / iterations;
        int perMessage = datagrams(size, payload);
        session.print(String.format("UDP baseline: %d iters in %.2f seconds = %.2f usec/iter (%d-byte messages in %d "
                        + "datagram%s each, %s, no RDMA)", iterations, run.nanos() / 1e9, microsPerIteration, size,
                perMessage, perMessage == 1 ? "" : "s", between));
        if (run.lost() > 0) {
            session.print(run.lost() + " of " + iterations + " UDP round trips were lost (the time includes the "
                    + LOSS_NANOS / 1_000_000 + " ms each waited)");
        }
        RoundTrips trips = run.roundTrips();
        if (trips.count() > 0) {
            session.print("UDP round trip: " + trips.summary());
        }
        Optional<PingPongStep> pingPong = session.steps().stream().filter(PingPongStep.class::isInstance)
                .map(PingPongStep.class::cast).filter(step -> step.microsPerIteration().isPresent()).findFirst();
        if (pingPong.isPresent()) {
            session.print(String.format("ratio: %.2f (RDMA ping-pong usec/iter / UDP ping-pong usec/iter)",
                    pingPong.get().microsPerIteration().getAsDouble() / microsPerIteration));
            pingPong.get().roundTrips().filter(rdma -> rdma.count() > 0 && trips.count() > 0).ifPresent(rdma ->
                    session.print(String.format("median ratio: %.2f (RDMA ping-pong median round trip %.2f usec / UDP "
                            + "%.2f usec)", rdma.medianMicros() / trips.medianMicros(), rdma.medianMicros(),
                            trips.medianMicros())));
        }
        return StepResult.ok(String.format("%d UDP round trips of %d bytes: %.2f usec/iter", measured, size,
                microsPerIteration));
    }

    /** The path MTU the RTR step set (the RDMA SEND's packet payload), else 1024. */
    private static int pathMtu(LabSession session) {
        return session.steps().stream().filter(ModifySteps.ToRtr.class::isInstance).findFirst()
                .map(step -> step.parameter("path_mtu").asInt()).orElse(1024);
    }

    static int datagrams(int size, int payload) {
        return Math.max(1, (size + payload - 1) / payload);
    }

    /**
     * What one side measured: the time of the measured round trips, those lost, each answered
     * round trip's time, or why it failed.
     */
    record Run(long nanos, long lost, RoundTrips roundTrips, String failure) {
        static Run failed(String why) {
            return new Run(0, 0, new RoundTrips(), why);
        }
    }

    /** One side's socket and buffers; allocates nothing per datagram. */
    static final class Datagrams {

        private final DatagramChannel channel;
        private final int size;
        private final int payload;
        private final ByteBuffer out;
        private final ByteBuffer in;
        private byte inType;
        private boolean inLast;
        private int inSeq;

        Datagrams(DatagramChannel channel, int size, int payload) {
            this.channel = channel;
            this.size = size;
            this.payload = payload;
            this.out = ByteBuffer.allocateDirect(HEADER + Math.min(size, payload));
            this.in = ByteBuffer.allocateDirect(HEADER + Math.min(size, payload));
        }

        /** Sends messages 0 (hello, until answered) and 1..iterations, each after the last one's echo. */
        Run client(int iterations, long timeoutNanos) throws IOException {
            long helloSince = System.nanoTime();
            long helloAt = helloSince - HELLO_EVERY_NANOS;
            for (int idle = 0; ; idle++) {
                long now = System.nanoTime();
                if (now - helloAt >= HELLO_EVERY_NANOS) {
                    sendMessage(DATA, HELLO);
                    helloAt = now;
                }
                if (receive() == DATA && inLast && inSeq == HELLO) {
                    break;
                }
                if (now - helloSince > timeoutNanos) {
                    return Run.failed("the peer's UDP baseline did not answer within " + timeoutNanos / 1_000_000
                            + " ms (is it running with --baseline, on the same --baseline-port?)");
                }
                CompletionQueue.pauseAfterEmptyPoll(idle);
            }
            long lost = 0;
            RoundTrips trips = new RoundTrips();
            long start = System.nanoTime();
            long begun = start;
            for (int seq = 1; seq <= iterations; seq++) {
                sendMessage(DATA, seq);
                if (awaitEcho(seq)) {
                    long now = System.nanoTime();
                    trips.record(now - begun);
                    begun = now;
                } else {
                    lost++;
                    begun = System.nanoTime();
                }
            }
            long nanos = System.nanoTime() - start;
            for (int i = 0; i < 3; i++) {
                send(END, true, 0, 0, 0);
            }
            return new Run(nanos, lost, trips, null);
        }

        private boolean awaitEcho(int seq) throws IOException {
            long since = System.nanoTime();
            for (int idle = 0; ; idle++) {
                byte type = receive();
                if (type == DATA && inLast && inSeq == seq) {
                    return true;
                }
                if (type == 0) {
                    if ((idle & 0xff) == 0xff && System.nanoTime() - since > LOSS_NANOS) {
                        return false;
                    }
                    CompletionQueue.pauseAfterEmptyPoll(idle);
                }
            }
        }

        /**
         * Echoes each message once its last datagram is in, until the client's END or its last
         * message's echo. The time runs from the echo of the hello, which the client's first
         * measured message answers, to the last echo: {@code iterations} round trips, as the
         * client counts them, so that the server's figure also means something for a short run.
         */
        Run server(int iterations, long timeoutNanos) throws IOException {
            long lastHeard = System.nanoTime();
            long start = 0;
            long end = 0;
            int answered = 0;
            RoundTrips trips = new RoundTrips();
            for (int idle = 0; ; idle++) {
                byte type = receive();
                if (type == 0) {
                    if ((idle & 0xff) == 0xff && System.nanoTime() - lastHeard > timeoutNanos) {
                        if (answered == 0) {
                            return Run.failed("the peer's UDP baseline sent nothing within "
                                    + timeoutNanos / 1_000_000 + " ms (is it running with --baseline, on the same "
                                    + "--baseline-port?)");
                        }
                        break; // the END was lost: the client is gone
                    }
                    CompletionQueue.pauseAfterEmptyPoll(idle);
                    continue;
                }
                idle = 0;
                lastHeard = System.nanoTime();
                if (type == END) {
                    break;
                }
                if (type != DATA) {
                    continue;
                }
                if (inSeq == 1 && start == 0) {
                    start = end != 0 ? end : lastHeard; // no hello echoed: a client that skipped it
                }
                if (inLast) {
                    sendMessage(DATA, inSeq);
                    if (inSeq == HELLO && start == 0) {
                        end = System.nanoTime(); // the last hello's echo, answered by message 1
                    } else if (inSeq >= 1) {
                        answered = Math.max(answered, inSeq);
                        long now = System.nanoTime();
                        if (end != 0) {
                            trips.record(now - end); // from one echo to the next
                        }
                        end = now;
                    }
                    if (inSeq == iterations) {
                        break;
                    }
                }
            }
            if (start == 0) {
                return Run.failed("the peer's UDP baseline ended before its first measured message");
            }
            return new Run(end - start, iterations - answered, trips, null);
        }

        private void sendMessage(byte type, int seq) throws IOException {
            int count = datagrams(size, payload);
            for (int index = 0; index < count; index++) {
                send(type, index == count - 1, index, seq, Math.min(payload, size - index * payload));
            }
        }

        private void send(byte type, boolean last, int index, int seq, int length) throws IOException {
            out.clear();
            out.put(type).put(last ? LAST : 0).putShort((short) index).putInt(seq);
            out.limit(HEADER + Math.max(0, length)).position(0);
            for (int idle = 0; ; idle++) {
                try {
                    if (channel.write(out) > 0) {
                        return;
                    }
                } catch (PortUnreachableException e) {
                    continue; // an earlier datagram found no socket (ICMP); this one goes now
                }
                CompletionQueue.pauseAfterEmptyPoll(idle); // the send buffer is full: it drains in microseconds
            }
        }

        /** Reads one datagram if one is there: its type (the header lands in the in* fields), or 0. */
        private byte receive() throws IOException {
            in.clear();
            int read;
            try {
                read = channel.read(in);
            } catch (PortUnreachableException e) {
                return 0; // the peer's socket is not bound yet or closed already (ICMP)
            }
            if (read < HEADER) {
                return 0;
            }
            inType = in.get(0);
            inLast = (in.get(1) & LAST) != 0;
            inSeq = in.getInt(4);
            return inType;
        }
    }
}
