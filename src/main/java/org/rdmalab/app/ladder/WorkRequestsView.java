package org.rdmalab.app.ladder;

import javafx.application.Platform;
import javafx.collections.ListChangeListener;
import javafx.fxml.FXML;
import javafx.scene.control.Label;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableRow;
import javafx.scene.control.TableView;
import org.rdmalab.app.common.Columns;
import org.rdmalab.app.common.UiText;
import org.rdmalab.ladder.WorkRequest;

/**
 * Controller of {@code WorkRequestsView.fxml}: the posted work requests (side, wr_id, opcode,
 * length, PSN range, state with a failed completion's status) above the ladder, a row picked
 * selecting the request for the ladder and the completions table, and the selected one in a line
 * below. While none is picked, the table keeps the newest request in view.
 */
public final class WorkRequestsView {

    /** Style class of a row whose completion carried an error (a flush included). */
    static final String ROW_ERROR = "row-error";

    private final WorkRequestsViewModel viewModel;
    private boolean following;

    @FXML
    private TableView<WorkRequest> requestTable;
    @FXML
    private TableColumn<WorkRequest, String> sideColumn;
    @FXML
    private TableColumn<WorkRequest, String> wrIdColumn;
    @FXML
    private TableColumn<WorkRequest, String> opcodeColumn;
    @FXML
    private TableColumn<WorkRequest, String> lengthColumn;
    @FXML
    private TableColumn<WorkRequest, String> psnColumn;
    @FXML
    private TableColumn<WorkRequest, String> stateColumn;

    /** {@code value} of {@code request}, read again each time the requests change (once a batch). */
    private javafx.beans.value.ObservableValue<String> live(WorkRequest request,
                                                          java.util.function.Function<WorkRequest, String> value) {
        return javafx.beans.binding.Bindings.createStringBinding(() -> value.apply(request),
                viewModel.revisionProperty());
    }

    public WorkRequestsView(WorkRequestsViewModel viewModel) {
        this.viewModel = viewModel;
    }

    @FXML
    private void initialize() {
        requestTable.setItems(viewModel.requests());
        requestTable.getProperties().put(WorkRequestsViewModel.class, viewModel);
        requestTable.setPlaceholder(new Label(UiText.text("wr.none")));
        Columns.show(sideColumn, request -> UiText.side(request.side()));
        Columns.show(wrIdColumn, request -> Long.toUnsignedString(request.wrId()));
        Columns.show(opcodeColumn, request -> request.opcode().cName());
        Columns.show(lengthColumn, request -> Long.toString(request.length()));
        // The PSNs and the state change in place: these cells follow the batches' revision (no cell is rebuilt).
        psnColumn.setCellValueFactory(cell -> live(cell.getValue(), WorkRequest::psnRange));
        stateColumn.setCellValueFactory(cell -> live(cell.getValue(), WorkRequestsViewModel::stateWords));
        requestTable.setRowFactory(table -> new TableRow<>() {
            private final javafx.scene.control.Tooltip tip = new javafx.scene.control.Tooltip();

            private final javafx.beans.value.ChangeListener<Number> revised = (observable, before, now) -> mark();

            {
                viewModel.revisionProperty().addListener(new javafx.beans.value.WeakChangeListener<>(revised));
            }

            @Override
            protected void updateItem(WorkRequest request, boolean empty) {
                super.updateItem(request, empty);
                mark();
            }

            private void mark() {
                WorkRequest request = isEmpty() ? null : getItem();
                boolean failed = request != null && request.failed();
                if (failed != getStyleClass().contains(ROW_ERROR)) {
                    if (failed) {
                        getStyleClass().add(ROW_ERROR);
                    } else {
                        getStyleClass().remove(ROW_ERROR);
                    }
                }
                if (request == null) {
                    setTooltip(null);
                } else {
                    tip.setText(request.toString());
                    setTooltip(tip);
                }
            }
        });
        // With nothing picked, the table tails the newest request as a log does. Between the request's
        // line and the ladder there is room for little more than a row at the window's default size,
        // and the newest is the one to see: a bad rkey's WRITE, say, under the seed's good one.
        viewModel.requests().addListener((ListChangeListener<WorkRequest>) change -> {
            boolean added = false;
            while (change.next()) {
                added |= change.wasAdded();
            }
            if (added && requestTable.getSelectionModel().isEmpty()) {
                // After the table has counted the new row (its layout), or the scroll stops short of it.
                Platform.runLater(() -> {
                    if (requestTable.getSelectionModel().isEmpty() && !requestTable.getItems().isEmpty()) {
                        requestTable.scrollTo(requestTable.getItems().size() - 1);
                    }
                });
            }
        });
        requestTable.getSelectionModel().selectedItemProperty().addListener((observable, before, request) -> {
            if (!following) {
                viewModel.select(request);
            }
        });
        viewModel.selectedProperty().addListener((observable, before, request) -> {
            following = true;
            try {
                if (request == null) {
                    requestTable.getSelectionModel().clearSelection();
                } else if (requestTable.getSelectionModel().getSelectedItem() != request) {
                    requestTable.getSelectionModel().select(request);
                    requestTable.scrollTo(request);
                }
            } finally {
                following = false;
            }
        });
    }
}
