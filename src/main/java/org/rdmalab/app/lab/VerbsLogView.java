package org.rdmalab.app.lab;

import java.util.stream.Collectors;
import javafx.beans.binding.Bindings;
import javafx.fxml.FXML;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.SelectionMode;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableView;
import javafx.scene.input.Clipboard;
import javafx.scene.input.ClipboardContent;
import javafx.scene.input.KeyCode;
import javafx.scene.input.KeyCodeCombination;
import javafx.scene.input.KeyCombination;
import org.rdmalab.app.common.BoundedLog;
import org.rdmalab.app.common.Columns;
import org.rdmalab.app.common.UiText;

/**
 * Controller of {@code VerbsLogView.fxml}: every verbs call both sides made, in order, with its
 * arguments, return value and errno. Rows copy as text (the selection with Ctrl+C, or all).
 */
public final class VerbsLogView {

    private final LabViewModel lab;

    @FXML
    private Label countLabel;
    @FXML
    private Button copyButton;
    @FXML
    private TableView<VerbRow> verbTable;
    @FXML
    private TableColumn<VerbRow, String> timeColumn;
    @FXML
    private TableColumn<VerbRow, String> sideColumn;
    @FXML
    private TableColumn<VerbRow, String> verbColumn;
    @FXML
    private TableColumn<VerbRow, String> argumentsColumn;
    @FXML
    private TableColumn<VerbRow, String> returnColumn;
    @FXML
    private TableColumn<VerbRow, String> resultColumn;
    @FXML
    private TableColumn<VerbRow, String> errnoColumn;

    public VerbsLogView(LabViewModel lab) {
        this.lab = lab;
    }

    @FXML
    private void initialize() {
        BoundedLog<VerbRow> log = lab.verbLog();
        verbTable.setItems(log.rows());
        verbTable.setPlaceholder(new Label(UiText.text("verbslog.none")));
        verbTable.getSelectionModel().setSelectionMode(SelectionMode.MULTIPLE);
        Columns.show(timeColumn, row -> LabViewModel.TIME.format(row.at()));
        Columns.show(sideColumn, row -> UiText.side(row.side()));
        Columns.show(verbColumn, VerbRow::verb);
        Columns.show(argumentsColumn, VerbRow::arguments);
        Columns.show(returnColumn, row -> row.ok() ? "0" : "-1");
        Columns.show(resultColumn, VerbRow::result);
        Columns.show(errnoColumn, VerbRow::errno);
        countLabel.textProperty().bind(Bindings.createStringBinding(
                () -> Columns.count(log.rows().size(), log.droppedProperty().get(), "calls"),
                log.rows(), log.droppedProperty()));
        verbTable.setOnKeyPressed(event -> {
            if (new KeyCodeCombination(KeyCode.C, KeyCombination.SHORTCUT_DOWN).match(event)) {
                copy(verbTable.getSelectionModel().getSelectedItems());
            }
        });
    }

    /** The rows as text, one line each. */
    static String text(java.util.List<VerbRow> rows) {
        return rows.stream().map(VerbRow::line).collect(Collectors.joining("\n", "", "\n"));
    }

    private static void copy(java.util.List<VerbRow> rows) {
        ClipboardContent content = new ClipboardContent();
        content.putString(text(rows));
        Clipboard.getSystemClipboard().setContent(content);
    }

    @FXML
    private void onCopy() {
        copy(lab.verbLog().rows());
    }
}
