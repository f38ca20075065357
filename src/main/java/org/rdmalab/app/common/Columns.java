package org.rdmalab.app.common;

import java.util.function.Function;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.scene.control.TableColumn;

/** Table columns whose cells show one derived value of the row. */
public final class Columns {

    private Columns() {
    }

    /** Shows {@code value} of each row in {@code column}. */
    public static <R, V> void show(TableColumn<R, V> column, Function<R, V> value) {
        column.setCellValueFactory(cell -> new ReadOnlyObjectWrapper<>(value.apply(cell.getValue())));
    }

    /**
     * "123 packets" and, when some were dropped, how many, in the window's language; {@code noun}
     * is "completions", "calls" or "packets".
     */
    public static String count(int rows, long dropped, String noun) {
        return UiText.format("count." + noun + (rows == 1 ? ".one" : ""), rows)
                + (dropped > 0 ? UiText.format("count.dropped", dropped) : "");
    }
}
