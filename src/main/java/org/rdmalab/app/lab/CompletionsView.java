package org.rdmalab.app.lab;

import javafx.beans.binding.Bindings;
import javafx.fxml.FXML;
import javafx.scene.control.Label;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableRow;
import javafx.scene.control.TableView;
import org.rdmalab.app.common.BoundedLog;
import org.rdmalab.app.common.Columns;
import org.rdmalab.app.common.UiText;
import org.rdmalab.verbs.WcFlag;

/**
 * Controller of {@code CompletionsView.fxml}: every completion either side polled, newest last,
 * with status names as verbs.h spells them. The table is virtualised and bounded; the count says
 * how many rows were dropped.
 */
public final class CompletionsView {

    /** Style class of a row whose status is not IBV_WC_SUCCESS. */
    static final String ROW_ERROR = "row-error";

    private final LabViewModel lab;

    @FXML
    private Label countLabel;
    @FXML
    private TableView<CompletionRow> completionTable;
    @FXML
    private TableColumn<CompletionRow, String> timeColumn;
    @FXML
    private TableColumn<CompletionRow, String> sideColumn;
    @FXML
    private TableColumn<CompletionRow, String> wrIdColumn;
    @FXML
    private TableColumn<CompletionRow, String> statusColumn;
    @FXML
    private TableColumn<CompletionRow, String> opcodeColumn;
    @FXML
    private TableColumn<CompletionRow, String> byteLenColumn;
    @FXML
    private TableColumn<CompletionRow, String> qpNumColumn;
    @FXML
    private TableColumn<CompletionRow, String> srcQpColumn;
    @FXML
    private TableColumn<CompletionRow, String> immColumn;
    @FXML
    private TableColumn<CompletionRow, String> sincePostColumn;

    public CompletionsView(LabViewModel lab) {
        this.lab = lab;
    }

    @FXML
    private void initialize() {
        BoundedLog<CompletionRow> log = lab.completionLog();
        completionTable.setItems(log.rows());
        completionTable.setPlaceholder(new Label(UiText.text("completions.none")));
        Columns.show(timeColumn, row -> LabViewModel.TIME.format(row.at()));
        Columns.show(sideColumn, row -> UiText.side(row.side()));
        Columns.show(wrIdColumn, row -> Long.toUnsignedString(row.completion().wrId()));
        Columns.show(statusColumn, row -> row.completion().status().cName());
        Columns.show(opcodeColumn, row -> row.completion().isSuccess() ? row.completion().opcode().cName() : "");
        Columns.show(byteLenColumn, row -> Integer.toUnsignedString(row.completion().byteLength()));
        Columns.show(qpNumColumn, row -> String.format("0x%x", row.completion().qpNum()));
        Columns.show(srcQpColumn, row -> String.format("0x%x", row.completion().srcQp()));
        Columns.show(immColumn, row -> WcFlag.has(row.completion().wcFlags(), WcFlag.WITH_IMM)
                ? String.format("0x%08x", row.completion().immData()) : "");
        Columns.show(sincePostColumn, CompletionRow::sincePost);
        completionTable.setRowFactory(table -> new TableRow<>() {
            @Override
            protected void updateItem(CompletionRow row, boolean empty) {
                super.updateItem(row, empty);
                getStyleClass().remove(ROW_ERROR);
                if (!empty && row != null && !row.completion().isSuccess()) {
                    getStyleClass().add(ROW_ERROR);
                }
                setTooltip(empty || row == null ? null : new javafx.scene.control.Tooltip(
                        row.completion().status().cName() + ": " + row.completion().status().text()));
            }
        });
        countLabel.textProperty().bind(Bindings.createStringBinding(
                () -> Columns.count(log.rows().size(), log.droppedProperty().get(), "completions"),
                log.rows(), log.droppedProperty()));
        // One selection with the views tied to it: the table shows the lab's, and a row picked becomes it.
        boolean[] following = new boolean[1];
        completionTable.getSelectionModel().selectedItemProperty().addListener((observable, before, row) -> {
            if (!following[0]) {
                lab.selectedCompletionProperty().set(row);
            }
        });
        lab.selectedCompletionProperty().addListener((observable, before, row) -> {
            following[0] = true;
            try {
                if (row == null) {
                    completionTable.getSelectionModel().clearSelection();
                } else if (completionTable.getSelectionModel().getSelectedItem() != row) {
                    completionTable.getSelectionModel().select(row);
                    completionTable.scrollTo(row);
                }
            } finally {
                following[0] = false;
            }
        });
        log.rows().addListener((javafx.collections.ListChangeListener<CompletionRow>) change -> {
            if (!log.rows().isEmpty()) {
                completionTable.scrollTo(log.rows().size() - 1);
            }
        });
    }
}
