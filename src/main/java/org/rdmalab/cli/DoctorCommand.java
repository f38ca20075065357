package org.rdmalab.cli;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.rdmalab.control.Timeouts;
import org.rdmalab.doctor.Check;
import org.rdmalab.doctor.Host;
import org.rdmalab.doctor.LocalChecks;
import org.rdmalab.doctor.PeerDoctor;
import org.rdmalab.doctor.Report;
import org.rdmalab.doctor.SideFacts;
import org.rdmalab.text.Json;
import org.rdmalab.verbs.Mtu;
import org.rdmalab.verbs.spi.Backends;
import org.rdmalab.verbs.spi.DeviceOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code doctor}: checks a fabric setup, alone or with a peer, and says how to fix what fails. */
@Command(name = "doctor", mixinStandardHelpOptions = true, sortOptions = false,
        description = {
            "Checks an RDMA setup: libibverbs and providers, kernel modules, device nodes, memlock, port, netdev"
                    + " and MTU, GID table, firewall. Each failed check comes with its fix.",
            "With <peer_ip> it connects to 'doctor --serve' on the peer, compares both setups and runs an active"
                    + " probe (RC QP to RTS, RDMA WRITEs each way, small and full path MTU).",
            "Exit 0 when every check passes, 1 when one fails, 2 on a usage error."
        })
final class DoctorCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", arity = "0..1", paramLabel = "<local_ip>", description = "This side's IPv4 address.")
    String localIp;

    @Parameters(index = "1", arity = "0..1", paramLabel = "<device>", description = "RDMA device (soft0, rxe0, mlx5_0).")
    String device;

    @Parameters(index = "2", arity = "0..1", paramLabel = "<peer_ip>",
            description = "A peer running 'doctor --serve': compare and probe.")
    String peerIp;

    @Option(names = "--serve", description = "Wait for one peer, then compare and probe.")
    boolean serve;

    @Mixin
    JsonOption json;

    @Mixin
    FaultOption fault;

    @Option(names = "--mtu", paramLabel = "N", description = "Path MTU to check and probe (default: the largest both sides allow).")
    Integer mtu;

    @Option(names = "--ib-port", defaultValue = "1", paramLabel = "N", description = "Device port (default ${DEFAULT-VALUE}).")
    int ibPort;

    @Option(names = "--tcp-port", defaultValue = "12025", paramLabel = "PORT",
            description = "The lab protocol's TCP port (default ${DEFAULT-VALUE}).")
    int tcpPort;

    @Mixin
    UdpPortOption udpPort;

    @Option(names = "--link-mtu", paramLabel = "N", description = "MTU of the link under the software device (default 1500).")
    Integer linkMtu;

    @Mixin
    TimeoutOption timeout;

    /** Each probe write's completion is waited for up to 5 s. */
    @Mixin
    PollTimeoutOption pollTimeout = new PollTimeoutOption(5000);

    /** Where the checks look; tests replace it. */
    Host host = Host.system();

    @Override
    public Integer call() {
        if (localIp != null && device == null) {
            throw new IllegalArgumentException("give <device> after <local_ip> (e.g. 'doctor 10.0.2.15 rxe0'),"
                    + " or neither for the host checks alone");
        }
        if (serve && (localIp == null || peerIp != null)) {
            throw new IllegalArgumentException("--serve takes <local_ip> and <device>, and no <peer_ip>:"
                    + " 'doctor --serve 10.0.2.15 rxe0'");
        }
        if (fault.spec() != null && !"soft0".equals(device)) {
            throw new IllegalArgumentException("--fault applies to the software device only: give soft0 as <device>");
        }
        int timeoutSeconds = timeout.seconds();
        Duration pollFor = pollTimeout.duration();
        if (tcpPort < 1 || tcpPort > 65535) {
            throw new IllegalArgumentException("--tcp-port " + tcpPort + " is outside 1..65535");
        }
        DeviceOptions options = DeviceOptions.defaults().withUdpPort(udpPort.port()).withFaults(fault.spec());
        if (localIp != null) {
            options = options.withAddress(DeviceOptions.parseAddress(localIp));
        }
        if (peerIp != null) {
            DeviceOptions.parseAddress(peerIp);
        }
        if (linkMtu != null) {
            options = options.withLinkMtu(linkMtu);
        }
        Mtu pathMtu = mtu == null ? null : LoopbackCommand.parseMtu(mtu.toString());
        Backends backends = Backends.installed();

        LocalChecks.Result local = new LocalChecks(host, backends)
                .run(new LocalChecks.Target(localIp, device, options, pathMtu, ibPort));
        List<Check> checks = new ArrayList<>(local.checks());
        Optional<SideFacts> peerFacts = Optional.empty();
        String mode = serve ? "serve" : peerIp != null ? "peer" : "local";
        PrintWriter out = spec.commandLine().getOut();
        if (!json.json()) {
            out.println(header(mode));
            print(out, local.checks());
            out.flush();
        }
        if (!mode.equals("local")) {
            List<Check> peerChecks;
            if (local.facts().isEmpty()) {
                peerChecks = List.of(PeerDoctor.nothingToCompare());
            } else {
                Duration timeout = Duration.ofSeconds(timeoutSeconds);
                PeerDoctor.Settings settings = new PeerDoctor.Settings(localIp, device, ibPort, options, tcpPort,
                        new Timeouts(timeout, timeout, timeout), pollFor);
                PeerDoctor doctor = new PeerDoctor(backends, host);
                if (!json.json() && serve) {
                    out.println("waiting for a peer on " + localIp + ":" + tcpPort + " (up to " + timeoutSeconds + " s)");
                    out.flush();
                }
                PeerDoctor.Result result = serve ? doctor.serve(settings, local.facts().get())
                        : doctor.connect(settings, local.facts().get(), peerIp);
                peerChecks = result.checks();
                peerFacts = result.peer();
            }
            checks.addAll(peerChecks);
            if (!json.json()) {
                print(out, peerChecks);
            }
        }
        long failed = checks.stream().filter(Check::failed).count();
        if (json.json()) {
            Map<String, Object> report = new LinkedHashMap<>();
            report.put("mode", mode);
            report.put("passed", failed == 0);
            report.put("checks", checks.stream().map(DoctorCommand::toMap).toList());
            local.facts().ifPresent(facts -> report.put("facts", facts.toMap()));
            peerFacts.ifPresent(facts -> report.put("peer_facts", facts.toMap()));
            out.println(Json.write(report));
        } else {
            out.println(Report.result(checks));
        }
        out.flush();
        return failed == 0 ? 0 : 1;
    }

    private String header(String mode) {
        if (localIp == null) {
            return "doctor: this host's RDMA setup (give <local_ip> <device> to check one device)";
        }
        return "doctor: " + device + " on " + localIp + switch (mode) {
            case "serve" -> ", serving a peer on TCP port " + tcpPort;
            case "peer" -> ", peer " + peerIp + ":" + tcpPort;
            default -> "";
        };
    }

    private static void print(PrintWriter out, List<Check> checks) {
        for (Check check : checks) {
            out.println(Report.lines(check));
        }
        out.flush();
    }

    private static Map<String, Object> toMap(Check check) {
        Map<String, Object> entry = new LinkedHashMap<>();
        entry.put("name", check.name());
        entry.put("status", check.status().name().toLowerCase(java.util.Locale.ROOT));
        entry.put("found", check.found());
        if (check.failed()) {
            entry.put("fix", check.fix());
        }
        return entry;
    }
}
