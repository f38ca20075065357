package org.rdmalab.bench;

import java.net.Inet4Address;
import java.time.Duration;
import java.util.List;
import org.rdmalab.control.ConnectionData;
import org.rdmalab.control.ControlException;
import org.rdmalab.control.perftest.BandwidthReport;
import org.rdmalab.control.perftest.PerftestExchange;
import org.rdmalab.control.perftest.PerftestKeys;
import org.rdmalab.verbs.Device;
import org.rdmalab.verbs.LinkLayer;
import org.rdmalab.verbs.Mtu;
import org.rdmalab.verbs.QpType;
import org.rdmalab.verbs.VerbsException;

/**
 * One side of a run whose peer is a real perftest binary ({@code bench --perftest}): the steps of
 * {@code ib_write_*}, {@code ib_read_*}, {@code ib_send_*} or {@code ib_atomic_*} (bw and lat) over
 * perftest's TCP exchange, in that program's order.
 *
 * <ul>
 *   <li>Both: versions, cycle buffer and cache line, MTU; the keys; (WRITE, READ and atomic
 *       latency: the keys once more); RTR and RTS; the keys twice more as barriers.</li>
 *   <li>Bandwidth (WRITE, READ, atomic) client: every size, then a barrier, its last row to the server
 *       ({@code xchg_bw_reports}) and a closing barrier. Bandwidth server: one-sided, it waits in
 *       that barrier, prints the client's row and closes.</li>
 *   <li>WRITE latency: both sides run ib_write_lat's loop for every size, with no more TCP.</li>
 *   <li>READ and atomic latency: the client measures every size, then a closing barrier; the
 *       server waits in it and prints nothing, as ib_read_lat's and ib_atomic_lat's servers.</li>
 *   <li>SEND: per size, receives posted and a barrier, then ib_send_lat's loop on both sides, or
 *       ib_send_bw's client sending and server counting (both print a row); a closing barrier.</li>
 * </ul>
 * perftest has no warm-up in latency tests and no notion of RDMA Lab's baseline; the sides must be
 * started with the same test, sizes and iterations, as two perftest programs must.
 */
final class PerftestSide {

    /** The cycle buffer this side announces: perftest's is the page size. */
    static final int CYCLE_BUFFER = 4096;
    /** The cache line size this side announces. */
    static final int CACHE_LINE = 64;

    private final boolean client;
    private final BenchSettings settings;
    private final Device device;
    private final Inet4Address localAddress;
    private final PerftestExchange exchange;
    private final BenchListener listener;
    private final Progress progress;
    private final List<BenchRow> rows;
    private final Duration runTimeout;
    private BenchInfo info;

    PerftestSide(boolean client, BenchSettings settings, Device device, Inet4Address localAddress,
                 PerftestExchange exchange, BenchListener listener, Progress progress, List<BenchRow> rows,
                 Duration runTimeout) {
        this.client = client;
        this.settings = settings;
        this.device = device;
        this.localAddress = localAddress;
        this.exchange = exchange;
        this.listener = listener;
        this.progress = progress;
        this.rows = rows;
        this.runTimeout = runTimeout;
    }

    /**
     * Refuses what a perftest peer cannot run with this side: {@code -q}, {@code -b}, {@code --run_infinitely},
     * {@code -D} and {@code --baseline}, each with a one-line reason.
     */
    static void check(BenchSettings settings) {
        if (settings.qps() > 1) {
            throw new IllegalArgumentException("--perftest speaks perftest's exchange for one QP; drop -q");
        }
        if (settings.bidirectional()) {
            throw new IllegalArgumentException("--perftest does not speak perftest's -b yet; drop -b");
        }
        if (settings.runInfinitely()) {
            throw new IllegalArgumentException("--perftest runs -n iterations; --run_infinitely runs between two"
                    + " RDMA Lab sides only, drop one of them");
        }
        if (settings.timed()) {
            throw new IllegalArgumentException("--perftest runs -n iterations; drop -D");
        }
        if (settings.baseline()) {
            throw new IllegalArgumentException("--baseline needs RDMA Lab on both sides; drop it with --perftest");
        }
    }

    /**
     * How long a side may wait in a barrier while the other measures (a bandwidth server for its
     * client's report): the whole run at 1 MB/s or 10 ms per message, whichever is longer, plus two
     * minutes.
     */
    static Duration runTimeout(BenchSettings settings) {
        long seconds = 120;
        for (int size : settings.sizes()) {
            long messages = (long) settings.warmupFor(size) + settings.iterations();
            seconds += Math.max(messages * size / 1_000_000L, messages / 100);
        }
        return Duration.ofSeconds(Math.min(seconds, Duration.ofDays(1).toSeconds()));
    }

    /** The header facts, once connected. */
    BenchInfo info() {
        return info;
    }

    void run() throws VerbsException, BenchException {
        try {
            String peerVersion = exchange.versions(PerftestExchange.VERSION);
            listener.note("the peer announces perftest " + peerVersion);
            int[] system = exchange.systemData(CYCLE_BUFFER, CACHE_LINE);
            int buffer = Math.max(settings.maxSize(), system[0]);
            try (VerbsSide side = new VerbsSide(device, localAddress, settings, buffer)) {
                Mtu mtu = exchange.mtu(side.mtu());
                boolean withGid = side.port().linkLayer() == LinkLayer.ETHERNET || settings.gidIndex() >= 0;
                ConnectionData local = side.local();
                PerftestKeys mine = PerftestKeys.from(local, side.outstandingReads());
                PerftestKeys peer = exchange.handShake(mine, withGid);
                if (settings.mode() == BenchMode.LAT && settings.test() != BenchTest.SEND) {
                    // ib_write_lat, ib_read_lat and ib_atomic_lat swap the keys twice before connecting.
                    peer = exchange.handShake(mine, withGid);
                }
                ConnectionData remote = new ConnectionData(QpType.RC, peer.qpn(), peer.psn(), peer.lid(), peer.gid(),
                        peer.vaddr(), peer.rkey(), buffer, mtu);
                side.connect(remote);
                side.mr().write(side.slot(), new byte[side.slot()]);
                exchange.handShake(mine, withGid);
                exchange.handShake(mine, withGid);
                info = new BenchInfo(settings, device.name(), device.backend() + " (" + device.description() + ")",
                        side.port().linkLayer(), side.mtu(), side.gid().index(), 0, side.outstandingReads(), local,
                        remote, "Ethernet");
                listener.started(info);
                RdmaTraffic traffic = new RdmaTraffic(side, remote, settings, progress);
                // From here a side may wait in a barrier while the other measures.
                exchange.channel().setReadTimeout(runTimeout);
                if (settings.test() == BenchTest.SEND) {
                    send(traffic, mine, withGid);
                } else if (settings.mode() == BenchMode.LAT && settings.test() == BenchTest.WRITE) {
                    writeLatency(traffic);
                } else if (settings.mode() == BenchMode.LAT) {
                    readLatency(traffic, mine, withGid);
                } else if (client) {
                    bandwidthClient(traffic, mine, withGid);
                } else {
                    bandwidthServer(mine, withGid);
                }
            }
        } catch (ControlException e) {
            if (e.reason() == ControlException.Reason.INTERRUPTED) {
                throw new BenchStopped();
            }
            throw new BenchException(e.getMessage() + (e.reason() == ControlException.Reason.PROTOCOL
                    ? " (start both sides with the same test and options)" : ""), e);
        }
    }

    private void writeLatency(RdmaTraffic traffic) throws VerbsException, BenchException {
        List<Integer> sizes = settings.sizes();
        for (int index = 0; index < sizes.size(); index++) {
            report(traffic.perftestWriteLatency(sizes.get(index), index, settings.iterations(), client));
        }
    }

    /**
     * ib_send_lat and ib_send_bw: for every size, this side's receives, then a barrier (so no SEND
     * finds the peer without a receive), then the size (latency: ib_send_lat's loop on both sides;
     * bandwidth: the client sends, the server counts and measures too); with {@code -a},
     * ib_send_bw meets again after each size. A closing barrier ends the run. Both sides print
     * their rows.
     */
    private void send(RdmaTraffic traffic, PerftestKeys mine, boolean withGid)
            throws VerbsException, BenchException, ControlException {
        List<Integer> sizes = settings.sizes();
        boolean sweep = sizes.size() > 1;
        int iterations = settings.iterations();
        for (int index = 0; index < sizes.size(); index++) {
            int size = sizes.get(index);
            if (settings.mode() == BenchMode.LAT || !client) {
                traffic.perftestReceives(iterations);
            }
            exchange.handShake(mine, withGid);
            if (settings.mode() == BenchMode.LAT) {
                report(traffic.perftestSendLatency(size, index, iterations, client));
            } else {
                report(client ? traffic.perftestSendBandwidthClient(size, index, iterations)
                        : traffic.perftestSendBandwidthServer(size, index, iterations));
                if (sweep) {
                    exchange.handShake(mine, withGid);
                }
            }
        }
        exchange.handShake(mine, withGid);
    }

    /**
     * ib_read_lat and ib_atomic_lat: the client measures every size as without {@code --perftest}
     * (READs and atomics are one-sided) and then meets the server in a closing barrier, where the
     * server has waited.
     */
    private void readLatency(RdmaTraffic traffic, PerftestKeys mine, boolean withGid)
            throws VerbsException, BenchException, ControlException {
        if (client) {
            List<Integer> sizes = settings.sizes();
            for (int index = 0; index < sizes.size(); index++) {
                traffic.prepare(sizes.get(index));
                report(traffic.measure(sizes.get(index), index));
            }
        }
        exchange.handShake(mine, withGid);
    }

    private void bandwidthClient(RdmaTraffic traffic, PerftestKeys mine, boolean withGid)
            throws VerbsException, BenchException, ControlException {
        List<Integer> sizes = settings.sizes();
        BenchRow last = null;
        for (int index = 0; index < sizes.size(); index++) {
            traffic.prepare(sizes.get(index));
            last = traffic.measure(sizes.get(index), index);
            report(last);
        }
        exchange.handShake(mine, withGid);
        exchange.bandwidthReports(reportOf(last.bandwidth(), settings.reportGbits()));
        exchange.handShake(mine, withGid);
    }

    private void bandwidthServer(PerftestKeys mine, boolean withGid) throws BenchException, ControlException {
        exchange.handShake(mine, withGid);
        BandwidthReport peer = exchange.bandwidthReports(BandwidthReport.NONE);
        exchange.handShake(mine, withGid);
        report(new BenchRow(BenchRow.Path.RDMA, (int) Math.min(peer.size(), Integer.MAX_VALUE),
                statsOf(peer, settings.reportGbits()), null, null, 0));
    }

    /** A row in perftest's report units (MB/sec is 2^20 bytes per second; Gb/sec 10^9 bits). */
    static BandwidthReport reportOf(BandwidthStats stats, boolean gbits) {
        return new BandwidthReport(stats.bytes(), stats.iterations(), stats.peak(gbits), stats.average(gbits),
                stats.messageRateMpps());
    }

    /** The peer's report as a row of this side's. */
    static BandwidthStats statsOf(BandwidthReport report, boolean gbits) throws BenchException {
        if (report.size() < 1 || report.size() > BenchSettings.MAX_SIZE || report.iterations() < 1) {
            throw new BenchException("the client's report holds no row (" + report.size() + " bytes, "
                    + report.iterations() + " iterations); did the client finish?");
        }
        double unit = gbits ? BandwidthStats.GIGABIT_BYTES : BandwidthStats.MEBIBYTE;
        double average = report.average() * unit;
        long elapsed = average > 0 ? (long) (report.size() * (double) report.iterations() / average * 1e9) : 0;
        return new BandwidthStats((int) report.size(), report.iterations(), report.peak() * unit, average,
                report.messageRateMpps() * 1e6, elapsed);
    }

    private void report(BenchRow row) {
        rows.add(row);
        listener.row(row);
    }
}
