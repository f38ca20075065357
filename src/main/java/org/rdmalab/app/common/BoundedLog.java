package org.rdmalab.app.common;

import java.util.List;
import javafx.beans.property.ReadOnlyLongProperty;
import javafx.beans.property.ReadOnlyLongWrapper;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;

/**
 * A table's rows with a limit: when more arrive, the oldest go and are counted, so a long run
 * neither grows without bound nor hides that rows were dropped. JavaFX thread only.
 *
 * @param <T> the row type
 */
public final class BoundedLog<T> {

    private final ObservableList<T> rows = FXCollections.observableArrayList();
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
        if (overflow > 0) {
            int fromRows = Math.min(overflow, rows.size());
            rows.remove(0, fromRows);
            dropped.set(dropped.get() + overflow);
            batch = batch.subList(overflow - fromRows, batch.size());
        }
        rows.addAll(batch);
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
