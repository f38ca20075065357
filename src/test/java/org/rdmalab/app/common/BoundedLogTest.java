package org.rdmalab.app.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.IntStream;
import javafx.collections.FXCollections;
import javafx.collections.ListChangeListener;
import org.junit.jupiter.api.Test;

/**
 * The log's rows as a table sees them: every change it hears, replayed on a plain list, gives the
 * rows the log has, across the ring's wrap, a batch larger than the limit, a sort and a clear.
 */
class BoundedLogTest {

    /** A copy kept only from the changes heard, as a TableView's skin keeps its rows. */
    private static List<Integer> mirror(BoundedLog<Integer> log, int[] changes) {
        List<Integer> copy = new ArrayList<>(log.rows());
        log.rows().addListener((ListChangeListener<Integer>) change -> {
            changes[0]++;
            while (change.next()) {
                if (change.wasRemoved()) {
                    List<Integer> gone = copy.subList(change.getFrom(), change.getFrom() + change.getRemovedSize());
                    assertEquals(change.getRemoved(), List.copyOf(gone), "the rows said removed are those there");
                    gone.clear();
                }
                if (change.wasAdded()) {
                    copy.addAll(change.getFrom(), change.getAddedSubList());
                }
            }
        });
        return copy;
    }

    @Test
    void eachBatchIsOneChangeThatDropsTheOldestRowsAndAppendsTheNew() {
        BoundedLog<Integer> log = new BoundedLog<>(100);
        int[] changes = new int[1];
        List<Integer> copy = mirror(log, changes);
        int next = 0;
        // Batches of 7 go round the ring many times; the last is larger than the limit itself.
        for (int batch = 0; batch < 40; batch++) {
            log.addAll(IntStream.range(next, next + 7).boxed().toList());
            next += 7;
            assertEquals(IntStream.range(Math.max(0, next - 100), next).boxed().toList(), log.rows());
            assertEquals(log.rows(), copy);
        }
        assertEquals(40, changes[0]);
        assertEquals(180, log.droppedProperty().get());
        log.addAll(IntStream.range(next, next + 250).boxed().toList());
        next += 250;
        assertEquals(IntStream.range(next - 100, next).boxed().toList(), log.rows());
        assertEquals(log.rows(), copy);
        assertEquals(180 + 250, log.droppedProperty().get());
        log.addAll(List.of());
        assertEquals(41, changes[0], "an empty batch changes nothing");
        // Exactly at the limit nothing is dropped; one more drops one.
        BoundedLog<Integer> full = new BoundedLog<>(3);
        full.addAll(List.of(1, 2, 3));
        assertEquals(0, full.droppedProperty().get());
        full.addAll(List.of(4));
        assertEquals(List.of(2, 3, 4), full.rows());
        assertEquals(1, full.droppedProperty().get());
        assertThrows(IndexOutOfBoundsException.class, () -> full.rows().get(3));
        assertThrows(IndexOutOfBoundsException.class, () -> full.rows().get(-1));
    }

    @Test
    void aTableSortsTheRowsInPlaceAndNewRowsStillComeAtTheEnd() {
        BoundedLog<Integer> log = new BoundedLog<>(10);
        int[] changes = new int[1];
        List<Integer> copy = mirror(log, changes);
        log.addAll(List.of(5, 1, 9, 3, 7, 2, 8));
        log.addAll(List.of(6, 4, 0, 11)); // wraps: 5 goes
        FXCollections.sort(log.rows(), Comparator.reverseOrder()); // a TableView's sort policy does this
        assertEquals(List.of(11, 9, 8, 7, 6, 4, 3, 2, 1, 0), log.rows());
        assertEquals(log.rows(), copy);
        log.addAll(List.of(42));
        assertEquals(List.of(9, 8, 7, 6, 4, 3, 2, 1, 0, 42), log.rows());
        assertEquals(log.rows(), copy);
        log.clear();
        assertEquals(List.of(), log.rows());
        assertEquals(List.of(), copy);
        assertEquals(0, log.droppedProperty().get());
        log.addAll(List.of(1, 2));
        assertEquals(List.of(1, 2), copy);
    }
}
