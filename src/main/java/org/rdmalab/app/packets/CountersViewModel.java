package org.rdmalab.app.packets;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;
import org.rdmalab.app.lab.LabViewModel;
import org.rdmalab.app.lab.SideReader;
import org.rdmalab.app.lab.SideViewModel;
import org.rdmalab.lab.LabSession;
import org.rdmalab.verbs.VerbsException;

/**
 * The port counters of the Wire tab's Counters tab: each side's counters by rxe's names
 * ({@code Context.queryCounters}: soft0's own, or {@code hw_counters} of an rxe or NIC port), and
 * after {@link #mark()} how much each moved since, so a student marks, runs a step and sees which
 * packets, retries and NAKs it cost. Counters still at zero are left out unless all are asked for.
 * New sides (a setup applied, a reset) start without a mark. Read on the background executor after
 * events, at most one read pending; published on the UI executor.
 */
public final class CountersViewModel {

    /**
     * One counter of one side.
     *
     * @param side "server", "client" or "local"
     * @param name rxe's name ({@code sent_pkts})
     * @param value its value now
     * @param sinceMark how much it moved since the mark; null before the first mark
     */
    public record Row(String side, String name, long value, Long sinceMark) {
        /** True when the counter moved since the mark. */
        public boolean moved() {
            return sinceMark != null && sinceMark != 0;
        }
    }

    private final SideReader<Map<String, Long>> reader;
    private final ObservableList<Row> rows = FXCollections.observableArrayList();
    private final javafx.beans.property.BooleanProperty showAll = new javafx.beans.property.SimpleBooleanProperty();
    /** Each side's values at the mark, or null before the first (UI thread). */
    private Map<String, Map<String, Long>> marked;
    /** Each side's values last read (UI thread). */
    private Map<String, Map<String, Long>> last = new LinkedHashMap<>();
    private final javafx.beans.property.BooleanProperty shown = new javafx.beans.property.SimpleBooleanProperty(true);
    /** A read was asked for while not shown (UI thread). */
    private boolean stale;

    public CountersViewModel(LabViewModel lab, Executor background, Executor ui) {
        reader = new SideReader<>(lab, background, ui, (name, session) -> read(session), this::published);
        lab.afterEvents(this::refresh);
        showAll.addListener((observable, before, all) -> publish(last));
        shown.addListener((observable, before, now) -> {
            if (now && stale) {
                refresh();
            }
        });
        lab.sides().addListener((javafx.collections.ListChangeListener<SideViewModel>) change -> {
            marked = null; // new sides, new devices: nothing marked on them
            refresh();
        });
    }

    /** Counters of every side, in the order the device lists them. */
    public ObservableList<Row> rows() {
        return rows;
    }

    /** Every counter, or only those that are not zero or moved since the mark (the default). */
    public javafx.beans.property.BooleanProperty showAllProperty() {
        return showAll;
    }

    /** Counts changes from the values shown now on. */
    public void mark() {
        marked = new LinkedHashMap<>(last);
        publish(last);
    }

    /**
     * Whether the counters are on screen (their tab chosen). While not, the lab's events do not
     * read them again: under a storm of packets that was a table rebuilt on the JavaFX thread for
     * every batch, unseen. They are read once when shown again.
     */
    public javafx.beans.property.BooleanProperty shownProperty() {
        return shown;
    }

    /** Reads the counters again, at most one read pending at a time; only a mark while not shown. */
    void refresh() {
        if (!shown.get()) {
            stale = true;
            return;
        }
        stale = false;
        reader.refresh();
    }

    private void published(Map<String, Map<String, Long>> read) {
        last = read;
        publish(read);
    }

    /** A side's counters; none before its device is open, or when the device has none. */
    static Map<String, Long> read(LabSession session) {
        try {
            return session.resources().context().isPresent() ? session.resources().context().get().queryCounters()
                    : Map.of();
        } catch (VerbsException | RuntimeException e) {
            return Map.of(); // closed under us by a reset: the next read sees the new device
        }
    }

    private void publish(Map<String, Map<String, Long>> values) {
        List<Row> built = new ArrayList<>();
        values.forEach((side, counters) -> {
            Map<String, Long> base = marked == null ? null : marked.getOrDefault(side, Map.of());
            counters.forEach((name, value) -> {
                Row row = new Row(side, name, value, base == null ? null : value - base.getOrDefault(name, 0L));
                if (showAll.get() || value != 0 || row.moved()) {
                    built.add(row);
                }
            });
        });
        rows.setAll(built);
    }
}
