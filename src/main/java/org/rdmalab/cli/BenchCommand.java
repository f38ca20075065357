package org.rdmalab.cli;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.rdmalab.bench.BenchEngine;
import org.rdmalab.bench.BenchException;
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
import org.rdmalab.bench.LiveSample;
import org.rdmalab.bench.Topology;
import org.rdmalab.text.Json;
import org.rdmalab.verbs.Mtu;
import org.rdmalab.verbs.spi.Backends;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code bench}: perftest's ib_write_bw / ib_write_lat / ib_read_* / ib_send_* / ib_atomic_* with
 * their options and tables, over the verbs API (soft0 or a real device), optionally against a raw
 * UDP baseline measured in the same run.
 */
@Command(name = "bench", mixinStandardHelpOptions = true, sortOptions = false,
        description = {
            "perftest-style benchmark: the options and tables of ib_write_bw, ib_write_lat, ib_read_*, ib_send_*"
                    + " and ib_atomic_*, over any device (soft0, rxe0, a NIC).",
            "Without <server_ip> this side is the server and waits on TCP port 18515; with it, the client, which"
                    + " measures and prints the table. --loopback runs both sides in this process (soft0: server on"
                    + " 127.0.0.1, client on 127.0.0.2). --baseline adds the same traffic over plain UDP datagrams in"
                    + " the same run and a 'ratio:' line. --perftest lets perftest's ib_* programs be the other side."
                    + " --json prints the results with perftest's key names.",
            "Exit 0 when the run finished, 1 when it failed, 2 on a usage error."
        })
final class BenchCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "<test>", description = "write, read, send or atomic.")
    String test;

    @Parameters(index = "1", arity = "0..1", paramLabel = "<server_ip>",
            description = "The server to connect to (this side is then the client).")
    String serverIp;

    @Option(names = "--bw", description = "Measure bandwidth (ib_*_bw).")
    boolean bandwidth;

    @Option(names = "--lat", description = "Measure latency (ib_*_lat).")
    boolean latency;

    @Option(names = {"-d", "--ib-dev"}, defaultValue = "soft0", paramLabel = "DEV",
            description = "RDMA device (default ${DEFAULT-VALUE}).")
    String device;

    @Option(names = {"-i", "--ib-port"}, defaultValue = "1", paramLabel = "PORT",
            description = "Device port (default ${DEFAULT-VALUE}).")
    int ibPort;

    @Option(names = {"-x", "--gid-index"}, paramLabel = "N",
            description = "GID index (default: the GID carrying this side's address, else perftest's choice).")
    Integer gidIndex;

    @Option(names = {"-s", "--size"}, paramLabel = "N",
            description = "Message size in bytes, K or M allowed (default 65536 for --bw, 2 for --lat, 8 for atomic).")
    String size;

    @Option(names = {"-a", "--all"}, description = "Run sizes 2 to 2^23 bytes (each size moves at most 256 MiB).")
    boolean all;

    @Option(names = {"-n", "--iters"}, paramLabel = "N",
            description = "Messages per size (default 5000 for --bw, 1000 for --lat).")
    Integer iterations;

    @Option(names = {"-D", "--duration"}, paramLabel = "SECONDS", description = "Run each size this long instead of -n.")
    Integer duration;

    @Option(names = {"-q", "--qp"}, paramLabel = "N", defaultValue = "1",
            description = "Connected QPs the traffic goes over, each with -t in flight and -n messages (bandwidth"
                    + " tests, as perftest's -q; default ${DEFAULT-VALUE}).")
    int qps;

    @Option(names = {"-b", "--bidirectional"}, description = "Both sides send at once; each row is both directions"
            + " summed (bandwidth tests, as perftest's -b).")
    boolean bidirectional;

    @Option(names = "--run_infinitely", description = "Run a bandwidth test until stopped (Ctrl-C), printing a row"
            + " every -D seconds (default 5), as perftest's --run_infinitely.")
    boolean runInfinitely;

    @Option(names = {"-m", "--mtu"}, paramLabel = "N",
            description = "Path MTU: 256, 512, 1024, 2048 or 4096 (default: the port's active MTU).")
    Integer mtu;

    @Option(names = {"-t", "--tx-depth"}, paramLabel = "N",
            description = "Messages in flight (default 128 for --bw, 1 for --lat).")
    Integer txDepth;

    @Option(names = "--report_gbits", description = "Bandwidth in Gb/sec instead of MB/sec.")
    boolean reportGbits;

    /** The results as JSON with perftest's key names. */
    @Mixin
    JsonOption json;

    @Option(names = "--loopback", description = "Run the server and the client in this process.")
    boolean loopback;

    @Option(names = "--baseline", description = "Also run the same pattern over plain UDP datagrams and print the ratio.")
    boolean baseline;

    @Option(names = "--perftest", description = "Speak perftest's TCP exchange, so that ib_write_*, ib_read_*,"
            + " ib_send_* or ib_atomic_* (started with the same -s / -a and -n) is the other side.")
    boolean perftest;

    @Option(names = {"-p", "--port"}, defaultValue = "18515", paramLabel = "PORT",
            description = "TCP port of the server (default ${DEFAULT-VALUE}, perftest's).")
    int tcpPort;

    @Option(names = "--local-ip", paramLabel = "IP",
            description = "This side's address (a software device binds it; the GID carrying it is used)."
                    + " Default: server 127.0.0.1, client the address that reaches the server"
                    + " (127.0.0.2 for a server on 127.0.0.1).")
    String localIp;

    @Option(names = "--baseline-port", defaultValue = "18516", paramLabel = "PORT",
            description = "UDP port of the baseline's sockets on both addresses (default ${DEFAULT-VALUE}).")
    int baselinePort;

    @Mixin
    UdpPortOption udpPort;

    /** The server waits for a client, or the client for the server, up to 60 s. */
    @Mixin
    TimeoutOption timeout = new TimeoutOption(60);

    @Override
    public Integer call() throws Exception {
        BenchSettings settings = settings();
        Topology topology = topology();
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        boolean verbose = verbose();
        Printer printer = new Printer(out, err, settings, json.json(), System.console() != null);
        BenchRun run = new BenchEngine(Backends.installed()).start(settings, topology, printer);
        // Ctrl-C stops the run, and the JVM waits a moment for this thread to print what it has (a
        // --run_infinitely run ends this way), rather than exit with the run's last lines unprinted.
        CountDownLatch printed = new CountDownLatch(1);
        Thread hook = new Thread(() -> {
            run.stop();
            try {
                printed.await(STOP_PRINT_WAIT.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "rdmalab-bench-stop");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            return finish(run, settings, printer, out, verbose);
        } finally {
            printed.countDown();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException e) {
                // The JVM is shutting down already (Ctrl-C): the hook stopped the run.
            }
        }
    }

    /** Waits for the report and prints its end; the exit status. */
    private int finish(BenchRun run, BenchSettings settings, Printer printer, PrintWriter out, boolean verbose)
            throws BenchException, InterruptedException {
        BenchReport report;
        try {
            report = awaitReport(run);
        } catch (BenchException e) {
            if (e.getCause() instanceof IllegalArgumentException) {
                // A value the device refused (-m above its MTU, -x not in its GID table): a usage error.
                throw new IllegalArgumentException(e.getMessage(), e);
            }
            throw e;
        } finally {
            printer.endProgress();
        }
        if (json.json()) {
            out.println(Json.write(BenchJson.of(report, verbose)));
        } else {
            printer.finish(report, verbose);
        }
        out.flush();
        // A --run_infinitely run ends when it is stopped: that is its normal end.
        return report.stopped() && !settings.runInfinitely() ? 1 : 0;
    }

    private static BenchReport awaitReport(BenchRun run) throws BenchException, InterruptedException {
        while (true) {
            try {
                return run.await(Duration.ofSeconds(1));
            } catch (TimeoutException e) {
                // Still running: keep waiting (every wait inside the run has its own timeout).
            }
        }
    }

    private boolean verbose() {
        return spec.commandLine().getParseResult().hasMatchedOption("--verbose")
                || (spec.parent() != null && spec.parent().commandLine().getParseResult() != null
                && spec.parent().commandLine().getParseResult().hasMatchedOption("--verbose"));
    }

    /** The settings from the options, perftest's defaults where none is given. */
    BenchSettings settings() {
        BenchTest benchTest = BenchTest.parse(test);
        if (bandwidth == latency) {
            throw new IllegalArgumentException(bandwidth ? "give --bw or --lat, not both"
                    : "say what to measure: --bw (bandwidth) or --lat (latency)");
        }
        BenchMode mode = bandwidth ? BenchMode.BW : BenchMode.LAT;
        BenchSettings settings = BenchSettings.defaults(benchTest, mode).withDevice(device).withPort(ibPort);
        if (all && size != null) {
            throw new IllegalArgumentException("-a runs every size; give -a or -s, not both");
        }
        if (duration != null && iterations != null) {
            throw new IllegalArgumentException("-D runs for a time and -n for a count; give one of them");
        }
        if (runInfinitely && iterations != null) {
            throw new IllegalArgumentException("--run_infinitely runs until stopped, so -n has nothing to count;"
                    + " drop -n (-D sets how often a row is printed)");
        }
        if (all) {
            settings = settings.withSizes(BenchSettings.sweep(benchTest));
        } else if (size != null) {
            settings = settings.withSizes(List.of(parseSize(size)));
        }
        if (iterations != null) {
            settings = settings.withIterations(iterations);
        }
        if (duration != null) {
            if (duration < 1) {
                throw new IllegalArgumentException("-D " + duration + ": the duration must be 1..3600 seconds");
            }
            settings = settings.withDuration(duration);
        }
        if (gidIndex != null) {
            if (gidIndex < 0) {
                throw new IllegalArgumentException("-x " + gidIndex + ": the GID index must be 0..255");
            }
            settings = settings.withGidIndex(gidIndex);
        }
        if (mtu != null) {
            try {
                settings = settings.withMtu(Mtu.ofBytes(mtu));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("-m " + mtu + " is not one of 256, 512, 1024, 2048, 4096");
            }
        }
        if (txDepth != null) {
            settings = settings.withTxDepth(txDepth);
        }
        settings = settings.withReportGbits(reportGbits).withBaseline(baseline).withBidirectional(bidirectional)
                .withQps(qps);
        if (runInfinitely) {
            settings = settings.withRunInfinitely(true, duration != null ? duration
                    : BenchSettings.DEFAULT_REPORT_INTERVAL);
        }
        return settings;
    }

    /** "65536", "64K", "8M" → bytes. */
    static int parseSize(String text) {
        String trimmed = text.trim().toUpperCase(Locale.ROOT);
        long factor = 1;
        if (trimmed.endsWith("K") || trimmed.endsWith("M")) {
            factor = trimmed.endsWith("K") ? 1024 : 1024 * 1024;
            trimmed = trimmed.substring(0, trimmed.length() - 1);
        }
        try {
            long bytes = Math.multiplyExact(Long.parseLong(trimmed), factor);
            if (bytes < 1 || bytes > BenchSettings.MAX_SIZE) {
                throw new IllegalArgumentException("-s " + text.trim() + ": the message size must be 1.."
                        + BenchSettings.MAX_SIZE + " bytes (8 MiB, perftest's largest)");
            }
            return (int) bytes;
        } catch (NumberFormatException | ArithmeticException e) {
            throw new IllegalArgumentException("-s '" + text + "' is not a byte count (write 65536, 64K or 1M)");
        }
    }

    private Topology topology() {
        checkPort(tcpPort, "-p");
        checkPort(baselinePort, "--baseline-port");
        int udpPort = this.udpPort.port();
        Duration timeout = this.timeout.duration();
        if (loopback) {
            if (serverIp != null) {
                throw new IllegalArgumentException("--loopback runs both sides here; drop <server_ip> " + serverIp);
            }
            if (perftest) {
                throw new IllegalArgumentException("--perftest talks to a perftest program over TCP; drop --loopback"
                        + " and start the server and the client as two commands");
            }
            return Topology.loopback(localIp, udpPort, baselinePort);
        }
        Topology.Exchange exchange = perftest ? Topology.Exchange.PERFTEST : Topology.Exchange.RDMA_LAB;
        if (serverIp == null) {
            return Topology.server(localIp, tcpPort, udpPort, baselinePort, timeout).withExchange(exchange);
        }
        return Topology.client(serverIp, localIp, tcpPort, udpPort, baselinePort, timeout).withExchange(exchange);
    }

    private static void checkPort(int port, String option) {
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException(option + " " + port + " is outside 1..65535");
        }
    }

    /** How long Ctrl-C waits for the stopped run's last lines. */
    static final Duration STOP_PRINT_WAIT = Duration.ofSeconds(5);

    /** Prints as the run goes: the header, each RDMA row, a progress line on stderr; the rest at the end. */
    static final class Printer implements BenchListener {

        /** A progress line appears once a size has run this long. */
        static final long PROGRESS_AFTER_NANOS = 2_000_000_000L;

        private final PrintWriter out;
        private final PrintWriter err;
        private final BenchSettings settings;
        private final boolean quiet;
        private final boolean console;
        private boolean headed;
        private boolean progressShown;

        Printer(PrintWriter out, PrintWriter err, BenchSettings settings, boolean quiet, boolean console) {
            this.out = out;
            this.err = err;
            this.settings = settings;
            this.quiet = quiet;
            this.console = console;
        }

        @Override
        public synchronized void started(BenchInfo info) {
            if (quiet) {
                return;
            }
            for (String line : BenchFormat.header(info)) {
                out.println(line);
            }
            out.println(BenchFormat.tableHead(settings));
            headed = true;
            out.flush();
        }

        @Override
        public synchronized void note(String text) {
            err.println("rdma-lab bench: " + text);
            err.flush();
        }

        @Override
        public synchronized void sample(LiveSample sample) {
            // (A --run_infinitely run prints a row every interval: that is its progress.)
            if (sample.elapsedNanos() < PROGRESS_AFTER_NANOS || settings.runInfinitely()) {
                return;
            }
            String amount = sample.total() > 0 ? sample.done() + "/" + sample.total() : String.valueOf(sample.done());
            String figure = sample.recentBytesPerSecond() > 0
                    ? String.format(Locale.ROOT, "%.2f MB/sec", sample.recentBytesPerSecond() / 0x100000)
                    : String.format(Locale.ROOT, "%.2f usec", sample.recentMicros());
            String line = String.format(Locale.ROOT, "  %s %d bytes (size %d of %d): %s messages, %s",
                    sample.path() == BenchRow.Path.RDMA ? "rdma" : "baseline", sample.bytes(), sample.sizeIndex() + 1,
                    sample.sizeCount(), amount, figure);
            err.print(console ? "\r" + line + "   " : line + System.lineSeparator());
            err.flush();
            progressShown = true;
        }

        @Override
        public synchronized void row(BenchRow row) {
            endProgress();
            if (!quiet && row.path() == BenchRow.Path.RDMA) {
                out.println(BenchFormat.row(row, settings.reportGbits()));
                out.flush();
            }
        }

        synchronized void endProgress() {
            if (progressShown && console) {
                err.println();
                err.flush();
            }
            progressShown = false;
        }

        /** The closing line, the baseline's rows and ratio, allocation figures with --verbose. */
        synchronized void finish(BenchReport report, boolean verbose) {
            if (!headed) {
                out.println(report.stopped() ? "stopped before the sides connected" : "this side served the client;"
                        + " the client prints the results");
                return;
            }
            out.println(BenchFormat.LINE);
            if (report.rows().isEmpty() && !report.stopped()) {
                out.println(" this side served the client; the client measures and prints the results");
            }
            List<BenchRow> baselineRows = report.rows(BenchRow.Path.BASELINE);
            if (!baselineRows.isEmpty()) {
                out.println(BenchFormat.baselineTitle(settings, report.info().mtu().bytes()));
                out.println(BenchFormat.tableHead(settings));
                for (BenchRow row : baselineRows) {
                    String lost = row.lostMessages() > 0 ? "   (" + row.lostMessages() + " messages lost)" : "";
                    out.println(BenchFormat.row(row, settings.reportGbits()) + lost);
                }
                out.println(BenchFormat.LINE);
                for (String line : BenchFormat.ratioLines(report)) {
                    out.println(line);
                }
            }
            if (verbose) {
                for (BenchRow row : report.rows()) {
                    out.println(BenchFormat.usage(row));
                    String counters = BenchFormat.counters(row);
                    if (!counters.isEmpty()) {
                        out.println(counters);
                    }
                }
            }
            if (report.stopped() && settings.runInfinitely()) {
                out.println("stopped after " + report.rows(BenchRow.Path.RDMA).size() + " intervals of "
                        + settings.durationSeconds() + " s");
            } else if (report.stopped()) {
                out.println("stopped: the rows above are the sizes that finished");
            }
        }
    }
}
