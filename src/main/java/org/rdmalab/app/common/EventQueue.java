package org.rdmalab.app.common;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * Collects items from any thread and hands them to the UI in batches: one drain is pending at a
 * time, and everything that arrives before it runs joins its batch. With a {@link FrameExecutor}
 * that is at most one batch a frame; tests pass a same-thread executor and get batches of one.
 *
 * @param <T> the item type
 */
public final class EventQueue<T> {

    private final ConcurrentLinkedQueue<T> items = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean scheduled = new AtomicBoolean();
    private final Executor ui;
    private final Consumer<List<T>> sink;

    public EventQueue(Executor ui, Consumer<List<T>> sink) {
        this.ui = ui;
        this.sink = sink;
    }

    /** Queues {@code item}; any thread. */
    public void offer(T item) {
        items.add(item);
        if (scheduled.compareAndSet(false, true)) {
            ui.execute(this::drain);
        }
    }

    private void drain() {
        scheduled.set(false);
        List<T> batch = new ArrayList<>();
        T item;
        while ((item = items.poll()) != null) {
            batch.add(item);
        }
        if (!batch.isEmpty()) {
            sink.accept(batch);
        }
    }
}
