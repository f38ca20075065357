package org.rdmalab.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalDouble;
import org.rdmalab.control.ConnectionData;

/**
 * perftest's text output: the header block, the table heads and rows, and this tool's baseline and
 * {@code ratio:} lines. Pure functions of the results; numbers use a dot whatever the locale.
 */
public final class BenchFormat {

    /** perftest's separator line. */
    public static final String LINE = "-".repeat(87);

    /** The bandwidth table head with MB/sec. */
    public static final String BW_HEAD_MB = " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]";
    /** The bandwidth table head with --report_gbits. */
    public static final String BW_HEAD_GB = " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]";
    /** The latency table head. */
    public static final String LAT_HEAD = " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]"
            + "    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec]";

    private BenchFormat() {
    }

    /** "RDMA_Write BW Test". */
    public static String title(BenchSettings settings) {
        return settings.test().perftestName() + " " + (settings.bidirectional() ? "Bidirectional " : "")
                + settings.mode().title() + " Test";
    }

    /** The block above the table: the test's facts and both sides' connection data. */
    public static List<String> header(BenchInfo info) {
        BenchSettings s = info.settings();
        List<String> lines = new ArrayList<>();
        lines.add(LINE);
        lines.add(" ".repeat(20) + title(s));
        lines.add(String.format(" Dual-port       : OFF\t\tDevice         : %s", info.deviceName()));
        lines.add(String.format(" Number of qps   : %d\t\tTransport type : IB", s.qps()));
        lines.add(" Connection type : RC\t\tUsing SRQ      : OFF");
        lines.add(String.format(" Backend         : %s", info.backend()));
        lines.add(String.format(" TX depth        : %d", s.txDepth()));
        if (s.mode() == BenchMode.BW) {
            lines.add(String.format(" CQ Moderation   : %d", s.cqModeration()));
        }
        lines.add(String.format(" Mtu             : %d[B]", info.mtu().bytes()));
        lines.add(String.format(" Link type       : %s", info.linkLayer().text()));
        lines.add(String.format(" GID index       : %d", info.gidIndex()));
        if (s.test().fullRoundTrip()) {
            lines.add(String.format(" Outstand reads  : %d", info.outstandingReads()));
        } else {
            lines.add(String.format(" Max inline data : %d[B]", info.maxInlineData()));
        }
        lines.add(" rdma_cm QPs\t : OFF");
        lines.add(String.format(" Data ex. method : %s", info.exchange()));
        if (s.timed()) {
            lines.add(String.format(" Duration        : %d[sec]", s.durationSeconds()));
        }
        lines.add(LINE);
        // One pair of lines per QP (-q), this side's first, as perftest prints them.
        for (ConnectionData local : info.locals()) {
            lines.add(address("local", local));
            lines.add(gid(local));
        }
        for (ConnectionData remote : info.remotes()) {
            lines.add(address("remote", remote));
            lines.add(gid(remote));
        }
        lines.add(LINE);
        return lines;
    }

    /** " local address: LID 0000 QPN 0x0011 PSN 0x3f2a1b RKey 0x00001234 VAddr 0x00000000001000". */
    static String address(String side, ConnectionData data) {
        return String.format(" %s address: LID %04x QPN 0x%04x PSN 0x%06x RKey 0x%08x VAddr 0x%016x", side,
                data.lid(), data.qpn(), data.psn(), data.rkey(), data.addr());
    }

    /** " GID: 00:00:...:255:255:127:00:00:01", each byte in decimal as perftest prints it. */
    static String gid(ConnectionData data) {
        byte[] raw = data.gid().raw();
        StringBuilder text = new StringBuilder(" GID: ");
        for (int i = 0; i < raw.length; i++) {
            if (i > 0) {
                text.append(':');
            }
            text.append(String.format("%02d", raw[i] & 0xff));
        }
        return text.toString();
    }

    /** The table head for {@code settings}. */
    public static String tableHead(BenchSettings settings) {
        if (settings.mode() == BenchMode.LAT) {
            return LAT_HEAD;
        }
        return settings.reportGbits() ? BW_HEAD_GB : BW_HEAD_MB;
    }

    /** One table row, in the columns of {@link #tableHead}. */
    public static String row(BenchRow row, boolean gbits) {
        if (row.bandwidth() != null) {
            BandwidthStats bw = row.bandwidth();
            return String.format(Locale.ROOT, " %-11d%-15d%-19.2f%-21.2f%.6f", bw.bytes(), bw.iterations(),
                    bw.peak(gbits), bw.average(gbits), bw.messageRateMpps());
        }
        LatencyStats lat = row.latency();
        return String.format(Locale.ROOT, " %-6d %-15d%-15.2f%-13.2f%-19.2f%-15.2f%-16.2f%-23.2f%.2f", lat.bytes(),
                lat.iterations(), lat.minMicros(), lat.maxMicros(), lat.typicalMicros(), lat.averageMicros(),
                lat.stdevMicros(), lat.p99Micros(), lat.p999Micros());
    }

    /**
     * The names of {@link #tableHead}'s columns, one each ("#bytes", "#iterations", "BW peak[MB/sec]",
     * ...), for a table with a cell per figure.
     */
    public static List<String> columns(BenchSettings settings) {
        if (settings.mode() == BenchMode.LAT) {
            return List.of("#bytes", "#iterations", "t_min[usec]", "t_max[usec]", "t_typical[usec]", "t_avg[usec]",
                    "t_stdev[usec]", "99% percentile[usec]", "99.9% percentile[usec]");
        }
        String unit = settings.reportGbits() ? "[Gb/sec]" : "[MB/sec]";
        return List.of("#bytes", "#iterations", "BW peak" + unit, "BW average" + unit, "MsgRate[Mpps]");
    }

    /** The figures of {@link #row}, one per {@link #columns} entry, as {@link #row} writes them. */
    public static List<String> cells(BenchRow row, boolean gbits) {
        if (row.bandwidth() != null) {
            BandwidthStats bw = row.bandwidth();
            return List.of(String.valueOf(bw.bytes()), String.valueOf(bw.iterations()),
                    String.format(Locale.ROOT, "%.2f", bw.peak(gbits)),
                    String.format(Locale.ROOT, "%.2f", bw.average(gbits)),
                    String.format(Locale.ROOT, "%.6f", bw.messageRateMpps()));
        }
        LatencyStats lat = row.latency();
        List<String> cells = new ArrayList<>(List.of(String.valueOf(lat.bytes()), String.valueOf(lat.iterations())));
        for (double micros : new double[] {lat.minMicros(), lat.maxMicros(), lat.typicalMicros(), lat.averageMicros(),
            lat.stdevMicros(), lat.p99Micros(), lat.p999Micros()}) {
            cells.add(String.format(Locale.ROOT, "%.2f", micros));
        }
        return List.copyOf(cells);
    }

    /** The line above the baseline's rows: what the baseline is. */
    public static String baselineTitle(BenchSettings settings, int datagramPayload) {
        return String.format(" baseline: plain UDP datagrams (java.nio DatagramChannel), %d-byte payloads,"
                + " the same %s pattern, no RDMA logic", datagramPayload, patternName(settings));
    }

    private static String patternName(BenchSettings settings) {
        String verb = settings.test().perftestName();
        if (settings.mode() == BenchMode.BW) {
            return verb + " window of " + settings.txDepth() * settings.qps() + (settings.test().fullRoundTrip()
                    ? " requests, each answered with the data" : " messages, one ack per message")
                    + (settings.qps() > 1 ? " (" + settings.qps() + " QPs x " + settings.txDepth() + ")" : "")
                    + (settings.bidirectional() ? ", both ways at once" : "");
        }
        return verb + (settings.test().fullRoundTrip() ? " request/response" : " ping-pong");
    }

    /**
     * {@code ratio: 0.21} (one size), or {@code ratio: 0.21 (65536 bytes)} in a sweep; empty when a
     * row is missing.
     */
    public static List<String> ratioLines(BenchReport report) {
        List<String> lines = new ArrayList<>();
        List<BenchRow> rdma = report.rows(BenchRow.Path.RDMA);
        for (BenchRow row : rdma) {
            OptionalDouble ratio = report.ratio(row.bytes());
            if (ratio.isPresent()) {
                lines.add(String.format(Locale.ROOT, "ratio: %.2f", ratio.getAsDouble()));
            }
        }
        if (lines.size() > 1) {
            List<String> sized = new ArrayList<>();
            int i = 0;
            for (BenchRow row : rdma) {
                if (report.ratio(row.bytes()).isPresent()) {
                    sized.add(lines.get(i++) + " (" + row.bytes() + " bytes)");
                }
            }
            return sized;
        }
        return lines;
    }

    /** "  allocated 1234.5 bytes/message, 2 GCs (5 ms)" for {@code --verbose}. */
    public static String usage(BenchRow row) {
        ResourceMeter.Usage usage = row.usage();
        if (usage == null) {
            return "";
        }
        String allocation = usage.bytesPerMessage() < 0 ? "allocation unknown"
                : String.format(Locale.ROOT, "allocated %.1f bytes/message (%d bytes over %d messages)",
                usage.bytesPerMessage(), usage.allocatedBytes(), usage.messages());
        return String.format(Locale.ROOT, "%s %s, %d GCs (%d ms)", verboseLead(row), allocation, usage.gcCount(),
                usage.gcMillis());
    }

    /** " rdma 65536 bytes:" or " baseline 65536 bytes:", how each {@code --verbose} line starts. */
    private static String verboseLead(BenchRow row) {
        return " " + (row.path() == BenchRow.Path.RDMA ? "rdma" : "baseline") + " " + row.bytes() + " bytes:";
    }

    /**
     * " rdma 65536 bytes: this side's device counters moved: sent_pkts +160128, rcvd_pkts +10128,
     * completer_retry_err +1" for {@code --verbose}, or "" when the row has none (the baseline, a
     * device without counters).
     */
    public static String counters(BenchRow row) {
        ResourceMeter.Usage usage = row.usage();
        if (usage == null || usage.counters().isEmpty()) {
            return "";
        }
        StringBuilder line = new StringBuilder(verboseLead(row)).append(" this side's device counters moved:");
        String separator = " ";
        for (Map.Entry<String, Long> counter : usage.counters().entrySet()) {
            line.append(separator).append(counter.getKey()).append(String.format(Locale.ROOT, " %+d", counter.getValue()));
            separator = ", ";
        }
        return line.toString();
    }
}
