package org.rdmalab.app.doctor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.rdmalab.app.TestUiThread;
import org.rdmalab.app.lab.LabViewModel;
import org.rdmalab.app.lab.SetupViewModel;
import org.rdmalab.app.lab.SideViewModel;
import org.rdmalab.control.Timeouts;
import org.rdmalab.doctor.Check;
import org.rdmalab.doctor.Host;
import org.rdmalab.doctor.LocalChecks;
import org.rdmalab.doctor.PeerDoctor;
import org.rdmalab.doctor.Report;
import org.rdmalab.doctor.SideFacts;
import org.rdmalab.testing.Ports;
import org.rdmalab.verbs.spi.Backends;
import org.rdmalab.verbs.spi.DeviceOptions;

/**
 * The Doctor view's model without the toolkit: the lab on a single "UI" thread standing in for the
 * JavaFX thread, the doctor with same-thread executors (or queues, to see which runs where).
 */
class DoctorViewModelTest {

    private TestUiThread uiThread;
    private DeviceOptions base;
    private LabViewModel lab;

    @BeforeEach
    void start() {
        uiThread = new TestUiThread(Duration.ofSeconds(60));
        base = DeviceOptions.defaults().withUdpPort(Ports.freeUdpPort());
        lab = onUi(() -> {
            LabViewModel made = new LabViewModel(Backends.installed(), base, Runnable::run, uiThread,
                    LabViewModel.daemonWorkers());
            made.apply(made.defaultSetup());
            return made;
        });
        await("the device and its GID table", () -> lab.setup().deviceProperty().get() != null
                && !lab.setup().gids().isEmpty());
    }

    @AfterEach
    void stop() throws InterruptedException {
        onUi(() -> {
            lab.close();
            return null;
        });
        assertTrue(uiThread.stop());
    }

    private <T> T onUi(Callable<T> action) {
        return uiThread.call(action);
    }

    private void await(String what, BooleanSupplier condition) {
        uiThread.await(what, condition);
    }

    /** A soft0-like report for one address: everything passes, GID[3] carries the address. */
    private static LocalChecks.Result healthy(LocalChecks.Target target) {
        String ip = target.localIp();
        return new LocalChecks.Result(List.of(
                Check.pass("device", "soft0 opened on " + ip),
                Check.pass("port", "soft0 port 1: ACTIVE"),
                Check.pass("MTU", "active MTU 1024"),
                Check.pass("GID", ip + " is GID[3] ::ffff:" + ip + " RoCE v2")),
                Optional.of(new SideFacts("soft0", "software", ip, "lo", 8, 65536, 1024, -1, "Ethernet", "ACTIVE", 3,
                        "::ffff:" + ip, "RoCE v2")));
    }

    private static List<String> lines(DoctorViewModel doctor) {
        return doctor.rows().stream().map(row -> row.symbol() + " " + row.title()).toList();
    }

    private static DoctorViewModel.Row row(DoctorViewModel doctor, String title) {
        return doctor.rows().stream().filter(row -> row.title().equals(title)).findFirst()
                .orElseThrow(() -> new AssertionError("no row '" + title + "' in " + lines(doctor)));
    }

    private boolean idle() {
        return lab.sides().stream().noneMatch(side -> side.busyProperty().get());
    }

    @Test
    void checksBothLoopbackAddressesAndTheSeedsGidIndexFailsWithAOneClickFixThatReplaysTheLab() {
        List<LocalChecks.Target> targets = new ArrayList<>();
        DoctorViewModel doctor = onUi(() -> new DoctorViewModel(lab, target -> {
            targets.add(target);
            return healthy(target);
        }, base, Runnable::run, Runnable::run));
        onUi(() -> {
            doctor.run();
            return null;
        });
        assertEquals(List.of("127.0.0.1", "127.0.0.2"), targets.stream().map(LocalChecks.Target::localIp).toList());
        assertEquals("soft0", targets.get(0).device());
        assertEquals(256, targets.get(0).pathMtu().bytes(), "the RTR step's path_mtu is checked");
        assertEquals(base.udpPort(), targets.get(1).options().udpPort());
        assertEquals("127.0.0.2", targets.get(1).options().address().getHostAddress());
        onUi(() -> {
            assertEquals(List.of("✗ gid_idx · server 127.0.0.1", "✗ gid_idx · client 127.0.0.2",
                    "✓ device · server 127.0.0.1", "✓ port · server 127.0.0.1", "✓ MTU · server 127.0.0.1",
                    "✓ GID · server 127.0.0.1", "✓ device · client 127.0.0.2", "✓ GID · client 127.0.0.2"),
                    lines(doctor), "failures first, then the doctor's order");
            assertEquals("6 passed, 2 failed", doctor.summaryProperty().get());
            assertTrue(doctor.subjectProperty().get().startsWith("soft0 port 1 for the loopback lab"),
                    doctor.subjectProperty().get());
            DoctorViewModel.Row gid = row(doctor, "gid_idx · client 127.0.0.2");
            assertEquals("Setup › gid_idx", gid.field());
            assertTrue(gid.check().fix().startsWith("use gid_idx 3, the recommended GID[3] ::ffff:127.0.0.2"),
                    gid.check().fix());
            assertEquals("Use GID 3", gid.action().orElseThrow().label());
            assertTrue(row(doctor, "GID · client 127.0.0.2").action().isEmpty());
            gid.action().get().apply().run();
            assertEquals("3", lab.setup().gidIndexProperty().get());
            assertEquals(List.of("✓ gid_idx · server 127.0.0.1", "✓ gid_idx · client 127.0.0.2"), lines(doctor)
                    .stream().filter(line -> line.contains("gid_idx")).toList());
            assertEquals("8 passed, 0 failed", doctor.summaryProperty().get());
            return null;
        });
        await("both sides replayed", this::idle);
        onUi(() -> {
            for (SideViewModel side : lab.sides()) {
                assertEquals("3", side.session().steps().stream().filter(step -> step.id().equals("query-port"))
                        .findFirst().orElseThrow().parameter("gid_idx").value(), side.name());
            }
            return null;
        });
    }

    @Test
    void soft0sRealReportShowsPassedChecksAndTheRecommendedGidFixesGidIdx() {
        DoctorViewModel doctor = onUi(() -> new DoctorViewModel(lab, Backends.installed(), base, Runnable::run,
                Runnable::run));
        onUi(() -> {
            doctor.run();
            for (String title : List.of("device · server 127.0.0.1", "port · server 127.0.0.1", "MTU · server 127.0.0.1",
                    "GID · server 127.0.0.1", "device · client 127.0.0.2", "GID · client 127.0.0.2")) {
                assertEquals(Check.Status.PASS, row(doctor, title).check().status(), () -> title + ": "
                        + row(doctor, title).check().found());
            }
            assertTrue(row(doctor, "GID · client 127.0.0.2").check().found().contains("recommended GID[3]"));
            assertEquals(Check.Status.SKIP, row(doctor, "libibverbs · server 127.0.0.1").check().status());
            DoctorViewModel.Row gid = row(doctor, "gid_idx · server 127.0.0.1");
            assertTrue(gid.check().failed());
            assertTrue(gid.check().found().contains("ibv_modify_qp to RTR fails with EINVAL"), gid.check().found());
            long failed = doctor.rows().stream().filter(row -> row.check().failed()).count();
            long passed = doctor.rows().stream().filter(row -> row.check().status() == Check.Status.PASS).count();
            assertTrue(doctor.summaryProperty().get().startsWith(passed + " passed, " + failed + " failed"),
                    doctor.summaryProperty().get());
            gid.action().orElseThrow().apply().run();
            assertFalse(row(doctor, "gid_idx · server 127.0.0.1").check().failed());
            assertTrue(row(doctor, "gid_idx · client 127.0.0.2").check().found()
                    .startsWith("gid_idx 3 is the recommended GID[3] ::ffff:127.0.0.2 (RoCE v2)"));
            return null;
        });
        await("both sides replayed", this::idle);
    }

    @Test
    void aPathMtuAboveTheActiveMtuNamesTheRtrParameterAndTheButtonSetsItOnEverySide() {
        DoctorViewModel doctor = onUi(() -> new DoctorViewModel(lab, Backends.installed(), base, Runnable::run,
                Runnable::run));
        onUi(() -> {
            for (SideViewModel side : lab.sides()) {
                rtr(side).parameter("path_mtu").set("4096");
            }
            doctor.run();
            DoctorViewModel.Row mtu = row(doctor, "MTU · server 127.0.0.1");
            assertTrue(mtu.check().failed());
            assertTrue(mtu.check().found().startsWith("path MTU 4096 is above the active MTU 1024"),
                    mtu.check().found());
            assertEquals("Step 'Modify QP to RTR' › path_mtu (every side)", mtu.field());
            assertEquals("Use path_mtu 1024", mtu.action().orElseThrow().label());
            mtu.action().get().apply().run();
            for (SideViewModel side : lab.sides()) {
                assertEquals("1024", rtr(side).parameter("path_mtu").value(), side.name());
            }
            assertEquals(Check.Status.PASS, row(doctor, "MTU · server 127.0.0.1").check().status());
            assertTrue(doctor.subjectProperty().get().endsWith("path_mtu 1024"), doctor.subjectProperty().get());
            return null;
        });
    }

    private static org.rdmalab.lab.Step rtr(SideViewModel side) {
        return side.session().steps().stream().filter(step -> step.id().equals("modify-rtr")).findFirst().orElseThrow();
    }

    @Test
    void theChecksRunOnTheBackgroundExecutorAndOnlyTheNewestRunIsPublished() {
        List<Runnable> background = new ArrayList<>();
        List<Runnable> ui = new ArrayList<>();
        List<String> ranOn = new ArrayList<>();
        int[] runs = new int[1];
        DoctorViewModel doctor = onUi(() -> new DoctorViewModel(lab, target -> {
            ranOn.add(Thread.currentThread().getName());
            LocalChecks.Result result = healthy(target);
            List<Check> checks = new ArrayList<>(result.checks());
            checks.add(Check.pass("call", "call " + ++runs[0]));
            return new LocalChecks.Result(checks, result.facts());
        }, base, background::add, ui::add));
        onUi(() -> {
            doctor.run();
            assertTrue(doctor.runningProperty().get());
            assertEquals("running the checks...", doctor.summaryProperty().get());
            doctor.run();
            return null;
        });
        assertTrue(ranOn.isEmpty(), "nothing ran on the calling thread");
        assertEquals(2, background.size());
        background.forEach(Runnable::run);
        assertEquals(4, ranOn.size(), "two runs, two addresses each, on the background executor");
        assertEquals(2, ui.size());
        onUi(() -> {
            assertTrue(doctor.rows().isEmpty(), "rows are published on the UI executor only");
            ui.forEach(Runnable::run);
            assertFalse(doctor.runningProperty().get());
            assertEquals("call 3", row(doctor, "call · server 127.0.0.1").check().found(), "the older run was dropped");
            assertEquals("7 passed, 2 failed", doctor.summaryProperty().get());
            return null;
        });
    }

    @Test
    void withoutADeviceTheDoctorWaitsAndRunsOnceOneIsChosen() {
        List<LocalChecks.Target> targets = new ArrayList<>();
        onUi(() -> {
            SetupViewModel.DeviceChoice chosen = lab.setup().deviceProperty().get();
            lab.setup().deviceProperty().set(null);
            DoctorViewModel doctor = new DoctorViewModel(lab, target -> {
                targets.add(target);
                return healthy(target);
            }, base, Runnable::run, Runnable::run);
            doctor.runOnce();
            assertTrue(targets.isEmpty());
            assertTrue(doctor.summaryProperty().get().startsWith("waiting for the device list"));
            lab.setup().deviceProperty().set(chosen);
            assertEquals(2, targets.size());
            doctor.runOnce();
            assertEquals(2, targets.size(), "runOnce runs the first time only");
            return null;
        });
    }
    // ---- the peer probe ------------------------------------------------------------------------

    /** A thread for the probe, standing in for the window's background executor. */
    private static void onNewThread(Runnable work) {
        Thread thread = new Thread(work, "test doctor background");
        thread.setDaemon(true);
        thread.start();
    }

    @Test
    void probingAPeerThatServesShowsTheReportAsTheCommandLinePrintsIt() throws Exception {
        int tcpPort = Ports.freeTcpPort();
        DeviceOptions peerOptions = base.withAddress(DeviceOptions.parseAddress("127.0.0.3"));
        Backends backends = Backends.installed();
        // The peer: doctor --serve 127.0.0.3 soft0 in this JVM (its own address, the lab's UDP port).
        LocalChecks.Result peerLocal = new LocalChecks(Host.system(), backends).run(
                new LocalChecks.Target("127.0.0.3", "soft0", peerOptions, null, 1));
        PeerDoctor.Result[] served = new PeerDoctor.Result[1];
        Thread server = new Thread(() -> served[0] = new PeerDoctor(backends, Host.system()).serve(
                new PeerDoctor.Settings("127.0.0.3", "soft0", 1, peerOptions, tcpPort, new Timeouts(
                        Duration.ofSeconds(30), Duration.ofSeconds(30), Duration.ofSeconds(30)), Duration.ofSeconds(5)),
                peerLocal.facts().orElseThrow()), "test doctor --serve");
        server.start();
        DoctorViewModel doctor = onUi(() -> new DoctorViewModel(lab, target -> healthy(target),
                DoctorViewModel.peerProbe(Host.system(), backends, new Timeouts(Duration.ofSeconds(30),
                        Duration.ofSeconds(30), Duration.ofSeconds(30)), Duration.ofSeconds(5)),
                base, DoctorViewModelTest::onNewThread, uiThread));
        onUi(() -> {
            lab.setup().localIpProperty().set("127.0.0.4");
            lab.setup().tcpPortProperty().set(tcpPort);
            doctor.peerIpProperty().set(" 127.0.0.3 ");
            doctor.probePeer();
            assertTrue(doctor.probingProperty().get(), "the probe runs in the background");
            assertEquals("probing 127.0.0.3:" + tcpPort + " from soft0 on 127.0.0.4...", doctor.peerSummaryProperty().get());
            return null;
        });
        await("the probe's report", () -> !doctor.probingProperty().get());
        server.join(30_000);
        String report = onUi(() -> doctor.peerReportProperty().get());
        assertTrue(report.startsWith("doctor: soft0 on 127.0.0.4, peer 127.0.0.3:" + tcpPort
                + "\n- libibverbs: soft0 is RDMA Lab's own software device"), report);
        assertTrue(report.contains("\n✓ peer: the server 127.0.0.3 answered: soft0 (software)"), report);
        assertTrue(report.contains("\n✓ compare GID: both use RoCE v2"), report);
        assertTrue(report.contains("\n✓ probe: small write client → server: 16-byte RDMA WRITE client → server:"
                + " IBV_WC_SUCCESS; the server received "), report);
        assertTrue(report.contains("\n✓ probe: full write server → client: "), report);
        assertTrue(report.matches("(?s).*\nresult: all \\d+ checks passed\n"), report);
        assertEquals("peer 127.0.0.3:" + tcpPort + ": all " + report.lines().filter(l -> l.startsWith("✓")).count()
                + " checks passed", onUi(() -> doctor.peerSummaryProperty().get()));
        assertTrue(served[0].checks().stream().noneMatch(Check::failed), "the serving side passed too");
    }

    @Test
    void aPeerThatIsNotRunningIsReportedWhenTheConnectTimeoutEnds() {
        int tcpPort = Ports.freeTcpPort();
        DoctorViewModel doctor = onUi(() -> new DoctorViewModel(lab, target -> healthy(target),
                DoctorViewModel.peerProbe(Host.system(), Backends.installed(), new Timeouts(Duration.ofSeconds(1),
                        Duration.ofSeconds(1), Duration.ofSeconds(2)), Duration.ofSeconds(1)),
                base, DoctorViewModelTest::onNewThread, uiThread));
        onUi(() -> {
            lab.setup().localIpProperty().set("127.0.0.4");
            lab.setup().tcpPortProperty().set(tcpPort);
            doctor.peerIpProperty().set("127.0.0.5");
            doctor.probePeer();
            return null;
        });
        await("the probe's report", () -> !doctor.probingProperty().get());
        String report = onUi(() -> doctor.peerReportProperty().get());
        assertTrue(report.contains("\n✗ peer: no doctor answers at 127.0.0.5:" + tcpPort + ": nothing listens on "),
                report);
        assertTrue(report.contains("\n    fix: the peer is not running: start 'doctor --serve 127.0.0.5 <device>'"
                + " there first"), report);
        assertTrue(report.endsWith("\nresult: 1 of " + report.lines().filter(l -> l.startsWith("✓")
                || l.startsWith("✗")).count() + " checks failed\n"), report);
    }

    @Test
    void theProbeRunsOnTheBackgroundExecutorAndABadAddressIsSaidAtOnce() {
        List<Runnable> background = new ArrayList<>();
        List<Runnable> ui = new ArrayList<>();
        List<String> probed = new ArrayList<>();
        List<Check> found = List.of(Check.pass("peer", "the server answered"),
                Check.fail("probe: small write client → server", "a black hole", "allow UDP 4791"));
        DoctorViewModel doctor = onUi(() -> new DoctorViewModel(lab, target -> healthy(target), (target, peer, port) -> {
            probed.add(target.device() + " " + target.localIp() + " " + peer + ":" + port + " on "
                    + (Thread.currentThread().getName().equals("test ui") ? "the UI thread" : "another thread"));
            return found;
        }, base, background::add, ui::add));
        onUi(() -> {
            doctor.peerIpProperty().set("10.1.0.");
            doctor.probePeer();
            assertFalse(doctor.probingProperty().get());
            assertTrue(doctor.peerSummaryProperty().get().startsWith("'10.1.0.' is not an IPv4 address"),
                    doctor.peerSummaryProperty().get());
            lab.setup().localIpProperty().set("10.1.0.2");
            doctor.peerIpProperty().set("10.1.0.1");
            doctor.probePeer();
            assertTrue(doctor.probingProperty().get());
            return null;
        });
        assertTrue(probed.isEmpty(), "nothing ran on the calling thread");
        assertEquals(1, background.size());
        background.forEach(Runnable::run);
        assertEquals(List.of("soft0 10.1.0.2 10.1.0.1:12025 on another thread"), probed);
        onUi(() -> {
            assertEquals("", doctor.peerReportProperty().get(), "the report is published on the UI executor only");
            ui.forEach(Runnable::run);
            assertFalse(doctor.probingProperty().get());
            assertEquals(Report.text("doctor: soft0 on 10.1.0.2, peer 10.1.0.1:12025", found),
                    doctor.peerReportProperty().get());
            assertEquals("doctor: soft0 on 10.1.0.2, peer 10.1.0.1:12025\n✓ peer: the server answered\n✗ probe: small"
                    + " write client → server: a black hole\n    fix: allow UDP 4791\nresult: 1 of 2 checks failed\n",
                    doctor.peerReportProperty().get());
            assertEquals("peer 10.1.0.1:12025: 1 of 2 checks failed", doctor.peerSummaryProperty().get());
            return null;
        });
    }
}
