package org.rdmalab.app.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalDouble;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleObjectProperty;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;
import org.rdmalab.app.common.UiText;
import org.rdmalab.bench.BandwidthStats;
import org.rdmalab.bench.BenchFormat;
import org.rdmalab.bench.BenchInfo;
import org.rdmalab.bench.BenchMode;
import org.rdmalab.bench.BenchReport;
import org.rdmalab.bench.BenchRow;
import org.rdmalab.bench.BenchSettings;
import org.rdmalab.bench.BenchTest;
import org.rdmalab.bench.LatencyStats;
import org.rdmalab.bench.LiveSample;
import org.rdmalab.bench.ResourceMeter;

/**
 * What the Bench tab shows of the run it draws: bandwidth (or latency) over time from the live
 * samples, the headline figure per message size, for latency tests the distribution of one size
 * with its percentiles marked ({@link LatencyDistribution}), RDMA and baseline side by side, and a
 * table of the rows in perftest's columns ({@link BenchFormat#columns}) with the ratio and
 * {@code --verbose}'s allocation, GC and device counter figures.
 *
 * <p>Threads: the JavaFX thread; the view model hands it the run's events there, at most once a frame.
 */
public final class BenchResults {

    /** Live points kept per path (at four samples a second: minutes of history). */
    static final int LIVE_POINTS = 600;

    /** The table's columns after perftest's: what {@code bench} prints beside and after its table. */
    public static final List<String> TABLE_EXTRA_COLUMNS = List.of("lost", "ratio", "allocated B/msg", "GCs",
            "device counters");

    /** How the latency distribution is drawn: "CDF" or "Histogram", in the window's language. */
    public enum Distribution {
        CDF("bench.distribution.cdf"), HISTOGRAM("bench.distribution.histogram");

        private final String key;

        Distribution(String key) {
            this.key = key;
        }

        @Override
        public String toString() {
            return UiText.text(key);
        }
    }

    /**
     * One line of the results table: a row as {@code bench} prints it, one cell per column of
     * {@link BenchFormat#columns}, with what {@code bench} prints beside or after it.
     *
     * @param row the measured row
     * @param cells perftest's figures ({@link BenchFormat#cells})
     * @param ratio the RDMA row's ratio to the baseline as the {@code ratio:} line writes it, else ""
     * @param lost the baseline's lost messages, else ""
     * @param allocation bytes allocated per message during the measured part ("" when not measured)
     * @param gc the collections in that time and their milliseconds, "2 (5 ms)" ("" when not measured)
     * @param counters the device counters that moved, "sent_pkts +160128, rcvd_pkts +10128" ("" when none)
     */
    public record ResultRow(BenchRow row, List<String> cells, String ratio, String lost, String allocation, String gc,
                            String counters) {

        public ResultRow {
            cells = List.copyOf(cells);
        }

        /** "RDMA" or "baseline". */
        public String path() {
            return row.path() == BenchRow.Path.RDMA ? "RDMA" : "baseline";
        }
    }

    /** A point of a chart. */
    public record Point(double x, double y) {
    }

    /**
     * The headline figure of one message size on both paths.
     *
     * @param bytes the message size
     * @param rdma MB/sec or with --report_gbits Gb/sec (bandwidth), or t_typical µs (latency); NaN until measured
     * @param baseline the same for the UDP baseline; NaN when not measured
     */
    public record SizeBar(int bytes, double rdma, double baseline) {
    }

    /**
     * A percentile drawn on the distribution.
     *
     * @param path which path's percentile
     * @param name "t_typical", "99%", "99.9%"
     * @param micros where it is
     */
    public record Marker(BenchRow.Path path, String name, double micros) {
    }

    private final ObjectProperty<Distribution> distribution = new SimpleObjectProperty<>(Distribution.CDF);
    private final ObjectProperty<Integer> distributionSize = new SimpleObjectProperty<>();
    private final ReadOnlyObjectWrapper<BenchMode> shownMode = new ReadOnlyObjectWrapper<>(BenchMode.BW);
    private final ReadOnlyBooleanWrapper shownGbits = new ReadOnlyBooleanWrapper();
    private final ObservableList<BenchRow> rows = FXCollections.observableArrayList();
    private final ObservableList<String> columns = FXCollections.observableArrayList(
            BenchFormat.columns(BenchSettings.defaults(BenchTest.WRITE, BenchMode.BW)));
    private final ObservableList<ResultRow> resultRows = FXCollections.observableArrayList();
    private final ReadOnlyStringWrapper verboseText = new ReadOnlyStringWrapper("");
    private final ObservableList<Point> liveRdma = FXCollections.observableArrayList();
    private final ObservableList<Point> liveBaseline = FXCollections.observableArrayList();
    private final ObservableList<SizeBar> sizeBars = FXCollections.observableArrayList();
    private final ObservableList<Integer> latencySizes = FXCollections.observableArrayList();
    private final ObservableList<Point> distributionRdma = FXCollections.observableArrayList();
    private final ObservableList<Point> distributionBaseline = FXCollections.observableArrayList();
    private final ObservableList<Marker> markers = FXCollections.observableArrayList();

    /** The drawn run's settings and, once it started, its facts. */
    private BenchSettings settings = BenchSettings.defaults(BenchTest.WRITE, BenchMode.BW);
    private BenchInfo info;

    BenchResults() {
        distribution.addListener((observable, before, now) -> drawDistribution());
        distributionSize.addListener((observable, before, now) -> drawDistribution());
    }

    /** Forgets the last run: a run of {@code run} starts, its table in its columns. */
    void clear(BenchSettings run) {
        settings = run;
        info = null;
        rows.clear();
        columns.setAll(BenchFormat.columns(run));
        resultRows.clear();
        verboseText.set("");
        liveRdma.clear();
        liveBaseline.clear();
        sizeBars.clear();
        latencySizes.clear();
        distributionSize.set(null);
        distributionRdma.clear();
        distributionBaseline.clear();
        markers.clear();
        shownMode.set(run.mode());
        shownGbits.set(run.reportGbits());
    }

    /** The run started: its facts, for the ratios of the rows to come. */
    void started(BenchInfo facts) {
        info = facts;
    }

    /**
     * Adds {@code sample} to its path's live series at {@code seconds} since the run started, the
     * oldest points going past {@link #LIVE_POINTS}.
     *
     * @return the figure drawn (MB/sec or Gb/sec, or µs), or NaN when the sample had none to draw
     */
    double addLive(LiveSample sample, double seconds) {
        double y = settings.mode() == BenchMode.BW ? sample.recentBytesPerSecond() / (settings.reportGbits()
                ? BandwidthStats.GIGABIT_BYTES : BandwidthStats.MEBIBYTE) : sample.recentMicros();
        if (y <= 0) {
            return Double.NaN;
        }
        ObservableList<Point> series = sample.path() == BenchRow.Path.RDMA ? liveRdma : liveBaseline;
        series.add(new Point(seconds, y));
        if (series.size() > LIVE_POINTS) {
            series.remove(0, series.size() - LIVE_POINTS);
        }
        return y;
    }

    /**
     * A measured row: into the table, its size's bar, and for latency the sizes to draw (the drawn
     * one follows the newest). The distribution is redrawn by {@link #drawDistribution()}.
     */
    void addRow(BenchRow row) {
        rows.add(row);
        addResult(row);
        double figure = headline(row, settings.reportGbits());
        int at = -1;
        for (int i = 0; i < sizeBars.size(); i++) {
            if (sizeBars.get(i).bytes() == row.bytes()) {
                at = i;
            }
        }
        SizeBar before = at >= 0 ? sizeBars.get(at) : new SizeBar(row.bytes(), Double.NaN, Double.NaN);
        SizeBar bar = row.path() == BenchRow.Path.RDMA ? new SizeBar(row.bytes(), figure, before.baseline())
                : new SizeBar(row.bytes(), before.rdma(), figure);
        if (at >= 0) {
            sizeBars.set(at, bar);
        } else {
            sizeBars.add(bar);
        }
        if (row.latency() != null && !latencySizes.contains(row.bytes())) {
            latencySizes.add(row.bytes());
        }
        if (row.latency() != null && (distributionSize.get() == null || row.path() == BenchRow.Path.RDMA)) {
            // Follow the newest size until the run ends; the user may pick another afterwards.
            distributionSize.set(row.bytes());
        }
    }

    /**
     * The table's line for {@code row}, and when it is a baseline row, the ratio on its size's RDMA
     * line; the {@code --verbose} lines grow by the row's.
     */
    private void addResult(BenchRow row) {
        BenchReport sofar = new BenchReport(info, rows, false);
        resultRows.add(resultRow(row, sofar, settings.reportGbits()));
        if (row.path() == BenchRow.Path.BASELINE) {
            for (int i = 0; i < resultRows.size(); i++) {
                BenchRow each = resultRows.get(i).row();
                if (each.path() == BenchRow.Path.RDMA && each.bytes() == row.bytes()) {
                    resultRows.set(i, resultRow(each, sofar, settings.reportGbits()));
                }
            }
        }
        StringBuilder lines = new StringBuilder(verboseText.get());
        for (String line : List.of(BenchFormat.usage(row), BenchFormat.counters(row))) {
            if (!line.isEmpty()) {
                lines.append(line).append('\n');
            }
        }
        verboseText.set(lines.toString());
    }

    /** {@code row} as a line of the table, its ratio from {@code report}. */
    static ResultRow resultRow(BenchRow row, BenchReport report, boolean gbits) {
        OptionalDouble ratio = row.path() == BenchRow.Path.RDMA ? report.ratio(row.bytes()) : OptionalDouble.empty();
        ResourceMeter.Usage usage = row.usage();
        String allocation = usage == null ? "" : usage.bytesPerMessage() < 0 ? "unknown"
                : String.format(Locale.ROOT, "%.1f", usage.bytesPerMessage());
        String gc = usage == null ? "" : usage.gcCount() + " (" + usage.gcMillis() + " ms)";
        String counters = "";
        if (usage != null) {
            List<String> moved = new ArrayList<>();
            usage.counters().forEach((name, delta) -> moved.add(name + String.format(Locale.ROOT, " %+d", delta)));
            counters = String.join(", ", moved);
        }
        return new ResultRow(row, BenchFormat.cells(row, gbits),
                ratio.isPresent() ? String.format(Locale.ROOT, "%.2f", ratio.getAsDouble()) : "",
                row.path() == BenchRow.Path.BASELINE ? String.valueOf(row.lostMessages()) : "", allocation, gc,
                counters);
    }

    /**
     * {@code lines} as tab-separated text with a head line (path, perftest's columns, lost, ratio,
     * allocation, GCs, device counters), for the clipboard or a spreadsheet.
     */
    public static String tableText(List<String> columns, List<ResultRow> lines) {
        StringBuilder text = new StringBuilder("path");
        for (String column : columns) {
            text.append('\t').append(column);
        }
        text.append('\t').append(String.join("\t", TABLE_EXTRA_COLUMNS)).append('\n');
        for (ResultRow line : lines) {
            text.append(line.path());
            for (String cell : line.cells()) {
                text.append('\t').append(cell);
            }
            text.append('\t').append(line.lost()).append('\t').append(line.ratio()).append('\t')
                    .append(line.allocation()).append('\t').append(line.gc()).append('\t').append(line.counters())
                    .append('\n');
        }
        return text.toString();
    }

    /** Draws the distribution of {@link #distributionSizeProperty()} on both paths, with the percentiles. */
    void drawDistribution() {
        Integer bytes = distributionSize.get();
        LatencyStats rdma = bytes == null ? null : latency(BenchRow.Path.RDMA, bytes);
        LatencyStats udp = bytes == null ? null : latency(BenchRow.Path.BASELINE, bytes);
        double[] range = LatencyDistribution.range(rdma, udp);
        distributionRdma.setAll(LatencyDistribution.points(rdma, distribution.get(), range[0], range[1]));
        distributionBaseline.setAll(LatencyDistribution.points(udp, distribution.get(), range[0], range[1]));
        List<Marker> marks = new ArrayList<>();
        LatencyDistribution.addMarkers(marks, BenchRow.Path.RDMA, rdma);
        LatencyDistribution.addMarkers(marks, BenchRow.Path.BASELINE, udp);
        markers.setAll(marks);
    }

    private LatencyStats latency(BenchRow.Path path, int bytes) {
        for (BenchRow row : rows) {
            if (row.path() == path && row.bytes() == bytes && row.latency() != null) {
                return row.latency();
            }
        }
        return null;
    }

    /**
     * BW average for bandwidth rows, in MB/sec (2^20 bytes, as perftest) or with {@code gbits} in
     * Gb/sec (10^9 bits, as perftest's --report_gbits); t_typical µs for latency rows.
     */
    static double headline(BenchRow row, boolean gbits) {
        return row.bandwidth() != null ? row.bandwidth().average(gbits) : row.latency().typicalMicros();
    }

    // ---- Properties ----

    /** CDF or histogram. */
    public ObjectProperty<Distribution> distributionProperty() {
        return distribution;
    }

    /** The message size whose latency distribution is drawn (null before the first latency row). */
    public ObjectProperty<Integer> distributionSizeProperty() {
        return distributionSize;
    }

    /** The mode of the run the charts show (the form may already say another). */
    public ReadOnlyObjectProperty<BenchMode> shownModeProperty() {
        return shownMode.getReadOnlyProperty();
    }

    /** True when the charts show bandwidth in Gb/sec (the shown run's --report_gbits). */
    public ReadOnlyBooleanProperty shownGbitsProperty() {
        return shownGbits.getReadOnlyProperty();
    }

    /** Every row so far, in the order measured. */
    public ObservableList<BenchRow> rows() {
        return rows;
    }

    /** perftest's columns of the shown run's table ({@link BenchFormat#columns}). */
    public ObservableList<String> columns() {
        return columns;
    }

    /** The table: one line per row measured, RDMA and baseline, as sizes finish. */
    public ObservableList<ResultRow> resultRows() {
        return resultRows;
    }

    /** {@code bench --verbose}'s lines for the rows so far (allocation and GCs, device counters). */
    public ReadOnlyStringProperty verboseTextProperty() {
        return verboseText.getReadOnlyProperty();
    }

    /** Live bandwidth (MB/sec) or latency (µs) against seconds since the run started: RDMA. */
    public ObservableList<Point> liveRdma() {
        return liveRdma;
    }

    /** The same for the UDP baseline. */
    public ObservableList<Point> liveBaseline() {
        return liveBaseline;
    }

    /** One bar pair per message size. */
    public ObservableList<SizeBar> sizeBars() {
        return sizeBars;
    }

    /** The sizes with a latency distribution to draw. */
    public ObservableList<Integer> latencySizes() {
        return latencySizes;
    }

    /** The RDMA distribution: (µs, fraction) for a CDF, (µs, % of samples) for a histogram. */
    public ObservableList<Point> distributionRdma() {
        return distributionRdma;
    }

    /** The baseline's distribution, as {@link #distributionRdma()}. */
    public ObservableList<Point> distributionBaseline() {
        return distributionBaseline;
    }

    /** t_typical, 99% and 99.9% of each path, for the drawn size. */
    public ObservableList<Marker> markers() {
        return markers;
    }
}
