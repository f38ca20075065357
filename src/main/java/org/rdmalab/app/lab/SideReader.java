package org.rdmalab.app.lab;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import org.rdmalab.lab.LabSession;

/**
 * Reads something of every side's session on the background executor (verbs queries never run on
 * the JavaFX thread) and hands the results, by side name in the sides' order, to the UI executor.
 * At most one read is pending: refreshes asked for while one waits are covered by it.
 */
public final class SideReader<T> {

    private final LabViewModel lab;
    private final Executor background;
    private final Executor ui;
    private final BiFunction<String, LabSession, T> read;
    private final Consumer<Map<String, T>> publish;
    private final AtomicBoolean pending = new AtomicBoolean();

    public SideReader(LabViewModel lab, Executor background, Executor ui, BiFunction<String, LabSession, T> read,
               Consumer<Map<String, T>> publish) {
        this.lab = lab;
        this.background = background;
        this.ui = ui;
        this.read = read;
        this.publish = publish;
    }

    /** Reads every side again, unless a read is already pending. */
    public void refresh() {
        if (!pending.compareAndSet(false, true)) {
            return;
        }
        List<SideViewModel> sides = List.copyOf(lab.sides());
        background.execute(() -> {
            pending.set(false);
            Map<String, T> values = new LinkedHashMap<>();
            for (SideViewModel side : sides) {
                values.put(side.name(), read.apply(side.name(), side.session()));
            }
            ui.execute(() -> publish.accept(values));
        });
    }
}
