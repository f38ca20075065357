package org.rdmalab.bench;

import java.net.Inet4Address;
import java.time.Duration;
import java.util.ArrayList;
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
 * perftest's TCP exchange, in that program's order (perftest 6.06's).
 *
 * <ul>
 *   <li>Both: versions, cycle buffer and cache line, MTU; the keys, one swap per QP ({@code -q});
 *       (WRITE, READ and atomic latency: the keys once more); RTR and RTS; a barrier (QP 0's keys)
 *       and the keys per QP once more, SEND with the barrier first.</li>
 *   <li>Bandwidth (WRITE, READ, atomic) client: every size, then a barrier, its last row to the server
 *       ({@code xchg_bw_reports}) and a closing barrier. Bandwidth server: one-sided, it waits in
 *       that barrier, prints the client's row and closes.</li>
 *   <li>{@code -b}: per size a barrier, both sides measure (with {@code -a} a second barrier), they
 *       swap rows and each prints both directions summed; a closing barrier.</li>
 *   <li>{@code --run_infinitely}: the sending sides print a row every {@code -D} seconds with no
 *       more TCP, and a one-sided server waits for the client's connection to close; perftest's
 *       run ends with a Ctrl-C, so a side here ends as stopped when its peer's connection has
 *       closed.</li>
 *   <li>WRITE latency: both sides run ib_write_lat's loop for every size, with no more TCP.</li>
 *   <li>READ and atomic latency: the client measures every size, then a closing barrier; the
 *       server waits in it and prints nothing, as ib_read_lat's and ib_atomic_lat's servers.</li>
 *   <li>SEND: per size, receives posted and a barrier, then ib_send_lat's loop on both sides, or
 *       ib_send_bw's client sending and server counting (both print a row); a closing barrier.</li>
 * </ul>
 * With {@code -q}, QP i talks to the peer's QP i and sends to the buffer address that QP announced;
 * each QP runs {@code -n}, and a row's {@code #iterations} is all of them, as perftest's. perftest
 * has no warm-up in latency tests and no notion of RDMA Lab's baseline; the sides must be started
 * with the same test, sizes, iterations, {@code -q}, {@code -b} and {@code --run_infinitely}, as two
 * perftest programs must (perftest 6.06 exchanges none of them).
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
     * Refuses what a perftest peer cannot run with this side, each with a one-line reason: {@code -D}
     * (except as {@code --run_infinitely}'s report interval), {@code --baseline}, and SEND with both
     * {@code -b} and {@code --run_infinitely} (ib_send_bw refuses that pair too).
     */
    static void check(BenchSettings settings) {
        if (settings.timed() && !settings.runInfinitely()) {
            throw new IllegalArgumentException("--perftest runs -n iterations (-D is only --run_infinitely's report"
                    + " interval there); drop -D");
        }
        if (settings.runInfinitely() && settings.bidirectional() && settings.test() == BenchTest.SEND) {
            throw new IllegalArgumentException("perftest's ib_send_bw does not run -b with --run_infinitely; drop one"
                    + " of them");
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
            long messages = ((long) settings.warmupFor(size) + settings.iterations()) * settings.qps();
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
                int qps = settings.qps();
                List<PerftestKeys> mine = new ArrayList<>();
                for (int i = 0; i < qps; i++) {
                    mine.add(PerftestKeys.from(side.local(i), side.outstandingReads()));
                }
                // The keys, one swap per QP in QP order (-q); later swaps repeat them or QP 0's.
                List<PerftestKeys> peer = handShakes(mine, withGid);
                if (settings.mode() == BenchMode.LAT && settings.test() != BenchTest.SEND) {
                    // ib_write_lat, ib_read_lat and ib_atomic_lat swap the keys twice before connecting.
                    peer = handShakes(mine, withGid);
                }
                List<ConnectionData> remotes = new ArrayList<>();
                for (int i = 0; i < qps; i++) {
                    PerftestKeys keys = peer.get(i);
                    ConnectionData remote = new ConnectionData(QpType.RC, keys.qpn(), keys.psn(), keys.lid(),
                            keys.gid(), keys.vaddr(), keys.rkey(), buffer, mtu);
                    side.connect(i, remote);
                    remotes.add(remote);
                }
                byte[] zeros = new byte[side.slot()];
                for (int i = 0; i < qps; i++) {
                    side.mr().write(side.landing(i), zeros);
                }
                // Then a barrier (QP 0's keys) and the keys once more for printing, per QP; ib_send_*
                // meets first, the others swap first.
                PerftestKeys first = mine.get(0);
                if (settings.test() == BenchTest.SEND) {
                    exchange.handShake(first, withGid);
                    handShakes(mine, withGid);
                } else {
                    handShakes(mine, withGid);
                    exchange.handShake(first, withGid);
                }
                info = new BenchInfo(settings, device.name(), device.backend() + " (" + device.description() + ")",
                        side.port().linkLayer(), side.mtu(), side.gid().index(), 0, side.outstandingReads(),
                        "Ethernet", side.locals(), remotes);
                listener.started(info);
                RdmaTraffic traffic = new RdmaTraffic(side, remotes, settings, progress);
                // From here a side may wait in a barrier while the other measures.
                exchange.channel().setReadTimeout(runTimeout);
                if (settings.test() == BenchTest.SEND) {
                    send(traffic, first, withGid);
                } else if (settings.mode() == BenchMode.LAT && settings.test() == BenchTest.WRITE) {
                    writeLatency(traffic);
                } else if (settings.mode() == BenchMode.LAT) {
                    readLatency(traffic, first, withGid);
                } else if (settings.runInfinitely() && (client || settings.bidirectional())) {
                    intervals(traffic, settings.sizes().get(0));
                } else if (settings.runInfinitely()) {
                    awaitTheClientsEnd();
                } else if (settings.bidirectional()) {
                    bothWays(traffic, first, withGid);
                } else if (client) {
                    bandwidthClient(traffic, first, withGid);
                } else {
                    bandwidthServer(first, withGid);
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

    /** One key swap per QP, in QP order; the peer's keys in that order. */
    private List<PerftestKeys> handShakes(List<PerftestKeys> mine, boolean withGid) throws ControlException {
        List<PerftestKeys> peer = new ArrayList<>();
        for (PerftestKeys keys : mine) {
            peer.add(exchange.handShake(keys, withGid));
        }
        return peer;
    }

    private void writeLatency(RdmaTraffic traffic) throws VerbsException, BenchException {
        List<Integer> sizes = settings.sizes();
        for (int index = 0; index < sizes.size(); index++) {
            report(traffic.perftestWriteLatency(sizes.get(index), index, settings.iterations(), client));
        }
    }

    /**
     * ib_send_lat and ib_send_bw: for every size, the receives of the sides that receive (with
     * {@code -b} both), then a barrier (so no SEND finds the peer without a receive), then the size
     * (latency: ib_send_lat's loop on both sides; bandwidth: the client sends and the server counts
     * and measures too; {@code -b}: both send, the server once the client's first SEND arrived, and
     * swap their rows); with {@code -a}, ib_send_bw meets again after each size. A closing barrier
     * ends the run. Both sides print their rows. {@code --run_infinitely}: the client sends and the
     * server takes SENDs, both printing a row every {@code -D} seconds, until one of them is stopped.
     */
    private void send(RdmaTraffic traffic, PerftestKeys mine, boolean withGid)
            throws VerbsException, BenchException, ControlException {
        List<Integer> sizes = settings.sizes();
        boolean sweep = sizes.size() > 1;
        int iterations = settings.iterations();
        if (settings.runInfinitely()) {
            if (!client) {
                traffic.perftestReceives(Long.MAX_VALUE);
            }
            exchange.handShake(mine, withGid);
            if (client) {
                intervals(traffic, sizes.get(0));
            } else {
                receiveIntervals(traffic, sizes.get(0));
            }
            return;
        }
        for (int index = 0; index < sizes.size(); index++) {
            int size = sizes.get(index);
            if (settings.mode() == BenchMode.LAT || !client || settings.bidirectional()) {
                traffic.perftestReceives(iterations);
            }
            exchange.handShake(mine, withGid);
            if (settings.mode() == BenchMode.LAT) {
                report(traffic.perftestSendLatency(size, index, iterations, client));
            } else {
                if (settings.bidirectional()) {
                    reportBothWays(traffic.perftestSendBothWays(size, index, iterations, client));
                } else {
                    report(client ? traffic.perftestSendBandwidthClient(size, index, iterations)
                            : traffic.perftestSendBandwidthServer(size, index, iterations));
                }
                if (sweep) {
                    exchange.handShake(mine, withGid);
                }
            }
        }
        exchange.handShake(mine, withGid);
    }

    /**
     * ib_write_bw, ib_read_bw and ib_atomic_bw with {@code -b}: for every size both sides meet, both
     * measure (with {@code -a} they meet again), and they swap their rows; each prints both
     * directions summed (perftest's {@code print_full_bw_report}). A closing barrier ends the run.
     */
    private void bothWays(RdmaTraffic traffic, PerftestKeys mine, boolean withGid)
            throws VerbsException, BenchException, ControlException {
        List<Integer> sizes = settings.sizes();
        boolean sweep = sizes.size() > 1;
        for (int index = 0; index < sizes.size(); index++) {
            traffic.prepare(sizes.get(index));
            exchange.handShake(mine, withGid);
            BenchRow own = traffic.measure(sizes.get(index), index);
            if (sweep) {
                exchange.handShake(mine, withGid);
            }
            reportBothWays(own);
        }
        exchange.handShake(mine, withGid);
    }

    /** Swaps this side's {@code -b} row for the peer's and prints both directions summed. */
    private void reportBothWays(BenchRow own) throws BenchException, ControlException {
        BandwidthReport peer = exchange.bandwidthReports(reportOf(own.bandwidth(), settings.reportGbits()));
        report(new BenchRow(BenchRow.Path.RDMA, own.bandwidth().bytes(),
                own.bandwidth().plus(statsOf(peer, settings.reportGbits())), null, own.usage(), 0));
    }

    /**
     * {@code --run_infinitely} on the side that sends (the client; with {@code -b} both): a row every
     * {@code -D} seconds, with {@code -b} this side's doubled as perftest's, and no more TCP, until
     * this side is stopped or the peer goes (after an interval, a failure while its connection is
     * closed ends the run as stopped, not as a failure: perftest's end is a Ctrl-C).
     */
    private void intervals(RdmaTraffic traffic, int size) throws VerbsException, BenchException {
        if (settings.test() != BenchTest.SEND) {
            traffic.prepare(size);
        }
        for (long interval = 0; ; interval++) {
            BenchRow row;
            try {
                row = traffic.measureInterval(size, interval == 0, false);
            } catch (BenchStopped e) {
                throw e;
            } catch (BenchException | VerbsException e) {
                if (interval > 0 && peerClosed()) {
                    listener.note("the perftest peer ended the run after " + interval + " intervals ("
                            + e.getMessage() + ")");
                    throw new BenchStopped();
                }
                throw e;
            }
            report(settings.bidirectional() ? new BenchRow(BenchRow.Path.RDMA, size,
                    SideRunner.ownBothWays(settings, row.bandwidth()), null, row.usage(), 0) : row);
        }
    }

    /**
     * ib_send_bw's {@code --run_infinitely} server: a row every {@code -D} seconds of the SENDs
     * that arrived, until this side is stopped or the client's connection closes (perftest's own
     * server goes on printing empty rows).
     */
    private void receiveIntervals(RdmaTraffic traffic, int size) throws VerbsException, BenchException {
        for (long interval = 1; ; interval++) {
            report(traffic.perftestReceiveInterval(size));
            if (peerClosed()) {
                listener.note("the perftest client ended the run after " + interval + " intervals (it closed the"
                        + " connection)");
                throw new BenchStopped();
            }
        }
    }

    /**
     * The one-sided server of an endless WRITE, READ or atomic run: perftest's waits in a barrier
     * that never comes; this one waits for the client's connection to close (its end), or for its
     * own stop.
     */
    private void awaitTheClientsEnd() throws ControlException {
        listener.note("the client runs until it is stopped and prints the rows; this side waits for its end");
        exchange.channel().readNextIfOpen(1, "the end of the client's run");
        listener.note("the client ended the run (it closed the connection)");
    }

    /** True when the peer closed its connection. */
    private boolean peerClosed() {
        return exchange.channel().peerClosed();
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
            throw new BenchException("the peer's report holds no row (" + report.size() + " bytes, "
                    + report.iterations() + " iterations); did the peer finish?");
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
