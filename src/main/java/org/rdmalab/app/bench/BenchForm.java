package org.rdmalab.app.bench;

import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;
import javafx.beans.binding.BooleanBinding;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.IntegerProperty;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.beans.property.SimpleIntegerProperty;
import javafx.beans.property.SimpleObjectProperty;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;
import org.rdmalab.app.common.UiText;
import org.rdmalab.bench.BenchMode;
import org.rdmalab.bench.BenchSettings;
import org.rdmalab.bench.BenchTest;
import org.rdmalab.bench.Topology;
import org.rdmalab.verbs.Mtu;
import org.rdmalab.verbs.spi.DeviceOptions;

/**
 * The Bench tab's form: what {@code bench} measures, chosen in the window (the device of any
 * backend, its port and GID index, the test, bandwidth or latency, one size or {@code -a}'s sweep,
 * the iterations or seconds per size or a run until stopped, both ways ({@code -b}), the MTU, the TX
 * depth, MB/sec or Gb/sec, the UDP baseline) and where it runs (loopback, or this window as a server
 * or client over TCP), turned into {@link BenchSettings} and a {@link Topology} by bench's rules: a
 * field that is wrong is refused with a sentence naming it.
 *
 * <p>Threads: the JavaFX thread (a test's "UI" thread), as the controls bound to it.
 */
public final class BenchForm {

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

    private final Supplier<Topology> loopback;

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

    /**
     * @param loopback where a loopback run's two sides are (the window: soft0 on the lab's loopback
     *     addresses, on UDP ports free at that moment); a server or client run takes the form's
     *     addresses and ports
     */
    BenchForm(Supplier<Topology> loopback) {
        this.loopback = loopback;
        mode.addListener((observable, before, now) -> {
            // perftest's defaults for the mode: 5000 messages of 64 KiB, or 1000 of 2 bytes.
            iterations.set(now == BenchMode.LAT ? BenchSettings.DEFAULT_ITERATIONS_LAT
                    : BenchSettings.DEFAULT_ITERATIONS_BW);
            size.set(now == BenchMode.LAT ? BenchSettings.DEFAULT_SIZE_LAT : BenchSettings.DEFAULT_SIZE_BW);
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
            case LOOPBACK -> loopback.get();
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

    /** The device ({@code -d}), one of {@link BenchDevices#names()}; soft0 unless another is chosen. */
    public ObjectProperty<String> deviceProperty() {
        return device;
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
}
