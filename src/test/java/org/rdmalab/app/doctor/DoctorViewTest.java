package org.rdmalab.app.doctor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import javafx.scene.Node;
import javafx.scene.Parent;
import javafx.scene.Scene;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.Labeled;
import javafx.scene.control.TextArea;
import javafx.scene.control.TextField;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.rdmalab.app.MainWindow;
import org.rdmalab.app.WindowRobot;
import org.rdmalab.app.common.Views;
import org.rdmalab.app.lab.LabViewModel;
import org.rdmalab.doctor.Check;
import org.rdmalab.doctor.LocalChecks;
import org.rdmalab.doctor.SideFacts;
import org.rdmalab.testing.Ports;
import org.rdmalab.verbs.spi.Backends;
import org.rdmalab.verbs.spi.DeviceOptions;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.Start;

/** DoctorView.fxml loaded alone with its controller over a fake doctor, then clicked (TestFX, headless). */
@ExtendWith(WindowRobot.class)
class DoctorViewTest {

    private LabViewModel lab;
    private int calls;
    private final List<String> probes = new java.util.ArrayList<>();
    private Stage stage;

    /** Its own window, so its size cannot change the primary stage other TestFX classes share. */
    @Start
    void start(Stage primary) throws Exception {
        stage = new Stage();
        DeviceOptions base = DeviceOptions.defaults().withUdpPort(Ports.freeUdpPort());
        lab = new LabViewModel(Backends.installed(), base, Runnable::run, Runnable::run, LabViewModel.daemonWorkers());
        lab.apply(lab.defaultSetup());
        DoctorViewModel doctor = new DoctorViewModel(lab, target -> {
            calls++;
            String ip = target.localIp();
            return new LocalChecks.Result(List.of(Check.pass("device", "soft0 opened on " + ip),
                    Check.skip("firewall", "could not read the rules"),
                    Check.pass("GID", ip + " is GID[3] ::ffff:" + ip + " RoCE v2")),
                    Optional.of(new SideFacts("soft0", "software", ip, "lo", 8, 65536, 1024, -1, "Ethernet", "ACTIVE",
                            3, "::ffff:" + ip, "RoCE v2")));
        }, (target, peer, tcpPort) -> {
            probes.add(target.localIp() + " → " + peer + ":" + tcpPort);
            return List.of(Check.pass("peer", "the server " + peer + " answered"),
                    Check.fail("compare netdev MTU", "netdev MTU 1000 here (eth0), 1500 on the peer (eth0)",
                            "set the same MTU on both: sudo ip link set dev <netdev> mtu 1000"));
        }, base, Runnable::run, Runnable::run);
        Parent view = new Views(Map.of(DoctorView.class, new DoctorView(doctor))).load("/fxml/doctor/DoctorView.fxml");
        Scene scene = new Scene(view, 520, 700);
        scene.getStylesheets().add(Views.resource(MainWindow.STYLESHEET).toExternalForm());
        stage.setScene(scene);
        stage.show();
    }

    @AfterEach
    void close(FxRobot robot) {
        robot.interact(() -> {
            stage.close();
            lab.close();
        });
    }

    private static String text(FxRobot robot, String query) {
        return robot.lookup(query).queryAs(Labeled.class).getText();
    }

    @Test
    void loadsAndShowsTheReportWithTheFieldAndTheFixOfEachFailure(FxRobot robot) {
        assertEquals(1, calls / 2, "shown outside a tab, the view ran the checks once, for both loopback addresses");
        assertEquals("4 passed, 2 failed, 1 not applicable", text(robot, "#doctorSummary"));
        assertEquals(7, robot.lookup(".doctor-row").queryAll().size());
        assertEquals(2, robot.lookup(".doctor-fail").queryAll().size());
        Node failed = robot.lookup(".doctor-fail").query();
        assertEquals("✗", robot.from(failed).lookup(".doctor-mark").queryAs(Label.class).getText());
        assertEquals("gid_idx · server 127.0.0.1", robot.from(failed).lookup(".doctor-name").queryAs(Label.class).getText());
        assertEquals("Change: Setup › gid_idx", robot.from(failed).lookup(".doctor-field").queryAs(Label.class).getText());
        assertTrue(robot.from(failed).lookup(".doctor-fix").queryAs(Label.class).getText()
                .startsWith("Fix: use gid_idx 3, the recommended GID[3]"));
        assertTrue(robot.lookup("#doctorSubject").queryAs(Label.class).getText().contains("gid_idx -1"));
    }

    @Test
    void theFixButtonSetsTheRecommendedGidAndTheReportRunsAgain(FxRobot robot) {
        robot.clickOn(robot.lookup(".doctor-fix-button").queryAs(Button.class));
        assertEquals("3", lab.setup().gidIndexProperty().get());
        assertEquals(2, calls / 2);
        assertEquals("6 passed, 0 failed, 1 not applicable", text(robot, "#doctorSummary"));
        assertTrue(robot.lookup(".doctor-fail").queryAll().isEmpty());
        assertTrue(robot.lookup("#doctorSubject").queryAs(Label.class).getText().contains("gid_idx 3"));
    }

    @Test
    void reRunRunsTheChecksAgain(FxRobot robot) {
        robot.clickOn("#doctorRerun");
        assertEquals(4, calls);
        assertEquals("4 passed, 2 failed, 1 not applicable", text(robot, "#doctorSummary"));
    }

    @Test
    void theProbeButtonProbesThePeerInTheFieldAndShowsTheCommandLinesReport(FxRobot robot) {
        assertTrue(robot.lookup("#doctorPeerReport").queryAs(TextArea.class).getText().isEmpty());
        TextField field = robot.lookup("#doctorPeerIp").queryAs(TextField.class);
        assertEquals(lab.setup().peerIpProperty().get(), field.getText(), "the field starts as Setup's peer IP");
        robot.interact(field::clear);
        robot.clickOn(field).write("10.1.0.1");
        assertEquals("10.1.0.1", robot.lookup("#doctorPeerIp").queryAs(TextField.class).getText());
        robot.clickOn("#doctorProbe");
        assertEquals(List.of("127.0.0.1 → 10.1.0.1:12025"), probes);
        assertEquals("peer 10.1.0.1:12025: 1 of 2 checks failed", text(robot, "#doctorPeerSummary"));
        TextArea report = robot.lookup("#doctorPeerReport").queryAs(TextArea.class);
        assertTrue(report.isVisible());
        assertEquals("doctor: soft0 on 127.0.0.1, peer 10.1.0.1:12025\n✓ peer: the server 10.1.0.1 answered\n"
                + "✗ compare netdev MTU: netdev MTU 1000 here (eth0), 1500 on the peer (eth0)\n"
                + "    fix: set the same MTU on both: sudo ip link set dev <netdev> mtu 1000\n"
                + "result: 1 of 2 checks failed\n", report.getText());
    }
}
