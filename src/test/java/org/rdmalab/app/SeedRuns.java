package org.rdmalab.app;

import static org.junit.jupiter.api.Assertions.assertEquals;

import javafx.scene.control.Label;
import org.rdmalab.app.lab.SideViewModel;
import org.rdmalab.app.lab.StepRow;
import org.testfx.api.FxRobot;

/** The seed flow driven through the window as a student drives it, for the window tests in any language. */
public final class SeedRuns {

    private SeedRuns() {
    }

    /** The side called {@code name} ("server", "client"). */
    public static SideViewModel side(MainWindow window, String name) {
        return window.lab().sides().stream().filter(side -> side.name().equals(name)).findFirst().orElseThrow();
    }

    /**
     * Keeps the seed's gid_idx -1, clicks Run both to end and waits until the client's RTR has
     * failed and the cause is shown under the step.
     *
     * @return the cause's label
     */
    public static Label runUntilRtrFails(FxRobot robot, MainWindow window) {
        FxWait.waitFor("the devices", 30, () -> !window.lab().setup().gids().isEmpty() && !window.lab().sides().isEmpty());
        assertEquals("-1", window.lab().setup().gidIndexProperty().get(), "the seed's default is kept");
        robot.clickOn("#runAllButton");
        FxWait.waitFor("RTR to fail", 30, () -> side(window, "client").failedIndex() >= 0
                && !side(window, "client").busyProperty().get() && !side(window, "server").busyProperty().get());
        StepRow failed = side(window, "client").steps().get(side(window, "client").failedIndex());
        assertEquals("modify-rtr", failed.step().id());
        Label cause = robot.lookup("#causeLabel").queryAs(Label.class);
        FxWait.waitFor("the cause", 30, cause::isVisible);
        return cause;
    }
}
