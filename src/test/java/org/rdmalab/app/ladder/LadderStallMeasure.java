package org.rdmalab.app.ladder;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import javafx.animation.AnimationTimer;
import javafx.application.Platform;
import javafx.stage.Stage;
import org.rdmalab.app.MainWindow;
import org.rdmalab.app.WindowScenario;
import org.rdmalab.app.lab.LabViewModel;
import org.rdmalab.app.lab.SideViewModel;
import org.rdmalab.capture.PcapReader;
import org.rdmalab.verbs.spi.Backends;
import org.rdmalab.verbs.spi.DeviceOptions;

/**
 * A measurement, not a test (surefire does not run it: its name does not end in Test): the lab
 * window (headless, Monocle, software rendering) with the Wire tab's Ladder or Packets view shown
 * runs the seed's flow with buffers of N MiB and path MTU 1024, then the client WRITEs them to the
 * server and READs them back, under a fault spec. Meanwhile an AnimationTimer records the gaps
 * between JavaFX pulses (the longest one is the longest time the JavaFX thread was busy or blocked
 * between two frames) and a sampler the heap. It measures from the WRITE's post until the views
 * have taken every packet (the ladder holds none back and its count stood still for a second),
 * then saves the session's capture and counts its packets against the devices' counters. Prints
 * one line of figures.
 *
 * <p>Run after {@code mvn test-compile}, with the test class path
 * ({@code mvn dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile=cp.txt}):
 * {@code java -cp target/test-classes:target/classes:$(cat cp.txt)
 * org.rdmalab.app.ladder.LadderStallMeasure MIB FAULTS VIEW [RTS_TIMEOUT]}, e.g.
 * {@code 64 drop=0.05,seed=3 ladder 0xc}. FAULTS is a {@code --fault} spec or {@code none}; VIEW
 * is {@code ladder} or {@code packets}; RTS_TIMEOUT is both sides' local ACK timeout (the seed's
 * 0x12 is 1.07 s, which every lost READ response costs; {@code -} keeps it); LIMIT_S ends the
 * measurement after that many seconds of transfer, finished or not (a 64 MiB READ under 5 % loss
 * does not finish: each lost response waits out the timer and the responder sends the rest of the
 * message again, as rxe's does). {@code -Dstalls=true} prints where the
 * JavaFX thread is whenever a pulse is over 150 ms late; {@code -Dbounds=true} which nodes' bounds
 * change between the transfer's layout passes; {@code -Ddirty=true} why a frame paints the whole
 * window ({@link DirtyRegionWatch}; it slows the window down); {@code -Dbehind=true} what lies behind
 * the ladder's chart, with the regions' backgrounds, as the transfer starts; {@code -DwarmKiB=N} a
 * WRITE and a READ of N KiB through the same window before the measured transfer, not measured, then
 * 3 s of rest (the most a warm-up before the user's transfer could give). The view is opened 3 s before the flow
 * starts, as a user opens it and then runs the flow; {@code -DshowAtStart=true} opens it as the
 * flow starts instead (its first showing then falls in the measurement). Only the gaps between
 * two pulses of the transfer count: the one that began before the WRITE was posted (the flow's
 * last steps) is printed apart with {@code -Dgaps=true}.
 */
public final class LadderStallMeasure {

    /** How long the views' packet counts must stand still after the transfer to count as caught up. */
    private static final long STILL_NANOS = 1_000_000_000L;
    /** How long the view is shown before the flow starts (its first CSS and layout passes, the JIT warming). */
    private static final long SETTLE_NANOS = 3_000_000_000L;

    private LadderStallMeasure() {
    }

    public static void main(String[] args) throws Exception {
        try {
            measure(args);
        } catch (Exception | Error e) {
            e.printStackTrace();
            System.exit(1);
        }
    }

    private static void measure(String[] args) throws Exception {
        if (args.length < 3) {
            System.err.println("usage: LadderStallMeasure MIB FAULTS|none ladder|packets [RTS_TIMEOUT|-] [LIMIT_S]");
            System.exit(2);
        }
        int mib = Integer.parseInt(args[0]);
        String faults = !args[1].equals("none") ? args[1] : null;
        String view = args[2];
        String timeout = args.length > 3 && !args[3].equals("-") ? args[3] : null;
        long limitNanos = args.length > 4 ? Long.parseLong(args[4]) * 1_000_000_000L : 0;
        System.setProperty("glass.platform", "Monocle");
        System.setProperty("monocle.platform", "Headless");
        System.setProperty("prism.order", "sw");
        System.setProperty("java.awt.headless", "true");
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        AtomicLong peakHeap = new AtomicLong();
        AtomicLong peakLive = new AtomicLong();
        AtomicLong longestGap = new AtomicLong();
        AtomicLong gapsOver100 = new AtomicLong();
        AtomicLong gapsOver50 = new AtomicLong();
        AtomicLong frames = new AtomicLong();
        AtomicLong lastPulse = new AtomicLong(System.nanoTime());
        Thread[] fx = new Thread[1];
        boolean[] measuring = new boolean[1];
        CompletableFuture<Void> caughtUp = new CompletableFuture<>();
        MainWindow[] window = new MainWindow[1];
        // As the window's launchers do (-Drdmalab.backgroundNice=0 leaves every thread at normal priority).
        org.rdmalab.sched.BackgroundPriority.yieldToWindow();
        CoreWaits waits = new CoreWaits();
        Platform.startup(() -> {
            try {
                window[0] = MainWindow.create(Backends.installed(), DeviceOptions.defaults()
                        .withUdpPort(org.rdmalab.testing.Ports.freeUdpPort()).withFaults(faults));
                Stage stage = new Stage();
                stage.setScene(window[0].scene());
                stage.show();
                if (Boolean.getBoolean("bounds")) {
                    watchBounds(window[0].scene(), measuring);
                }
                if (Boolean.getBoolean("dirty")) {
                    DirtyRegionWatch.start(window[0].scene(), measuring);
                }
                new AnimationTimer() {
                    private long last;
                    /** Whether the pulse before this one was measured too. */
                    private boolean lastMeasured;

                    @Override
                    public void handle(long now) {
                        lastPulse.set(System.nanoTime());
                        fx[0] = Thread.currentThread();
                        if (measuring[0] && last != 0 && !lastMeasured && Boolean.getBoolean("gaps")) {
                            // The gap that ends at the first measured pulse began before the WRITE
                            // was posted (the flow's last steps): said, not counted.
                            System.out.printf(Locale.ROOT, "gap %.0f ms before the transfer, ending at uptime %.3f s%n",
                                    (now - last) / 1e6, ManagementFactory.getRuntimeMXBean().getUptime() / 1e3);
                        }
                        if (measuring[0] && last != 0 && lastMeasured) {
                            long gap = now - last;
                            frames.incrementAndGet();
                            longestGap.accumulateAndGet(gap, Math::max);
                            if (gap > 100_000_000L) {
                                gapsOver100.incrementAndGet();
                                if (Boolean.getBoolean("gaps")) {
                                    // JVM uptime, as -Xlog's "uptime" decoration prints it, to line up with the collector's log.
                                    System.out.printf(Locale.ROOT, "gap %.0f ms ending at uptime %.3f s%n", gap / 1e6,
                                            java.lang.management.ManagementFactory.getRuntimeMXBean().getUptime() / 1e3);
                                }
                            }
                            if (gap > 50_000_000L) {
                                gapsOver50.incrementAndGet();
                            }
                        }
                        last = now;
                        lastMeasured = measuring[0];
                    }
                }.start();
            } catch (Exception e) {
                caughtUp.completeExceptionally(e);
            }
        });
        Thread sampler = new Thread(() -> {
            while (!caughtUp.isDone()) {
                peakHeap.accumulateAndGet(memory.getHeapMemoryUsage().getUsed(), Math::max);
                peakLive.accumulateAndGet(liveAfterGc(), Math::max);
                try {
                    Thread.sleep(100);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "heap sampler");
        sampler.setDaemon(true);
        sampler.start();
        if (Boolean.getBoolean("stalls")) {
            Thread watch = new Thread(() -> watchStalls(caughtUp, measuring, fx, lastPulse), "stall watch");
            watch.setDaemon(true);
            watch.start();
        }
        long[] transferStarted = new long[1];
        long[] transferEnded = new long[1];
        long[] lastChange = new long[1];
        long[] lastCount = {-1};
        boolean[] started = new boolean[1];
        long[] shownAt = new long[1];
        WindowScenario bulk = WindowScenario.bulk(mib * 1024 * 1024, timeout);
        // -DwarmKiB=N: once the flow ran, a WRITE and a READ of N KiB through the same window first,
        // not measured, then SETTLE_NANOS of rest: the measured transfer then runs on code the JIT
        // compiled (what a warm-up before the user's transfer could give at most).
        int warmBytes = Integer.getInteger("warmKiB", 0) * 1024;
        AtomicLong warmed = new AtomicLong(warmBytes > 0 ? 0 : -1);
        boolean[] warmPosted = new boolean[1];
        Runnable[] check = new Runnable[1];
        Runnable[] step = new Runnable[1];
        check[0] = () -> {
            try {
                step[0].run();
            } catch (RuntimeException e) {
                caughtUp.completeExceptionally(e);
            }
        };
        step[0] = () -> {
            LabViewModel lab = window[0].lab();
            if (Boolean.getBoolean("trace")) {
                System.err.println("check: started " + started[0] + " transfer " + transferStarted[0] + " ended "
                        + transferEnded[0] + " seen " + seen(window[0]) + " pending " + window[0].ladder().pendingCount()
                        + " activity " + lab.sides().stream().map(side -> side.activityProperty().get()).toList()
                        + " status " + lab.statusProperty().get());
            }
            if (!started[0]) {
                if (lab.setup().devices().isEmpty() || lab.setup().gids().isEmpty()) {
                    later(check[0]);
                    return;
                }
                if (shownAt[0] == 0 && !Boolean.getBoolean("showAtStart")) {
                    // As a user would: the window is up, the view is opened, then the flow runs. The
                    // scenario shows the Ladder as it starts, so it is opened too.
                    WindowScenario.showView("ladder");
                    WindowScenario.showView(view);
                    shownAt[0] = System.nanoTime();
                }
                if (shownAt[0] != 0 && System.nanoTime() - shownAt[0] < SETTLE_NANOS) {
                    later(check[0]);
                    return;
                }
                bulk.start().accept(lab);
                WindowScenario.showView(view);
                started[0] = true;
                if (System.getProperty("behind") != null) {
                    behind(window[0].scene(), System.getProperty("behind").equals("true") ? "ladderChart"
                            : System.getProperty("behind"));
                }
            }
            if (warmed.get() >= 0) {
                if (!warmPosted[0] && lab.sides().stream().noneMatch(side -> side.busyProperty().get())
                        && lab.sides().stream().anyMatch(side -> side.steps().stream()
                                .anyMatch(row -> row.statusProperty().get() != org.rdmalab.app.lab.StepRow.Status.PENDING))) {
                    warmPosted[0] = true;
                    System.out.printf(Locale.ROOT, "warm-up transfer of %d KiB posted at uptime %.3f s%n", warmBytes / 1024,
                            ManagementFactory.getRuntimeMXBean().getUptime() / 1e3);
                    WindowScenario.writeAndReadBack(lab, warmBytes, said -> {
                        System.out.printf(Locale.ROOT, "warm-up transfer done (%s) at uptime %.3f s%n", said,
                                ManagementFactory.getRuntimeMXBean().getUptime() / 1e3);
                        warmed.set(System.nanoTime());
                    });
                } else if (warmed.get() > 0 && System.nanoTime() - warmed.get() >= SETTLE_NANOS
                        && lab.sides().stream().noneMatch(side -> side.busyProperty().get())) {
                    warmed.set(-1);
                }
                later(check[0]);
                return;
            }
            if (!measuring[0] && transferStarted[0] == 0
                    && lab.sides().stream().anyMatch(side -> side.activityProperty().get().equals("bulk"))) {
                // The flow's steps ran (the window built its views): the transfer starts.
                measuring[0] = true;
                transferStarted[0] = System.nanoTime();
                waits.start();
                if (Boolean.getBoolean("gaps")) {
                    System.out.printf(Locale.ROOT, "transfer started at uptime %.3f s%n",
                            ManagementFactory.getRuntimeMXBean().getUptime() / 1e3);
                    // Each completion of the transfer (the WRITE's, then the READ's), to be read beside the gaps.
                    lab.completions().addListener((javafx.collections.ListChangeListener<
                            org.rdmalab.app.lab.CompletionRow>) change -> System.out.printf(Locale.ROOT,
                            "completion %s at uptime %.3f s%n", lab.completions().isEmpty() ? ""
                                    : lab.completions().get(lab.completions().size() - 1).completion().status().cName(),
                            ManagementFactory.getRuntimeMXBean().getUptime() / 1e3));
                }
            }
            if (System.getProperty("shot") != null && transferStarted[0] != 0
                    && System.nanoTime() - transferStarted[0] >= 20_000_000_000L) {
                saveShot(window[0].scene(), java.nio.file.Path.of(System.getProperty("shot")));
                System.clearProperty("shot");
            }
            if (limitNanos > 0 && transferStarted[0] != 0 && transferEnded[0] == 0
                    && System.nanoTime() - transferStarted[0] >= limitNanos) {
                // Measured for as long as asked: the figures are those of the packets so far.
                measuring[0] = false;
                lastChange[0] = System.nanoTime();
                caughtUp.complete(null);
                return;
            }
            // The scenario's end test also posts the WRITE and the READ once the flow ran.
            boolean ended = transferEnded[0] == 0 && bulk.ended().test(lab);
            if (transferStarted[0] != 0 && ended) {
                transferEnded[0] = System.nanoTime();
            }
            if (transferEnded[0] != 0) {
                long count = seen(window[0]);
                long now = System.nanoTime();
                if (count != lastCount[0] || window[0].ladder().pendingCount() > 0) {
                    lastCount[0] = count;
                    lastChange[0] = now;
                } else if (now - lastChange[0] >= STILL_NANOS) {
                    measuring[0] = false;
                    caughtUp.complete(null);
                    return;
                }
            }
            later(check[0]);
        };
        Platform.runLater(check[0]);
        caughtUp.get(2, TimeUnit.HOURS);
        boolean finished = transferEnded[0] != 0;
        double transfer = ((finished ? transferEnded[0] : lastChange[0]) - transferStarted[0]) / 1e9;
        double views = (lastChange[0] - transferStarted[0]) / 1e9;
        long[] packets = onFx(() -> new long[] {window[0].ladder().summaryPacketCount(), window[0].ladder().arrows().size(),
                window[0].lab().packetLog().rows().size() + window[0].lab().packetLog().droppedProperty().get()});
        String outcome = onFx(() -> String.join(" ", window[0].lab().completions().stream()
                .map(row -> "wr_id " + row.completion().wrId() + " " + row.completion().status().cName()).toList()));
        // A run stopped at its limit has a capture of many gigabytes: it is not saved and counted again.
        String capture = finished ? captureAgainstCounters(window[0]) : "stopped at the limit, capture not checked";
        System.gc();
        Thread.sleep(500);
        long after = memory.getHeapMemoryUsage().getUsed();
        System.out.printf(Locale.ROOT, "%d MiB WRITE + READ, faults %s, %s view, RTS timeout %s: transfer %.1f s%s,"
                        + " views caught up %.1f s; %d frames (%.0f/s); longest JavaFX pulse gap %.1f ms; gaps over"
                        + " 50 ms: %d, over 100 ms: %d; heap used peak %.0f MiB, live after GC peak %.0f MiB, after"
                        + " the run %.0f MiB (max %.0f MiB); ladder %d packets (keeps %d arrows), Packets table %d (keeps %d); %s; %s%n",
                mib, faults, view, timeout == null ? "0x12" : timeout, transfer, finished ? "" : " (not finished: stopped at the limit)",
                views, frames.get(),
                frames.get() / views, longestGap.get() / 1e6, gapsOver50.get(), gapsOver100.get(),
                peakHeap.get() / 1048576.0, peakLive.get() / 1048576.0, after / 1048576.0,
                memory.getHeapMemoryUsage().getMax() / 1048576.0, packets[0], packets[1], packets[2],
                onFx(() -> window[0].lab().packetLog().rows().size()), outcome, capture);
        System.out.println(waits.report());
        StringBuilder lowered = new StringBuilder();
        org.rdmalab.sched.ThreadNice.threads().forEach((tid, name) -> org.rdmalab.sched.ThreadNice.niceOf(tid)
                .ifPresent(nice -> {
                    if (nice != 0) {
                        lowered.append(' ').append(name).append('=').append(nice);
                    }
                }));
        System.out.println("threads below normal priority:" + (lowered.length() == 0 ? " none" : lowered));
        Platform.runLater(window[0]::close);
        Thread.sleep(1000);
        System.exit(0);
    }

    /**
     * How long the JavaFX thread and the renderer ran on a core and waited for one (Linux's
     * {@code /proc/self/task/TID/schedstat}: time on a core, time runnable on a run queue), in the
     * transfer's first 3 s and over the whole measurement. Started on the JavaFX thread.
     */
    private static final class CoreWaits {
        private final java.util.concurrent.atomic.AtomicReferenceArray<long[]> marks =
                new java.util.concurrent.atomic.AtomicReferenceArray<>(2);
        private volatile int fxTid = -1;
        private volatile int rendererTid = -1;

        void start() {
            // One link read here; the rest on a thread of its own, so that the JavaFX thread is not
            // kept from its frames by reading /proc (an earlier version read it all here).
            fxTid = org.rdmalab.sched.ThreadNice.currentTid().orElse(-1);
            long startedAt = System.nanoTime();
            Thread later = new Thread(() -> {
                org.rdmalab.sched.ThreadNice.threads().forEach((tid, name) -> {
                    if (name.startsWith("QuantumRendere")) {
                        rendererTid = tid;
                    }
                });
                marks.set(0, read());
                try {
                    Thread.sleep(Math.max(0, 3_000 - (System.nanoTime() - startedAt) / 1_000_000));
                    marks.set(1, read());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "core waits");
            later.setDaemon(true);
            later.start();
        }

        private long[] read() {
            long[] fxStat = schedstat(fxTid);
            long[] renderStat = schedstat(rendererTid);
            return new long[] {fxStat[0], fxStat[1], renderStat[0], renderStat[1]};
        }

        private static long[] schedstat(int tid) {
            try {
                String[] f = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/self/task/" + tid + "/schedstat"))
                        .trim().split("\\s+");
                return new long[] {Long.parseLong(f[0]), Long.parseLong(f[1])};
            } catch (java.io.IOException | RuntimeException e) {
                return new long[] {0, 0};
            }
        }

        String report() {
            long[] first = marks.get(0);
            long[] third = marks.get(1);
            if (first == null || fxTid < 0) {
                return "core waits: not known here";
            }
            long[] end = read();
            StringBuilder out = new StringBuilder("core waits (ms on a core / ms waiting for one):");
            if (third != null) {
                out.append(String.format(Locale.ROOT, " first 3 s JavaFX %d / %d, renderer %d / %d;",
                        (third[0] - first[0]) / 1_000_000, (third[1] - first[1]) / 1_000_000,
                        (third[2] - first[2]) / 1_000_000, (third[3] - first[3]) / 1_000_000));
            }
            out.append(String.format(Locale.ROOT, " whole run JavaFX %d / %d, renderer %d / %d",
                    (end[0] - first[0]) / 1_000_000, (end[1] - first[1]) / 1_000_000,
                    (end[2] - first[2]) / 1_000_000, (end[3] - first[3]) / 1_000_000));
            return out.toString();
        }
    }

    /**
     * Prints the shown nodes whose bounds in the scene meet the ladder chart's, as a tree, with
     * each region's background fills (colour, radii, insets), border strokes, shape, effect, clip,
     * opacity and cache: what the renderer may paint in the chart's dirty region ({@code -Dbehind=true};
     * {@code -Dbehind=ID} for the node of that id instead, {@code packetTable} say).
     */
    static void behind(javafx.scene.Scene scene, String id) {
        javafx.scene.Node shown = scene.lookup("#" + id);
        javafx.geometry.Bounds area = shown.localToScene(shown.getLayoutBounds());
        System.out.println(id + ": " + area);
        printBehind(scene.getRoot(), area, 0);
    }

    private static void printBehind(javafx.scene.Node node, javafx.geometry.Bounds area, int depth) {
        javafx.geometry.Bounds bounds = node.localToScene(node.getBoundsInLocal());
        if (!node.isVisible() || !bounds.intersects(area)) {
            return;
        }
        StringBuilder line = new StringBuilder("  ".repeat(depth)).append(node.getClass().getSimpleName())
                .append(' ').append(node.getStyleClass()).append(" id=").append(node.getId())
                .append(String.format(Locale.ROOT, " %.0fx%.0f", bounds.getWidth(), bounds.getHeight()));
        if (node instanceof javafx.scene.layout.Region region) {
            if (region.getBackground() != null) {
                for (javafx.scene.layout.BackgroundFill fill : region.getBackground().getFills()) {
                    line.append(" fill[").append(fill.getFill()).append(" radii ").append(fill.getRadii())
                            .append(" insets ").append(fill.getInsets()).append(']');
                }
                if (!region.getBackground().getImages().isEmpty()) {
                    line.append(" images");
                }
            }
            if (region.getBorder() != null && !region.getBorder().getStrokes().isEmpty()) {
                line.append(" border strokes ").append(region.getBorder().getStrokes().size());
            }
            if (region.getShape() != null) {
                line.append(" shape");
            }
        }
        if (node.getEffect() != null) {
            line.append(" effect ").append(node.getEffect().getClass().getSimpleName());
        }
        if (node.getClip() != null) {
            line.append(" clip");
        }
        if (node.getOpacity() < 1) {
            line.append(" opacity ").append(node.getOpacity());
        }
        if (node.isCache()) {
            line.append(" cached");
        }
        System.out.println(line);
        if (node instanceof javafx.scene.Parent parent) {
            for (javafx.scene.Node child : parent.getChildrenUnmodifiable()) {
                printBehind(child, area, depth + 1);
            }
        }
    }

    /** Packets the views took so far: the ladder's count and the Packets table's (kept or not). */
    private static long seen(MainWindow window) {
        return window.ladder().summaryPacketCount() + window.lab().packetLog().rows().size()
                + window.lab().packetLog().droppedProperty().get();
    }

    /**
     * Saves the session's capture, counts its packets and compares them with what the devices
     * put on the wire: sent_pkts less fault_dropped and send_err, summed over both sides.
     */
    private static String captureAgainstCounters(MainWindow window) throws Exception {
        Path file = Files.createTempFile("ladder-measure", ".pcap");
        try {
            CompletableFuture<String> saved = new CompletableFuture<>();
            Platform.runLater(() -> {
                window.ladder().outcomeProperty().addListener((observable, before, said) -> {
                    if (!said.equals(org.rdmalab.app.common.UiText.format("ladder.saving", file.getFileName()))) {
                        saved.complete(said);
                    }
                });
                window.ladder().saveCapture(file);
            });
            saved.get(2, TimeUnit.MINUTES);
            int port = onFx(() -> window.lab().currentProperty().get().base().udpPort());
            long inFile = 0;
            try (PcapReader reader = PcapReader.open(file).udpPort(port)) {
                while (reader.next() != null) {
                    inFile++;
                }
            }
            long onWire = 0;
            for (SideViewModel side : onFx(() -> java.util.List.copyOf(window.lab().sides()))) {
                Map<String, Long> counters = side.session().resources().context().orElseThrow().queryCounters();
                onWire += counters.getOrDefault("sent_pkts", 0L) - counters.getOrDefault("fault_dropped", 0L)
                        - counters.getOrDefault("send_err", 0L);
            }
            return "capture " + inFile + " packets, devices sent_pkts - fault_dropped - send_err " + onWire
                    + (inFile == onWire ? " (equal)" : " (DIFFER)");
        } finally {
            Files.deleteIfExists(file);
        }
    }

    /** The heap in use after the last collection, summed over the pools that report it. */
    private static long liveAfterGc() {
        long sum = 0;
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP && pool.getCollectionUsage() != null) {
                sum += pool.getCollectionUsage().getUsed();
            }
        }
        return sum;
    }

    /** Prints where the JavaFX thread is while a pulse is more than 150 ms late. */
    private static void watchStalls(CompletableFuture<Void> done, boolean[] measuring, Thread[] fx, AtomicLong lastPulse) {
        while (!done.isDone()) {
            try {
                Thread.sleep(25);
            } catch (InterruptedException e) {
                return;
            }
            long late = System.nanoTime() - lastPulse.get();
            if (measuring[0] && fx[0] != null && late > Long.getLong("stalls.ms", 150) * 1_000_000L) {
                StringBuilder trace = new StringBuilder(String.format(Locale.ROOT, "stall, %d ms since the last pulse:",
                        late / 1_000_000));
                StackTraceElement[] stack = fx[0].getStackTrace();
                for (int i = 0; i < Math.min(stack.length, 30); i++) {
                    trace.append("\n    ").append(stack[i]);
                }
                Thread renderer = rendererThread();
                if (renderer != null) {
                    trace.append("\n  the renderer:");
                    StackTraceElement[] drawing = renderer.getStackTrace();
                    for (int i = 0; i < Math.min(drawing.length, 40); i++) {
                        trace.append("\n    ").append(drawing[i]);
                    }
                }
                System.out.println(trace);
            }
        }
    }

    /**
     * {@code -Dbounds=true}: after each layout pass of the transfer, the nodes whose bounds in their
     * parent changed since the pass before (a moved or resized node is repainted over its old and
     * new bounds, and a container's change repaints all of it); every 5 s, the 12 most frequent.
     */
    private static void watchBounds(javafx.scene.Scene scene, boolean[] measuring) {
        Map<javafx.scene.Node, javafx.geometry.Bounds> last = new java.util.WeakHashMap<>();
        Map<String, long[]> counts = new java.util.HashMap<>();
        long[] printed = {System.nanoTime()};
        long[] pulses = {0};
        scene.addPostLayoutPulseListener(() -> {
            if (!measuring[0]) {
                return;
            }
            pulses[0]++;
            java.util.ArrayDeque<javafx.scene.Node> todo = new java.util.ArrayDeque<>();
            todo.add(scene.getRoot());
            while (!todo.isEmpty()) {
                javafx.scene.Node node = todo.poll();
                if (!node.isVisible()) {
                    continue;
                }
                javafx.geometry.Bounds now = node.getBoundsInParent();
                javafx.geometry.Bounds before = last.put(node, now);
                if (before != null && !before.equals(now)) {
                    counts.computeIfAbsent(describe(node), k -> new long[1])[0]++;
                }
                if (node instanceof javafx.scene.Parent parent) {
                    todo.addAll(parent.getChildrenUnmodifiable());
                }
            }
            if (System.nanoTime() - printed[0] > 5_000_000_000L) {
                printed[0] = System.nanoTime();
                System.out.println("bounds changed, " + pulses[0] + " pulses:");
                counts.entrySet().stream().sorted((a, b) -> Long.compare(b.getValue()[0], a.getValue()[0])).limit(12)
                        .forEach(e -> System.out.println("  " + e.getValue()[0] + "  " + e.getKey()));
                counts.clear();
                pulses[0] = 0;
            }
        });
    }

    /** A node and up to three of its parents, by class, id and style classes, and a label's text. */
    static String describe(javafx.scene.Node node) {
        StringBuilder text = new StringBuilder();
        javafx.scene.Node at = node;
        for (int i = 0; i < 4 && at != null; i++, at = at.getParent()) {
            text.append(i == 0 ? "" : " < ").append(at.getClass().getSimpleName());
            if (at.getId() != null) {
                text.append('#').append(at.getId());
            }
            if (!at.getStyleClass().isEmpty()) {
                text.append('.').append(String.join(".", at.getStyleClass()));
            }
            if (i == 0 && at instanceof javafx.scene.control.Labeled labeled && labeled.getText() != null) {
                text.append(" '").append(labeled.getText().length() > 30 ? labeled.getText().substring(0, 30)
                        : labeled.getText()).append('\'');
            }
        }
        return text.toString();
    }

    /** The window as it is now, as a PNG ({@code -Dshot=FILE}: 20 s into the transfer). */
    private static void saveShot(javafx.scene.Scene scene, java.nio.file.Path file) {
        javafx.scene.image.WritableImage image = scene.snapshot(null);
        int width = (int) image.getWidth();
        int height = (int) image.getHeight();
        java.awt.image.BufferedImage buffered = new java.awt.image.BufferedImage(width, height,
                java.awt.image.BufferedImage.TYPE_INT_ARGB);
        for (int y = 0; y < height; y++) {
            for (int x = 0; x < width; x++) {
                buffered.setRGB(x, y, image.getPixelReader().getArgb(x, y));
            }
        }
        try {
            javax.imageio.ImageIO.write(buffered, "png", file.toFile());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** JavaFX's render thread (Prism's "QuantumRenderer-0"), or null before it starts. */
    private static Thread rendererThread() {
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith("QuantumRenderer")) {
                return t;
            }
        }
        return null;
    }

    private static <T> T onFx(java.util.concurrent.Callable<T> task) throws Exception {
        CompletableFuture<T> result = new CompletableFuture<>();
        Platform.runLater(() -> {
            try {
                result.complete(task.call());
            } catch (Exception e) {
                result.completeExceptionally(e);
            }
        });
        return result.get(1, TimeUnit.MINUTES);
    }

    private static void later(Runnable action) {
        javafx.animation.PauseTransition pause = new javafx.animation.PauseTransition(javafx.util.Duration.millis(100));
        pause.setOnFinished(event -> action.run());
        pause.play();
    }
}
