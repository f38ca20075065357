package org.rdmalab.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import org.rdmalab.text.Json;

/**
 * The report as perftest's {@code --out_json} names things: {@code test_info} ({@code test},
 * {@code Device}, {@code TX_depth}, {@code Mtu}, ...) and {@code results} ({@code MsgSize},
 * {@code n_iterations}, {@code BW_peak}, {@code BW_average}, {@code MsgRate}; for latency
 * {@code t_min}, {@code t_max}, {@code t_typical}, {@code t_avg}, {@code t_stdev},
 * {@code percentile_99}, {@code percentile_99.9}). {@code results} is one object for one size and a
 * list for a sweep, as in the text table. This tool adds {@code baseline} (the same keys),
 * {@code ratio} and, when measured, {@code allocation}.
 */
public final class BenchJson {

    private BenchJson() {
    }

    /** The report as nested maps and lists of strings and numbers, ready for a JSON writer. */
    public static Map<String, Object> of(BenchReport report, boolean withUsage) {
        Map<String, Object> root = new LinkedHashMap<>();
        BenchInfo info = report.info();
        if (info != null) {
            root.put("test_info", testInfo(info));
        }
        boolean gbits = info != null && info.settings().reportGbits();
        List<BenchRow> rdma = report.rows(BenchRow.Path.RDMA);
        List<BenchRow> baseline = report.rows(BenchRow.Path.BASELINE);
        root.put("results", oneOrList(rdma, gbits, withUsage));
        if (!baseline.isEmpty()) {
            root.put("baseline", oneOrList(baseline, gbits, withUsage));
            List<Object> ratios = new ArrayList<>();
            for (BenchRow row : rdma) {
                OptionalDouble ratio = report.ratio(row.bytes());
                if (ratio.isPresent()) {
                    Map<String, Object> entry = new LinkedHashMap<>();
                    entry.put("MsgSize", row.bytes());
                    entry.put("ratio", round(ratio.getAsDouble(), 4));
                    ratios.add(entry);
                }
            }
            root.put("ratio", ratios.size() == 1 ? ((Map<?, ?>) ratios.get(0)).get("ratio") : ratios);
        }
        if (report.stopped()) {
            root.put("stopped", true);
        }
        return root;
    }

    private static Object oneOrList(List<BenchRow> rows, boolean gbits, boolean withUsage) {
        List<Object> list = new ArrayList<>();
        for (BenchRow row : rows) {
            list.add(results(row, gbits, withUsage));
        }
        return list.size() == 1 ? list.get(0) : list;
    }

    static Map<String, Object> testInfo(BenchInfo info) {
        BenchSettings s = info.settings();
        Map<String, Object> map = new LinkedHashMap<>();
        map.put("test", BenchFormat.title(s).replace(' ', '_'));
        map.put("Dual_port", "OFF");
        map.put("Device", info.deviceName());
        map.put("Number_of_qps", s.qps());
        map.put("Transport_type", "IB");
        map.put("Connection_type", "RC");
        map.put("Using_SRQ", "OFF");
        map.put("TX_depth", s.txDepth());
        if (s.mode() == BenchMode.BW) {
            map.put("CQ_Moderation", s.cqModeration());
        }
        map.put("Mtu", info.mtu().bytes());
        map.put("Link_type", info.linkLayer().text());
        map.put("GID_index", info.gidIndex());
        if (s.test().fullRoundTrip()) {
            map.put("Outstand_reads", info.outstandingReads());
        } else {
            map.put("Max_inline_data", info.maxInlineData());
        }
        map.put("rdma_cm_QPs", "OFF");
        map.put("Data_ex_method", info.exchange());
        map.put("Backend", info.backend());
        return map;
    }

    static Map<String, Object> results(BenchRow row, boolean gbits, boolean withUsage) {
        Map<String, Object> map = new LinkedHashMap<>();
        map.put("MsgSize", row.bytes());
        if (row.bandwidth() != null) {
            BandwidthStats bw = row.bandwidth();
            map.put("n_iterations", bw.iterations());
            map.put("BW_peak", round(bw.peak(gbits), 2));
            map.put("BW_average", round(bw.average(gbits), 2));
            map.put("MsgRate", round(bw.messageRateMpps(), 6));
        } else {
            LatencyStats lat = row.latency();
            map.put("n_iterations", lat.iterations());
            map.put("t_min", round(lat.minMicros(), 2));
            map.put("t_max", round(lat.maxMicros(), 2));
            map.put("t_typical", round(lat.typicalMicros(), 2));
            map.put("t_avg", round(lat.averageMicros(), 2));
            map.put("t_stdev", round(lat.stdevMicros(), 2));
            map.put("percentile_99", round(lat.p99Micros(), 2));
            map.put("percentile_99.9", round(lat.p999Micros(), 2));
        }
        if (row.path() == BenchRow.Path.BASELINE) {
            map.put("lost_messages", row.lostMessages());
        }
        if (withUsage && row.usage() != null) {
            Map<String, Object> usage = new LinkedHashMap<>();
            usage.put("bytes_per_message", round(row.usage().bytesPerMessage(), 1));
            usage.put("gc_count", row.usage().gcCount());
            usage.put("gc_ms", row.usage().gcMillis());
            map.put("allocation", usage);
            if (!row.usage().counters().isEmpty()) {
                map.put("device_counters", new LinkedHashMap<>(row.usage().counters()));
            }
        }
        return map;
    }

    /**
     * The report as JSON text ({@link #of} written by {@link Json}, then a newline), as {@code bench
     * --json} prints it and the window's Bench view saves it.
     */
    public static String text(BenchReport report, boolean withUsage) {
        return Json.write(of(report, withUsage)) + "\n";
    }

    static double round(double value, int decimals) {
        double scale = Math.pow(10, decimals);
        return Math.round(value * scale) / scale;
    }
}
