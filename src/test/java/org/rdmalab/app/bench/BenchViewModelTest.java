package org.rdmalab.app.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rdmalab.app.TestUiThread;
import org.rdmalab.bench.BenchEngine;
import org.rdmalab.bench.BenchFormat;
import org.rdmalab.bench.BenchJson;
import org.rdmalab.bench.BenchListener;
import org.rdmalab.bench.BenchMode;
import org.rdmalab.bench.BenchReport;
import org.rdmalab.bench.BenchRow;
import org.rdmalab.bench.BenchRun;
import org.rdmalab.bench.BenchSettings;
import org.rdmalab.bench.BenchTest;
import org.rdmalab.bench.Topology;
import org.rdmalab.testing.Ports;
import org.rdmalab.verbs.Context;
import org.rdmalab.verbs.Device;
import org.rdmalab.verbs.Errno;
import org.rdmalab.verbs.VerbsException;
import org.rdmalab.verbs.spi.Backends;
import org.rdmalab.verbs.spi.DeviceOptions;
import org.rdmalab.verbs.spi.VerbsProvider;

/**
 * The Bench view's model without the toolkit, on real soft0 benchmarks in loopback (tiny ones): the
 * rows, the chart series and the percentile markers it publishes on the "UI" thread, Stop and
 * closing, and the files it saves.
 */
class BenchViewModelTest {

    private TestUiThread uiThread;
    private BenchViewModel bench;

    @BeforeEach
    void start() {
        uiThread = new TestUiThread(Duration.ofSeconds(30));
        bench = onUi(() -> new BenchViewModel(new BenchEngine(Backends.installed()), Backends.installed(),
                () -> new Topology.Loopback("127.0.0.1", "127.0.0.2", Ports.freeUdpPort(), Ports.freeUdpPort()),
                Runnable::run, uiThread));
    }

    @AfterEach
    void stop() throws InterruptedException {
        onUi(() -> {
            bench.close();
            return null;
        });
        uiThread.await("the run to end", () -> !bench.runningProperty().get());
        assertTrue(uiThread.stop());
    }

    private <T> T onUi(Callable<T> action) {
        return uiThread.call(action);
    }

    @Test
    void aLatencyRunDrawsBothPathsWithTheirPercentilesAndSavesAsCsvAndJson(@TempDir Path folder) throws Exception {
        onUi(() -> {
            bench.form().modeProperty().set(BenchMode.LAT);
            bench.form().sizeProperty().set(8);
            bench.form().iterationsProperty().set(200);
            bench.form().baselineProperty().set(true);
            bench.start();
            return null;
        });
        assertTrue(onUi(() -> bench.runningProperty().get()));
        uiThread.await("the report", () -> bench.reportProperty().get() != null);
        BenchReport report = onUi(() -> bench.reportProperty().get());
        assertFalse(report.stopped());
        assertEquals(List.of(BenchRow.Path.RDMA, BenchRow.Path.BASELINE), onUi(() -> bench.results().rows().stream()
                .map(BenchRow::path).toList()));
        String status = onUi(() -> bench.statusProperty().get());
        assertTrue(status.startsWith("Done: ib_write_lat, 8 B, 200 iterations, with the UDP baseline"), status);
        assertTrue(status.contains("ratio to the UDP baseline"), status);

        // The table: a line per row in perftest's columns, the ratio on the RDMA line, --verbose's figures.
        assertEquals(BenchFormat.columns(report.info().settings()), onUi(() -> List.copyOf(bench.results().columns())));
        List<BenchResults.ResultRow> table = onUi(() -> List.copyOf(bench.results().resultRows()));
        assertEquals(2, table.size());
        BenchRow rdmaRow = report.rows().get(0);
        BenchRow udpRow = report.rows().get(1);
        assertEquals(BenchFormat.cells(rdmaRow, false), table.get(0).cells());
        assertEquals(BenchFormat.cells(udpRow, false), table.get(1).cells());
        assertEquals(List.of("RDMA", "baseline"), table.stream().map(BenchResults.ResultRow::path).toList());
        assertEquals(BenchFormat.ratioLines(report).get(0), "ratio: " + table.get(0).ratio());
        assertEquals("", table.get(1).ratio());
        assertEquals("", table.get(0).lost());
        assertEquals(String.valueOf(udpRow.lostMessages()), table.get(1).lost());
        assertEquals(String.format(Locale.ROOT, "%.1f", rdmaRow.usage().bytesPerMessage()), table.get(0).allocation());
        assertEquals(rdmaRow.usage().gcCount() + " (" + rdmaRow.usage().gcMillis() + " ms)", table.get(0).gc());
        assertTrue(table.get(0).counters().startsWith("sent_pkts +"), table.get(0).counters());
        assertEquals(BenchFormat.counters(rdmaRow), " rdma 8 bytes: this side's device counters moved: "
                + table.get(0).counters());
        String verbose = onUi(() -> bench.results().verboseTextProperty().get());
        assertEquals(BenchFormat.usage(rdmaRow) + "\n" + BenchFormat.counters(rdmaRow) + "\n"
                + BenchFormat.usage(udpRow) + "\n", verbose, "bench --verbose's lines, the baseline has no counters");
        String copied = BenchResults.tableText(BenchFormat.columns(report.info().settings()), table);
        assertTrue(copied.startsWith("path\t#bytes\t#iterations\tt_min[usec]\t"), copied);
        assertTrue(copied.contains("\nRDMA\t8\t200\t" + String.join("\t", table.get(0).cells().subList(2, 9))
                + "\t\t" + table.get(0).ratio() + "\t"), copied);

        BenchResults.SizeBar bar = onUi(() -> bench.results().sizeBars().get(0));
        assertEquals(8, bar.bytes());
        assertEquals(report.rows(BenchRow.Path.RDMA).get(0).latency().typicalMicros(), bar.rdma(), 1e-9);
        assertEquals(report.rows(BenchRow.Path.BASELINE).get(0).latency().typicalMicros(), bar.baseline(), 1e-9);
        assertEquals(List.of(8), onUi(() -> List.copyOf(bench.results().latencySizes())));
        assertEquals(8, onUi(() -> bench.results().distributionSizeProperty().get()));

        List<BenchResults.Marker> markers = onUi(() -> List.copyOf(bench.results().markers()));
        assertEquals(List.of("RDMA t_typical", "RDMA 99%", "RDMA 99.9%", "BASELINE t_typical", "BASELINE 99%",
                "BASELINE 99.9%"), markers.stream().map(marker -> marker.path() + " " + marker.name()).toList());
        assertEquals(report.rows(BenchRow.Path.RDMA).get(0).latency().p99Micros(), markers.get(1).micros(), 1e-9);

        // The CDF rises to the 99.9% percentile and no further than the axis' end; each path has its own.
        for (List<BenchResults.Point> cdf : onUi(() -> List.of(List.copyOf(bench.results().distributionRdma()),
                List.copyOf(bench.results().distributionBaseline())))) {
            assertTrue(cdf.size() > 10, () -> "points: " + cdf.size());
            for (int i = 1; i < cdf.size(); i++) {
                assertTrue(cdf.get(i).x() >= cdf.get(i - 1).x() && cdf.get(i).y() > cdf.get(i - 1).y(), cdf::toString);
            }
            assertTrue(cdf.get(cdf.size() - 1).y() >= 0.99 && cdf.get(cdf.size() - 1).y() <= 1.0, cdf::toString);
        }
        // The histogram of the same samples: its bins hold every sample up to the axis' end.
        onUi(() -> {
            bench.results().distributionProperty().set(BenchResults.Distribution.HISTOGRAM);
            return null;
        });
        List<BenchResults.Point> bins = onUi(() -> List.copyOf(bench.results().distributionRdma()));
        assertEquals(LatencyDistribution.HISTOGRAM_BINS, bins.size());
        double percent = bins.stream().mapToDouble(BenchResults.Point::y).sum();
        assertTrue(percent >= 99 && percent <= 100.0001, () -> "the bins hold " + percent + "% of the samples");

        Path csv = onUi(() -> bench.save(folder.resolve("lat.csv"), BenchViewModel.Format.CSV)).get(10, TimeUnit.SECONDS);
        List<String> lines = Files.readAllLines(csv, StandardCharsets.UTF_8);
        assertTrue(lines.get(0).startsWith("path,bytes,iterations,t_min_usec,t_max_usec,t_typical_usec,t_avg_usec,"
                + "t_stdev_usec,percentile_99_usec,percentile_99_9_usec,lost_messages,ratio,allocated_bytes_per_message,"
                + "gc_count,gc_ms,device_counter_"), lines.get(0));
        assertEquals(3, lines.size(), lines::toString);
        List<String> head = List.of(lines.get(0).split(",", -1));
        List<String> rdmaLine = List.of(lines.get(1).split(",", -1));
        List<String> udpLine = List.of(lines.get(2).split(",", -1));
        assertEquals(head.size(), rdmaLine.size(), lines.get(1));
        assertEquals(head.size(), udpLine.size(), lines.get(2));
        String ratio = String.format(Locale.ROOT, "%.4f", report.ratio(8).getAsDouble());
        assertEquals(List.of("rdma", "8", "200"), rdmaLine.subList(0, 3));
        assertEquals(List.of("0", ratio), rdmaLine.subList(head.indexOf("lost_messages"), head.indexOf("ratio") + 1));
        assertEquals("baseline", udpLine.get(0));
        assertEquals("", udpLine.get(head.indexOf("ratio")));
        assertEquals(String.format(Locale.ROOT, "%.2f", rdmaRow.latency().typicalMicros()),
                rdmaLine.get(head.indexOf("t_typical_usec")));
        // --verbose's figures, as the table and the JSON have them; the baseline has no device counters.
        assertEquals(table.get(0).allocation(), rdmaLine.get(head.indexOf("allocated_bytes_per_message")));
        assertEquals(String.valueOf(rdmaRow.usage().gcCount()), rdmaLine.get(head.indexOf("gc_count")));
        assertEquals(String.valueOf(udpRow.usage().gcMillis()), udpLine.get(head.indexOf("gc_ms")));
        List<String> counterColumns = head.stream().filter(name -> name.startsWith("device_counter_")).toList();
        assertEquals(rdmaRow.usage().counters().keySet().stream().map(name -> "device_counter_" + name).toList(),
                counterColumns, "a column per counter that moved");
        assertEquals(String.valueOf(rdmaRow.usage().counters().get("sent_pkts")),
                rdmaLine.get(head.indexOf("device_counter_sent_pkts")));
        for (String column : counterColumns) {
            assertEquals("", udpLine.get(head.indexOf(column)), column);
        }

        Path json = onUi(() -> bench.save(folder.resolve("lat.json"), BenchViewModel.Format.JSON)).get(10,
                TimeUnit.SECONDS);
        String text = Files.readString(json, StandardCharsets.UTF_8);
        assertEquals(BenchJson.text(report, true), text, "what bench --json --verbose prints");
        for (String key : List.of("\"test_info\"", "\"test\": \"RDMA_Write_Latency_Test\"", "\"results\"",
                "\"t_typical\"", "\"percentile_99.9\"", "\"baseline\"", "\"ratio\": ", "\"allocation\"",
                "\"bytes_per_message\"", "\"device_counters\"", "\"sent_pkts\": ")) {
            assertTrue(text.contains(key), () -> key + " in " + text);
        }
        assertTrue(onUi(() -> bench.statusProperty().get()).startsWith("Saved JSON to "));
    }

    @Test
    void stopEndsALongBandwidthRunAfterItsLiveSamplesAndKeepsWhatItHad() {
        onUi(() -> {
            bench.form().testProperty().set(BenchTest.WRITE);
            bench.form().modeProperty().set(BenchMode.BW);
            bench.form().sizeProperty().set(4096);
            bench.form().iterationsProperty().set(10_000_000);
            bench.form().baselineProperty().set(false);
            bench.start();
            return null;
        });
        uiThread.await("a live bandwidth sample", () -> !bench.results().liveRdma().isEmpty());
        BenchResults.Point first = onUi(() -> bench.results().liveRdma().get(0));
        assertTrue(first.x() > 0 && first.y() > 0, first::toString);
        assertTrue(onUi(() -> bench.statusProperty().get()).matches("RDMA 4 KiB: [\\d,]+ of 10,000,000 messages, "
                + "[\\d.]+ MB/sec"), () -> onUi(() -> bench.statusProperty().get()));
        // Read in the same call: the run may end, and its report arrive, right after.
        assertTrue(onUi(() -> {
            bench.stop();
            return bench.stoppingProperty().get() && bench.statusProperty().get().equals("Stopping...");
        }));
        uiThread.await("the run to stop", () -> !bench.runningProperty().get());
        BenchReport report = onUi(() -> bench.reportProperty().get());
        assertTrue(report.stopped());
        assertTrue(report.rows().isEmpty(), "the only size did not finish");
        assertTrue(onUi(() -> bench.statusProperty().get()).startsWith("Stopped: ib_write_bw, 4 KiB"));
    }

    @Test
    void closingTheWindowStopsARun() {
        onUi(() -> {
            bench.form().iterationsProperty().set(10_000_000);
            bench.start();
            bench.close();
            return null;
        });
        uiThread.await("the run to end", () -> !bench.runningProperty().get());
        assertTrue(onUi(() -> bench.reportProperty().get().stopped()));
        onUi(() -> {
            bench.start();
            return null;
        });
        assertFalse(onUi(() -> bench.runningProperty().get()), "a closed window starts no run");
    }

    @Test
    void asClientItMeasuresForSecondsAgainstAServerAndTheSettingsReachTheEngine() throws Exception {
        int tcp = Ports.freeTcpPort();
        int udp = Ports.freeUdpPort();
        int baseline = Ports.freeUdpPort();
        // The server: what `bench write --lat -s 8 -D 1 -m 512 --baseline` runs.
        BenchSettings expected = BenchSettings.defaults(BenchTest.WRITE, BenchMode.LAT).withSizes(List.of(8))
                .withDuration(1).withMtu(org.rdmalab.verbs.Mtu.ofBytes(512)).withBaseline(true);
        BenchRun server = new BenchEngine(Backends.installed()).start(expected, Topology.server(null, tcp, udp, baseline,
                Duration.ofSeconds(60)), BenchListener.NONE);
        String connecting = onUi(() -> {
            bench.form().roleProperty().set(BenchForm.Role.CLIENT);
            bench.form().serverAddressProperty().set(" 127.0.0.1 ");
            bench.form().tcpPortProperty().set(Integer.toString(tcp));
            bench.form().udpPortProperty().set(udp);
            bench.form().baselinePortProperty().set(baseline);
            bench.form().modeProperty().set(BenchMode.LAT);
            bench.form().sizeProperty().set(8);
            bench.form().limitProperty().set(BenchForm.Limit.SECONDS);
            bench.form().secondsProperty().set(1);
            bench.form().mtuProperty().set(512);
            bench.form().baselineProperty().set(true);
            assertEquals(expected, bench.form().settings());
            bench.start();
            // Read in the same call: the run's first news may replace it right after.
            return bench.statusProperty().get();
        });
        assertEquals("Client: connecting to 127.0.0.1:" + tcp + " from 127.0.0.2 for ib_write_lat, 8 B, 1 s per size,"
                + " MTU 512, with the UDP baseline...", connecting);
        uiThread.await("the report", () -> bench.reportProperty().get() != null);
        BenchReport report = onUi(() -> bench.reportProperty().get());
        assertFalse(report.stopped());
        assertEquals(1, report.info().settings().durationSeconds(), "-D reached the engine");
        assertEquals(512, report.info().mtu().bytes());
        assertEquals("Ethernet", report.info().exchange(), "the connection data went over TCP");
        assertEquals(List.of(BenchRow.Path.RDMA, BenchRow.Path.BASELINE), onUi(() -> bench.results().rows().stream()
                .map(BenchRow::path).toList()));
        assertTrue(report.rows().get(0).latency().iterations() > 0);
        assertTrue(server.await(Duration.ofSeconds(60)).rows().isEmpty(), "a latency server only answers");
    }

    @Test
    void aBandwidthSettingTakesTheTxDepthAndGbitsAndLatencyKeepsOneInFlight() {
        BenchSettings bandwidth = onUi(() -> {
            bench.form().modeProperty().set(BenchMode.BW);
            bench.form().txDepthProperty().set(16);
            bench.form().reportGbitsProperty().set(true);
            return bench.form().settings();
        });
        assertEquals(16, bandwidth.txDepth());
        assertTrue(bandwidth.reportGbits());
        assertEquals(null, bandwidth.mtu(), "the port's MTU unless one is chosen");
        assertEquals(1, onUi(() -> {
            bench.form().modeProperty().set(BenchMode.LAT);
            return bench.form().settings();
        }).txDepth());
        String refused = onUi(() -> {
            bench.form().roleProperty().set(BenchForm.Role.SERVER);
            bench.form().tcpPortProperty().set("port");
            bench.start();
            return bench.statusProperty().get();
        });
        assertEquals("Cannot run: TCP port 'port' is not a number (18515, as bench's -p)", refused);
        assertFalse(onUi(() -> bench.runningProperty().get()));
    }

    @Test
    void untilStoppedReachesTheSettingsWithoutTheBaselineAndBothWaysWithIt() {
        BenchSettings forever = onUi(() -> {
            bench.form().modeProperty().set(BenchMode.BW);
            bench.form().baselineProperty().set(true);
            bench.form().limitProperty().set(BenchForm.Limit.UNTIL_STOPPED);
            bench.form().secondsProperty().set(2);
            return bench.form().settings();
        });
        assertTrue(forever.runInfinitely());
        assertEquals(2, forever.durationSeconds(), "a row every 2 s");
        assertFalse(forever.baseline(), "a run until stopped has no baseline");
        assertTrue(onUi(() -> bench.form().baselineUnavailable().get()));
        BenchSettings duplex = onUi(() -> {
            bench.form().limitProperty().set(BenchForm.Limit.ITERATIONS);
            bench.form().bidirectionalProperty().set(true);
            return bench.form().settings();
        });
        assertTrue(duplex.bidirectional());
        assertFalse(duplex.runInfinitely());
        assertTrue(duplex.baseline(), "-b keeps its baseline (both ways too)");
        assertFalse(onUi(() -> bench.form().baselineUnavailable().get()));
        BenchSettings latency = onUi(() -> {
            bench.form().modeProperty().set(BenchMode.LAT);
            bench.form().qpsProperty().set(4);
            return bench.form().settings();
        });
        assertFalse(latency.bidirectional(), "-b is for bandwidth; a latency run ignores the box");
        assertEquals(1, latency.qps(), "and -q too");
        assertTrue(latency.baseline(), "and keeps its baseline");
        BenchSettings fourQps = onUi(() -> {
            bench.form().modeProperty().set(BenchMode.BW);
            bench.form().bidirectionalProperty().set(false);
            return bench.form().settings();
        });
        assertEquals(4, fourQps.qps());
        assertTrue(fourQps.baseline(), "-q above 1 keeps its baseline (N x -t in flight over one socket pair)");
        assertFalse(onUi(() -> bench.form().baselineUnavailable().get()));
    }

    @Test
    void theTableGrowsAsEachSizeFinishesWhileTheRunGoesOn() {
        List<String> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
        onUi(() -> {
            bench.results().resultRows().addListener(
                    (javafx.collections.ListChangeListener<BenchResults.ResultRow>) change -> seen.add(
                            bench.results().resultRows().size()
                                    + (bench.runningProperty().get() ? " running" : " ended")));
            // Two sizes, as -a runs them (the form offers one size or the whole sweep).
            bench.start(BenchSettings.defaults(BenchTest.WRITE, BenchMode.LAT).withSizes(List.of(2, 4))
                    .withIterations(100));
            return null;
        });
        uiThread.await("the report", () -> bench.reportProperty().get() != null);
        assertEquals(List.of("1 running", "2 running"), seen, "a line per size as it finished, before the end");
        assertEquals(List.of("2", "4"), onUi(() -> bench.results().resultRows().stream().map(row -> row.cells().get(0))
                .toList()));
    }

    @Test
    void theDeviceListHasEveryBackendsDevicesAndTheChosenOneIsTheOneTheRunOpens() {
        VerbsProvider test = new VerbsProvider() {
            @Override
            public String name() {
                return "test";
            }

            @Override
            public List<Device> devices(DeviceOptions options) {
                return List.of(new Device() {
                    @Override
                    public String name() {
                        return "lab9";
                    }

                    @Override
                    public String backend() {
                        return "test";
                    }

                    @Override
                    public String description() {
                        return "a device that does not open";
                    }

                    @Override
                    public Context open() throws VerbsException {
                        throw new VerbsException("ibv_open_device", Errno.ENODEV, "lab9 is unplugged");
                    }
                });
            }
        };
        VerbsProvider broken = new VerbsProvider() {
            @Override
            public String name() {
                return "broken";
            }

            @Override
            public List<Device> devices(DeviceOptions options) throws VerbsException {
                throw new VerbsException("ibv_get_device_list", Errno.ENOSYS, "no RDMA here");
            }
        };
        List<VerbsProvider> providers = new java.util.ArrayList<>(Backends.installed().providers());
        providers.add(test);
        providers.add(broken);
        Backends backends = new Backends(providers);
        BenchViewModel other = onUi(() -> new BenchViewModel(new BenchEngine(backends), backends,
                () -> new Topology.Loopback("127.0.0.1", "127.0.0.2", Ports.freeUdpPort(), Ports.freeUdpPort()),
                Runnable::run, uiThread));
        uiThread.await("the device list", () -> other.devices().names().contains("lab9"));
        List<String> devices = onUi(() -> List.copyOf(other.devices().names()));
        assertTrue(devices.contains("soft0"), devices::toString);
        assertEquals("soft0", onUi(() -> other.form().deviceProperty().get()), "bench's -d default stays chosen");
        String note = onUi(() -> other.devices().noteProperty().get());
        assertTrue(note.contains("lab9: a device that does not open (test)"), note);
        assertTrue(note.contains("broken: ibv_get_device_list failed: ENOSYS"), note);
        onUi(() -> {
            other.form().deviceProperty().set("lab9");
            other.form().modeProperty().set(BenchMode.LAT);
            assertEquals("lab9", other.form().settings().device());
            other.start();
            return null;
        });
        uiThread.await("the run to fail", () -> !other.runningProperty().get());
        String status = onUi(() -> other.statusProperty().get());
        assertTrue(status.startsWith("The run failed: ibv_open_device failed: ENODEV") && status.contains(
                "lab9 is unplugged"), status);
        onUi(() -> {
            other.close();
            return null;
        });
    }

    @Test
    void portGidIndexAndTimeoutAreBenchsOptionsWithItsDefaultsAndMessages() {
        BenchSettings defaults = onUi(() -> bench.form().settings());
        assertEquals(1, defaults.ibPort());
        assertEquals(-1, defaults.gidIndex(), "an empty GID index is bench's choice");
        assertEquals("soft0", defaults.device());
        BenchSettings chosen = onUi(() -> {
            bench.form().ibPortProperty().set(2);
            bench.form().gidIndexProperty().set(" 3 ");
            return bench.form().settings();
        });
        assertEquals(2, chosen.ibPort());
        assertEquals(3, chosen.gidIndex());
        for (String[] bad : new String[][] {
            {"x", "Cannot run: -x 'x' is not a GID index (a number 0..255, or empty for bench's choice)"},
            {"-1", "Cannot run: -x -1: the GID index must be 0..255 (leave it empty for bench's choice)"},
            {"256", "Cannot run: -x 256: the GID index must be 0..255"}}) {
            String refused = onUi(() -> {
                bench.form().gidIndexProperty().set(bad[0]);
                bench.start();
                return bench.statusProperty().get();
            });
            assertEquals(bad[1], refused);
        }
        assertFalse(onUi(() -> bench.runningProperty().get()));

        // --timeout: bench's default, and what a server or client waits.
        String cliDefault = org.rdmalab.cli.Main.commandLine().getSubcommands().get("bench").getCommandSpec()
                .findOption("--timeout").initialValue().toString();
        assertEquals(cliDefault, String.valueOf(onUi(() -> bench.form().timeoutProperty().get())));
        Topology server = onUi(() -> {
            bench.form().gidIndexProperty().set("");
            bench.form().roleProperty().set(BenchForm.Role.SERVER);
            bench.form().timeoutProperty().set(7);
            return bench.form().topology();
        });
        assertEquals(Duration.ofSeconds(7), ((Topology.Server) server).acceptTimeout());
        Topology client = onUi(() -> {
            bench.form().roleProperty().set(BenchForm.Role.CLIENT);
            bench.form().serverAddressProperty().set("127.0.0.1");
            return bench.form().topology();
        });
        assertEquals(Duration.ofSeconds(7), ((Topology.Client) client).connectTimeout());
        String refused = onUi(() -> {
            bench.form().timeoutProperty().set(null);
            bench.start();
            return bench.statusProperty().get();
        });
        assertEquals("Cannot run: --timeout must be at least 1 second", refused);
    }
}
