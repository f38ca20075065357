package org.rdmalab.app.packets;

import javafx.fxml.FXML;
import javafx.scene.control.Label;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableRow;
import javafx.scene.control.TableView;
import javafx.scene.control.Tooltip;
import org.rdmalab.app.common.Columns;
import org.rdmalab.app.common.UiText;

/**
 * Controller of {@code CountersView.fxml}: each side's port counters, what each one counts (its
 * tooltip), and how much it moved since the mark; rows that moved are lit, and Mark starts over.
 */
public final class CountersView {

    /** Style class of a row whose counter moved since the mark. */
    static final String MOVED = "counter-moved";

    private final CountersViewModel viewModel;

    @FXML
    private javafx.scene.control.CheckBox allCounters;
    @FXML
    private TableView<CountersViewModel.Row> counterTable;
    @FXML
    private TableColumn<CountersViewModel.Row, String> sideColumn;
    @FXML
    private TableColumn<CountersViewModel.Row, String> nameColumn;
    @FXML
    private TableColumn<CountersViewModel.Row, Long> valueColumn;
    @FXML
    private TableColumn<CountersViewModel.Row, String> sinceMarkColumn;

    public CountersView(CountersViewModel viewModel) {
        this.viewModel = viewModel;
    }

    @FXML
    private void initialize() {
        counterTable.setItems(viewModel.rows());
        allCounters.selectedProperty().bindBidirectional(viewModel.showAllProperty());
        counterTable.setPlaceholder(new Label(UiText.text("counters.none")));
        Columns.show(sideColumn, row -> UiText.side(row.side()));
        Columns.show(nameColumn, CountersViewModel.Row::name);
        Columns.show(valueColumn, CountersViewModel.Row::value);
        Columns.show(sinceMarkColumn, row -> row.sinceMark() == null ? "" : row.sinceMark() == 0 ? "0"
                : String.format(java.util.Locale.ROOT, "%+d", row.sinceMark()));
        counterTable.setRowFactory(table -> new TableRow<>() {
            @Override
            protected void updateItem(CountersViewModel.Row row, boolean empty) {
                super.updateItem(row, empty);
                getStyleClass().remove(MOVED);
                if (!empty && row != null && row.moved()) {
                    getStyleClass().add(MOVED);
                }
                String key = "counter." + (row == null ? "" : row.name());
                setTooltip(empty || row == null || !UiText.bundle().containsKey(key) ? null
                        : new Tooltip(row.name() + ": " + UiText.text(key)));
            }
        });
    }

    @FXML
    private void onMark() {
        viewModel.mark();
    }
}
