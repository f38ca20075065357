package org.rdmalab.bench;

import java.net.DatagramSocket;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import org.rdmalab.control.ControlChannel;
import org.rdmalab.control.ControlException;
import org.rdmalab.control.ControlListener;
import org.rdmalab.control.Timeouts;
import org.rdmalab.control.lab.LabConnection;
import org.rdmalab.control.perftest.PerftestExchange;
import org.rdmalab.verbs.Device;
import org.rdmalab.verbs.VerbsException;
import org.rdmalab.verbs.spi.Backends;
import org.rdmalab.verbs.spi.DeviceOptions;

/**
 * Starts benchmarks. Each {@link #start} returns at once with a {@link BenchRun}; the run finds the
 * device through {@link Backends} (so it works on soft0 and on the native backend alike), connects
 * the two sides as the {@link Topology} says and measures on its own threads.
 *
 * <pre>{@code
 * BenchRun run = new BenchEngine(Backends.installed()).start(
 *         BenchSettings.defaults(BenchTest.WRITE, BenchMode.BW).withBaseline(true),
 *         Topology.Loopback.defaults(), listener);
 * ...                      // listener.sample(...) a few times a second, listener.row(...) per size
 * run.stop();              // from a Stop button, any thread
 * BenchReport report = run.result().join();
 * }</pre>
 */
public final class BenchEngine {

    /** The MTU of a jumbo-frame link: a software device's active MTU is then 4096. */
    static final int JUMBO_LINK_MTU = 9000;
    /** Reads on the control connection may wait this long between frames. */
    static final java.time.Duration CONTROL_READ = java.time.Duration.ofSeconds(60);

    private final Backends backends;

    public BenchEngine(Backends backends) {
        this.backends = Objects.requireNonNull(backends, "backends");
    }

    /**
     * Starts a run and returns at once.
     *
     * @param listener hears the header facts, live samples and rows, on the run's threads
     */
    public BenchRun start(BenchSettings settings, Topology topology, BenchListener listener) {
        Objects.requireNonNull(settings, "settings");
        Objects.requireNonNull(topology, "topology");
        Objects.requireNonNull(listener, "listener");
        BenchRun run = new BenchRun();
        Thread main = new Thread(() -> execute(run, settings, topology, listener), "rdmalab-bench");
        main.setDaemon(true);
        run.track(main);
        main.start();
        return run;
    }

    private void execute(BenchRun run, BenchSettings settings, Topology topology, BenchListener listener) {
        List<BenchRow> rows = Collections.synchronizedList(new ArrayList<>());
        AtomicReference<BenchInfo> info = new AtomicReference<>();
        BenchListener recording = new BenchListener() {
            @Override
            public void started(BenchInfo facts) {
                info.set(facts);
                listener.started(facts);
            }

            @Override
            public void sample(LiveSample sample) {
                listener.sample(sample);
            }

            @Override
            public void row(BenchRow row) {
                listener.row(row);
            }

            @Override
            public void note(String text) {
                listener.note(text);
            }
        };
        try {
            if (topology instanceof Topology.Loopback loopback) {
                loopback(run, settings, loopback, recording, rows);
            } else if (topology instanceof Topology.Server server) {
                server(run, settings, server, recording, rows, info);
            } else if (topology instanceof Topology.Client client) {
                client(run, settings, client, recording, rows);
            }
            run.complete(new BenchReport(info.get(), rows, run.stopRequested()));
        } catch (BenchStopped e) {
            run.complete(new BenchReport(info.get(), rows, true));
        } catch (BenchException e) {
            if (run.stopRequested()) {
                run.complete(new BenchReport(info.get(), rows, true));
            } else {
                run.fail(e);
            }
        } catch (VerbsException e) {
            // A verb interrupted or refused because stop() closed what it used ends as stopped, as BenchException does.
            if (run.stopRequested()) {
                run.complete(new BenchReport(info.get(), rows, true));
            } else {
                run.fail(new BenchException(e.getMessage(), e));
            }
        } catch (IllegalArgumentException e) {
            run.fail(new BenchException(e.getMessage(), e));
        } catch (RuntimeException e) {
            run.fail(new BenchException("the benchmark failed: " + e, e));
        }
    }

    private Device find(BenchSettings settings, Topology topology, String address) throws VerbsException {
        DeviceOptions options = DeviceOptions.defaults().withAddress(DeviceOptions.parseAddress(address))
                .withUdpPort(topology.udpPort());
        if (settings.mtu() != null && settings.mtu().bytes() > 1024) {
            options = options.withLinkMtu(JUMBO_LINK_MTU);
        }
        return backends.find(settings.device(), options);
    }

    private void loopback(BenchRun run, BenchSettings settings, Topology.Loopback topology, BenchListener listener,
                          List<BenchRow> rows) throws VerbsException, BenchException {
        Inet4Address serverAddress = DeviceOptions.parseAddress(topology.serverAddress());
        Inet4Address clientAddress = DeviceOptions.parseAddress(topology.clientAddress());
        if (serverAddress.equals(clientAddress)) {
            throw new IllegalArgumentException("the server and the client need two addresses (each device binds its"
                    + " own), not " + topology.serverAddress() + " twice");
        }
        Device serverDevice = find(settings, topology, topology.serverAddress());
        Device clientDevice = find(settings, topology, topology.clientAddress());
        InProcessRendezvous[] ends = InProcessRendezvous.pair(topology.serverAddress(), topology.clientAddress());
        Progress progress = new Progress(run.stopFlag(), listener);
        Progress quiet = new Progress(run.stopFlag(), BenchListener.NONE);
        SideRunner server = new SideRunner(false, settings, serverDevice, serverAddress, ends[0], BenchListener.NONE, quiet,
                new ArrayList<>(), topology.baselinePort());
        SideRunner client = new SideRunner(true, settings, clientDevice, clientAddress, ends[1], listener, progress,
                rows, topology.baselinePort());
        AtomicReference<Exception> serverFailure = new AtomicReference<>();
        AtomicReference<Exception> clientFailure = new AtomicReference<>();
        Thread[] threads = new Thread[2];
        threads[0] = side(run, server, serverFailure, "rdmalab-bench-server", threads, 1);
        threads[1] = side(run, client, clientFailure, "rdmalab-bench-client", threads, 0);
        threads[0].start();
        threads[1].start();
        join(run, threads);
        Exception failure = firstReal(clientFailure.get(), serverFailure.get());
        if (failure instanceof VerbsException verbs) {
            throw new BenchException(verbs.getMessage(), verbs);
        } else if (failure instanceof BenchException bench) {
            throw bench;
        } else if (failure instanceof IllegalArgumentException bad) {
            throw bad;
        } else if (failure != null) {
            throw new BenchException("the benchmark failed: " + failure, failure);
        }
    }

    /** The failure that explains the run: not a side stopped because its peer failed. */
    private static Exception firstReal(Exception a, Exception b) {
        if (a != null && !(a instanceof BenchStopped)) {
            return a;
        }
        if (b != null && !(b instanceof BenchStopped)) {
            return b;
        }
        return a != null ? a : b;
    }

    /** A side's thread; when it fails, it interrupts {@code threads[other]}, which would wait for it in vain. */
    private static Thread side(BenchRun run, SideRunner runner, AtomicReference<Exception> failure, String name,
                               Thread[] threads, int other) {
        Thread thread = new Thread(() -> {
            try {
                runner.run();
            } catch (VerbsException | BenchException | RuntimeException e) {
                failure.set(e);
                if (!(e instanceof BenchStopped)) {
                    threads[other].interrupt();
                }
            }
        }, name);
        thread.setDaemon(true);
        run.track(thread);
        return thread;
    }

    private static void join(BenchRun run, Thread... threads) throws BenchException {
        for (Thread thread : threads) {
            while (thread.isAlive()) {
                try {
                    thread.join();
                } catch (InterruptedException e) {
                    // stop(): the side threads were interrupted too; wait for them to close their objects.
                    run.stop();
                }
            }
        }
    }

    private void server(BenchRun run, BenchSettings settings, Topology.Server topology, BenchListener listener,
                        List<BenchRow> rows, AtomicReference<BenchInfo> info) throws VerbsException, BenchException {
        boolean perftest = topology.exchange() == Topology.Exchange.PERFTEST;
        if (perftest) {
            PerftestSide.check(settings);
        }
        Device device = find(settings, topology, topology.localAddress());
        Timeouts timeouts = new Timeouts(topology.acceptTimeout(), topology.acceptTimeout(), CONTROL_READ);
        ControlChannel channel = open(run, () -> {
            ControlListener waiting = ControlListener.bind(topology.localAddress(), topology.tcpPort());
            // A thread blocked in accept() does not see an interrupt: stop() closes the listener instead.
            run.closeOnStop(waiting);
            if (run.stopRequested()) {
                throw new ControlException(ControlException.Reason.INTERRUPTED, "stopped before a client came");
            }
            listener.note("waiting for a client on port " + waiting.port() + " of " + topology.localAddress()
                    + (perftest ? " (TCP, perftest's exchange)" : " (TCP, RDMA Lab's protocol)"));
            return waiting.acceptOne(timeouts);
        });
        Inet4Address local = DeviceOptions.parseAddress(topology.localAddress());
        if (perftest) {
            listener.note("client " + channel.peer() + " connected");
            perftest(run, false, settings, device, local, channel, listener, rows, info);
            return;
        }
        try (Rendezvous rendezvous = new LabRendezvous(hello(run, channel))) {
            run.closeOnStop(rendezvous);
            listener.note("client " + rendezvous.peerAddress() + " connected");
            SideRunner runner = new SideRunner(false, settings, device, local, rendezvous, listener,
                    new Progress(run.stopFlag(), listener), rows, topology.baselinePort());
            try {
                runner.run();
            } finally {
                info.set(runner.info());
            }
        }
    }

    private void client(BenchRun run, BenchSettings settings, Topology.Client topology, BenchListener listener,
                        List<BenchRow> rows) throws VerbsException, BenchException {
        boolean perftest = topology.exchange() == Topology.Exchange.PERFTEST;
        if (perftest) {
            PerftestSide.check(settings);
        }
        Device device = find(settings, topology, topology.localAddress());
        Timeouts timeouts = new Timeouts(topology.connectTimeout(), topology.connectTimeout(), CONTROL_READ);
        ControlChannel channel = open(run, () ->
                ControlChannel.connect(topology.serverAddress(), topology.tcpPort(), timeouts));
        Inet4Address local = DeviceOptions.parseAddress(topology.localAddress());
        if (perftest) {
            perftest(run, true, settings, device, local, channel, listener, rows, new AtomicReference<>());
            return;
        }
        try (Rendezvous rendezvous = new LabRendezvous(hello(run, channel))) {
            run.closeOnStop(rendezvous);
            new SideRunner(true, settings, device, local, rendezvous, listener, new Progress(run.stopFlag(), listener),
                    rows, topology.baselinePort()).run();
        }
    }

    /** One side against a perftest program over {@code channel}, which it closes. */
    private static void perftest(BenchRun run, boolean client, BenchSettings settings, Device device,
                                 Inet4Address local, ControlChannel channel, BenchListener listener,
                                 List<BenchRow> rows, AtomicReference<BenchInfo> info) throws VerbsException, BenchException {
        try (channel) {
            PerftestSide side = new PerftestSide(client, settings, device, local, new PerftestExchange(channel, client),
                    listener, new Progress(run.stopFlag(), listener), rows, PerftestSide.runTimeout(settings));
            try {
                side.run();
            } finally {
                info.set(side.info());
            }
        }
    }

    /** Opens the control channel. */
    private interface ChannelOpener {
        ControlChannel open() throws ControlException;
    }

    /** Opens the control channel; stop() closes it. */
    private static ControlChannel open(BenchRun run, ChannelOpener opener) throws BenchException {
        try {
            ControlChannel channel = opener.open();
            run.closeOnStop(channel);
            return channel;
        } catch (ControlException e) {
            if (run.stopRequested()) {
                throw new BenchStopped();
            }
            throw new BenchException(e.getMessage(), e);
        }
    }

    /** Says RDMA Lab's hello on {@code channel}; closes it when that fails. */
    private static LabConnection hello(BenchRun run, ControlChannel channel) throws BenchException {
        try {
            return LabConnection.open(channel, "RDMA Lab bench");
        } catch (ControlException e) {
            channel.close();
            if (run.stopRequested()) {
                throw new BenchStopped();
            }
            throw new BenchException(e.getMessage(), e);
        }
    }

    /**
     * The address this machine uses to reach {@code serverAddress} (no packet is sent): what a client
     * binds when no {@code --local-ip} is given. 127.0.0.1 as the server gives 127.0.0.2, so two
     * software devices on one machine get two addresses.
     */
    public static String localAddressFor(String serverAddress) {
        Inet4Address server = DeviceOptions.parseAddress(serverAddress);
        if (server.isLoopbackAddress()) {
            byte[] bytes = server.getAddress();
            bytes[3] = (byte) (bytes[3] == 2 ? 1 : 2);
            try {
                return InetAddress.getByAddress(bytes).getHostAddress();
            } catch (java.net.UnknownHostException e) {
                throw new AssertionError(e);
            }
        }
        try (DatagramSocket probe = new DatagramSocket()) {
            probe.connect(new InetSocketAddress(server, Topology.DEFAULT_TCP_PORT));
            InetAddress local = probe.getLocalAddress();
            if (local instanceof Inet4Address && !local.isAnyLocalAddress()) {
                return local.getHostAddress();
            }
        } catch (java.io.IOException e) {
            // No route: the caller asks the user for --local-ip.
        }
        throw new IllegalArgumentException("cannot tell which local address reaches " + serverAddress
                + "; give it with --local-ip");
    }
}
