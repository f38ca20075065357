package org.rdmalab.app.common;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import javafx.collections.ObservableListBase;

/**
 * {@link BoundedLog}'s rows: an observable list kept in a ring, so that dropping the oldest rows
 * costs what they are, not a shift of every row behind them for each one dropped (JavaFX's own
 * list removes a range one element at a time from the front: 10 000 rows and a batch of 1 000
 * moved 10 million references on the JavaFX thread). Its users read it (a table's items); it
 * changes by {@link #append}, {@link #setAll(Collection)} (a table sorting it) and {@link #clear()},
 * each one change. JavaFX thread only.
 *
 * @param <T> the row type
 */
final class RingList<T> extends ObservableListBase<T> {

    private Object[] ring = new Object[16];
    private int head;
    private int size;

    @Override
    @SuppressWarnings("unchecked")
    public T get(int index) {
        if (index < 0 || index >= size) {
            throw new IndexOutOfBoundsException("index " + index + ", size " + size);
        }
        return (T) ring[(head + index) % ring.length];
    }

    @Override
    public int size() {
        return size;
    }

    /**
     * Drops the oldest {@code drop} rows, then appends {@code batch}, as one change.
     *
     * @param drop how many of the oldest rows go, at most the size
     * @param batch the rows added at the end
     */
    void append(int drop, List<? extends T> batch) {
        if (drop < 0 || drop > size) {
            throw new IllegalArgumentException("drop " + drop + " of " + size);
        }
        if (drop == 0 && batch.isEmpty()) {
            return;
        }
        beginChange();
        try {
            if (drop > 0) {
                List<T> removed = new ArrayList<>(drop);
                for (int i = 0; i < drop; i++) {
                    removed.add(get(i));
                    ring[(head + i) % ring.length] = null;
                }
                head = (head + drop) % ring.length;
                size -= drop;
                nextRemove(0, removed);
            }
            if (!batch.isEmpty()) {
                int from = size;
                ensureCapacity(size + batch.size());
                for (T row : batch) {
                    ring[(head + size) % ring.length] = row;
                    size++;
                }
                nextAdd(from, size);
            }
        } finally {
            endChange();
        }
    }

    /** Replaces every row (a table sorting its items does this), as one change. */
    @Override
    public boolean setAll(Collection<? extends T> rows) {
        List<T> removed = new ArrayList<>(this);
        Object[] next = new Object[Math.max(16, rows.size())];
        int count = 0;
        for (T row : rows) {
            next[count++] = row;
        }
        beginChange();
        try {
            ring = next;
            head = 0;
            size = count;
            if (!removed.isEmpty()) {
                nextRemove(0, removed);
            }
            if (count > 0) {
                nextAdd(0, count);
            }
        } finally {
            endChange();
        }
        return true;
    }

    @Override
    public void clear() {
        if (size > 0) {
            setAll(List.of());
        }
    }

    private void ensureCapacity(int wanted) {
        if (wanted <= ring.length) {
            return;
        }
        Object[] grown = new Object[Math.max(wanted, ring.length * 2)];
        for (int i = 0; i < size; i++) {
            grown[i] = ring[(head + i) % ring.length];
        }
        ring = grown;
        head = 0;
    }
}
