package org.rdmalab.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.Callable;
import org.rdmalab.control.ControlProtocol;
import org.rdmalab.control.Timeouts;
import org.rdmalab.lab.CExport;
import org.rdmalab.lab.Flows;
import org.rdmalab.lab.LabEvent;
import org.rdmalab.lab.LabSession;
import org.rdmalab.lab.PeerLink;
import org.rdmalab.lab.PeerLinks;
import org.rdmalab.lab.Role;
import org.rdmalab.lab.Step;
import org.rdmalab.lab.StepResult;
import org.rdmalab.verbs.Mtu;
import org.rdmalab.verbs.spi.Backends;
import org.rdmalab.verbs.spi.DeviceOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code demo}: the seed's program, server without server_ip, client with it. */
@Command(name = "demo", mixinStandardHelpOptions = true, sortOptions = false,
        description = {
            "The seed's program: server and client swap RDMA connection data over TCP, bring their QPs to RTS,"
                    + " and the client RDMA-writes \"HelloWorld\" into the server's buffer.",
            "Without <server_ip> this is the server. On one machine: 'demo 127.0.0.1 soft0' and"
                    + " 'demo 127.0.0.2 soft0 127.0.0.1'."
        })
final class DemoCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "<local_ip>", description = "This side's IPv4 address (soft0 binds it).")
    String localIp;

    @Parameters(index = "1", paramLabel = "<device>", description = "RDMA device (soft0, rxe0, mlx5_0).")
    String device;

    @Parameters(index = "2", arity = "0..1", paramLabel = "<server_ip>", description = "The server to connect to.")
    String serverIp;

    @Option(names = "--protocol", defaultValue = "seed", description = "seed, lab or pingpong (default ${DEFAULT-VALUE}).")
    String protocol;

    @Option(names = "--flow", defaultValue = "rc-example",
            description = "seed flows: rc-example (SEND, READ, WRITE) or write-only (default ${DEFAULT-VALUE}).")
    String flow;

    @Option(names = "--tcp-port", description = "TCP port (default 12025; pingpong 18515).")
    Integer tcpPort;

    @Option(names = "--ib-port", defaultValue = "1", description = "Device port (default ${DEFAULT-VALUE}).")
    int ibPort;

    @Option(names = "--gid-index", defaultValue = "auto",
            description = "GID index; auto = the GID carrying <local_ip>, else the best by perftest's scoring;"
                    + " -1 = the seed's no-GRH (fails RTR on RoCE).")
    String gidIndex;

    @Option(names = "--size", description = "Buffer bytes (seed 11 = \"HelloWorld\" + NUL; pingpong 4096).")
    Integer size;

    @Option(names = "--mtu", description = "Path MTU in bytes (seed 256, pingpong 1024).")
    Integer mtu;

    @Option(names = "--pattern",
            description = "seed and lab protocols: fill each message's buffer after its text with a pattern of its"
                    + " own (every byte from its position), and print the CRC32 of the whole buffer on both"
                    + " sides: the sender's before it posts, the receiver's once the message is there.")
    boolean pattern;

    @Option(names = "--iters", defaultValue = "1000", description = "pingpong round trips (default ${DEFAULT-VALUE}).")
    int iterations;

    @Mixin
    TimeoutOption timeout;

    @Mixin
    PollTimeoutOption pollTimeout;

    @Option(names = "--pcap", paramLabel = "FILE", description = "Write the software device's packets to FILE.")
    Path pcap;

    @Mixin
    FaultOption fault;

    @Mixin
    UdpPortOption udpPort;

    @Option(names = "--baseline",
            description = "pingpong: then the same round trips over plain UDP between the same two addresses, "
                    + "and 'ratio:' lines; then as RC's datagrams alone (a SEND's packets and an ACK for each "
                    + "message, no device), and the ratio to those.")
    boolean baseline;

    @Option(names = "--baseline-port", paramLabel = "PORT", defaultValue = "18516",
            description = "UDP port of --baseline on both addresses (default ${DEFAULT-VALUE}).")
    int baselinePort;

    @Option(names = "--export-c", paramLabel = "FILE",
            description = "Write the flow this command would run as one C program (both roles, gcc -libverbs) "
                    + "to FILE and exit without running it.")
    Path exportC;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        Role role = serverIp == null ? Role.SERVER : Role.CLIENT;
        DeviceOptions options = DeviceOptions.defaults().withAddress(DeviceOptions.parseAddress(localIp))
                .withUdpPort(udpPort.port()).withFaults(fault.spec()).withCapture(pcap);
        if (serverIp != null) {
            DeviceOptions.parseAddress(serverIp);
        }
        ControlProtocol controlProtocol = ControlProtocol.parse(protocol);
        boolean pingpong = controlProtocol == ControlProtocol.PINGPONG;
        int port = tcpPort != null ? tcpPort : controlProtocol.defaultPort();
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("--tcp-port " + port + " is outside 1..65535");
        }
        if (baseline && !pingpong) {
            throw new IllegalArgumentException("--baseline compares the pingpong protocol's ping-pong with plain UDP; "
                    + "add --protocol pingpong");
        }
        if (baselinePort < 1 || baselinePort > 65535) {
            throw new IllegalArgumentException("--baseline-port " + baselinePort + " is outside 1..65535");
        }
        if (pattern && pingpong) {
            throw new IllegalArgumentException("--pattern is for the seed and lab protocols; leave it out with "
                    + "--protocol pingpong");
        }
        if (pattern && exportC != null) {
            throw new IllegalArgumentException("--export-c writes the seed's own flow, without --pattern; "
                    + "leave out one of them");
        }
        Flows.Settings settings = new Flows.Settings(device, ibPort, gidIndex,
                size != null ? size : pingpong ? 4096 : Flows.MESSAGE_SIZE,
                Mtu.ofBytes(mtu != null ? mtu : pingpong ? 1024 : 256), pollTimeout.millis());
        if (settings.size() < 1) {
            throw new IllegalArgumentException("--size must be at least 1 byte");
        }
        Duration timeout = this.timeout.duration();
        PeerLinks.Endpoint endpoint = new PeerLinks.Endpoint(role, localIp, serverIp, port,
                new Timeouts(timeout, timeout, timeout));
        PeerLink link;
        List<Step> steps;
        switch (controlProtocol) {
            case SEED -> {
                link = PeerLinks.seed(endpoint);
                steps = Flows.seed(role, Flows.SeedFlow.parse(flow), settings, false, pattern);
            }
            case LAB -> {
                link = PeerLinks.lab(endpoint);
                steps = Flows.seed(role, Flows.SeedFlow.parse(flow), settings, true, pattern);
            }
            default -> {
                link = PeerLinks.pingpong(endpoint);
                steps = Flows.pingpong(role, settings, iterations,
                        baseline ? OptionalInt.of(baselinePort) : OptionalInt.empty());
            }
        }
        try (LabSession session = new LabSession(role, Backends.installed(), options, link, steps)) {
            if (pingpong) {
                session.resources().sendPsn(new java.security.SecureRandom().nextInt(1 << 24));
            }
            if (exportC != null) {
                return exportC(out, session);
            }
            session.packetEvents(false); // printed nowhere; a capture (--pcap) is written by the device
            Printer printer = new Printer(out, System.console() != null);
            session.addListener(printer::print);
            out.println((role == Role.SERVER ? "server" : "client") + ": " + protocol + " protocol, device "
                    + device + " on " + localIp + (serverIp == null ? ", waiting on TCP port " + port
                    : ", server " + serverIp + ":" + port));
            out.flush();
            Optional<StepResult> last = session.runToEnd();
            out.flush();
            if (session.finished()) {
                return 0;
            }
            String summary = last.map(StepResult::summary).orElse("nothing ran");
            String reason = summary + last.flatMap(StepResult::diagnosis)
                    .map(diagnosis -> " — " + diagnosis.lineAfter(summary)).orElse("");
            String step = session.nextStep().map(Step::title).orElse("?");
            spec.commandLine().getErr().println("rdma-lab demo: " + step + " failed: " + reason);
            return 1;
        }
    }

    /** Writes the session as C to {@code --export-c}; the folder must exist and is never created. */
    private int exportC(PrintWriter out, LabSession session) {
        Path folder = exportC.toAbsolutePath().getParent();
        if (folder != null && !Files.isDirectory(folder)) {
            throw new IllegalArgumentException("--export-c: the folder " + folder + " does not exist");
        }
        String program = CExport.of(session, List.of());
        try {
            Files.writeString(exportC, program);
        } catch (IOException e) {
            throw new UncheckedIOException("--export-c: cannot write " + exportC + " (" + e.getMessage() + ")", e);
        }
        out.println("wrote " + exportC + "; build it with: gcc -Wall -o rdmalab_export " + exportC + " -libverbs");
        out.flush();
        return 0;
    }

    /**
     * Prints the session's events as the demo's lines. While the server is not up yet it says at
     * once what it waits for and how to start the server, then shows the retries: on a terminal one
     * line that counts up in place, elsewhere a line every {@link #WAITING_EVERY}.
     */
    static final class Printer {

        static final Duration WAITING_EVERY = Duration.ofSeconds(5);
        private static final String INDENT = "       ";
        private static final char[] SPINNER = {'|', '/', '-', '\\'};

        private final PrintWriter out;
        private final boolean terminal;
        private boolean waitingInPlace;
        private long waitingLines;

        Printer(PrintWriter out, boolean terminal) {
            this.out = out;
            this.terminal = terminal;
        }

        void print(LabEvent event) {
            if (event instanceof LabEvent.PeerWaiting waiting) {
                waiting(waiting);
                out.flush();
                return;
            }
            if (waitingInPlace) {
                out.println();
                waitingInPlace = false;
            }
            if (event instanceof LabEvent.Output output) {
                out.println(output.text());
            } else if (event instanceof LabEvent.StepFinished finished) {
                out.println((finished.result().ok() ? "[ok]   " : "[FAIL] ") + finished.step().title() + ": "
                        + finished.result().summary());
            } else if (event instanceof LabEvent.Completion completion) {
                out.println(INDENT + "completion: " + completion.completion());
            } else if (event instanceof LabEvent.ControlMessage message) {
                out.println(INDENT + "tcp " + (message.sent() ? "-> " : "<- ") + message.description()
                        + (message.length() > 0 ? " (" + message.length() + " bytes)" : ""));
            } else if (event instanceof LabEvent.QpStateChange change && change.side() == LabEvent.Side.PEER) {
                out.println(String.format("       peer QP 0x%x is now %s", change.qpNum(), change.to().name()));
            }
            // Verb calls and packets are for the GUI; the step lines already say what happened.
            out.flush();
        }

        private void waiting(LabEvent.PeerWaiting waiting) {
            if (waiting.refusals() == 1) {
                out.println(INDENT + "waiting for the server at " + waiting.where() + " (up to "
                        + seconds(waiting.limit()) + "; start it there with: " + waiting.serverCommand() + ")");
                return;
            }
            String progress = "still waiting for " + waiting.where() + ": " + seconds(waiting.waited()) + ", "
                    + waiting.refusals() + " attempts";
            if (terminal) {
                out.print("\r" + INDENT + SPINNER[waiting.refusals() % SPINNER.length] + " " + progress + "   ");
                waitingInPlace = true;
            } else if (waiting.waited().toMillis() / WAITING_EVERY.toMillis() > waitingLines) {
                waitingLines = waiting.waited().toMillis() / WAITING_EVERY.toMillis();
                out.println(INDENT + progress);
            }
        }

        private static String seconds(Duration duration) {
            return duration.toMillis() % 1000 == 0 ? duration.toSeconds() + " s"
                    : String.format(java.util.Locale.ROOT, "%.1f s", duration.toMillis() / 1000.0);
        }
    }
}
