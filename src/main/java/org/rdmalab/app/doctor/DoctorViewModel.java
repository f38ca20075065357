package org.rdmalab.app.doctor;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.logging.Level;
import java.util.logging.Logger;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;
import org.rdmalab.app.common.UiText;
import org.rdmalab.app.lab.LabViewModel;
import org.rdmalab.app.lab.SetupViewModel;
import org.rdmalab.app.lab.SideViewModel;
import org.rdmalab.control.Timeouts;
import org.rdmalab.doctor.Check;
import org.rdmalab.doctor.Host;
import org.rdmalab.doctor.LabChecks;
import org.rdmalab.doctor.LocalChecks;
import org.rdmalab.doctor.PeerDoctor;
import org.rdmalab.doctor.Report;
import org.rdmalab.doctor.SideFacts;
import org.rdmalab.lab.Diagnosis;
import org.rdmalab.lab.LabSetup;
import org.rdmalab.verbs.Mtu;
import org.rdmalab.verbs.spi.Backends;
import org.rdmalab.verbs.spi.DeviceOptions;

/**
 * The Doctor view: runs {@code doctor}'s local checks ({@link LocalChecks}) for the setup's device
 * and addresses (both loopback addresses in the loopback lab, the local IP with two machines),
 * adds the lab's own check of {@code gid_idx} ({@link LabChecks}), and shows the report, failures
 * first and otherwise in the doctor's order. Each
 * failed row names the setup field or step parameter to change; where the lab can apply the fix
 * itself (the recommended GID, a path MTU the port can carry) the row carries a one-click action.
 *
 * <p>The peer probe is {@code doctor <local_ip> <device> <peer_ip>} from the window: this side's
 * checks for the setup's device and local IP, then the comparison with a peer running
 * {@code doctor --serve} and the active probe ({@link PeerDoctor}), shown as the command line prints
 * it. Every wait in it has a timeout ({@link #PEER_TIMEOUTS}, {@link #PEER_POLL_TIMEOUT}).
 *
 * <p>Threads: called on the UI thread; the checks and the probe run on the background executor (they
 * run tools, open the device and wait for the peer) and their results are published on the UI
 * executor. A run that finishes after a newer one of its kind started is dropped.
 */
public final class DoctorViewModel {

    private static final Logger LOG = Logger.getLogger(DoctorViewModel.class.getName());

    /** The checks whose result depends on the address: repeated for the loopback lab's second address. */
    private static final Set<String> PER_ADDRESS = Set.of("device", "netdev", "GID", LabChecks.GID_INDEX);

    /** The step and parameter a path MTU fix changes. */
    static final String RTR_STEP = "modify-rtr";
    static final String PATH_MTU = "path_mtu";

    /** How long the peer probe waits to connect to the peer and for each of its answers. */
    static final Timeouts PEER_TIMEOUTS = new Timeouts(Duration.ofSeconds(10), Duration.ofSeconds(10),
            Duration.ofSeconds(20));

    /** How long the peer probe waits for each write's completion (as {@code doctor --poll-timeout}). */
    static final Duration PEER_POLL_TIMEOUT = Duration.ofSeconds(5);

    /** Runs {@code doctor}'s peer mode for one target; tests give a fake, or the real one with short timeouts. */
    @FunctionalInterface
    public interface PeerProbe {
        /** This side's checks, then the comparison and the probe against {@code peerIp}, on the calling (background) thread. */
        List<Check> run(LocalChecks.Target target, String peerIp, int tcpPort);
    }

    /** The real peer mode: {@link LocalChecks} for the facts, then {@link PeerDoctor#connect}, as {@code doctor} does. */
    static PeerProbe peerProbe(Host host, Backends backends, Timeouts timeouts, Duration pollTimeout) {
        return (target, peerIp, tcpPort) -> {
            LocalChecks.Result local = new LocalChecks(host, backends).run(target);
            List<Check> all = new ArrayList<>(local.checks());
            if (local.facts().isEmpty()) {
                all.add(PeerDoctor.nothingToCompare());
                return all;
            }
            PeerDoctor.Settings settings = new PeerDoctor.Settings(target.localIp(), target.device(), target.port(),
                    target.options(), tcpPort, timeouts, pollTimeout);
            all.addAll(new PeerDoctor(backends, host).connect(settings, local.facts().get(), peerIp).checks());
            return all;
        };
    }

    /** Runs the doctor's local checks for one target; tests give a fake. */
    @FunctionalInterface
    public interface Checks {
        /** The checks for {@code target}, on the calling (background) thread. */
        LocalChecks.Result run(LocalChecks.Target target);
    }

    /**
     * A one-click fix in the lab.
     *
     * @param label what the button says
     * @param apply what the click does (on the UI thread)
     */
    public record Action(String label, Runnable apply) {
    }

    /**
     * One line of the report.
     *
     * @param check what the doctor found
     * @param where the address it was checked for ("client 127.0.0.2"), or empty when there is one
     * @param field the setup field or step parameter to change, or what outside the lab; empty unless failed
     * @param action the one-click fix, when the lab can apply it
     */
    public record Row(Check check, String where, String field, Optional<Action> action) {

        /** ✓, ✗ or -. */
        public String symbol() {
            return check.status().symbol();
        }

        /** The check's name, with the address when the report covers two. */
        public String title() {
            return check.name() + (where.isEmpty() ? "" : " · " + where);
        }
    }

    /** One address to check and how it is labelled in the report. */
    private record Address(String ip, String where) {
    }

    private final LabViewModel lab;
    private final Checks checks;
    private final DeviceOptions base;
    private final Executor background;
    private final Executor ui;
    private final ObservableList<Row> rows = FXCollections.observableArrayList();
    private final ReadOnlyStringWrapper summary = new ReadOnlyStringWrapper(UiText.text("doctor.notRunYet"));
    private final ReadOnlyStringWrapper subject = new ReadOnlyStringWrapper("");
    private final ReadOnlyBooleanWrapper running = new ReadOnlyBooleanWrapper();
    private final PeerProbe peerProbe;
    private final StringProperty peerIp = new SimpleStringProperty("");
    private final ReadOnlyStringWrapper peerSummary = new ReadOnlyStringWrapper(
            UiText.text("doctor.probe.notProbed"));
    private final ReadOnlyStringWrapper peerReport = new ReadOnlyStringWrapper("");
    private final ReadOnlyBooleanWrapper probing = new ReadOnlyBooleanWrapper();
    private long peerGeneration;
    private long generation;
    private boolean waitingForDevice;
    private boolean ranOnce;

    /**
     * The doctor over this machine ({@link Host#system()}) and {@code backends}.
     *
     * @param base device options of software devices (their address is replaced per address checked)
     */
    public DoctorViewModel(LabViewModel lab, Backends backends, DeviceOptions base, Executor background, Executor ui) {
        this(lab, target -> new LocalChecks(Host.system(), backends).run(target),
                peerProbe(Host.system(), backends, PEER_TIMEOUTS, PEER_POLL_TIMEOUT), base, background, ui);
    }

    /** The doctor with its own checks (tests). */
    DoctorViewModel(LabViewModel lab, Checks checks, DeviceOptions base, Executor background, Executor ui) {
        this(lab, checks, (target, peer, tcpPort) -> List.of(Check.skip("peer", "no peer probe in this test")), base,
                background, ui);
    }

    /** The doctor with its own checks and peer probe (tests). */
    DoctorViewModel(LabViewModel lab, Checks checks, PeerProbe peerProbe, DeviceOptions base, Executor background,
            Executor ui) {
        this.lab = lab;
        this.checks = checks;
        this.peerProbe = peerProbe;
        this.base = base;
        this.background = background;
        this.ui = ui;
        String setupPeer = lab.setup().peerIpProperty().get();
        peerIp.set(setupPeer == null ? "" : setupPeer.trim());
        lab.setup().deviceProperty().addListener((observable, before, device) -> {
            if (device != null && waitingForDevice) {
                waitingForDevice = false;
                run();
            }
        });
    }

    /** Runs the checks the first time only (the tab was shown); later runs are the user's. */
    public void runOnce() {
        if (!ranOnce) {
            run();
        }
    }

    /** Runs the checks for the setup as it is now. */
    public void run() {
        ranOnce = true;
        SetupViewModel setup = lab.setup();
        if (setup.deviceProperty().get() == null) {
            waitingForDevice = true;
            summary.set(UiText.text("doctor.waitingForDevices"));
            return;
        }
        String device = setup.deviceProperty().get().name();
        boolean loopback = setup.modeProperty().get() == LabSetup.Mode.LOOPBACK;
        int port = setup.portProperty().get() == null ? 1 : setup.portProperty().get().number();
        String gidIndex = setup.gidIndexProperty().get() == null ? "" : setup.gidIndexProperty().get();
        Mtu pathMtu = largestPathMtu();
        List<Address> addresses = loopback
                ? List.of(new Address(LabSetup.LOOPBACK_SERVER_IP, where("server", LabSetup.LOOPBACK_SERVER_IP)),
                        new Address(LabSetup.LOOPBACK_CLIENT_IP, where("client", LabSetup.LOOPBACK_CLIENT_IP)))
                : List.of(new Address(setup.localIpProperty().get().trim(), ""));
        subject.set((loopback ? UiText.format("doctor.subject.loopback", device, port, LabSetup.LOOPBACK_SERVER_IP,
                LabSetup.LOOPBACK_CLIENT_IP, gidIndex.trim()) : UiText.format("doctor.subject.twoMachines", device, port,
                addresses.get(0).ip(), gidIndex.trim()))
                + (pathMtu == null ? "" : UiText.format("doctor.subject.pathMtu", pathMtu.bytes())));
        long run = ++generation;
        running.set(true);
        summary.set(UiText.text("doctor.running"));
        background.execute(() -> {
            List<Row> found = check(device, port, gidIndex, pathMtu, addresses, loopback);
            ui.execute(() -> publish(run, found));
        });
    }

    /** "server 127.0.0.1": the side's word in the window's language and its address. */
    private static String where(String side, String ip) {
        return UiText.format("doctor.where", UiText.side(side), ip);
    }

    /** The largest path_mtu of the sides' RTR steps, or null without sides. */
    private Mtu largestPathMtu() {
        int largest = -1;
        for (SideViewModel side : lab.sides()) {
            largest = Math.max(largest, pathMtu(side));
        }
        return largest < 0 ? null : Mtu.ofBytes(largest);
    }

    private static int pathMtu(SideViewModel side) {
        return side.session().steps().stream().filter(step -> step.id().equals(RTR_STEP)).findFirst()
                .map(step -> Integer.parseInt(step.parameter(PATH_MTU).value())).orElse(-1);
    }

    /** On the background thread: the checks for every address, as rows. */
    private List<Row> check(String device, int port, String gidIndex, Mtu pathMtu, List<Address> addresses,
            boolean loopback) {
        List<Row> found = new ArrayList<>();
        try {
            for (int i = 0; i < addresses.size(); i++) {
                Address address = addresses.get(i);
                DeviceOptions options;
                try {
                    options = base.withAddress(DeviceOptions.parseAddress(address.ip()));
                } catch (IllegalArgumentException e) {
                    found.add(new Row(Check.fail("local IP", "'" + address.ip() + "' is not an IPv4 address: "
                            + e.getMessage(), "type one of this machine's IPv4 addresses"), address.where(),
                            UiText.text("doctor.field.localIp"), Optional.empty()));
                    continue;
                }
                LocalChecks.Result result = checks.run(new LocalChecks.Target(address.ip(), device, options,
                        pathMtu, port));
                List<Check> all = new ArrayList<>(result.checks());
                all.add(LabChecks.gidIndex(gidIndex, result.facts()));
                for (Check check : all) {
                    if (i == 0 || PER_ADDRESS.contains(check.name())) {
                        found.add(row(check, address.where(), result.facts(), pathMtu, loopback));
                    }
                }
            }
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "the doctor's checks stopped", e);
            found.add(new Row(Check.fail("doctor", "the checks stopped: " + e, "run 'doctor --verbose <local_ip> "
                    + device + "' from a terminal to see where"), "", "", Optional.empty()));
        }
        return found;
    }

    /** The row for a check: for a failure, the field to change and, where the lab can, the one-click fix. */
    private Row row(Check check, String where, Optional<SideFacts> facts, Mtu pathMtu, boolean loopback) {
        if (!check.failed()) {
            return new Row(check, where, "", Optional.empty());
        }
        String localIp = UiText.text(loopback ? "doctor.field.loopbackAddresses" : "doctor.field.localIp");
        return switch (check.name()) {
            case LabChecks.GID_INDEX -> new Row(check, where, UiText.text("doctor.field.gidIndex"), facts
                    .filter(side -> side.gidIndex() >= 0)
                    .map(side -> new Action(UiText.format("doctor.useGid", side.gidIndex()),
                            () -> useGid(side.gidIndex()))));
            case "MTU" -> {
                Optional<Integer> active = facts.map(SideFacts::activeMtu).filter(mtu -> mtu > 0);
                if (pathMtu != null && active.isPresent() && pathMtu.bytes() > active.get()) {
                    yield new Row(check, where, UiText.format("doctor.field.pathMtu", UiText.text("step." + RTR_STEP)),
                            Optional.of(new Action(UiText.format("doctor.usePathMtu", active.get()),
                                    () -> usePathMtu(active.get()))));
                }
                yield new Row(check, where, UiText.text("doctor.field.netdevMtu"), Optional.empty());
            }
            case "GID", "netdev" -> new Row(check, where, UiText.text(loopback ? "doctor.field.loAddresses"
                    : "doctor.field.localIpOrAddresses"), Optional.empty());
            case "device" -> new Row(check, where, UiText.format("doctor.field.device", localIp), Optional.empty());
            case "port" -> new Row(check, where, UiText.text("doctor.field.link"), Optional.empty());
            default -> new Row(check, where, UiText.text("doctor.field.thisMachine"), Optional.empty());
        };
    }

    private void publish(long run, List<Row> found) {
        if (run != generation) {
            return;
        }
        // Failures first: the inspector is narrow, and what needs a change should be seen without scrolling.
        List<Row> ordered = new ArrayList<>(found.stream().filter(row -> row.check().failed()).toList());
        ordered.addAll(found.stream().filter(row -> !row.check().failed()).toList());
        rows.setAll(ordered);
        running.set(false);
        long passed = found.stream().filter(row -> row.check().status() == Check.Status.PASS).count();
        long failed = found.stream().filter(row -> row.check().failed()).count();
        long skipped = found.size() - passed - failed;
        summary.set(UiText.format("doctor.summary", passed, failed)
                + (skipped == 0 ? "" : UiText.format("doctor.summary.skipped", skipped)));
    }

    /** Every side takes GID {@code index}, starts over and runs back to where it was; then the checks run again. */
    void useGid(int index) {
        lab.applyFix(null, new Diagnosis.Fix("query-port", "gid_idx", Integer.toString(index),
                org.rdmalab.lab.LabPhrase.of("fix.useGid", index)));
        run();
    }

    /** Every side whose RTR step asks for more than {@code bytes} takes {@code bytes}; then the checks run again. */
    void usePathMtu(int bytes) {
        for (SideViewModel side : List.copyOf(lab.sides())) {
            if (pathMtu(side) > bytes) {
                lab.applyFix(side, new Diagnosis.Fix(RTR_STEP, PATH_MTU, Integer.toString(bytes),
                        org.rdmalab.lab.LabPhrase.of("fix.activeMtu", bytes)));
            }
        }
        run();
    }

    /**
     * Probes the peer in {@link #peerIpProperty()}: this side is the setup's device, port and local
     * IP (the software device with the lab's UDP port), the TCP port the setup's. A bad address or a
     * missing device is said at once; otherwise the probe runs in the background and its report
     * replaces the last one.
     */
    public void probePeer() {
        SetupViewModel setup = lab.setup();
        String peer = peerIp.get() == null ? "" : peerIp.get().trim();
        String local = setup.localIpProperty().get() == null ? "" : setup.localIpProperty().get().trim();
        if (setup.deviceProperty().get() == null) {
            peerSummary.set(UiText.text("doctor.probe.noDevice"));
            return;
        }
        DeviceOptions options;
        try {
            DeviceOptions.parseAddress(peer);
        } catch (IllegalArgumentException e) {
            peerSummary.set(UiText.format("doctor.probe.badPeerIp", peer));
            return;
        }
        try {
            options = base.withAddress(DeviceOptions.parseAddress(local));
        } catch (IllegalArgumentException e) {
            peerSummary.set(UiText.format("doctor.probe.badLocalIp", local));
            return;
        }
        String device = setup.deviceProperty().get().name();
        int port = setup.portProperty().get() == null ? 1 : setup.portProperty().get().number();
        int tcpPort = setup.tcpPortProperty().get();
        LocalChecks.Target target = new LocalChecks.Target(local, device, options, largestPathMtu(), port);
        String header = "doctor: " + device + " on " + local + ", peer " + peer + ":" + tcpPort;
        long run = ++peerGeneration;
        probing.set(true);
        peerSummary.set(UiText.format("doctor.probe.probing", peer, tcpPort, device, local));
        background.execute(() -> {
            List<Check> found;
            try {
                found = peerProbe.run(target, peer, tcpPort);
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "the peer probe stopped", e);
                found = List.of(Check.fail("doctor", "the probe stopped: " + e, "run 'doctor --verbose " + local + " "
                        + device + " " + peer + "' from a terminal to see where"));
            }
            List<Check> report = found;
            ui.execute(() -> publishPeer(run, header, report));
        });
    }

    private void publishPeer(long run, String header, List<Check> found) {
        if (run != peerGeneration) {
            return;
        }
        probing.set(false);
        peerReport.set(Report.text(header, found));
        peerSummary.set(header.substring(header.indexOf("peer ")) + ": " + Report.result(found)
                .substring("result: ".length()));
    }

    /** The peer's IP for the probe; it starts as the setup's peer IP. */
    public StringProperty peerIpProperty() {
        return peerIp;
    }

    /** "peer 10.1.0.1:12025: all 17 checks passed", or what the probe is doing. */
    public ReadOnlyStringProperty peerSummaryProperty() {
        return peerSummary.getReadOnlyProperty();
    }

    /** The probe's report as {@code doctor} prints it; empty before the first probe. */
    public ReadOnlyStringProperty peerReportProperty() {
        return peerReport.getReadOnlyProperty();
    }

    /** True while the peer probe runs. */
    public ReadOnlyBooleanProperty probingProperty() {
        return probing.getReadOnlyProperty();
    }

    /** The report, one row per check. */
    public ObservableList<Row> rows() {
        return rows;
    }

    /** "14 passed, 1 failed", or what the doctor is doing. */
    public ReadOnlyStringProperty summaryProperty() {
        return summary.getReadOnlyProperty();
    }

    /** What was checked: the device, port, addresses, gid_idx and path MTU. */
    public ReadOnlyStringProperty subjectProperty() {
        return subject.getReadOnlyProperty();
    }

    /** True while the checks run. */
    public ReadOnlyBooleanProperty runningProperty() {
        return running.getReadOnlyProperty();
    }
}
