package org.rdmalab.app.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.OptionalDouble;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleBooleanProperty;
import org.rdmalab.app.common.EventQueue;
import org.rdmalab.app.common.FrameExecutor;
import org.rdmalab.app.common.UiText;
import org.rdmalab.bench.BenchCsv;
import org.rdmalab.bench.BenchEngine;
import org.rdmalab.bench.BenchInfo;
import org.rdmalab.bench.BenchJson;
import org.rdmalab.bench.BenchListener;
import org.rdmalab.bench.BenchMode;
import org.rdmalab.bench.BenchReport;
import org.rdmalab.bench.BenchRow;
import org.rdmalab.bench.BenchRun;
import org.rdmalab.bench.BenchSettings;
import org.rdmalab.bench.LiveSample;
import org.rdmalab.bench.Topology;
import org.rdmalab.verbs.spi.Backends;

/**
 * The Bench view: what {@code bench} measures, chosen in the window ({@link BenchForm}, its devices
 * from every backend: {@link BenchDevices}), run on the loopback topology (the lab's two loopback
 * addresses) or as one side of a run over TCP (a server waiting for one client, or a client of a
 * server: another window or {@code bench} on the command line, each waiting at most
 * {@code --timeout}), and shown as it goes ({@link BenchResults}: the live series, the bars per
 * size, the latency distribution, the table). This class runs the lifecycle: start, the status
 * line, Stop, the report of a finished (or stopped) run, and saving it as CSV ({@link BenchCsv}:
 * perftest's columns, the ratio and the {@code --verbose} figures) or as
 * {@code bench --json --verbose}'s JSON.
 *
 * <p>Threads: called on the UI thread. The run measures on the engine's own threads; what its
 * listener hears goes through an {@link EventQueue} and is applied on the UI executor, at most once
 * a frame in the window. Devices are listed and files are written on the background executor.
 */
public final class BenchViewModel {

    private static final Logger LOG = Logger.getLogger(BenchViewModel.class.getName());

    /** How long a stopped run may take to end before the view says so. */
    static final Duration STOP_TIMEOUT = Duration.ofSeconds(10);

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
    private final Executor background;
    private final Executor ui;
    private final BenchForm form;
    private final BenchDevices devices;
    private final BenchResults results = new BenchResults();

    private final BooleanProperty wide = new SimpleBooleanProperty(true);
    private final ReadOnlyBooleanWrapper running = new ReadOnlyBooleanWrapper();
    private final ReadOnlyBooleanWrapper stopping = new ReadOnlyBooleanWrapper();
    private final ReadOnlyStringWrapper status = new ReadOnlyStringWrapper(UiText.text("bench.status.choose"));
    private final ReadOnlyObjectWrapper<BenchReport> report = new ReadOnlyObjectWrapper<>();

    private BenchRun run;
    private BenchSettings runSettings;
    private Topology runTopology;
    private long runStart;
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
        this.background = background;
        this.ui = ui;
        this.form = new BenchForm(topology);
        this.devices = new BenchDevices(backends, form.deviceProperty(), ui);
        background.execute(devices::list);
    }

    /** Runs what the form describes; a bad form shows its reason in the status line. */
    public void start() {
        BenchSettings settings;
        try {
            settings = form.settings();
        } catch (IllegalArgumentException e) {
            status.set(UiText.format("bench.status.cannotRun", e.getMessage()));
            return;
        }
        start(settings);
    }

    /**
     * Runs {@code settings} where the form's {@link BenchForm#topology()} says (nothing when a run is
     * going or the window closed); a bad address or port shows its reason in the status line and
     * starts nothing.
     */
    public void start(BenchSettings settings) {
        if (running.get() || closed) {
            return;
        }
        Topology where;
        try {
            where = form.topology();
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
        results.clear(settings);
        report.set(null);
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
                BenchInfo info = started.info();
                results.started(info);
                status.set(UiText.format(runTopology instanceof Topology.Server ? "bench.status.answering"
                        : "bench.status.running", describe(runSettings), info.deviceName(), info.backend(),
                        info.mtu().bytes()));
            } else if (item instanceof Sample sample) {
                addLive(sample.sample(), sample.atNanos());
            } else if (item instanceof Row row) {
                results.addRow(row.row());
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
            results.drawDistribution();
        }
    }

    private void addLive(LiveSample sample, long atNanos) {
        double y = results.addLive(sample, (atNanos - runStart) / 1e9);
        if (Double.isNaN(y)) {
            return;
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
                        BenchResults.headline(row, runSettings.reportGbits()));
                measured = UiText.format(byClient ? "bench.status.oneSizeBwByClient" : "bench.status.oneSizeBw",
                        sizes.size(), figure, bandwidthUnit(runSettings));
            } else {
                measured = UiText.format("bench.status.oneSizeLat", sizes.size(),
                        String.format(Locale.ROOT, "%.2f", BenchResults.headline(row, false)));
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
        String text = format == Format.CSV ? BenchCsv.text(saved) : BenchJson.text(saved, true);
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

    /** What the next run measures and where. */
    public BenchForm form() {
        return form;
    }

    /** The devices the form offers. */
    public BenchDevices devices() {
        return devices;
    }

    /** What the charts and the table show of the last run. */
    public BenchResults results() {
        return results;
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

    /** The last finished or stopped run's report (null while running and before the first). */
    public ReadOnlyObjectProperty<BenchReport> reportProperty() {
        return report.getReadOnlyProperty();
    }
}
