package org.rdmalab.app;

import java.util.concurrent.Callable;
import javafx.scene.input.MouseButton;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.robot.Motion;
import org.testfx.robot.MouseRobot;
import org.testfx.service.query.PointQuery;

/**
 * TestFX's JUnit extension for the window tests, whose robot clicks with one wait instead of three.
 * TestFX waits for the JavaFX thread after each part of a click (five round trips to it with 10 ms
 * of sleep after each, at least 50 ms): after the step it moves the mouse from where it was, after
 * the move to the target and after the release. Here the mouse jumps to the target, presses and
 * releases, and the release waits as TestFX's does. The JavaFX thread gets the move, the press and
 * the release in that order, as before: the robot hands each to it through the same queue. A click
 * with another {@link Motion} (along one axis first) is TestFX's own. After each test TestFX releases
 * the mouse buttons still pressed, and waits even when none is: here it waits only when one is.
 * {@code interact} runs its work on the JavaFX thread (at most 10 s: TestFX waits without a limit)
 * and then waits for the end of the next pulse, so that what the work changed has had its CSS and
 * layout, instead of TestFX's five round trips to the JavaFX thread with 10 ms of sleep after each.
 */
public class WindowRobot extends ApplicationExtension {

    @Override
    public FxRobot clickOn(PointQuery pointQuery, Motion motion, MouseButton... buttons) {
        if (motion != Motion.DEFAULT && motion != Motion.DIRECT) {
            return super.clickOn(pointQuery, motion, buttons);
        }
        MouseRobot mouse = robotContext().getMouseRobot();
        mouse.moveNoWait(pointQuery.query());
        mouse.pressNoWait(buttons);
        mouse.release(buttons);
        return this;
    }

    @Override
    public FxRobot release(MouseButton... buttons) {
        if (buttons.length == 0 && robotContext().getMouseRobot().getPressedButtons().isEmpty()) {
            return this;
        }
        return super.release(buttons);
    }

    @Override
    public FxRobot interact(Runnable runnable) {
        FxWait.onFx(() -> {
            runnable.run();
            return null;
        });
        FxWait.pulse();
        return this;
    }

    @Override
    public <T> FxRobot interact(Callable<T> callable) {
        FxWait.onFx(callable);
        FxWait.pulse();
        return this;
    }
}
