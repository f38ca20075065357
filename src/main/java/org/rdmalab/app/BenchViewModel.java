package org.rdmalab.app;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.OptionalDouble;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;
import javafx.beans.binding.BooleanBinding;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.IntegerProperty;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.beans.property.SimpleIntegerProperty;
import javafx.beans.property.SimpleObjectProperty;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;
import org.rdmalab.bench.BandwidthStats;
import org.rdmalab.bench.BenchEngine;
import org.rdmalab.bench.BenchFormat;
import org.rdmalab.bench.BenchInfo;
import org.rdmalab.bench.BenchJson;
import org.rdmalab.bench.BenchListener;
import org.rdmalab.bench.BenchMode;
import org.rdmalab.bench.BenchReport;
import org.rdmalab.bench.BenchRow;
import org.rdmalab.bench.BenchRun;
import org.rdmalab.bench.BenchSettings;
import org.rdmalab.bench.BenchTest;
import org.rdmalab.bench.LatencyStats;
import org.rdmalab.bench.LiveSample;
import org.rdmalab.bench.ResourceMeter;
import org.rdmalab.bench.Topology;
import org.rdmalab.verbs.Device;
import org.rdmalab.verbs.Mtu;
import org.rdmalab.verbs.spi.Backends;
import org.rdmalab.verbs.spi.DeviceOptions;

/**
 * The Bench view: what {@code bench} measures, chosen in the window (the device of any backend,
 * its port and GID index, the test, bandwidth or latency, one size or {@code -a}'s sweep, the
 * iterations or seconds per size or a run until stopped, both ways ({@code -b}), the MTU, the TX
 * depth, MB/sec or Gb/sec, the UDP baseline), run
 * on the loopback topology (the lab's two loopback addresses) or as one side of a run over TCP (a
 * server waiting for one client, or a client of a server: another window or {@code bench} on the
 * command line, each waiting at most {@code --timeout}), and shown as it goes: bandwidth (or
 * latency) over time from the live samples, the headline figure per message size, for latency
 * tests the distribution of one size with its percentiles marked, RDMA and baseline side by side,
 * and a table of the rows in perftest's columns ({@link BenchFormat#columns}) with the ratio and
 * {@code --verbose}'s allocation, GC and device counter figures. A finished (or stopped) run saves
 * as CSV (perftest's columns, the ratio and the {@code --verbose} figures) or as
 * {@code bench --json --verbose}'s JSON.
 *
 * <p>Threads: called on the UI thread. The run measures on the engine's own threads; what its
 * listener hears goes through an {@link EventQueue} and is applied on the UI executor, at most once
 * a frame in the window. Files are written on the background executor.
 */
public final class BenchViewModel {

    private static final Logger LOG = Logger.getLogger(BenchViewModel.class.getName());

    /** How long a stopped run may take to end before the view says so. */
    static final Duration STOP_TIMEOUT = Duration.ofSeconds(10);
    /** Live points kept per path (at four samples a second: minutes of history). */
    static final int LIVE_POINTS = 600;
    /** Points of a drawn CDF (the samples are thinned to this many). */
    static final int CDF_POINTS = 200;
    /** Bins of a drawn histogram. */
    static final int HISTOGRAM_BINS = 40;
    /** The distribution's x axis ends at this multiple of the larger 99.9% percentile. */
    static final double DISTRIBUTION_HEADROOM = 1.15;

    /** The sizes the size box offers: perftest's -a sizes, 2 B to 8 MiB. */
    public static final List<Integer> SIZES = BenchSettings.sweep(BenchTest.WRITE);
    /** The MTUs the MTU box offers ({@code -m}); 0 is the port's active MTU, perftest's default. */
    public static final List<Integer> MTUS = List.of(0, 256, 512, 1024, 2048, 4096);
    /** Seconds per size offered first for {@code -D}. */
    public static final int DEFAULT_SECONDS = 5;
    /**
     * How long a server waits for its client, or a client tries to reach its server, unless the form
     * says otherwise: bench's {@code --timeout} default.
     */
    public static final int DEFAULT_TIMEOUT_SECONDS = 60;
    /** The device a run uses unless another is chosen ({@code -d}'s default). */
    public static final String DEFAULT_DEVICE = BenchSettings.defaults(BenchTest.WRITE, BenchMode.BW).device();

    /**
     * Where the two sides run: both here, or this window is one side of a run over TCP. Shown as
     * "loopback", "server", "client" in the window's language.
     */
    public enum Role {
        LOOPBACK("bench.role.loopback"), SERVER("bench.role.server"), CLIENT("bench.role.client");

        private final String key;

        Role(String key) {
            this.key = key;
        }

        @Override
        public String toString() {
            return UiText.text(key);
        }
    }

    /**
     * What ends a size: a number of messages ({@code -n}) or a time ({@code -D}). Shown as
     * "iterations (-n)", "seconds (-D)", "until stopped (--run_infinitely)" in the window's language.
     */
    public enum Limit {
        ITERATIONS("bench.limit.iterations"), SECONDS("bench.limit.seconds"),
        /** Bandwidth until Stop, a row every {@link #secondsProperty()} ({@code --run_infinitely}). */
        UNTIL_STOPPED("bench.limit.untilStopped");

        private final String key;

        Limit(String key) {
            this.key = key;
        }

        @Override
        public String toString() {
            return UiText.text(key);
        }
    }

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

    /** What a saved file holds. */
    public enum Format {
        CSV("csv"), JSON("json");

        private final String extension;

        Format(String extension) {
            this.extension = extension;
        }

        /** "csv" or "json". */
        public String extension() {
            return extension;
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

    private sealed interface Item {
    }

    private record Started(BenchInfo info) implements Item {
    }

    private record Sample(LiveSample sample, long atNanos) implements Item {
    }

    private record Row(BenchRow row) implements Item {
    }

    private record Note(String text) implements Item {
    }

    private record Finished(BenchReport report, Throwable failure) implements Item {
    }

    private record StopOverdue() implements Item {
    }

    private final BenchEngine engine;
    private final Backends backends;
    private final Supplier<Topology> topology;
    private final Executor background;
    private final Executor ui;

    private final ObjectProperty<BenchTest> test = new SimpleObjectProperty<>(BenchTest.WRITE);
    private final ObjectProperty<BenchMode> mode = new SimpleObjectProperty<>(BenchMode.BW);
    private final ObjectProperty<Integer> size = new SimpleObjectProperty<>(BenchSettings.DEFAULT_SIZE_BW);
    private final BooleanProperty sweep = new SimpleBooleanProperty();
    private final ObjectProperty<Integer> iterations = new SimpleObjectProperty<>(BenchSettings.DEFAULT_ITERATIONS_BW);
    private final ObjectProperty<Limit> limit = new SimpleObjectProperty<>(Limit.ITERATIONS);
    private final ObjectProperty<Integer> seconds = new SimpleObjectProperty<>(DEFAULT_SECONDS);
    private final ObjectProperty<Integer> mtu = new SimpleObjectProperty<>(0);
    private final ObjectProperty<Integer> txDepth = new SimpleObjectProperty<>(BenchSettings.DEFAULT_TX_DEPTH_BW);
    private final ObjectProperty<String> device = new SimpleObjectProperty<>(DEFAULT_DEVICE);
    private final ObservableList<String> devices = FXCollections.observableArrayList(DEFAULT_DEVICE);
    private final ReadOnlyStringWrapper devicesNote = new ReadOnlyStringWrapper(UiText.text("bench.lookingForDevices"));
    private final ObjectProperty<Integer> ibPort = new SimpleObjectProperty<>(1);
    private final StringProperty gidIndex = new SimpleStringProperty("");
    private final ObjectProperty<Integer> timeout = new SimpleObjectProperty<>(DEFAULT_TIMEOUT_SECONDS);
    private final BooleanProperty reportGbits = new SimpleBooleanProperty();
    private final ObjectProperty<Role> role = new SimpleObjectProperty<>(Role.LOOPBACK);
    /** bench's --perftest: the peer is ib_write_* or ib_read_*, over perftest's TCP exchange. */
    private final BooleanProperty perftest = new SimpleBooleanProperty(false);
    private final StringProperty serverAddress = new SimpleStringProperty("");
    private final StringProperty localAddress = new SimpleStringProperty("");
    private final StringProperty tcpPort = new SimpleStringProperty(String.valueOf(Topology.DEFAULT_TCP_PORT));
    private final IntegerProperty udpPort = new SimpleIntegerProperty(DeviceOptions.ROCE_V2_PORT);
    private final IntegerProperty baselinePort = new SimpleIntegerProperty(Topology.DEFAULT_BASELINE_PORT);
    private final BooleanProperty baseline = new SimpleBooleanProperty(true);
    private final BooleanProperty bidirectional = new SimpleBooleanProperty(false);
    private final ObjectProperty<Integer> qps = new SimpleObjectProperty<>(1);
    /** A run until stopped: no baseline (see {@link #baselineUnavailable}). */
    private final BooleanBinding baselineUnavailable = limit.isEqualTo(Limit.UNTIL_STOPPED);
    private final ObjectProperty<Distribution> distribution = new SimpleObjectProperty<>(Distribution.CDF);
    private final ObjectProperty<Integer> distributionSize = new SimpleObjectProperty<>();
    private final BooleanProperty wide = new SimpleBooleanProperty(true);

    private final ReadOnlyBooleanWrapper running = new ReadOnlyBooleanWrapper();
    private final ReadOnlyBooleanWrapper stopping = new ReadOnlyBooleanWrapper();
    private final ReadOnlyStringWrapper status = new ReadOnlyStringWrapper(UiText.text("bench.status.choose"));
    private final ReadOnlyObjectWrapper<BenchMode> shownMode = new ReadOnlyObjectWrapper<>(BenchMode.BW);
    private final ReadOnlyBooleanWrapper shownGbits = new ReadOnlyBooleanWrapper();
    private final ReadOnlyObjectWrapper<BenchReport> report = new ReadOnlyObjectWrapper<>();
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

    private BenchRun run;
    private BenchSettings runSettings;
    private Topology runTopology;
    private long runStart;
    private BenchInfo info;
    private boolean closed;

    /**
     * @param engine starts the runs
     * @param backends where the device list comes from (listed once, on {@code background})
     * @param topology where a loopback run's two sides are (the window: soft0 on the lab's loopback
     *     addresses, on UDP ports free at that moment); a server or client run takes the form's
     *     addresses and ports
     * @param background where the devices are listed and files are written
     * @param ui the UI thread (a {@link FrameExecutor} in the window)
     */
    public BenchViewModel(BenchEngine engine, Backends backends, Supplier<Topology> topology, Executor background,
                          Executor ui) {
        this.engine = engine;
        this.backends = backends;
        this.topology = topology;
        this.background = background;
        this.ui = ui;
        mode.addListener((observable, before, now) -> {
            // perftest's defaults for the mode: 5000 messages of 64 KiB, or 1000 of 2 bytes.
            iterations.set(now == BenchMode.LAT ? BenchSettings.DEFAULT_ITERATIONS_LAT
                    : BenchSettings.DEFAULT_ITERATIONS_BW);
            size.set(now == BenchMode.LAT ? BenchSettings.DEFAULT_SIZE_LAT : BenchSettings.DEFAULT_SIZE_BW);
        });
        distribution.addListener((observable, before, now) -> drawDistribution());
        distributionSize.addListener((observable, before, now) -> drawDistribution());
        background.execute(this::listDevices);
    }

    /**
     * The devices of every backend, as {@code devices} and the lab's setup find them: soft0 always,
     * rxe0 / mlx5_0 where libibverbs has them; a backend that cannot answer is named in
     * {@link #devicesNoteProperty()}.
     */
    private void listDevices() {
        List<String> names = new ArrayList<>();
        List<String> lines = new ArrayList<>();
        try {
            for (Backends.Listing listing : backends.list(DeviceOptions.defaults())) {
                for (Device each : listing.devices()) {
                    names.add(each.name());
                    lines.add(each.name() + ": " + each.description() + " (" + listing.provider().name() + ")");
                }
                if (listing.failure() != null) {
                    lines.add(listing.provider().name() + ": " + listing.failure().getMessage());
                }
            }
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "listing the devices for the bench failed", e);
            lines.add(UiText.format("bench.devicesNotListed", e.getMessage()));
        }
        if (!names.contains(DEFAULT_DEVICE)) {
            // Keep the default choosable: a run on it explains what is wrong.
            names.add(0, DEFAULT_DEVICE);
        }
        ui.execute(() -> {
            String chosen = device.get();
            devices.setAll(names);
            if (chosen != null && !names.contains(chosen)) {
                devices.add(chosen);
            }
            device.set(chosen);
            devicesNote.set(String.join("\n", lines));
        });
    }

    /** The settings the form describes. @throws IllegalArgumentException with perftest's option in the message */
    public BenchSettings settings() {
        BenchTest chosen = test.get();
        List<Integer> sizes = sweep.get() ? BenchSettings.sweep(chosen)
                : List.of(chosen == BenchTest.ATOMIC ? BenchTest.ATOMIC_SIZE : size.get());
        String name = device.get() == null ? "" : device.get().trim();
        if (name.isEmpty()) {
            throw new IllegalArgumentException(UiText.text("bench.error.device"));
        }
        Integer port = ibPort.get();
        if (port == null) {
            throw new IllegalArgumentException(UiText.text("bench.error.port"));
        }
        BenchSettings settings = BenchSettings.defaults(chosen, mode.get()).withSizes(sizes).withDevice(name)
                .withPort(port).withGidIndex(gid());
        boolean untilStopped = limit.get() == Limit.UNTIL_STOPPED;
        if (limit.get() == Limit.SECONDS || untilStopped) {
            Integer time = seconds.get();
            if (time == null || time < 1) {
                throw new IllegalArgumentException(UiText.text(untilStopped ? "bench.error.secondsBetweenRows"
                        : "bench.error.secondsPerSize"));
            }
            settings = settings.withDuration(time);
        } else {
            Integer count = iterations.get();
            if (count == null) {
                throw new IllegalArgumentException(UiText.text("bench.error.iterations"));
            }
            settings = settings.withIterations(count);
        }
        Integer bytes = mtu.get();
        if (bytes != null && bytes != 0) {
            settings = settings.withMtu(Mtu.ofBytes(bytes));
        }
        if (mode.get() == BenchMode.BW) {
            // Latency tests keep one message in flight, as perftest's do.
            Integer depth = txDepth.get();
            if (depth == null) {
                throw new IllegalArgumentException(UiText.text("bench.error.txDepth"));
            }
            settings = settings.withTxDepth(depth);
        }
        boolean both = bidirectional.get() && mode.get() == BenchMode.BW;
        Integer qpCount = qps.get();
        if (qpCount == null) {
            throw new IllegalArgumentException(UiText.text("bench.error.qps"));
        }
        int qpsUsed = mode.get() == BenchMode.BW ? qpCount : 1;
        // Where there is no baseline the form's box is disabled, not an error.
        settings = settings.withReportGbits(reportGbits.get())
                .withBaseline(baseline.get() && !baselineUnavailable.get()).withBidirectional(both)
                .withQps(qpsUsed);
        return untilStopped ? settings.withRunInfinitely(true, settings.durationSeconds()) : settings;
    }

    /** True when the form's settings leave no room for the baseline (a run until stopped). */
    public BooleanBinding baselineUnavailable() {
        return baselineUnavailable;
    }

    /** -x as typed: blank for bench's choice (-1), else 0..255 as {@link BenchSettings} checks. */
    private int gid() {
        String text = gidIndex.get() == null ? "" : gidIndex.get().trim();
        if (text.isEmpty()) {
            return -1;
        }
        try {
            int index = Integer.parseInt(text);
            if (index < 0) {
                // bench's -x takes no negative number either; blank is its "choose for me".
                throw new IllegalArgumentException(UiText.format("bench.error.gidNegative", index));
            }
            return index;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(UiText.format("bench.error.gidNotNumber", text));
        }
    }

    /**
     * Where the run's sides are: the loopback topology, or this window as the server or the client,
     * by bench's rules for the addresses ({@link Topology#server}, {@link Topology#client}).
     *
     * @throws IllegalArgumentException saying which field is wrong and how
     */
    public Topology topology() {
        return switch (role.get()) {
            case LOOPBACK -> topology.get();
            case SERVER -> Topology.server(localAddress.get(), port(), udpPort.get(), baselinePort.get(), waitLimit())
                    .withExchange(exchange());
            case CLIENT -> Topology.client(serverAddress.get(), localAddress.get(), port(), udpPort.get(),
                    baselinePort.get(), waitLimit()).withExchange(exchange());
        };
    }

    private Topology.Exchange exchange() {
        return perftest.get() ? Topology.Exchange.PERFTEST : Topology.Exchange.RDMA_LAB;
    }

    /** --timeout: how long a server waits for its client, or a client for its server. */
    private Duration waitLimit() {
        Integer seconds = timeout.get();
        if (seconds == null || seconds < 1) {
            throw new IllegalArgumentException(UiText.text("bench.error.timeout"));
        }
        return Duration.ofSeconds(seconds);
    }

    private int port() {
        String text = tcpPort.get() == null ? "" : tcpPort.get().trim();
        if (text.isEmpty()) {
            throw new IllegalArgumentException(UiText.format("bench.error.tcpPortEmpty", Topology.DEFAULT_TCP_PORT));
        }
        try {
            int port = Integer.parseInt(text);
            if (port < 1 || port > 65535) {
                throw new IllegalArgumentException(UiText.format("bench.error.tcpPortRange", text));
            }
            return port;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(UiText.format("bench.error.tcpPortNotNumber", text,
                    Topology.DEFAULT_TCP_PORT));
        }
    }

    /** Runs what the form describes; a bad form shows its reason in the status line. */
    public void start() {
        BenchSettings settings;
        try {
            settings = settings();
        } catch (IllegalArgumentException e) {
            status.set(UiText.format("bench.status.cannotRun", e.getMessage()));
            return;
        }
        start(settings);
    }

    /**
     * Runs {@code settings} where {@link #topology()} says (nothing when a run is going or the window
     * closed); a bad address or port shows its reason in the status line and starts nothing.
     */
    public void start(BenchSettings settings) {
        if (running.get() || closed) {
            return;
        }
        Topology where;
        try {
            where = topology();
        } catch (IllegalArgumentException e) {
            status.set(UiText.format("bench.status.cannotRun", e.getMessage()));
            return;
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "no topology for the bench", e);
            status.set(UiText.format("bench.status.cannotRun", e.getMessage()));
            return;
        }
        runSettings = settings;
        runTopology = where;
        info = null;
        rows.clear();
        columns.setAll(BenchFormat.columns(settings));
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
        report.set(null);
        shownMode.set(settings.mode());
        shownGbits.set(settings.reportGbits());
        running.set(true);
        stopping.set(false);
        if (where instanceof Topology.Client client) {
            status.set(UiText.format("bench.status.connecting", client.serverAddress(), client.tcpPort(),
                    client.localAddress(), describe(settings)));
        } else {
            status.set(UiText.format("bench.status.starting", describe(settings)));
        }
        runStart = System.nanoTime();
        EventQueue<Item> queue = new EventQueue<>(ui, this::apply);
        BenchRun started = engine.start(settings, where, new BenchListener() {
            @Override
            public void started(BenchInfo facts) {
                queue.offer(new Started(facts));
            }

            @Override
            public void sample(LiveSample sample) {
                queue.offer(new Sample(sample, System.nanoTime()));
            }

            @Override
            public void row(BenchRow row) {
                queue.offer(new Row(row));
            }

            @Override
            public void note(String text) {
                queue.offer(new Note(text));
            }
        });
        run = started;
        started.result().whenComplete((result, failure) -> queue.offer(new Finished(result, failure)));
    }

    /** Asks the run to stop; says so when it has not ended within {@link #STOP_TIMEOUT}. */
    public void stop() {
        BenchRun current = run;
        if (current == null || !running.get() || stopping.get()) {
            return;
        }
        stopping.set(true);
        status.set(UiText.text("bench.status.stopping"));
        current.stop();
        current.result().copy().orTimeout(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS).whenComplete(
                (result, failure) -> {
                    Throwable cause = failure instanceof CompletionException ? failure.getCause() : failure;
                    if (cause instanceof TimeoutException) {
                        ui.execute(() -> apply(List.of(new StopOverdue())));
                    }
                });
    }

    /** The window closes: a run is stopped (its threads end on their own and close everything). */
    public void close() {
        closed = true;
        if (run != null) {
            run.stop();
        }
    }

    private void apply(List<Item> batch) {
        boolean drawDistribution = false;
        for (Item item : batch) {
            if (item instanceof Started started) {
                info = started.info();
                status.set(UiText.format(runTopology instanceof Topology.Server ? "bench.status.answering"
                        : "bench.status.running", describe(runSettings), info.deviceName(), info.backend(),
                        info.mtu().bytes()));
            } else if (item instanceof Sample sample) {
                addLive(sample.sample(), sample.atNanos());
            } else if (item instanceof Row row) {
                addRow(row.row());
                drawDistribution = true;
            } else if (item instanceof Note note) {
                // The engine's note stays as bench prints it; the window names the side.
                status.set(runTopology instanceof Topology.Server
                        ? UiText.format("bench.status.serverNote", note.text())
                        : runTopology instanceof Topology.Client
                        ? UiText.format("bench.status.clientNote", note.text()) : note.text());
            } else if (item instanceof Finished finished) {
                finish(finished);
            } else if (item instanceof StopOverdue && running.get()) {
                status.set(UiText.format("bench.status.stopOverdue", STOP_TIMEOUT.toSeconds()));
            }
        }
        if (drawDistribution) {
            drawDistribution();
        }
    }

    private void addLive(LiveSample sample, long atNanos) {
        double seconds = (atNanos - runStart) / 1e9;
        double y = runSettings.mode() == BenchMode.BW ? sample.recentBytesPerSecond() / (runSettings.reportGbits()
                ? BandwidthStats.GIGABIT_BYTES : BandwidthStats.MEBIBYTE) : sample.recentMicros();
        if (y <= 0) {
            return;
        }
        ObservableList<Point> series = sample.path() == BenchRow.Path.RDMA ? liveRdma : liveBaseline;
        series.add(new Point(seconds, y));
        if (series.size() > LIVE_POINTS) {
            series.remove(0, series.size() - LIVE_POINTS);
        }
        if (!stopping.get()) {
            String of = sample.sizeCount() > 1 ? UiText.format("bench.progress.sizeOf", sample.sizeIndex() + 1,
                    sample.sizeCount()) : "";
            String done = String.format(Locale.ROOT, "%,d", sample.done());
            String figure = runSettings.mode() == BenchMode.BW
                    ? String.format(Locale.ROOT, "%.1f %s", y, bandwidthUnit(runSettings))
                    : String.format(Locale.ROOT, "%.2f µs", y);
            status.set(sample.total() > 0
                    ? UiText.format("bench.progress.ofTotal", pathName(sample.path()), bytes(sample.bytes()), of, done,
                            String.format(Locale.ROOT, "%,d", sample.total()), figure)
                    : UiText.format("bench.progress", pathName(sample.path()), bytes(sample.bytes()), of, done,
                            figure));
        }
    }

    private void addRow(BenchRow row) {
        rows.add(row);
        addResult(row);
        double figure = headline(row, runSettings.reportGbits());
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

    private void finish(Finished finished) {
        running.set(false);
        stopping.set(false);
        run = null;
        if (finished.failure() != null) {
            Throwable cause = finished.failure() instanceof CompletionException ? finished.failure().getCause()
                    : finished.failure();
            status.set(UiText.format("bench.status.failed", cause.getMessage()));
            return;
        }
        BenchReport done = finished.report();
        report.set(done);
        if (runTopology instanceof Topology.Server server && done.info() == null) {
            status.set(done.stopped() ? UiText.format("bench.status.stoppedNoClient", server.tcpPort())
                    : UiText.text("bench.status.doneNoClient"));
            return;
        }
        if (runTopology instanceof Topology.Server && done.rows(BenchRow.Path.RDMA).isEmpty() && !done.stopped()) {
            // A latency server prints its header only: the client has the figures (but against a
            // perftest ib_write_lat both sides measure, and the rows show).
            status.set(UiText.format("bench.status.served", describe(runSettings)));
            return;
        }
        List<Integer> sizes = done.rows(BenchRow.Path.RDMA).stream().map(BenchRow::bytes).toList();
        boolean byClient = runTopology instanceof Topology.Server && runSettings.mode() == BenchMode.BW;
        String measured;
        String ratioText = "";
        if (sizes.size() == 1) {
            // One size: its figure (numbers as bench prints them) and its ratio to the baseline.
            BenchRow row = done.rows(BenchRow.Path.RDMA).get(0);
            if (runSettings.mode() == BenchMode.BW) {
                String figure = String.format(Locale.ROOT, runSettings.reportGbits() ? "%.2f" : "%.1f",
                        headline(row, runSettings.reportGbits()));
                measured = UiText.format(byClient ? "bench.status.oneSizeBwByClient" : "bench.status.oneSizeBw",
                        sizes.size(), figure, bandwidthUnit(runSettings));
            } else {
                measured = UiText.format("bench.status.oneSizeLat", sizes.size(),
                        String.format(Locale.ROOT, "%.2f", headline(row, false)));
            }
            OptionalDouble ratio = done.ratio(row.bytes());
            if (ratio.isPresent()) {
                ratioText = UiText.format("bench.status.ratio",
                        String.format(Locale.ROOT, "%.2f", ratio.getAsDouble()));
            }
        } else {
            measured = UiText.format(byClient ? "bench.status.sizesByClient" : "bench.status.sizes", sizes.size());
        }
        status.set(UiText.format(done.stopped() ? "bench.status.stopped" : "bench.status.done", describe(runSettings),
                measured, ratioText));
    }

    /**
     * The table's line for {@code row}, and when it is a baseline row, the ratio on its size's RDMA
     * line; the {@code --verbose} lines grow by the row's.
     */
    private void addResult(BenchRow row) {
        BenchReport sofar = new BenchReport(info, rows, false);
        resultRows.add(resultRow(row, sofar, runSettings.reportGbits()));
        if (row.path() == BenchRow.Path.BASELINE) {
            for (int i = 0; i < resultRows.size(); i++) {
                BenchRow each = resultRows.get(i).row();
                if (each.path() == BenchRow.Path.RDMA && each.bytes() == row.bytes()) {
                    resultRows.set(i, resultRow(each, sofar, runSettings.reportGbits()));
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

    /** The table's columns after perftest's: what {@code bench} prints beside and after its table. */
    public static final List<String> TABLE_EXTRA_COLUMNS = List.of("lost", "ratio", "allocated B/msg", "GCs",
            "device counters");

    /** Draws the distribution of {@link #distributionSizeProperty()} on both paths, with the percentiles. */
    private void drawDistribution() {
        Integer bytes = distributionSize.get();
        LatencyStats rdma = bytes == null ? null : latency(BenchRow.Path.RDMA, bytes);
        LatencyStats udp = bytes == null ? null : latency(BenchRow.Path.BASELINE, bytes);
        double low = Double.MAX_VALUE;
        double high = 0;
        for (LatencyStats stats : new LatencyStats[] {rdma, udp}) {
            if (stats != null && stats.sortedMicros().length > 0) {
                low = Math.min(low, stats.minMicros());
                high = Math.max(high, stats.p999Micros() * DISTRIBUTION_HEADROOM);
            }
        }
        if (high <= low) {
            high = low + 1;
        }
        distributionRdma.setAll(points(rdma, low, high));
        distributionBaseline.setAll(points(udp, low, high));
        List<Marker> marks = new ArrayList<>();
        addMarkers(marks, BenchRow.Path.RDMA, rdma);
        addMarkers(marks, BenchRow.Path.BASELINE, udp);
        markers.setAll(marks);
    }

    private List<Point> points(LatencyStats stats, double low, double high) {
        if (stats == null || stats.sortedMicros().length == 0) {
            return List.of();
        }
        return distribution.get() == Distribution.CDF ? cdf(stats.sortedMicros(), high)
                : histogram(stats.sortedMicros(), low, high);
    }

    /** The fraction of samples at or below each x, thinned to {@link #CDF_POINTS}, up to {@code high}. */
    static List<Point> cdf(double[] sorted, double high) {
        List<Point> points = new ArrayList<>();
        int n = sorted.length;
        int step = Math.max(1, n / CDF_POINTS);
        for (int i = 0; i < n; i += step) {
            if (sorted[i] > high) {
                break;
            }
            points.add(new Point(sorted[i], (i + 1) / (double) n));
        }
        int last = n - 1;
        if (sorted[last] <= high && (points.isEmpty() || points.get(points.size() - 1).x() != sorted[last])) {
            points.add(new Point(sorted[last], 1.0));
        }
        return points;
    }

    /**
     * The percentage of samples in each of {@link #HISTOGRAM_BINS} bins from {@code low} to
     * {@code high}, equal on a logarithmic scale as the chart draws them (x: the bin's geometric
     * middle); samples above {@code high} are left out of the picture.
     */
    static List<Point> histogram(double[] sorted, double low, double high) {
        double from = Math.log10(Math.max(low, 1e-3));
        double to = Math.log10(Math.max(high, low * 1.01));
        double width = (to - from) / HISTOGRAM_BINS;
        int[] counts = new int[HISTOGRAM_BINS];
        for (double sample : sorted) {
            int bin = (int) ((Math.log10(Math.max(sample, 1e-3)) - from) / width);
            if (bin >= 0 && bin < HISTOGRAM_BINS) {
                counts[bin]++;
            } else if (bin == HISTOGRAM_BINS && sample <= high) {
                counts[HISTOGRAM_BINS - 1]++;
            }
        }
        List<Point> points = new ArrayList<>();
        for (int i = 0; i < HISTOGRAM_BINS; i++) {
            points.add(new Point(Math.pow(10, from + (i + 0.5) * width), 100.0 * counts[i] / sorted.length));
        }
        return points;
    }

    private static void addMarkers(List<Marker> marks, BenchRow.Path path, LatencyStats stats) {
        if (stats != null) {
            marks.add(new Marker(path, "t_typical", stats.typicalMicros()));
            marks.add(new Marker(path, "99%", stats.p99Micros()));
            marks.add(new Marker(path, "99.9%", stats.p999Micros()));
        }
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

    /** "MB/sec", or "Gb/sec" with --report_gbits. */
    static String bandwidthUnit(BenchSettings settings) {
        return settings.reportGbits() ? "Gb/sec" : "MB/sec";
    }

    /** "ib_write_bw, 64 KiB, 5000 iterations, with the UDP baseline", in the window's language. */
    static String describe(BenchSettings settings) {
        String sizes = settings.sizes().size() == 1 ? bytes(settings.sizes().get(0))
                : UiText.format("bench.describe.sizes", bytes(settings.sizes().get(0)), bytes(settings.maxSize()));
        String amount = settings.runInfinitely() ? UiText.format("bench.describe.untilStopped", sizes,
                settings.durationSeconds())
                : settings.timed() ? UiText.format("bench.describe.perSize", sizes, settings.durationSeconds())
                : UiText.format("bench.describe.iterations", sizes, settings.iterations());
        return settings.test().perftestProgram(settings.mode()) + (settings.bidirectional() ? " -b" : "") + amount
                + (settings.mtu() != null ? UiText.format("bench.describe.mtu", settings.mtu().bytes()) : "")
                + (settings.mode() == BenchMode.BW && settings.txDepth() != BenchSettings.DEFAULT_TX_DEPTH_BW
                        ? UiText.format("bench.describe.txDepth", settings.txDepth()) : "")
                + (settings.baseline() ? UiText.text("bench.describe.baseline") : "");
    }

    private static String pathName(BenchRow.Path path) {
        return path == BenchRow.Path.RDMA ? "RDMA" : UiText.text("bench.udpBaseline");
    }

    /** "2 B", "64 KiB", "8 MiB". */
    public static String bytes(int bytes) {
        if (bytes >= 1 << 20 && bytes % (1 << 20) == 0) {
            return (bytes >> 20) + " MiB";
        }
        if (bytes >= 1 << 10 && bytes % (1 << 10) == 0) {
            return (bytes >> 10) + " KiB";
        }
        return bytes + " B";
    }

    // ---- Saving ----

    /** The head of the CSV's columns from {@code bench --verbose}, after the ratio; then one per device counter. */
    public static final List<String> CSV_VERBOSE_COLUMNS = List.of("allocated_bytes_per_message", "gc_count", "gc_ms");
    /** A device counter's column is this prefix and the counter's name: "device_counter_sent_pkts". */
    public static final String CSV_COUNTER_PREFIX = "device_counter_";

    /**
     * The report as CSV: one line per row (RDMA then baseline per size), perftest's columns, the
     * ratio, then what {@code bench --json --verbose} adds per row: the bytes allocated per message
     * and the GCs (count, ms) during the size's measured part, and one column per device counter that
     * moved in any row, with how much it moved in this one. A cell is empty where the row has no such
     * figure: no measurement, an allocation the JVM could not count, a counter that did not move
     * (the JSON leaves it out too), a baseline row (no device).
     */
    public static String csv(BenchReport report) {
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
                .append(",lost_messages,ratio,").append(String.join(",", CSV_VERBOSE_COLUMNS));
        for (String counter : counters) {
            out.append(',').append(csvField(CSV_COUNTER_PREFIX + counter));
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
                out.append(",".repeat(CSV_VERBOSE_COLUMNS.size() + counters.size()));
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
    static String csvField(String text) {
        if (text.indexOf(',') < 0 && text.indexOf('"') < 0 && text.indexOf('\n') < 0 && text.indexOf('\r') < 0) {
            return text;
        }
        return '"' + text.replace("\"", "\"\"") + '"';
    }

    private static String number(double value, int decimals) {
        return "," + String.format(Locale.ROOT, "%." + decimals + "f", value);
    }

    /**
     * The report as {@code bench --json --verbose} prints it: perftest's keys, the baseline and the
     * ratio, and per row its {@code allocation} and {@code device_counters}.
     */
    public static String json(BenchReport report) {
        return BenchJson.text(report, true);
    }

    /**
     * Writes the last report to {@code file} on the background executor; the status line says where
     * it went or why not.
     *
     * @return completes with the file, or exceptionally with the I/O error
     */
    public CompletableFuture<Path> save(Path file, Format format) {
        BenchReport saved = report.get();
        if (saved == null) {
            status.set(UiText.text("bench.status.nothingToSave"));
            return CompletableFuture.failedFuture(new IllegalStateException("no report to save"));
        }
        String text = format == Format.CSV ? csv(saved) : json(saved);
        CompletableFuture<Path> written = new CompletableFuture<>();
        background.execute(() -> {
            try {
                Files.writeString(file, text, StandardCharsets.UTF_8);
                ui.execute(() -> status.set(UiText.format("bench.status.saved",
                        format.extension().toUpperCase(Locale.ROOT), file)));
                written.complete(file);
            } catch (IOException | RuntimeException e) {
                LOG.log(Level.WARNING, "saving the bench results failed", e);
                ui.execute(() -> status.set(UiText.format("bench.status.couldNotSave", file, e.getMessage())));
                written.completeExceptionally(e);
            }
        });
        return written;
    }

    // ---- Properties ----

    public ObjectProperty<BenchTest> testProperty() {
        return test;
    }

    public ObjectProperty<BenchMode> modeProperty() {
        return mode;
    }

    /** The one message size (ignored with the sweep, and for atomics, which move 8 bytes). */
    public ObjectProperty<Integer> sizeProperty() {
        return size;
    }

    /** True for {@code -a}: every size from 2 B to 8 MiB. */
    public BooleanProperty sweepProperty() {
        return sweep;
    }

    /** Messages per size ({@code -n}); with the sweep, large sizes run fewer (256 MiB per size). */
    public ObjectProperty<Integer> iterationsProperty() {
        return iterations;
    }

    /** Whether a size ends after {@link #iterationsProperty()} messages or {@link #secondsProperty()}. */
    public ObjectProperty<Limit> limitProperty() {
        return limit;
    }

    /** Seconds per size ({@code -D}), or between two rows of a run until stopped, when {@link #limitProperty()} says so. */
    public ObjectProperty<Integer> secondsProperty() {
        return seconds;
    }

    /** The path MTU ({@code -m}) in bytes; 0 for the port's active MTU (perftest's default). */
    public ObjectProperty<Integer> mtuProperty() {
        return mtu;
    }

    /** The device ({@code -d}), one of {@link #devices()}; soft0 unless another is chosen. */
    public ObjectProperty<String> deviceProperty() {
        return device;
    }

    /** The devices every backend lists (soft0 first until the list arrives). */
    public ObservableList<String> devices() {
        return devices;
    }

    /** One line per device and per backend that could not list its devices (libibverbs: ENOSYS...). */
    public ReadOnlyStringProperty devicesNoteProperty() {
        return devicesNote.getReadOnlyProperty();
    }

    /** The device port ({@code -i}, 1). */
    public ObjectProperty<Integer> ibPortProperty() {
        return ibPort;
    }

    /** The GID index ({@code -x}) as typed; blank for bench's choice (the GID carrying the address). */
    public StringProperty gidIndexProperty() {
        return gidIndex;
    }

    /**
     * Seconds a server waits for its client, or a client tries to reach its server ({@code --timeout},
     * 60); a loopback run has both sides here and does not wait for a peer.
     */
    public ObjectProperty<Integer> timeoutProperty() {
        return timeout;
    }

    /** Messages in flight ({@code -t}) for bandwidth tests; latency tests keep one. */
    public ObjectProperty<Integer> txDepthProperty() {
        return txDepth;
    }

    /** Bandwidth in Gb/sec instead of MB/sec ({@code --report_gbits}): the charts, the status line, CSV. */
    public BooleanProperty reportGbitsProperty() {
        return reportGbits;
    }

    /** Loopback, server or client. */
    public ObjectProperty<Role> roleProperty() {
        return role;
    }

    /**
     * Whether the peer is a perftest program ({@code bench --perftest}): the server or client speaks
     * perftest's TCP exchange, without the UDP baseline.
     */
    public BooleanProperty perftestProperty() {
        return perftest;
    }

    /** The server's IPv4 address (a client's {@code <server_ip>}). */
    public StringProperty serverAddressProperty() {
        return serverAddress;
    }

    /**
     * This side's address ({@code --local-ip}); blank for bench's default: 127.0.0.1 for a server, the
     * address that reaches the server for a client (127.0.0.2 next to 127.0.0.1).
     */
    public StringProperty localAddressProperty() {
        return localAddress;
    }

    /** The server's TCP port ({@code -p}, 18515), as typed. */
    public StringProperty tcpPortProperty() {
        return tcpPort;
    }

    /**
     * The RoCE v2 UDP port soft0 binds in a server or client run ({@code --udp-port}, 4791; the peer
     * must use the same). Not in the form; tests choose free ones.
     */
    public IntegerProperty udpPortProperty() {
        return udpPort;
    }

    /** The baseline's UDP port in a server or client run ({@code --baseline-port}, 18516). Not in the form. */
    public IntegerProperty baselinePortProperty() {
        return baselinePort;
    }

    /** Also run the same pattern over plain UDP datagrams ({@code --baseline}). */
    public BooleanProperty baselineProperty() {
        return baseline;
    }

    /** Connected QPs the traffic goes over ({@code -q}; bandwidth tests only). */
    public ObjectProperty<Integer> qpsProperty() {
        return qps;
    }

    /** Both sides send at once ({@code -b}; bandwidth tests only). */
    public BooleanProperty bidirectionalProperty() {
        return bidirectional;
    }

    /** CDF or histogram. */
    public ObjectProperty<Distribution> distributionProperty() {
        return distribution;
    }

    /** The message size whose latency distribution is drawn (null before the first latency row). */
    public ObjectProperty<Integer> distributionSizeProperty() {
        return distributionSize;
    }

    /**
     * True (at first) when the view asks for the window while its tab is shown: the lab's setup bar,
     * columns and completions / buffers band step aside; false keeps the tab between the lab's columns.
     */
    public BooleanProperty wideProperty() {
        return wide;
    }

    public ReadOnlyBooleanProperty runningProperty() {
        return running.getReadOnlyProperty();
    }

    /** True between Stop and the end of the run. */
    public ReadOnlyBooleanProperty stoppingProperty() {
        return stopping.getReadOnlyProperty();
    }

    /** One line: what runs, progress, the result, or what went wrong. */
    public ReadOnlyStringProperty statusProperty() {
        return status.getReadOnlyProperty();
    }

    /** The mode of the run the charts show (the form may already say another). */
    public ReadOnlyObjectProperty<BenchMode> shownModeProperty() {
        return shownMode.getReadOnlyProperty();
    }

    /** True when the charts show bandwidth in Gb/sec (the shown run's --report_gbits). */
    public ReadOnlyBooleanProperty shownGbitsProperty() {
        return shownGbits.getReadOnlyProperty();
    }

    /** The last finished or stopped run's report (null while running and before the first). */
    public ReadOnlyObjectProperty<BenchReport> reportProperty() {
        return report.getReadOnlyProperty();
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
