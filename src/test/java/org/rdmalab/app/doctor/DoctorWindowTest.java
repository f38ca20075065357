package org.rdmalab.app.doctor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.function.BooleanSupplier;
import javafx.scene.Node;
import javafx.scene.control.Label;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.rdmalab.app.FxWait;
import org.rdmalab.app.MainWindow;
import org.rdmalab.app.WindowRobot;
import org.rdmalab.testing.Ports;
import org.rdmalab.verbs.spi.Backends;
import org.rdmalab.verbs.spi.DeviceOptions;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.Start;

/** The lab window's Doctor tab on soft0, opened and clicked as a user would (TestFX, headless). */
@ExtendWith(WindowRobot.class)
class DoctorWindowTest {

    private MainWindow window;

    @Start
    void start(Stage stage) throws Exception {
        window = MainWindow.create(Backends.installed(), DeviceOptions.defaults().withUdpPort(Ports.freeUdpPort()));
        stage.setScene(window.scene());
        stage.setTitle(MainWindow.TITLE);
        stage.show();
    }

    @AfterEach
    void close(FxRobot robot) {
        robot.interact(window::close);
    }

    private static void waitFor(String what, BooleanSupplier condition) {
        FxWait.waitFor(what, 30, condition);
    }

    /** The report's rows as "✓ GID · client 127.0.0.2". */
    private static List<String> rows(FxRobot robot) {
        return robot.lookup(".doctor-row").queryAll().stream().map(row -> robot.from(row).lookup(".doctor-mark")
                .queryAs(Label.class).getText() + " " + robot.from(row).lookup(".doctor-name").queryAs(Label.class)
                .getText()).toList();
    }

    @Test
    void theDoctorTabRunsSoft0sChecksWhenFirstShownAndItsGidButtonFixesTheLab(FxRobot robot) {
        // The Doctor tab's content joins the scene when the tab is first shown: read it from the tab.
        javafx.scene.Node doctor = org.rdmalab.app.LazyTabContent.contentOf(robot.lookup(".inspector")
                .queryAs(javafx.scene.control.TabPane.class).getTabs().stream()
                .filter(tab -> "doctorTab".equals(tab.getId())).findFirst().orElseThrow());
        Label summary = robot.from(doctor).lookup("#doctorSummary").queryAs(Label.class);
        waitFor("the devices", () -> !window.lab().setup().gids().isEmpty());
        assertEquals("not run yet", summary.getText(), "the checks wait until the tab is shown");
        robot.clickOn(robot.lookup(".inspector .tab .tab-label").match(node -> node instanceof Label label
                && "Doctor".equals(label.getText())).queryAs(Node.class));
        waitFor("the report", () -> summary.getText().matches("\\d+ passed.*"));
        List<String> rows = rows(robot);
        for (String passed : List.of("✓ device · server 127.0.0.1", "✓ port · server 127.0.0.1", "✓ MTU · server 127.0.0.1",
                "✓ GID · server 127.0.0.1", "✓ device · client 127.0.0.2", "✓ GID · client 127.0.0.2")) {
            assertTrue(rows.contains(passed), () -> passed + " in " + rows);
        }
        assertTrue(rows.contains("✗ gid_idx · client 127.0.0.2"), rows::toString);
        robot.clickOn(robot.lookup(".doctor-fix-button").match(node -> "Use GID 3".equals(((javafx.scene.control.Button)
                node).getText())).queryAs(Node.class));
        waitFor("the report again", () -> summary.getText().matches("\\d+ passed.*")
                && rows(robot).contains("✓ gid_idx · client 127.0.0.2"));
        assertEquals("3", window.lab().setup().gidIndexProperty().get());
        assertTrue(rows(robot).contains("✓ gid_idx · server 127.0.0.1"), () -> rows(robot).toString());
        assertFalse(robot.lookup("#doctorRerun").queryButton().isDisabled());
        waitFor("the sides replayed", () -> window.lab().sides().stream().noneMatch(side -> side.busyProperty().get()));
    }
}
