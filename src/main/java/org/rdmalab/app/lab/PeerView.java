package org.rdmalab.app.lab;

import javafx.fxml.FXML;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.ListCell;
import javafx.scene.control.ListView;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.VBox;
import org.rdmalab.app.common.UiText;

/**
 * Controller of {@code PeerView.fxml}: one side's steps with their status and result, the three
 * commands, and the QP diagrams. Binds to a {@link SideViewModel}; selecting a step shows it in
 * the step pane through the {@link LabViewModel}.
 */
public final class PeerView {

    /** Where its FXML is on the classpath. */
    public static final String FXML = "/fxml/lab/PeerView.fxml";

    /** Style classes of the step cells, one per status. */
    static final String STEP_PENDING = "step-pending";
    static final String STEP_RUNNING = "step-running";
    static final String STEP_DONE = "step-done";
    static final String STEP_FAILED = "step-failed";
    static final String STEP_NEXT = "step-next";

    private final SideViewModel side;
    private final LabViewModel lab;

    @FXML
    private Label sideTitle;

    @FXML
    private Label activity;

    @FXML
    private ListView<StepRow> stepList;

    @FXML
    private Button runNextButton;

    @FXML
    private Button runToButton;

    @FXML
    private Button resetButton;

    @FXML
    private VBox diagrams;

    /** Shows in this column's list the step selected elsewhere (a cause shown, a failure). */
    private final javafx.beans.value.ChangeListener<StepRow> followSelection;

    public PeerView(SideViewModel side, LabViewModel lab) {
        this.side = side;
        this.lab = lab;
        this.followSelection = (observable, before, row) -> {
            if (row != null && side.steps().contains(row) && stepList.getSelectionModel().getSelectedItem() != row) {
                stepList.getSelectionModel().select(row);
                stepList.scrollTo(Math.max(0, row.index() - 2));
            }
        };
    }

    @FXML
    private void initialize() {
        String address = side.session().role() == org.rdmalab.lab.Role.SERVER ? "server" : "client";
        sideTitle.setText(title(address));
        stepList.setId(side.name() + "Steps");
        runNextButton.setId(side.name() + "RunNext");
        runToButton.setId(side.name() + "RunTo");
        resetButton.setId(side.name() + "Reset");
        activity.textProperty().bind(side.activityProperty());
        stepList.setItems(side.steps());
        stepList.setCellFactory(list -> new StepCell());
        stepList.getSelectionModel().selectedItemProperty().addListener((observable, before, row) -> {
            if (row != null) {
                lab.selectedSideProperty().set(side);
                lab.selectedStepProperty().set(row);
            }
        });
        stepList.focusedProperty().addListener((observable, before, focused) -> {
            if (focused) {
                lab.selectedSideProperty().set(side);
            }
        });
        javafx.scene.control.MenuItem again = new javafx.scene.control.MenuItem(UiText.text("peer.runAgainFromHere"));
        again.setId(side.name() + "RunAgain");
        again.setOnAction(event -> {
            StepRow selected = stepList.getSelectionModel().getSelectedItem();
            if (selected != null) {
                lab.selectedSideProperty().set(side);
                side.rewindTo(selected.index());
            }
        });
        javafx.scene.control.ContextMenu menu = new javafx.scene.control.ContextMenu(again);
        menu.setOnShowing(event -> {
            StepRow selected = stepList.getSelectionModel().getSelectedItem();
            again.setDisable(side.busyProperty().get() || selected == null
                    || selected.index() > side.nextIndexProperty().get());
        });
        stepList.setContextMenu(menu);
        runNextButton.disableProperty().bind(side.busyProperty());
        runToButton.disableProperty().bind(side.busyProperty());
        side.nextIndexProperty().addListener((observable, before, next) -> {
            stepList.scrollTo(Math.max(0, Math.min(next.intValue(), side.steps().size() - 1) - 3));
        });
        new QpDiagrams(side).install(diagrams);
        // Weak: a column replaced by Apply setup must not stay reachable from the lab's selection.
        lab.selectedStepProperty().addListener(new javafx.beans.value.WeakChangeListener<>(followSelection));
        side.lastFailureProperty().addListener((observable, before, failed) -> {
            if (failed != null) {
                stepList.getSelectionModel().select(failed);
                stepList.scrollTo(Math.max(0, failed.index() - 2));
                lab.selectedSideProperty().set(side);
                lab.selectedStepProperty().set(failed);
            }
        });
    }

    private String title(String role) {
        String label = side.name().equals("local") ? UiText.format("peer.thisPeer", UiText.side(role))
                : UiText.text("side." + role + ".title");
        return label + " · " + side.address();
    }

    @FXML
    private void onRunNext() {
        lab.selectedSideProperty().set(side);
        side.runNext();
    }

    @FXML
    private void onRunTo() {
        lab.selectedSideProperty().set(side);
        StepRow selected = stepList.getSelectionModel().getSelectedItem();
        if (selected == null || selected.index() < side.nextIndexProperty().get()) {
            side.runToEnd();
        } else {
            side.runTo(selected.index());
        }
    }

    @FXML
    private void onReset() {
        side.reset();
    }

    /** The step list's cell: a status mark, the title and the result's summary. */
    private static final class StepCell extends ListCell<StepRow> {

        private final Label mark = new Label();
        private final Label title = new Label();
        private final Label summary = new Label();
        private final VBox text = new VBox(title, summary);
        private final HBox box = new HBox(6, mark, text);

        StepCell() {
            mark.getStyleClass().add("step-mark");
            title.getStyleClass().add("step-title");
            summary.getStyleClass().add("step-summary");
            HBox.setHgrow(text, Priority.ALWAYS);
            text.setMinWidth(0);
        }

        @Override
        protected void updateItem(StepRow row, boolean empty) {
            super.updateItem(row, empty);
            getStyleClass().removeAll(STEP_PENDING, STEP_RUNNING, STEP_DONE, STEP_FAILED, STEP_NEXT);
            if (empty || row == null) {
                setGraphic(null);
                setText(null);
                return;
            }
            StepRow.Status status = row.statusProperty().get();
            getStyleClass().add(switch (status) {
                case PENDING -> STEP_PENDING;
                case RUNNING -> STEP_RUNNING;
                case DONE -> STEP_DONE;
                case FAILED -> STEP_FAILED;
            });
            if (row.nextProperty().get() && status != StepRow.Status.RUNNING) {
                getStyleClass().add(STEP_NEXT);
            }
            mark.setText(switch (status) {
                case PENDING -> row.nextProperty().get() ? "▶" : "○";
                case RUNNING -> "…";
                case DONE -> "✓";
                case FAILED -> "✗";
            });
            title.setText((row.index() + 1) + ". " + UiText.stepTitle(row.step()));
            summary.setText(row.summaryProperty().get());
            summary.setVisible(!row.summaryProperty().get().isEmpty());
            summary.setManaged(summary.isVisible());
            setText(null);
            setGraphic(box);
            setAccessibleText(UiText.stepTitle(row.step()) + ": " + status.text());
        }
    }
}
