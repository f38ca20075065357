package org.rdmalab.cli;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.rdmalab.lab.scenario.LoopbackLab;
import org.rdmalab.lab.scenario.LoopbackSettings;
import org.rdmalab.lab.scenario.Scenario;
import org.rdmalab.lab.scenario.ScenarioPrinter;
import org.rdmalab.lab.scenario.ScenarioResult;
import org.rdmalab.lab.scenario.Scenarios;
import org.rdmalab.verbs.Mtu;
import org.rdmalab.verbs.VerbsException;
import org.rdmalab.verbs.spi.Backends;
import org.rdmalab.verbs.spi.DeviceOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code loopback}: a server and a client in one process. On soft0 each is its own software device
 * over real UDP on loopback; on any other device (rxe0, a NIC) both open that device and use two
 * QPs on it, each sending from the GID of its own address.
 */
@Command(name = "loopback", mixinStandardHelpOptions = true,
        description = {
            "Runs a scenario between a server and a client in this process and prints every verb and completion."
                    + " On soft0 they are two software RoCE v2 devices (server on 127.0.0.1, client on 127.0.0.2,"
                    + " real UDP sockets); on another device (--device rxe0) two QPs on that device, each using"
                    + " the GID of --server-address / --client-address.",
            "Exit 0 when the device did what the scenario teaches, 1 when not, 2 on a usage error."
        })
final class LoopbackCommand implements Callable<Integer> {

    /** With faults a lost packet costs a 1.07 s timeout (0x12) and up to 7 of them in a row are allowed. */
    static final long FAULT_POLL_TIMEOUT_MS = 10_000;

    @Spec
    CommandSpec spec;

    /** A jumbo-frame link: the active MTU becomes 4096, so every path MTU fits. */
    static final int JUMBO_MTU = 9000;

    /** The software device; only it takes --fault, --pcap, --udp-port and --link-mtu. */
    static final String SOFT_DEVICE = "soft0";

    /** {@code --scenario all}: every scenario in turn. */
    static final String ALL = "all";

    @Option(names = "--scenario", defaultValue = Scenarios.DEFAULT, paramLabel = "NAME",
            description = "Scenario to run (default ${DEFAULT-VALUE}), or all; --list shows them.")
    String scenarioName;

    @Option(names = "--device", defaultValue = SOFT_DEVICE, paramLabel = "NAME",
            description = "Device both peers use (default ${DEFAULT-VALUE}); on any other device, such as rxe0,"
                    + " both QPs sit on it and send from the GIDs of --server-address and --client-address.")
    String device;

    @Option(names = "--client-device", paramLabel = "NAME",
            description = "Device the client uses instead of --device's, e.g. rxeB on the other end of a veth pair"
                    + " from rxeA, so that the packets cross an interface and tcpdump sees them.")
    String clientDevice;

    @Option(names = "--list", description = "List the scenarios and exit.")
    boolean list;

    @Option(names = "--size", paramLabel = "N",
            description = "Bytes the bulk scenario moves: 1 to 64M, suffix K or M allowed (default 64K).")
    String size;

    @Option(names = "--mtu", defaultValue = "256", paramLabel = "N",
            description = "Path MTU: 256, 512, 1024, 2048 or 4096 (default ${DEFAULT-VALUE}, the seed's IBV_MTU_256).")
    String mtu;

    @Option(names = "--link-mtu", paramLabel = "N",
            description = "MTU of the link under the devices; their active MTU follows it as rxe's does"
                    + " (default 1500, or 9000 when --mtu is above 1024).")
    Integer linkMtu;

    @Option(names = "--pcap", paramLabel = "FILE", description = "Write every packet of both devices to this pcap file.")
    Path pcap;

    /** Faults for both devices. */
    @Mixin
    FaultOption fault;

    @Option(names = "--server-address", defaultValue = "127.0.0.1", paramLabel = "IP",
            description = "IPv4 address of the server's device (default ${DEFAULT-VALUE}).")
    String serverAddress;

    @Option(names = "--client-address", defaultValue = "127.0.0.2", paramLabel = "IP",
            description = "IPv4 address of the client's device (default ${DEFAULT-VALUE}).")
    String clientAddress;

    /** The port both devices use. */
    @Mixin
    UdpPortOption udpPort;

    @Option(names = "--poll-timeout", paramLabel = "MS",
            description = "How long one completion is polled for, in ms (default 2000 as in the seed;"
                    + " 10000 with --fault, which covers timeout 0x12 x (retry_cnt 6 + 1)).")
    Long pollTimeoutMillis;

    @Option(names = "--packets", description = "Also print every packet the devices send, receive or drop.")
    boolean packets;

    @Option(names = "--ladder", description = "After each scenario, print its packets as a ladder (as pcap ladder does:"
            + " one line per packet, then messages, retransmissions and NAKs); soft0 only.")
    boolean ladder;

    @Override
    public Integer call() throws VerbsException {
        PrintWriter out = spec.commandLine().getOut();
        if (list) {
            for (Scenario scenario : Scenarios.all()) {
                out.println(String.format("%-20s %s", scenario.name(), scenario.description()));
            }
            out.flush();
            return 0;
        }
        List<Scenario> scenarios = ALL.equals(scenarioName) ? Scenarios.all()
                : List.of(Scenarios.find(scenarioName).orElseThrow(() -> new IllegalArgumentException(
                "unknown scenario '" + scenarioName + "'; valid scenarios: all, " + String.join(", ",
                        Scenarios.names()))));
        LoopbackSettings settings = settings();
        Path ladderCapture = null;
        if (ladder && pcap == null) {
            try {
                ladderCapture = Files.createTempFile("rdma-lab-ladder", ".pcap");
            } catch (java.io.IOException e) {
                throw new IllegalStateException("--ladder needs a temporary capture file: " + e.getMessage(), e);
            }
            settings = settings.withCapture(ladderCapture);
        }
        try {
            return run(out, scenarios, settings, pcap != null ? pcap : ladderCapture);
        } finally {
            if (ladderCapture != null) {
                try {
                    Files.deleteIfExists(ladderCapture);
                } catch (java.io.IOException e) {
                    // a temporary file: the system's cleaner takes it
                }
            }
        }
    }

    private int run(PrintWriter out, List<Scenario> scenarios, LoopbackSettings settings, Path capture)
            throws VerbsException {
        Backends backends = Backends.installed();
        new LoopbackLab(backends, settings, new ScenarioPrinter(out)).findDevices();
        Map<String, ScenarioResult> results = new LinkedHashMap<>();
        for (Scenario scenario : scenarios) {
            if (!results.isEmpty()) {
                out.println();
            }
            ScenarioPrinter printer = new ScenarioPrinter(out);
            LoopbackLab lab = new LoopbackLab(backends, settings, printer).reportPackets(packets);
            printer.header(scenario, settings);
            ScenarioResult result = lab.run(scenario);
            printer.result(result);
            results.put(scenario.name(), result);
            if (ladder) {
                printLadder(out, capture, udpPort.port());
            }
        }
        if (pcap != null) {
            out.println(captureLine(pcap, udpPort.port()));
        }
        if (scenarios.size() > 1) {
            out.println();
            out.println("summary on " + (settings.clientDeviceName().equals(device) ? device
                    : device + " and " + settings.clientDeviceName()) + ":");
            for (Map.Entry<String, ScenarioResult> entry : results.entrySet()) {
                out.println(String.format("  %-20s %s", entry.getKey(),
                        entry.getValue().asExpected() ? "as expected" : "NOT as expected: " + entry.getValue().summary()));
            }
        }
        out.flush();
        return results.values().stream().allMatch(ScenarioResult::asExpected) ? 0 : 1;
    }

    private LoopbackSettings settings() {
        int udpPort = this.udpPort.port();
        boolean faulty = fault.given();
        String clientName = clientDevice == null ? device : clientDevice;
        if (SOFT_DEVICE.equals(device) != SOFT_DEVICE.equals(clientName)) {
            throw new IllegalArgumentException("--device " + device + " and --client-device " + clientName
                    + " mix " + SOFT_DEVICE + " with a kernel device, which holds UDP port 4791 on this machine;"
                    + " use two " + SOFT_DEVICE + " peers or two libibverbs devices");
        }
        if (!SOFT_DEVICE.equals(device)) {
            List<String> softOnly = new java.util.ArrayList<>();
            if (faulty) {
                softOnly.add("--fault");
            }
            if (pcap != null) {
                softOnly.add("--pcap");
            }
            if (ladder) {
                softOnly.add("--ladder");
            }
            if (linkMtu != null) {
                softOnly.add("--link-mtu");
            }
            if (udpPort != DeviceOptions.ROCE_V2_PORT) {
                softOnly.add("--udp-port");
            }
            if (!softOnly.isEmpty()) {
                throw new IllegalArgumentException(String.join(", ", softOnly) + " only work on " + SOFT_DEVICE
                        + ", the software device; on " + device + " capture with tcpdump -i <netdev> udp port 4791");
            }
        }
        long pollMillis = pollTimeoutMillis != null ? pollTimeoutMillis : faulty ? FAULT_POLL_TIMEOUT_MS
                : LoopbackSettings.SEED_POLL_TIMEOUT.toMillis();
        if (pollMillis < 1) {
            throw new IllegalArgumentException("--poll-timeout must be at least 1 ms");
        }
        Mtu pathMtu = parseMtu(mtu);
        int link = linkMtu != null ? linkMtu : pathMtu.bytes() > 1024 ? JUMBO_MTU : DeviceOptions.ETHERNET_MTU;
        DeviceOptions server = DeviceOptions.defaults().withUdpPort(udpPort)
                .withAddress(DeviceOptions.parseAddress(serverAddress)).withLinkMtu(link);
        DeviceOptions client = server.withAddress(DeviceOptions.parseAddress(clientAddress));
        if (server.address().equals(client.address())) {
            throw new IllegalArgumentException("--server-address and --client-address must differ: each device"
                    + " binds its own address on UDP port " + udpPort);
        }
        LoopbackSettings settings = new LoopbackSettings(device, server, client, pathMtu,
                size == null ? 0 : parseSize(size), Duration.ofMillis(pollMillis), clientName);
        if (faulty) {
            settings = settings.withFaults(fault.spec());
        }
        if (pcap != null) {
            Path parent = pcap.toAbsolutePath().getParent();
            if (parent != null && !Files.isDirectory(parent)) {
                throw new IllegalArgumentException("--pcap " + pcap + ": the folder " + parent + " does not exist");
            }
            settings = settings.withCapture(pcap);
        }
        return settings;
    }

    /** 256..4096 in powers of two, as {@code ibv_mtu} allows. */
    static Mtu parseMtu(String text) {
        try {
            return Mtu.ofBytes(Integer.parseInt(text.trim()));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--mtu '" + text + "' is not one of 256, 512, 1024, 2048, 4096");
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--mtu " + text.trim() + " is not one of 256, 512, 1024, 2048, 4096");
        }
    }

    /** "65536", "64K", "1M" → bytes, 1..64 MiB. */
    static int parseSize(String text) {
        String trimmed = text.trim().toUpperCase(Locale.ROOT);
        long factor = 1;
        if (trimmed.endsWith("K") || trimmed.endsWith("M")) {
            factor = trimmed.endsWith("K") ? 1024 : 1024 * 1024;
            trimmed = trimmed.substring(0, trimmed.length() - 1);
        }
        long bytes;
        try {
            bytes = Math.multiplyExact(Long.parseLong(trimmed), factor);
        } catch (NumberFormatException | ArithmeticException e) {
            throw new IllegalArgumentException("--size '" + text + "' is not a byte count (write 65536, 64K or 1M)");
        }
        if (bytes < 1 || bytes > LoopbackSettings.MAX_SIZE) {
            throw new IllegalArgumentException("--size " + text.trim() + " is outside 1.."
                    + LoopbackSettings.MAX_SIZE + " bytes (64M)");
        }
        return (int) bytes;
    }

    /** The scenario's packets, read back from the capture both devices wrote, as {@code pcap ladder} prints them. */
    private static void printLadder(PrintWriter out, Path capture, int port) {
        out.println("ladder:");
        try {
            org.rdmalab.ladder.CaptureLadder.Result read = org.rdmalab.ladder.CaptureLadder.read(capture, port);
            org.rdmalab.ladder.LadderText.lines(read.ladder()).forEach(out::println);
        } catch (java.io.IOException e) {
            out.println("  the capture could not be read back: " + e.getMessage());
        }
    }

    private static String captureLine(Path file, int port) {
        long bytes;
        try {
            bytes = Files.size(file);
        } catch (java.io.IOException e) {
            return "capture: " + file + " was not written (" + e.getMessage() + ")";
        }
        String decodeAs = port == DeviceOptions.ROCE_V2_PORT ? "" : " -d udp.port==" + port + ",infiniband";
        return "capture: " + file + " (" + bytes + " bytes); open it in Wireshark, or: tshark -r " + file
                + " --disable-protocol rpcordma" + decodeAs;
    }
}
