package org.rdmalab.app.common;

import java.util.List;
import javafx.beans.property.ReadOnlyLongProperty;
import javafx.beans.property.ReadOnlyLongWrapper;
import javafx.collections.ObservableList;

/**
 * A table's rows with a limit: when more arrive, the oldest go and are counted, so a long run
 * neither grows without bound nor hides that rows were dropped. JavaFX thread only.
 *
 * @param <T> the row type
 */
public final class BoundedLog<T> {

    private final RingList<T> rows = new RingList<>();
    private final ReadOnlyLongWrapper dropped = new ReadOnlyLongWrapper();
    private final int limit;

    public BoundedLog(int limit) {
        this.limit = limit;
    }

    /** Appends a batch in one change. */
    public void addAll(List<T> batch) {
        if (batch.isEmpty()) {
            return;
        }
        int overflow = rows.size() + batch.size() - limit;
        int fromRows = 0;
        if (overflow > 0) {
            // The oldest rows go in the same change (a ring: they cost what they are).
            fromRows = Math.min(overflow, rows.size());
            dropped.set(dropped.get() + overflow);
            batch = batch.subList(overflow - fromRows, batch.size());
        }
        rows.append(fromRows, batch);
    }

    public void clear() {
        rows.clear();
        dropped.set(0);
    }

    public ObservableList<T> rows() {
        return rows;
    }

    public ReadOnlyLongProperty droppedProperty() {
        return dropped.getReadOnlyProperty();
    }

    int limit() {
        return limit;
    }
}
