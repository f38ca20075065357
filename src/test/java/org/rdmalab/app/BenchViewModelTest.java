package org.rdmalab.app;

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
import org.rdmalab.bench.BandwidthStats;
import org.rdmalab.bench.BenchEngine;
import org.rdmalab.bench.BenchFormat;
import org.rdmalab.bench.BenchJson;
import org.rdmalab.bench.BenchListener;
import org.rdmalab.bench.BenchRun;
import org.rdmalab.bench.BenchSettings;
import org.rdmalab.bench.BenchMode;
import org.rdmalab.bench.BenchReport;
import org.rdmalab.bench.BenchRow;
import org.rdmalab.bench.BenchTest;
import org.rdmalab.bench.ResourceMeter;
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
            bench.modeProperty().set(BenchMode.LAT);
            bench.sizeProperty().set(8);
            bench.iterationsProperty().set(200);
            bench.baselineProperty().set(true);
            bench.start();
            return null;
        });
        assertTrue(onUi(() -> bench.runningProperty().get()));
        uiThread.await("the report", () -> bench.reportProperty().get() != null);
        BenchReport report = onUi(() -> bench.reportProperty().get());
        assertFalse(report.stopped());
        assertEquals(List.of(BenchRow.Path.RDMA, BenchRow.Path.BASELINE), onUi(() -> bench.rows().stream()
                .map(BenchRow::path).toList()));
        String status = onUi(() -> bench.statusProperty().get());
        assertTrue(status.startsWith("Done: ib_write_lat, 8 B, 200 iterations, with the UDP baseline"), status);
        assertTrue(status.contains("ratio to the UDP baseline"), status);

        // The table: a line per row in perftest's columns, the ratio on the RDMA line, --verbose's figures.
        assertEquals(BenchFormat.columns(report.info().settings()), onUi(() -> List.copyOf(bench.columns())));
        List<BenchViewModel.ResultRow> table = onUi(() -> List.copyOf(bench.resultRows()));
        assertEquals(2, table.size());
        BenchRow rdmaRow = report.rows().get(0);
        BenchRow udpRow = report.rows().get(1);
        assertEquals(BenchFormat.cells(rdmaRow, false), table.get(0).cells());
        assertEquals(BenchFormat.cells(udpRow, false), table.get(1).cells());
        assertEquals(List.of("RDMA", "baseline"), table.stream().map(BenchViewModel.ResultRow::path).toList());
        assertEquals(BenchFormat.ratioLines(report).get(0), "ratio: " + table.get(0).ratio());
        assertEquals("", table.get(1).ratio());
        assertEquals("", table.get(0).lost());
        assertEquals(String.valueOf(udpRow.lostMessages()), table.get(1).lost());
        assertEquals(String.format(Locale.ROOT, "%.1f", rdmaRow.usage().bytesPerMessage()), table.get(0).allocation());
        assertEquals(rdmaRow.usage().gcCount() + " (" + rdmaRow.usage().gcMillis() + " ms)", table.get(0).gc());
        assertTrue(table.get(0).counters().startsWith("sent_pkts +"), table.get(0).counters());
        assertEquals(BenchFormat.counters(rdmaRow), " rdma 8 bytes: this side's device counters moved: "
                + table.get(0).counters());
        String verbose = onUi(() -> bench.verboseTextProperty().get());
        assertEquals(BenchFormat.usage(rdmaRow) + "\n" + BenchFormat.counters(rdmaRow) + "\n"
                + BenchFormat.usage(udpRow) + "\n", verbose, "bench --verbose's lines, the baseline has no counters");
        String copied = BenchViewModel.tableText(BenchFormat.columns(report.info().settings()), table);
        assertTrue(copied.startsWith("path\t#bytes\t#iterations\tt_min[usec]\t"), copied);
        assertTrue(copied.contains("\nRDMA\t8\t200\t" + String.join("\t", table.get(0).cells().subList(2, 9))
                + "\t\t" + table.get(0).ratio() + "\t"), copied);

        BenchViewModel.SizeBar bar = onUi(() -> bench.sizeBars().get(0));
        assertEquals(8, bar.bytes());
        assertEquals(report.rows(BenchRow.Path.RDMA).get(0).latency().typicalMicros(), bar.rdma(), 1e-9);
        assertEquals(report.rows(BenchRow.Path.BASELINE).get(0).latency().typicalMicros(), bar.baseline(), 1e-9);
        assertEquals(List.of(8), onUi(() -> List.copyOf(bench.latencySizes())));
        assertEquals(8, onUi(() -> bench.distributionSizeProperty().get()));

        List<BenchViewModel.Marker> markers = onUi(() -> List.copyOf(bench.markers()));
        assertEquals(List.of("RDMA t_typical", "RDMA 99%", "RDMA 99.9%", "BASELINE t_typical", "BASELINE 99%",
                "BASELINE 99.9%"), markers.stream().map(marker -> marker.path() + " " + marker.name()).toList());
        assertEquals(report.rows(BenchRow.Path.RDMA).get(0).latency().p99Micros(), markers.get(1).micros(), 1e-9);

        // The CDF rises to the 99.9% percentile and no further than the axis' end; each path has its own.
        for (List<BenchViewModel.Point> cdf : onUi(() -> List.of(List.copyOf(bench.distributionRdma()),
                List.copyOf(bench.distributionBaseline())))) {
            assertTrue(cdf.size() > 10, () -> "points: " + cdf.size());
            for (int i = 1; i < cdf.size(); i++) {
                assertTrue(cdf.get(i).x() >= cdf.get(i - 1).x() && cdf.get(i).y() > cdf.get(i - 1).y(), cdf::toString);
            }
            assertTrue(cdf.get(cdf.size() - 1).y() >= 0.99 && cdf.get(cdf.size() - 1).y() <= 1.0, cdf::toString);
        }
        // The histogram of the same samples: its bins hold every sample up to the axis' end.
        onUi(() -> {
            bench.distributionProperty().set(BenchViewModel.Distribution.HISTOGRAM);
            return null;
        });
        List<BenchViewModel.Point> bins = onUi(() -> List.copyOf(bench.distributionRdma()));
        assertEquals(BenchViewModel.HISTOGRAM_BINS, bins.size());
        double percent = bins.stream().mapToDouble(BenchViewModel.Point::y).sum();
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
            bench.testProperty().set(BenchTest.WRITE);
            bench.modeProperty().set(BenchMode.BW);
            bench.sizeProperty().set(4096);
            bench.iterationsProperty().set(10_000_000);
            bench.baselineProperty().set(false);
            bench.start();
            return null;
        });
        uiThread.await("a live bandwidth sample", () -> !bench.liveRdma().isEmpty());
        BenchViewModel.Point first = onUi(() -> bench.liveRdma().get(0));
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
            bench.iterationsProperty().set(10_000_000);
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
            bench.roleProperty().set(BenchViewModel.Role.CLIENT);
            bench.serverAddressProperty().set(" 127.0.0.1 ");
            bench.tcpPortProperty().set(Integer.toString(tcp));
            bench.udpPortProperty().set(udp);
            bench.baselinePortProperty().set(baseline);
            bench.modeProperty().set(BenchMode.LAT);
            bench.sizeProperty().set(8);
            bench.limitProperty().set(BenchViewModel.Limit.SECONDS);
            bench.secondsProperty().set(1);
            bench.mtuProperty().set(512);
            bench.baselineProperty().set(true);
            assertEquals(expected, bench.settings());
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
        assertEquals(List.of(BenchRow.Path.RDMA, BenchRow.Path.BASELINE), onUi(() -> bench.rows().stream()
                .map(BenchRow::path).toList()));
        assertTrue(report.rows().get(0).latency().iterations() > 0);
        assertTrue(server.await(Duration.ofSeconds(60)).rows().isEmpty(), "a latency server only answers");
    }

    @Test
    void aBandwidthSettingTakesTheTxDepthAndGbitsAndLatencyKeepsOneInFlight() {
        BenchSettings bandwidth = onUi(() -> {
            bench.modeProperty().set(BenchMode.BW);
            bench.txDepthProperty().set(16);
            bench.reportGbitsProperty().set(true);
            return bench.settings();
        });
        assertEquals(16, bandwidth.txDepth());
        assertTrue(bandwidth.reportGbits());
        assertEquals(null, bandwidth.mtu(), "the port's MTU unless one is chosen");
        assertEquals(1, onUi(() -> {
            bench.modeProperty().set(BenchMode.LAT);
            return bench.settings();
        }).txDepth());
        String refused = onUi(() -> {
            bench.roleProperty().set(BenchViewModel.Role.SERVER);
            bench.tcpPortProperty().set("port");
            bench.start();
            return bench.statusProperty().get();
        });
        assertEquals("Cannot run: TCP port 'port' is not a number (18515, as bench's -p)", refused);
        assertFalse(onUi(() -> bench.runningProperty().get()));
    }

    @Test
    void untilStoppedReachesTheSettingsWithoutTheBaselineAndBothWaysWithIt() {
        BenchSettings forever = onUi(() -> {
            bench.modeProperty().set(BenchMode.BW);
            bench.baselineProperty().set(true);
            bench.limitProperty().set(BenchViewModel.Limit.UNTIL_STOPPED);
            bench.secondsProperty().set(2);
            return bench.settings();
        });
        assertTrue(forever.runInfinitely());
        assertEquals(2, forever.durationSeconds(), "a row every 2 s");
        assertFalse(forever.baseline(), "a run until stopped has no baseline");
        assertTrue(onUi(() -> bench.baselineUnavailable().get()));
        BenchSettings duplex = onUi(() -> {
            bench.limitProperty().set(BenchViewModel.Limit.ITERATIONS);
            bench.bidirectionalProperty().set(true);
            return bench.settings();
        });
        assertTrue(duplex.bidirectional());
        assertFalse(duplex.runInfinitely());
        assertTrue(duplex.baseline(), "-b keeps its baseline (both ways too)");
        assertFalse(onUi(() -> bench.baselineUnavailable().get()));
        BenchSettings latency = onUi(() -> {
            bench.modeProperty().set(BenchMode.LAT);
            bench.qpsProperty().set(4);
            return bench.settings();
        });
        assertFalse(latency.bidirectional(), "-b is for bandwidth; a latency run ignores the box");
        assertEquals(1, latency.qps(), "and -q too");
        assertTrue(latency.baseline(), "and keeps its baseline");
        BenchSettings fourQps = onUi(() -> {
            bench.modeProperty().set(BenchMode.BW);
            bench.bidirectionalProperty().set(false);
            return bench.settings();
        });
        assertEquals(4, fourQps.qps());
        assertTrue(fourQps.baseline(), "-q above 1 keeps its baseline (N x -t in flight over one socket pair)");
        assertFalse(onUi(() -> bench.baselineUnavailable().get()));
    }

    @Test
    void theTableGrowsAsEachSizeFinishesWhileTheRunGoesOn() {
        List<String> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
        onUi(() -> {
            bench.resultRows().addListener((javafx.collections.ListChangeListener<BenchViewModel.ResultRow>) change ->
                    seen.add(bench.resultRows().size() + (bench.runningProperty().get() ? " running" : " ended")));
            // Two sizes, as -a runs them (the form offers one size or the whole sweep).
            bench.start(BenchSettings.defaults(BenchTest.WRITE, BenchMode.LAT).withSizes(List.of(2, 4))
                    .withIterations(100));
            return null;
        });
        uiThread.await("the report", () -> bench.reportProperty().get() != null);
        assertEquals(List.of("1 running", "2 running"), seen, "a line per size as it finished, before the end");
        assertEquals(List.of("2", "4"), onUi(() -> bench.resultRows().stream().map(row -> row.cells().get(0))
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
        uiThread.await("the device list", () -> other.devices().contains("lab9"));
        List<String> devices = onUi(() -> List.copyOf(other.devices()));
        assertTrue(devices.contains("soft0"), devices::toString);
        assertEquals("soft0", onUi(() -> other.deviceProperty().get()), "bench's -d default stays chosen");
        String note = onUi(() -> other.devicesNoteProperty().get());
        assertTrue(note.contains("lab9: a device that does not open (test)"), note);
        assertTrue(note.contains("broken: ibv_get_device_list failed: ENOSYS"), note);
        onUi(() -> {
            other.deviceProperty().set("lab9");
            other.modeProperty().set(BenchMode.LAT);
            assertEquals("lab9", other.settings().device());
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
        BenchSettings defaults = onUi(() -> bench.settings());
        assertEquals(1, defaults.ibPort());
        assertEquals(-1, defaults.gidIndex(), "an empty GID index is bench's choice");
        assertEquals("soft0", defaults.device());
        BenchSettings chosen = onUi(() -> {
            bench.ibPortProperty().set(2);
            bench.gidIndexProperty().set(" 3 ");
            return bench.settings();
        });
        assertEquals(2, chosen.ibPort());
        assertEquals(3, chosen.gidIndex());
        for (String[] bad : new String[][] {
            {"x", "Cannot run: -x 'x' is not a GID index (a number 0..255, or empty for bench's choice)"},
            {"-1", "Cannot run: -x -1: the GID index must be 0..255 (leave it empty for bench's choice)"},
            {"256", "Cannot run: -x 256: the GID index must be 0..255"}}) {
            String refused = onUi(() -> {
                bench.gidIndexProperty().set(bad[0]);
                bench.start();
                return bench.statusProperty().get();
            });
            assertEquals(bad[1], refused);
        }
        assertFalse(onUi(() -> bench.runningProperty().get()));

        // --timeout: bench's default, and what a server or client waits.
        String cliDefault = org.rdmalab.cli.Main.commandLine().getSubcommands().get("bench").getCommandSpec()
                .findOption("--timeout").defaultValue();
        assertEquals(cliDefault, String.valueOf(onUi(() -> bench.timeoutProperty().get())));
        Topology server = onUi(() -> {
            bench.gidIndexProperty().set("");
            bench.roleProperty().set(BenchViewModel.Role.SERVER);
            bench.timeoutProperty().set(7);
            return bench.topology();
        });
        assertEquals(Duration.ofSeconds(7), ((Topology.Server) server).acceptTimeout());
        Topology client = onUi(() -> {
            bench.roleProperty().set(BenchViewModel.Role.CLIENT);
            bench.serverAddressProperty().set("127.0.0.1");
            return bench.topology();
        });
        assertEquals(Duration.ofSeconds(7), ((Topology.Client) client).connectTimeout());
        String refused = onUi(() -> {
            bench.timeoutProperty().set(null);
            bench.start();
            return bench.statusProperty().get();
        });
        assertEquals("Cannot run: --timeout must be at least 1 second", refused);
    }

    @Test
    void csvInGbitsNamesItsColumns() {
        BenchRow rdma = new BenchRow(BenchRow.Path.RDMA, 65536, BandwidthStats.ofTotals(65536, 1000, 1_000_000_000L),
                null, null, 0);
        BenchSettings settings = BenchSettings.defaults(BenchTest.WRITE, BenchMode.BW).withReportGbits(true);
        org.rdmalab.bench.BenchInfo info = new org.rdmalab.bench.BenchInfo(settings, "soft0", "software", null, null,
                0, 0, 0, null, null, "in process");
        String csv = BenchViewModel.csv(new BenchReport(info, List.of(rdma), false));
        assertEquals("""
                path,bytes,iterations,bw_peak_gb_per_sec,bw_average_gb_per_sec,msg_rate_mpps,lost_messages,ratio,\
                allocated_bytes_per_message,gc_count,gc_ms
                rdma,65536,1000,0.00,0.52,0.001000,0,,,,
                """, csv);
    }

    @Test
    void csvHasPerftestsBandwidthColumnsAndTheRatioOnTheRdmaRow() {
        BenchRow rdma = new BenchRow(BenchRow.Path.RDMA, 65536, BandwidthStats.ofTotals(65536, 1000, 1_000_000_000L),
                null, null, 0);
        BenchRow udp = new BenchRow(BenchRow.Path.BASELINE, 65536, BandwidthStats.ofTotals(65536, 2000,
                1_000_000_000L), null, null, 3);
        String csv = BenchViewModel.csv(new BenchReport(null, List.of(rdma, udp), false));
        assertEquals("""
                path,bytes,iterations,bw_peak_mb_per_sec,bw_average_mb_per_sec,msg_rate_mpps,lost_messages,ratio,\
                allocated_bytes_per_message,gc_count,gc_ms
                rdma,65536,1000,0.00,62.50,0.001000,0,0.5000,,,
                baseline,65536,2000,0.00,125.00,0.002000,3,,,,
                """, csv);
    }

    /**
     * Save CSV has what Save JSON (bench --json --verbose) has per row: the allocation and GC
     * figures, and a column for each device counter that moved in some row; a cell is empty where the
     * row has no such figure.
     */
    @Test
    void csvHasTheVerboseFiguresAsColumnsEmptyWhereARowHasNone() {
        java.util.Map<String, Long> small = new java.util.LinkedHashMap<>();
        small.put("sent_pkts", 1000L);
        small.put("rcvd_pkts", 12L);
        java.util.Map<String, Long> large = new java.util.LinkedHashMap<>();
        large.put("sent_pkts", 16_000L);
        large.put("retry_exceeded_err", 1L);
        BenchRow rdmaSmall = new BenchRow(BenchRow.Path.RDMA, 4096, BandwidthStats.ofTotals(4096, 1000,
                1_000_000_000L), null, new ResourceMeter.Usage(25_600, 1000, 2, 7, small), 0);
        BenchRow udpSmall = new BenchRow(BenchRow.Path.BASELINE, 4096, BandwidthStats.ofTotals(4096, 1000,
                1_000_000_000L), null, new ResourceMeter.Usage(-1, 1000, 0, 0), 0);
        BenchRow rdmaLarge = new BenchRow(BenchRow.Path.RDMA, 65536, BandwidthStats.ofTotals(65536, 1000,
                1_000_000_000L), null, new ResourceMeter.Usage(0, 1000, 0, 0, large), 0);
        BenchRow unmeasured = new BenchRow(BenchRow.Path.BASELINE, 65536, BandwidthStats.ofTotals(65536, 1000,
                1_000_000_000L), null, null, 0);
        BenchReport report = new BenchReport(null, List.of(rdmaSmall, udpSmall, rdmaLarge, unmeasured), false);
        String[] lines = BenchViewModel.csv(report).split("\n");
        assertEquals(5, lines.length, () -> String.join("\n", lines));
        List<String> head = List.of(lines[0].split(",", -1));
        assertEquals(List.of("lost_messages", "ratio", "allocated_bytes_per_message", "gc_count", "gc_ms",
                "device_counter_sent_pkts", "device_counter_rcvd_pkts", "device_counter_retry_exceeded_err"),
                head.subList(head.indexOf("lost_messages"), head.size()), "the counters in the order they first moved");
        List<List<String>> verbose = new java.util.ArrayList<>();
        for (int i = 1; i < lines.length; i++) {
            List<String> cells = List.of(lines[i].split(",", -1));
            assertEquals(head.size(), cells.size(), lines[i]);
            verbose.add(cells.subList(head.indexOf("allocated_bytes_per_message"), head.size()));
        }
        assertEquals(List.of("25.6", "2", "7", "1000", "12", ""), verbose.get(0), "4 KiB RDMA: 25600 B over 1000");
        assertEquals(List.of("", "0", "0", "", "", ""), verbose.get(1), "the baseline: allocation unknown, no device");
        assertEquals(List.of("0.0", "0", "0", "16000", "", "1"), verbose.get(2), "64 KiB RDMA: a retry");
        assertEquals(List.of("", "", "", "", "", ""), verbose.get(3), "a row without --verbose's figures");
    }

    @Test
    void aCsvHeadWithACommaOrQuoteIsQuoted() {
        assertEquals("sent_pkts", BenchViewModel.csvField("sent_pkts"));
        assertEquals("\"a,b\"", BenchViewModel.csvField("a,b"));
        assertEquals("\"say \"\"hi\"\"\"", BenchViewModel.csvField("say \"hi\""));
    }
}
