package org.rdmalab.app.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import javafx.beans.InvalidationListener;
import javafx.beans.binding.Bindings;
import javafx.scene.control.Button;
import javafx.scene.control.ContextMenu;
import javafx.scene.control.Label;
import javafx.scene.control.MenuItem;
import javafx.scene.control.SelectionMode;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableView;
import javafx.scene.control.TextArea;
import javafx.scene.control.ToggleButton;
import javafx.scene.control.Tooltip;
import javafx.scene.input.Clipboard;
import javafx.scene.input.ClipboardContent;
import javafx.scene.input.KeyCode;
import javafx.scene.input.KeyCodeCombination;
import javafx.scene.input.KeyCombination;
import org.rdmalab.app.common.Columns;
import org.rdmalab.app.common.UiText;

/**
 * The Bench tab's results: the table of {@link BenchResults#resultRows()} in perftest's columns
 * for the shown run's mode, then the ratio and the {@code --verbose} figures, copied as
 * tab-separated text with Ctrl+C, the context menu or Copy rows; its row count; and, while Details
 * is pressed, the {@code --verbose} lines under it. Part of {@link BenchView}, which hands it the
 * nodes of its FXML.
 *
 * <p>Threads: the JavaFX thread.
 */
final class ResultsTable {

    private final BenchResults results;
    private final TableView<BenchResults.ResultRow> table;

    ResultsTable(BenchResults results, TableView<BenchResults.ResultRow> table) {
        this.results = results;
        this.table = table;
    }

    /** Fills and binds the table, the Copy button, the row count and the verbose lines shown by Details. */
    void install(Button copyButton, Label rowCount, TextArea verbose, ToggleButton details) {
        table.setItems(results.resultRows());
        table.setPlaceholder(new Label(UiText.text("bench.tablePlaceholder")));
        table.getSelectionModel().setSelectionMode(SelectionMode.MULTIPLE);
        results.columns().addListener((InvalidationListener) observable -> columns());
        columns();
        table.setOnKeyPressed(event -> {
            if (new KeyCodeCombination(KeyCode.C, KeyCombination.SHORTCUT_DOWN).match(event)) {
                copy(table.getSelectionModel().getSelectedItems());
                event.consume();
            }
        });
        MenuItem copySelected = new MenuItem(UiText.text("bench.copySelectedRows"));
        copySelected.setOnAction(event -> copy(table.getSelectionModel().getSelectedItems()));
        MenuItem copyAll = new MenuItem(UiText.text("bench.copyAllRows"));
        copyAll.setOnAction(event -> copy(results.resultRows()));
        table.setContextMenu(new ContextMenu(copySelected, copyAll));
        copyButton.disableProperty().bind(Bindings.isEmpty(results.resultRows()));
        rowCount.textProperty().bind(Bindings.createStringBinding(() -> {
            int count = results.resultRows().size();
            return count == 0 ? UiText.text("bench.results")
                    : UiText.format(count == 1 ? "bench.resultsRow" : "bench.resultsRows", count);
        }, results.resultRows()));
        verbose.textProperty().bind(Bindings.when(
                results.verboseTextProperty().isEmpty()).then(UiText.text("bench.verbosePlaceholder"))
                .otherwise(results.verboseTextProperty()));
        verbose.visibleProperty().bind(details.selectedProperty());
        verbose.managedProperty().bind(verbose.visibleProperty());
        details.setTooltip(new Tooltip(UiText.text("bench.tip.details")));
    }

    /** The table's columns: the path, perftest's for the shown run's mode, then the ratio and the --verbose figures. */
    private void columns() {
        List<TableColumn<BenchResults.ResultRow, String>> built = new ArrayList<>();
        built.add(column("path", BenchResults.ResultRow::path, 70));
        List<String> names = results.columns();
        for (int i = 0; i < names.size(); i++) {
            int index = i;
            built.add(column(names.get(i), row -> index < row.cells().size() ? row.cells().get(index) : "",
                    Math.max(70, 7 * names.get(i).length() + 28)));
        }
        List<String> extra = BenchResults.TABLE_EXTRA_COLUMNS;
        built.add(column(extra.get(0), BenchResults.ResultRow::lost, 50));
        built.add(column(extra.get(1), BenchResults.ResultRow::ratio, 55));
        built.add(column(extra.get(2), BenchResults.ResultRow::allocation, 120));
        built.add(column(extra.get(3), BenchResults.ResultRow::gc, 80));
        built.add(column(extra.get(4), BenchResults.ResultRow::counters, 420));
        table.getColumns().setAll(built);
    }

    private static TableColumn<BenchResults.ResultRow, String> column(String name,
            Function<BenchResults.ResultRow, String> value, double width) {
        TableColumn<BenchResults.ResultRow, String> column = new TableColumn<>(name);
        Columns.show(column, value);
        column.setPrefWidth(width);
        column.setSortable(false);
        return column;
    }

    /** Puts {@code rows} on the clipboard as tab-separated text under a head line; nothing selected copies all. */
    void copy(List<BenchResults.ResultRow> rows) {
        List<BenchResults.ResultRow> chosen = rows.isEmpty() ? results.resultRows() : rows;
        ClipboardContent content = new ClipboardContent();
        content.putString(BenchResults.tableText(results.columns(), List.copyOf(chosen)));
        Clipboard.getSystemClipboard().setContent(content);
    }
}
