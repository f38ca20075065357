package org.rdmalab.app.common;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import javafx.animation.AnimationTimer;
import javafx.application.Platform;

/**
 * Runs tasks on the JavaFX thread at the next frame, all that arrived since the last one together:
 * however many events a packet storm produces, the window handles them at most once a frame. A
 * task handed in while a frame's tasks run goes to the next frame.
 * Any thread may {@link #execute}; the timer runs only while there is work.
 */
public final class FrameExecutor implements Executor {

    private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean armed = new AtomicBoolean();
    private final AnimationTimer timer = new AnimationTimer() {
        @Override
        public void handle(long now) {
            armed.set(false);
            stop();
            // Only what was there when the frame began: a task that a task hands in waits for the
            // next frame, so the window draws in between (a view can spread its work over frames).
            for (int i = tasks.size(); i > 0; i--) {
                Runnable task = tasks.poll();
                if (task == null) {
                    break;
                }
                task.run();
            }
        }
    };

    @Override
    public void execute(Runnable task) {
        tasks.add(task);
        if (armed.compareAndSet(false, true)) {
            Platform.runLater(timer::start);
        }
    }
}
