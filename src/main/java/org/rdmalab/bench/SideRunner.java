package org.rdmalab.bench;

import java.net.Inet4Address;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.rdmalab.control.ConnectionData;
import org.rdmalab.verbs.Device;
import org.rdmalab.verbs.VerbsException;

/**
 * One side of a run from start to end: builds its verbs objects, swaps connection data, checks that
 * both sides run the same test, connects, then for each size meets the peer, measures (client) or
 * answers (server), and with {@code --baseline} does the same over UDP. Closes everything it opened.
 */
final class SideRunner {

    /** How long the sides may take to meet outside the measured parts. */
    static final Duration HANDSHAKE = Duration.ofSeconds(60);

    private final boolean client;
    private final BenchSettings settings;
    private final Device device;
    private final Inet4Address localAddress;
    private final Rendezvous rendezvous;
    private final BenchListener listener;
    private final Progress progress;
    private final List<BenchRow> rows;
    private final int baselinePort;
    private BenchInfo info;

    SideRunner(boolean client, BenchSettings settings, Device device, Inet4Address localAddress, Rendezvous rendezvous,
               BenchListener listener, Progress progress, List<BenchRow> rows, int baselinePort) {
        this.client = client;
        this.settings = settings;
        this.device = device;
        this.localAddress = localAddress;
        this.rendezvous = rendezvous;
        this.listener = listener;
        this.progress = progress;
        this.rows = rows;
        this.baselinePort = baselinePort;
    }

    /** The header facts, once connected (client and server alike). */
    BenchInfo info() {
        return info;
    }

    void run() throws VerbsException, BenchException {
        try (VerbsSide side = new VerbsSide(device, localAddress, settings)) {
            ConnectionData local = side.local();
            ConnectionData remote = rendezvous.exchange(local, HANDSHAKE);
            rendezvous.sync("bench " + settings.agreement(), HANDSHAKE);
            side.connect(remote);
            // -q: QP i of each side talks to QP i of the other (both sides agreed on the count above).
            List<ConnectionData> remotes = new ArrayList<>(List.of(remote));
            for (int i = 1; i < settings.qps(); i++) {
                remotes.add(rendezvous.exchange(side.local(i), HANDSHAKE));
                side.connect(i, remotes.get(i));
            }
            rendezvous.sync("connected", HANDSHAKE);
            info = new BenchInfo(settings, device.name(), device.backend() + " (" + device.description() + ")",
                    side.port().linkLayer(), side.mtu(), side.gid().index(), 0, side.outstandingReads(),
                    rendezvous.method(), side.locals(), remotes);
            listener.started(info);
            RdmaTraffic traffic = new RdmaTraffic(side, remotes, settings, progress);
            String localIp = addressOf(local, localAddress.getHostAddress());
            String peerIp = addressOf(remote, rendezvous.peerAddress());
            List<Integer> sizes = settings.sizes();
            for (int index = 0; index < sizes.size(); index++) {
                int size = sizes.get(index);
                if (settings.runInfinitely()) {
                    intervals(traffic, size);
                    return;
                }
                int sizeIndex = index;
                measureSize(traffic, size, "size " + size, () -> traffic.measure(size, sizeIndex));
                if (settings.baseline()) {
                    try (UdpBaseline udp = UdpBaseline.open(localIp, peerIp, baselinePort, settings, side.mtu().bytes(),
                            progress)) {
                        rendezvous.sync("baseline " + size, HANDSHAKE);
                        BenchRow own = null;
                        if (settings.bidirectional()) {
                            own = udp.measure(size, index);
                        } else if (client) {
                            report(udp.measure(size, index));
                        } else {
                            udp.serve();
                        }
                        rendezvous.sync("baseline " + size + " done", timeoutFor(size));
                        if (own != null) {
                            // As the RDMA row of -b: both directions summed, this side's iterations.
                            Map<String, String> peer = rendezvous.swap(bandwidthFacts(own.bandwidth()), HANDSHAKE);
                            BandwidthStats stats = duplexOwnOnly() ? ownBothWays(settings, own.bandwidth())
                                    : own.bandwidth().plus(bandwidthOf(size, peer));
                            report(new BenchRow(BenchRow.Path.BASELINE, size, stats, null, own.usage(),
                                    own.lostMessages()));
                        }
                    }
                }
            }
        }
    }

    /** How a side measures one size or interval (the client; with {@code -b} both sides). */
    private interface Measurement {
        BenchRow run() throws VerbsException, BenchException;
    }

    /**
     * One size (or one interval of {@code --run_infinitely}, {@code point} naming it): the sides
     * meet, the client measures and the server answers (with {@code -b} both measure), they meet
     * again, and a bandwidth server gets the client's row to print, as perftest's
     * {@code xchg_bw_reports} (with {@code -b} each side prints its row plus the peer's).
     */
    private void measureSize(RdmaTraffic traffic, int size, String point, Measurement measurement)
            throws VerbsException, BenchException {
        traffic.prepare(size);
        rendezvous.sync(point, HANDSHAKE);
        BenchRow measured = null;
        if (client || settings.bidirectional()) {
            measured = measurement.run();
            if (!settings.bidirectional()) {
                report(measured);
            }
        } else {
            traffic.serve(size);
        }
        rendezvous.sync(point + " done", timeoutFor(size));
        if (settings.mode() == BenchMode.BW) {
            Map<String, String> peer = rendezvous.swap(measured != null ? bandwidthFacts(measured.bandwidth())
                    : Map.of(), HANDSHAKE);
            if (settings.bidirectional()) {
                BandwidthStats stats = duplexOwnOnly() ? ownBothWays(settings, measured.bandwidth())
                        : measured.bandwidth().plus(bandwidthOf(size, peer));
                report(new BenchRow(BenchRow.Path.RDMA, size, stats, null, measured.usage(), 0));
            } else if (!client) {
                report(new BenchRow(BenchRow.Path.RDMA, size, bandwidthOf(size, peer), null, null, 0));
            }
        }
    }

    /**
     * {@code --run_infinitely}: one interval after another, each a row on both sides, until this
     * side is stopped or the peer goes (it was stopped: its connection closes, which ends the run
     * here as stopped too, not as a failure). With {@code -b} a peer stopped in the middle of an
     * interval leaves this side's requests without answers: they fail once their retries are
     * spent, and with the peer's connection closed that too is the peer's end.
     */
    private void intervals(RdmaTraffic traffic, int size) throws VerbsException, BenchException {
        for (long interval = 0; ; interval++) {
            boolean first = interval == 0;
            try {
                measureSize(traffic, size, "size " + size + " interval " + interval,
                        () -> traffic.measureInterval(size, first, true));
            } catch (BenchStopped e) {
                throw e;
            } catch (BenchException | VerbsException e) {
                // A stop here closes this side's own connection first: that is not the peer leaving.
                progress.checkStop();
                if (first || !(e instanceof PeerGone || rendezvous.peerClosed())) {
                    throw e;
                }
                listener.note("the other side ended the run after " + interval + " intervals (" + e.getMessage() + ")");
                throw new BenchStopped();
            }
        }
    }

    /**
     * perftest's duplex report ({@code -b}): each side prints both directions summed, except in the
     * runs where perftest prints its own direction only ({@code --run_infinitely}, SEND with -D).
     */
    private boolean duplexOwnOnly() {
        return settings.runInfinitely() || settings.test() == BenchTest.SEND && settings.timed();
    }

    /**
     * A {@code -b} row from this side's direction alone ({@link #duplexOwnOnly}): doubled in a
     * {@code --run_infinitely} run of WRITE, READ or atomics (perftest's {@code run_inf_bi_factor}:
     * rates times 2, {@code #iterations} this side's), otherwise as it is.
     */
    static BandwidthStats ownBothWays(BenchSettings settings, BandwidthStats own) {
        return settings.runInfinitely() && settings.test() != BenchTest.SEND ? own.plus(own) : own;
    }

    /** A bandwidth row as named values for {@link Rendezvous#swap}. */
    static Map<String, String> bandwidthFacts(BandwidthStats stats) {
        return Map.of("iterations", Long.toString(stats.iterations()),
                "bw_peak", Double.toString(stats.peakBytesPerSecond()),
                "bw_avg", Double.toString(stats.averageBytesPerSecond()),
                "msg_rate", Double.toString(stats.messagesPerSecond()),
                "elapsed_ns", Long.toString(stats.elapsedNanos()));
    }

    /** The peer's bandwidth row of {@code size} from its named values. */
    static BandwidthStats bandwidthOf(int size, Map<String, String> facts) throws BenchException {
        try {
            return new BandwidthStats(size, Long.parseLong(facts.get("iterations")),
                    Double.parseDouble(facts.get("bw_peak")), Double.parseDouble(facts.get("bw_avg")),
                    Double.parseDouble(facts.get("msg_rate")), Long.parseLong(facts.get("elapsed_ns")));
        } catch (RuntimeException e) {
            throw new BenchException("the client's results for " + size + " bytes were not readable (" + facts
                    + "); start both sides from the same RDMA Lab version", e);
        }
    }

    private void report(BenchRow row) {
        rows.add(row);
        listener.row(row);
    }

    /** The IPv4 address in a GID (soft0, rxe: the address the device sends from), else {@code fallback}. */
    static String addressOf(ConnectionData data, String fallback) {
        return data.gid().isIpv4Mapped() ? data.gid().ipv4().getHostAddress() : fallback;
    }

    /** How long one size may take: at 1 MB/s or 10 ms per message, whichever is longer, plus two minutes. */
    Duration timeoutFor(int size) {
        long messages = (long) settings.warmupFor(size) + (settings.timed() ? 0 : settings.iterationsFor(size));
        long seconds = Math.max(messages * (long) size / 1_000_000L, messages / 100) + settings.durationSeconds() + 120;
        return Duration.ofSeconds(Math.min(seconds, Duration.ofDays(1).toSeconds()));
    }
}
