package org.rdmalab.lab;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.channels.DatagramChannel;
import java.util.Optional;
import org.rdmalab.baseline.Datagrams;
import org.rdmalab.baseline.PingPong;
import org.rdmalab.baseline.RoundTrips;
import org.rdmalab.control.ConnectionData;
import org.rdmalab.text.Phrase;
import org.rdmalab.verbs.Gid;
import org.rdmalab.verbs.GidEntry;

/**
 * The ping-pong's yardsticks ({@code demo --protocol pingpong --baseline}), run after the RDMA
 * ping-pong between the same two IPv4 addresses (the two sides' GIDs), from the same thread, for
 * the same number of round trips: {@link PingPong}'s plain UDP ping-pong ({@link Pattern#UDP}) and
 * RC's datagrams alone ({@link Pattern#RC}), with the SEND's message size and path MTU. Both sides
 * print their time per iteration, the round trips' median and their ratio to their own RDMA
 * ping-pong's.
 */
final class UdpPingPongStep extends Step {

    /** Which traffic a baseline step sends: its step id and title, and the ping-pong's pattern. */
    enum Pattern {
        UDP("udp-baseline", "UDP ping-pong baseline", PingPong.Pattern.UDP),
        RC("rc-baseline", "RC datagrams baseline", PingPong.Pattern.RC);

        final String stepId;
        final String title;
        /** "UDP baseline", "RC datagrams round trip": what its lines begin with. */
        final String said;

        Pattern(String stepId, String title, PingPong.Pattern traffic) {
            this.stepId = stepId;
            this.title = title;
            this.said = traffic.said;
        }
    }

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
        LabResources resources = session.resources();
        if (resources.remoteData().isEmpty() || resources.gidEntry().isEmpty()) {
            return Optional.of(LabPhrase.of("blocked.exchangeBaseline"));
        }
        return Optional.empty();
    }

    @Override
    protected StepResult execute(LabSession session) throws Exception {
        LabResources resources = session.resources();
        Gid localGid = resources.gidEntry().map(GidEntry::gid).orElseThrow();
        Gid remoteGid = resources.remoteData().map(ConnectionData::gid).orElseThrow();
        if (!localGid.isIpv4Mapped() || !remoteGid.isIpv4Mapped()) {
            return StepResult.failed("the UDP baseline runs between the GIDs' IPv4 addresses, and "
                    + (localGid.isIpv4Mapped() ? "the peer's GID " + remoteGid : "this side's GID " + localGid)
                    + " carries none; choose a RoCE v2 GID that carries an IPv4 address (--gid-index)");
        }
        int iterations = parameter("iters").asInt();
        int port = parameter("udp_port").asInt();
        long timeoutNanos = parameter("timeout_ms").asLong() * 1_000_000L;
        int size = resources.mr().length();
        int payload = pathMtu(session);
        Inet4Address local = localGid.ipv4();
        Inet4Address remote = remoteGid.ipv4();
        String between = local.getHostAddress() + " <-> " + remote.getHostAddress() + " UDP port " + port;
        String name = pattern.said + " baseline";
        PingPong.Run run;
        try (DatagramChannel channel = DatagramChannel.open(StandardProtocolFamily.INET)) {
            channel.bind(new InetSocketAddress(local, port));
            InetSocketAddress peer = new InetSocketAddress(remote, port);
            if (pattern == Pattern.UDP) {
                channel.connect(peer);
            }
            channel.configureBlocking(false);
            PingPong pingPong = new PingPong(channel, pattern == Pattern.UDP ? null : peer, size, payload);
            run = session.role() == Role.CLIENT ? pingPong.client(iterations, timeoutNanos)
                    : pingPong.server(iterations, timeoutNanos);
        } catch (IOException e) {
            return StepResult.failed("the " + name + " cannot use " + local.getHostAddress() + ":" + port + " ("
                    + e.getMessage() + "); choose another --baseline-port");
        }
        if (run.failure() != null) {
            return StepResult.failed(run.failure());
        }
        int measured = iterations - (int) run.lost();
        double microsPerIteration = run.nanos() / 1e3 / iterations;
        int perMessage = Datagrams.count(size, payload);
        String what = pattern == Pattern.UDP
                ? String.format("%d-byte messages in %d datagram%s each, %s, no RDMA", size, perMessage,
                        perMessage == 1 ? "" : "s", between)
                : String.format("%d-byte messages in %d datagram%s of RC's length each and a %d-byte ACK for each "
                        + "message, unconnected, %s, no RDMA", size, perMessage, perMessage == 1 ? "" : "s",
                        PingPong.RC_ACK, between);
        session.print(String.format("%s: %d iters in %.2f seconds = %.2f usec/iter (%s)", name, iterations,
                run.nanos() / 1e9, microsPerIteration, what));
        if (run.lost() > 0) {
            session.print(run.lost() + " of " + iterations + " round trips of the " + name + " were lost (the time "
                    + "includes the " + PingPong.LOSS_NANOS / 1_000_000 + " ms each waited)");
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
            pingPong.get().roundTrips().filter(rdma -> rdma.count() > 0 && trips.count() > 0).ifPresent(rdma -> {
                session.print(String.format("median ratio: %.2f (RDMA ping-pong median round trip %.2f usec / UDP "
                        + "%.2f usec)", rdma.medianMicros() / trips.medianMicros(), rdma.medianMicros(),
                        trips.medianMicros()));
                session.print(String.format("99%% ratio: %.2f (RDMA ping-pong 99%% round trip %.2f usec / UDP "
                        + "%.2f usec)", rdma.p99Micros() / trips.p99Micros(), rdma.p99Micros(), trips.p99Micros()));
            });
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
}
