package org.rdmalab.bench;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.OptionalDouble;
import java.util.Set;

/**
 * The report as CSV, as the Bench tab saves it: one line per row (RDMA then baseline per size),
 * perftest's columns, the ratio, then what {@code bench --json --verbose} ({@link BenchJson}) adds
 * per row: the bytes allocated per message and the GCs (count, ms) during the size's measured
 * part, and one column per device counter that moved in any row, with how much it moved in this
 * one.
 */
public final class BenchCsv {

    /** The head of the columns from {@code bench --verbose}, after the ratio; then one per device counter. */
    public static final List<String> VERBOSE_COLUMNS = List.of("allocated_bytes_per_message", "gc_count", "gc_ms");
    /** A device counter's column is this prefix and the counter's name: "device_counter_sent_pkts". */
    public static final String COUNTER_PREFIX = "device_counter_";

    private BenchCsv() {
    }

    /**
     * The report as CSV text, a head line then one line per row. A cell is empty where the row has
     * no such figure: no measurement, an allocation the JVM could not count, a counter that did not
     * move (the JSON leaves it out too), a baseline row (no device).
     */
    public static String text(BenchReport report) {
        StringBuilder out = new StringBuilder();
        boolean bandwidth = report.rows().isEmpty() || report.rows().get(0).bandwidth() != null;
        if (report.info() != null && report.rows().stream().noneMatch(row -> row.bandwidth() != null)) {
            bandwidth = report.info().settings().mode() == BenchMode.BW;
        }
        boolean gbits = report.info() != null && report.info().settings().reportGbits();
        Set<String> counters = new LinkedHashSet<>();
        for (BenchRow row : report.rows()) {
            if (row.usage() != null) {
                counters.addAll(row.usage().counters().keySet());
            }
        }
        out.append("path,bytes,iterations,").append(bandwidth
                ? gbits ? "bw_peak_gb_per_sec,bw_average_gb_per_sec,msg_rate_mpps"
                        : "bw_peak_mb_per_sec,bw_average_mb_per_sec,msg_rate_mpps"
                : "t_min_usec,t_max_usec,t_typical_usec,t_avg_usec,t_stdev_usec,percentile_99_usec,percentile_99_9_usec")
                .append(",lost_messages,ratio,").append(String.join(",", VERBOSE_COLUMNS));
        for (String counter : counters) {
            out.append(',').append(field(COUNTER_PREFIX + counter));
        }
        out.append('\n');
        for (BenchRow row : report.rows()) {
            out.append(row.path() == BenchRow.Path.RDMA ? "rdma" : "baseline").append(',').append(row.bytes());
            if (row.bandwidth() != null) {
                BandwidthStats bw = row.bandwidth();
                out.append(',').append(bw.iterations()).append(number(bw.peak(gbits), 2))
                        .append(number(bw.average(gbits), 2)).append(number(bw.messageRateMpps(), 6));
            } else {
                LatencyStats lat = row.latency();
                out.append(',').append(lat.iterations());
                for (double value : new double[] {lat.minMicros(), lat.maxMicros(), lat.typicalMicros(),
                    lat.averageMicros(), lat.stdevMicros(), lat.p99Micros(), lat.p999Micros()}) {
                    out.append(number(value, 2));
                }
            }
            out.append(',').append(row.lostMessages()).append(',');
            OptionalDouble ratio = report.ratio(row.bytes());
            if (row.path() == BenchRow.Path.RDMA && ratio.isPresent()) {
                out.append(String.format(Locale.ROOT, "%.4f", ratio.getAsDouble()));
            }
            ResourceMeter.Usage usage = row.usage();
            if (usage == null) {
                out.append(",".repeat(VERBOSE_COLUMNS.size() + counters.size()));
            } else {
                out.append(',');
                if (usage.bytesPerMessage() >= 0) {
                    out.append(String.format(Locale.ROOT, "%.1f", usage.bytesPerMessage()));
                }
                out.append(',').append(usage.gcCount()).append(',').append(usage.gcMillis());
                for (String counter : counters) {
                    Long moved = usage.counters().get(counter);
                    out.append(',').append(moved == null ? "" : moved.toString());
                }
            }
            out.append('\n');
        }
        return out.toString();
    }

    /** {@code text} as one CSV field: quoted (quotes doubled) when it holds a comma, a quote or a line break. */
    static String field(String text) {
        if (text.indexOf(',') < 0 && text.indexOf('"') < 0 && text.indexOf('\n') < 0 && text.indexOf('\r') < 0) {
            return text;
        }
        return '"' + text.replace("\"", "\"\"") + '"';
    }

    private static String number(double value, int decimals) {
        return "," + String.format(Locale.ROOT, "%." + decimals + "f", value);
    }
}
