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
import org.rdmalab.text.Phrase;
import org.rdmalab.verbs.CompletionQueue;
import org.rdmalab.verbs.Gid;
import org.rdmalab.verbs.GidEntry;

/**
 * The ping-pong's yardsticks ({@code demo --protocol pingpong --baseline}), run after the RDMA
 * ping-pong between the same two IPv4 addresses (the two sides' GIDs), from the same thread,
 * busy-polled as the CQ is (spin, then yield), with no RDMA logic, for the same number of round
 * trips. A message goes out as many datagrams as the RDMA SEND has packets (at most the path MTU of
 * payload each), and the other side echoes it whole once its last datagram is in.
 * <ul>
 *   <li>{@link Pattern#UDP}, the plain UDP ping-pong: connected sockets, each datagram the payload
 *       behind an 8-byte header, no acknowledgement.</li>
 *   <li>{@link Pattern#RC}, RC's datagrams alone: what ibv_rc_pingpong's turn puts on the wire
 *       with no device behind it. Each datagram is as long as the SEND's packet (BTH, payload,
 *       ICRC: 16 bytes more than the payload), each message is acknowledged by a 20-byte datagram
 *       (an ACK's length), a side sends its next message only once its last one is acknowledged
 *       (ibv_rc_pingpong posts after the SEND's completion), and the sockets are unconnected,
 *       sending with an address, as a RoCE device's must (docs/performance.md). A side that takes in its
 *       peer's message answers it first and acknowledges it after when its own last message is
 *       acknowledged already, else acknowledges it at once: soft0's order. This is the floor any
 *       RC device on these sockets starts from, so the ratio to it shows what the device adds.</li>
 * </ul>
 *
 * <p>The client says hello first and repeats it until the server echoes it, so a server whose
 * socket is not bound yet loses nothing that counts; a round trip not answered within
 * {@link #LOSS_NANOS} is counted lost and the next one begins. Both sides print their time per
 * iteration and its ratio to their own RDMA ping-pong's.
 */
final class UdpPingPongStep extends Step {

    /** Which traffic a baseline step sends: its step id and title, and its name in what it prints. */
    enum Pattern {
        UDP("udp-baseline", "UDP ping-pong baseline", "UDP"),
        RC("rc-baseline", "RC datagrams baseline", "RC datagrams");

        final String stepId;
        final String title;
        /** "UDP baseline", "RC datagrams round trip": what its lines begin with. */
        final String said;

        Pattern(String stepId, String title, String said) {
            this.stepId = stepId;
            this.title = title;
            this.said = said;
        }
    }

    /** type (1), flags (1), index of the datagram in its message (u16), message number (s32). */
    static final int HEADER = 8;
    /** What a RoCE v2 packet adds to its payload in the UDP datagram: the BTH (12 bytes) and the ICRC (4). */
    static final int RC_OVERHEAD = 16;
    /** An ACK in the UDP datagram: BTH, AETH (4 bytes) and ICRC. */
    static final int RC_ACK = 20;
    /** A round trip not answered this long after it began is lost. */
    static final long LOSS_NANOS = 100_000_000L;
    private static final long HELLO_EVERY_NANOS = 10_000_000L;
    private static final byte DATA = 1;
    private static final byte END = 2;
    // RC's own types, so that a late datagram of the plain run on the same port is not taken for one.
    static final byte RC_DATA = 3;
    static final byte RC_ACK_TYPE = 4;
    private static final byte RC_END = 5;
    private static final byte LAST = 1;
    /** The client's first message, repeated until answered; the measured ones are 1..iterations. */
    private static final int HELLO = 0;

    private final Pattern pattern;
    /** The last run's round trips (null before one); read by the RC step for its ratio to UDP's. */
    private volatile RoundTrips roundTrips;

    UdpPingPongStep(int iterations, int port, long timeoutMillis) {
        this(Pattern.UDP, iterations, port, timeoutMillis);
    }

    UdpPingPongStep(Pattern pattern, int iterations, int port, long timeoutMillis) {
        super(pattern.stepId, pattern.title,
                Parameter.integer("iters", "round trips", iterations, 1, 100_000_000),
                Parameter.integer("udp_port", "UDP port on both addresses", port, 1, 65535),
                Parameter.integer("timeout_ms", "longest wait for the peer's first or any later datagram",
                        timeoutMillis, 1, 600_000));
        this.pattern = pattern;
    }

    @Override
    public String cCode(LabSession session) {
        if (pattern == Pattern.RC) {
            return """
                    /* no verbs: RC's datagrams alone, as a RoCE device sends them, for comparison */
                    fd = socket(AF_INET, SOCK_DGRAM, 0);
                    bind(fd, &local, sizeof local);     /* unconnected: sendto() with the address */
                    for (n = 1; n <= iters; ++n) {      /* the server echoes instead */
                        /* as long as the SEND's packets: BTH (12) + payload (at most the MTU) + ICRC (4) */
                        sendto(fd, pkt, 12 + size + 4, 0, &peer, sizeof peer);
                        for (echoed = acked = 0; !echoed || !acked; )    /* busy */
                            if (recv(fd, buf, sizeof buf, MSG_DONTWAIT) > 0)
                                ...;  /* the echo, ACKed with 20 bytes (BTH + AETH + ICRC), or our ACK */
                    }""";
        }
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
            return Optional.of(LabPhrase.of("blocked.exchangeBaseline"));
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
        String name = pattern.said + " baseline";
        Run run;
        try (DatagramChannel channel = DatagramChannel.open(StandardProtocolFamily.INET)) {
            channel.bind(new InetSocketAddress(local, port));
            InetSocketAddress peer = new InetSocketAddress(remote, port);
            if (pattern == Pattern.UDP) {
                channel.connect(peer);
            }
            channel.configureBlocking(false);
            Datagrams datagrams = pattern == Pattern.UDP ? new Datagrams(channel, size, payload)
                    : new Datagrams(channel, peer, size, payload);
            run = session.role() == Role.CLIENT ? datagrams.client(iterations, timeoutNanos)
                    : datagrams.server(iterations, timeoutNanos);
        } catch (IOException e) {
            return StepResult.failed("the " + name + " cannot use " + local.getHostAddress() + ":" + port + " ("
                    + e.getMessage() + "); choose another --baseline-port");
        }
        if (run.failure() != null) {
            return StepResult.failed(run.failure());
        }
        int measured = iterations - (int) run.lost();
        double microsPerIteration = run.nanos() / 1e3 / iterations;
        int perMessage = datagrams(size, payload);
        String what = pattern == Pattern.UDP
                ? String.format("%d-byte messages in %d datagram%s each, %s, no RDMA", size, perMessage,
                        perMessage == 1 ? "" : "s", between)
                : String.format("%d-byte messages in %d datagram%s of RC's length each and a %d-byte ACK for each "
                        + "message, unconnected, %s, no RDMA", size, perMessage, perMessage == 1 ? "" : "s", RC_ACK,
                        between);
        session.print(String.format("%s: %d iters in %.2f seconds = %.2f usec/iter (%s)", name, iterations,
                run.nanos() / 1e9, microsPerIteration, what));
        if (run.lost() > 0) {
            session.print(run.lost() + " of " + iterations + " round trips of the " + name + " were lost (the time "
                    + "includes the " + LOSS_NANOS / 1_000_000 + " ms each waited)");
        }
        RoundTrips trips = run.roundTrips();
        roundTrips = trips;
        String tripName = pattern.said + " round trip";
        if (trips.count() > 0) {
            session.print(tripName + ": " + trips.summary());
        }
        Optional<PingPongStep> pingPong = session.steps().stream().filter(PingPongStep.class::isInstance)
                .map(PingPongStep.class::cast).filter(step -> step.microsPerIteration().isPresent()).findFirst();
        if (pingPong.isPresent() && pattern == Pattern.UDP) {
            session.print(String.format("ratio: %.2f (RDMA ping-pong usec/iter / UDP ping-pong usec/iter)",
                    pingPong.get().microsPerIteration().getAsDouble() / microsPerIteration));
            pingPong.get().roundTrips().filter(rdma -> rdma.count() > 0 && trips.count() > 0).ifPresent(rdma ->
                    session.print(String.format("median ratio: %.2f (RDMA ping-pong median round trip %.2f usec / UDP "
                            + "%.2f usec)", rdma.medianMicros() / trips.medianMicros(), rdma.medianMicros(),
                            trips.medianMicros())));
        } else if (pingPong.isPresent()) {
            Optional<RoundTrips> udp = session.steps().stream().filter(UdpPingPongStep.class::isInstance)
                    .map(UdpPingPongStep.class::cast).filter(step -> step.pattern == Pattern.UDP)
                    .map(step -> step.roundTrips).filter(java.util.Objects::nonNull)
                    .filter(plain -> plain.count() > 0).findFirst();
            pingPong.get().roundTrips().filter(rdma -> rdma.count() > 0 && trips.count() > 0).ifPresent(rdma ->
                    session.print(String.format("median ratio to RC's datagrams: %.2f (RDMA ping-pong median round "
                            + "trip %.2f usec / RC datagrams %.2f usec)%s", rdma.medianMicros() / trips.medianMicros(),
                            rdma.medianMicros(), trips.medianMicros(), udp.map(plain -> String.format(
                                    "; RC datagrams / UDP: %.2f", trips.medianMicros() / plain.medianMicros()))
                                    .orElse(""))));
        }
        return StepResult.ok(String.format("%d %s round trips of %d bytes: %.2f usec/iter", measured,
                pattern == Pattern.UDP ? "UDP" : "RC datagram", size, microsPerIteration));
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
     * round trip's time, the acknowledgements it sent (RC's pattern only), or why it failed.
     */
    record Run(long nanos, long lost, RoundTrips roundTrips, long acksSent, String failure) {
        static Run failed(String why) {
            return new Run(0, 0, new RoundTrips(), 0, why);
        }
    }

    /** One side's socket and buffers; allocates nothing per datagram. */
    static final class Datagrams {

        private final DatagramChannel channel;
        /** Where an unconnected socket sends (RC's pattern); null for a connected one. */
        private final InetSocketAddress peer;
        private final Pattern pattern;
        private final int size;
        private final int payload;
        private final byte data;
        private final byte end;
        private final ByteBuffer out;
        private final ByteBuffer in;
        private byte inType;
        private boolean inLast;
        private int inSeq;
        private long acksSent;

        /** The plain UDP ping-pong on a connected socket. */
        Datagrams(DatagramChannel channel, int size, int payload) {
            this(channel, null, size, payload);
        }

        /** RC's datagrams on an unconnected socket that sends to {@code peer}; the plain pattern when null. */
        Datagrams(DatagramChannel channel, InetSocketAddress peer, int size, int payload) {
            this.channel = channel;
            this.peer = peer;
            this.pattern = peer == null ? Pattern.UDP : Pattern.RC;
            this.size = size;
            this.payload = payload;
            this.data = peer == null ? DATA : RC_DATA;
            this.end = peer == null ? END : RC_END;
            int longest = Math.max(RC_ACK, overhead() + Math.min(size, payload));
            this.out = ByteBuffer.allocateDirect(longest);
            this.in = ByteBuffer.allocateDirect(longest);
        }

        /** What a datagram carries beyond its share of the message. */
        private int overhead() {
            return peer == null ? HEADER : RC_OVERHEAD;
        }

        /** Sends messages 0 (hello, until answered) and 1..iterations, each after the last one's echo. */
        Run client(int iterations, long timeoutNanos) throws IOException {
            long helloSince = System.nanoTime();
            long helloAt = helloSince - HELLO_EVERY_NANOS;
            for (int idle = 0; ; idle++) {
                long now = System.nanoTime();
                if (now - helloAt >= HELLO_EVERY_NANOS) {
                    sendMessage(data, HELLO);
                    helloAt = now;
                }
                if (receive() == data && inLast && inSeq == HELLO) {
                    break;
                }
                if (now - helloSince > timeoutNanos) {
                    return Run.failed("the peer's " + pattern.said + " baseline did not answer within "
                            + timeoutNanos / 1_000_000 + " ms (is it running with --baseline, on the same "
                            + "--baseline-port?)");
                }
                CompletionQueue.pauseAfterEmptyPoll(idle);
            }
            Run run = peer == null ? plainClient(iterations) : rcClient(iterations);
            for (int i = 0; i < 3; i++) {
                send(end, true, 0, 0, 0);
            }
            return run;
        }

        private Run plainClient(int iterations) throws IOException {
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
            return new Run(System.nanoTime() - start, lost, trips, 0, null);
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
         * RC's turn on the client: message {@code seq} ends when its echo is in and it is
         * acknowledged; then the next message goes out, and after it the echo's ACK if that is still
         * owed. An echo that comes before the ACK of its message is acknowledged at once.
         */
        private Run rcClient(int iterations) throws IOException {
            long lost = 0;
            RoundTrips trips = new RoundTrips();
            long start = System.nanoTime();
            long begun = start;
            int seq = 1;
            sendMessage(RC_DATA, seq);
            boolean echoed = false;
            boolean acked = false;
            int idle = 0;
            while (seq <= iterations) {
                byte type = receive();
                boolean echoNow = type == RC_DATA && inLast && inSeq == seq;
                if (echoNow) {
                    echoed = true;
                    if (!acked) {
                        sendAck(seq); // this side's message is not acknowledged yet: it cannot answer
                    }
                } else if (type == RC_ACK_TYPE && inSeq == seq) {
                    acked = true;
                } else if (type == 0) {
                    if ((idle++ & 0xff) == 0xff && System.nanoTime() - begun > LOSS_NANOS) {
                        lost++;
                        begun = System.nanoTime();
                        echoed = false;
                        acked = false;
                        if (++seq <= iterations) {
                            sendMessage(RC_DATA, seq);
                        }
                    } else {
                        CompletionQueue.pauseAfterEmptyPoll(idle);
                    }
                    continue;
                } else {
                    continue; // another message's or the plain run's datagram, or not a message's last
                }
                idle = 0;
                if (echoed && acked) {
                    long now = System.nanoTime();
                    trips.record(now - begun);
                    begun = now;
                    boolean owed = echoNow; // the echo came after the ACK, so it is not acknowledged yet
                    echoed = false;
                    acked = false;
                    if (++seq <= iterations) {
                        sendMessage(RC_DATA, seq); // the answer first ...
                    }
                    if (owed) {
                        sendAck(seq - 1); // ... then the ACK
                    }
                }
            }
            return new Run(System.nanoTime() - start, lost, trips, acksSent, null);
        }

        /**
         * Echoes each message once its last datagram is in, until the client's END or its last
         * message's echo (and, for RC, that echo's ACK). The time runs from the echo of the hello,
         * which the client's first measured message answers, to the last echo: {@code iterations}
         * round trips, as the client counts them, so that the server's figure also means something
         * for a short run. RC's server echoes a message only once its last echo is acknowledged,
         * and acknowledges each message after its echo, or at once when the echo must wait.
         */
        Run server(int iterations, long timeoutNanos) throws IOException {
            long lastHeard = System.nanoTime();
            long start = 0;
            long end = 0;
            int answered = 0;
            RoundTrips trips = new RoundTrips();
            int unacknowledged = -1; // RC: the echo that waits for its ACK
            long echoedAt = 0;
            int waiting = -1; // RC: the message whose echo waits for that ACK
            for (int idle = 0; ; idle++) {
                byte type = receive();
                boolean acknowledged = false; // RC: the last echo's ACK is in now, or given up on
                if (type == 0) {
                    long now = System.nanoTime();
                    if ((idle & 0xff) == 0xff) {
                        if (unacknowledged >= 0 && now - echoedAt > LOSS_NANOS) {
                            acknowledged = true; // its ACK was lost: go on, as the client does
                        } else if (now - lastHeard > timeoutNanos) {
                            if (answered == 0) {
                                return Run.failed("the peer's " + pattern.said + " baseline sent nothing within "
                                        + timeoutNanos / 1_000_000 + " ms (is it running with --baseline, on the "
                                        + "same --baseline-port?)");
                            }
                            break; // the END was lost: the client is gone
                        }
                    }
                    if (!acknowledged) {
                        CompletionQueue.pauseAfterEmptyPoll(idle);
                        continue;
                    }
                } else {
                    idle = 0;
                    lastHeard = System.nanoTime();
                    if (type == end) {
                        break;
                    }
                    if (type == RC_ACK_TYPE && peer != null) {
                        if (inSeq != unacknowledged) {
                            continue;
                        }
                        acknowledged = true;
                    }
                }
                if (acknowledged) {
                    unacknowledged = -1;
                    if (waiting >= 0) {
                        end = echo(waiting, end, trips);
                        answered = Math.max(answered, waiting);
                        unacknowledged = waiting;
                        echoedAt = end;
                        waiting = -1;
                    } else if (answered == iterations) {
                        break;
                    }
                    continue;
                }
                if (type != data || !inLast) {
                    continue;
                }
                int seq = inSeq;
                if (seq == 1 && start == 0) {
                    start = end != 0 ? end : lastHeard; // no hello echoed: a client that skipped it
                }
                if (seq == HELLO) {
                    sendMessage(data, HELLO); // not acknowledged: the measured messages begin after it
                    if (start == 0) {
                        end = System.nanoTime(); // the last hello's echo, answered by message 1
                    }
                } else if (peer == null || unacknowledged < 0) {
                    end = echo(seq, end, trips);
                    answered = Math.max(answered, seq);
                    if (peer != null) {
                        unacknowledged = seq;
                        echoedAt = end;
                        sendAck(seq); // after the answer
                    } else if (seq == iterations) {
                        break;
                    }
                } else {
                    sendAck(seq); // the echo waits for the last one's ACK; this ACK does not
                    waiting = seq;
                }
            }
            if (start == 0) {
                return Run.failed("the peer's " + pattern.said + " baseline ended before its first measured "
                        + "message");
            }
            return new Run(end - start, iterations - answered, trips, acksSent, null);
        }

        /** Echoes message {@code seq}; records the round trip since the last echo at {@code last}; returns now. */
        private long echo(int seq, long last, RoundTrips trips) throws IOException {
            sendMessage(data, seq);
            long now = System.nanoTime();
            if (last != 0) {
                trips.record(now - last); // from one echo to the next
            }
            return now;
        }

        private void sendMessage(byte type, int seq) throws IOException {
            int count = datagrams(size, payload);
            for (int index = 0; index < count; index++) {
                send(type, index == count - 1, index, seq, Math.min(payload, size - index * payload));
            }
        }

        private void sendAck(int seq) throws IOException {
            out.clear();
            out.put(RC_ACK_TYPE).put(LAST).putShort((short) 0).putInt(seq);
            out.limit(RC_ACK).position(0);
            write();
            acksSent++;
        }

        private void send(byte type, boolean last, int index, int seq, int length) throws IOException {
            out.clear();
            out.put(type).put(last ? LAST : 0).putShort((short) index).putInt(seq);
            out.limit(overhead() + Math.max(0, length)).position(0);
            write();
        }

        private void write() throws IOException {
            for (int idle = 0; ; idle++) {
                try {
                    if ((peer == null ? channel.write(out) : channel.send(out, peer)) > 0) {
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
                read = peer == null ? channel.read(in) : channel.receive(in) == null ? 0 : in.position();
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
