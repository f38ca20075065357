package org.rdmalab.app.lessons;

import javafx.beans.binding.Bindings;
import javafx.fxml.FXML;
import javafx.scene.control.Button;
import javafx.scene.control.ChoiceBox;
import javafx.scene.control.Label;
import javafx.scene.control.ListView;
import javafx.scene.control.SplitPane;
import org.rdmalab.app.common.UiText;

/**
 * Controller of {@code lessons/ScenariosView.fxml}: the list of scenarios, the chosen one's story,
 * the device it runs on, the three commands (put it into the lab, run it to the end, post its
 * traffic once the steps ran), the checked outcome with what differed, and the log.
 */
public final class ScenariosView {

    /** Style class of an outcome that is the expected one. */
    static final String EXPECTED = "lesson-expected";
    /** Style class of an outcome that differed. */
    static final String DIFFERED = "lesson-differed";

    private final ScenariosViewModel viewModel;

    @FXML
    private SplitPane scenariosPane;
    @FXML
    private ListView<ScenariosViewModel.Entry> scenarioList;
    @FXML
    private Label nameLabel;
    @FXML
    private Label happensLabel;
    @FXML
    private Label teachesLabel;
    @FXML
    private ChoiceBox<String> deviceChoice;
    @FXML
    private Button loadButton;
    @FXML
    private Button runButton;
    @FXML
    private Button trafficButton;
    @FXML
    private Label outcomeLabel;
    @FXML
    private ListView<String> problemList;
    @FXML
    private ListView<String> logList;

    public ScenariosView(ScenariosViewModel viewModel) {
        this.viewModel = viewModel;
    }

    @FXML
    private void initialize() {
        scenariosPane.getProperties().put(ScenariosViewModel.class, viewModel);
        scenarioList.setItems(viewModel.entries());
        scenarioList.getSelectionModel().select(viewModel.selectedProperty().get());
        scenarioList.getSelectionModel().selectedItemProperty().addListener((observable, before, entry) -> {
            if (entry != null) {
                viewModel.selectedProperty().set(entry);
            }
        });
        viewModel.selectedProperty().addListener((observable, before, entry) -> {
            if (entry != scenarioList.getSelectionModel().getSelectedItem()) {
                scenarioList.getSelectionModel().select(entry);
            }
            show(entry);
        });
        show(viewModel.selectedProperty().get());
        deviceChoice.setItems(viewModel.devices());
        deviceChoice.valueProperty().bindBidirectional(viewModel.deviceProperty());
        ScenariosViewModel.Phase traffic = ScenariosViewModel.Phase.TRAFFIC;
        runButton.disableProperty().bind(viewModel.phaseProperty().isEqualTo(traffic));
        loadButton.disableProperty().bind(viewModel.phaseProperty().isEqualTo(traffic));
        trafficButton.disableProperty().bind(viewModel.trafficReadyProperty().not());
        outcomeLabel.textProperty().bind(viewModel.outcomeProperty());
        Runnable colour = () -> {
            outcomeLabel.getStyleClass().removeAll(EXPECTED, DIFFERED);
            ScenariosViewModel.Phase phase = viewModel.phaseProperty().get();
            if (phase == ScenariosViewModel.Phase.CHECKED || phase == ScenariosViewModel.Phase.STOPPED) {
                outcomeLabel.getStyleClass().add(viewModel.asExpectedProperty().get() ? EXPECTED : DIFFERED);
            }
        };
        viewModel.phaseProperty().addListener((observable, before, now) -> colour.run());
        viewModel.asExpectedProperty().addListener((observable, before, now) -> colour.run());
        problemList.setItems(viewModel.problems());
        problemList.visibleProperty().bind(Bindings.isNotEmpty(viewModel.problems()));
        problemList.managedProperty().bind(problemList.visibleProperty());
        logList.setItems(viewModel.log());
        logList.setPlaceholder(new Label(UiText.text("lessons.stepsHint")));
        viewModel.log().addListener((javafx.collections.ListChangeListener<String>) change -> {
            // After the list has laid the new rows out: the newest line in view.
            javafx.application.Platform.runLater(() -> {
                if (!viewModel.log().isEmpty()) {
                    logList.scrollTo(viewModel.log().size() - 1);
                }
            });
        });
    }

    private void show(ScenariosViewModel.Entry entry) {
        nameLabel.setText(entry == null ? "" : entry.name());
        happensLabel.setText(entry == null ? "" : entry.happens());
        teachesLabel.setText(entry == null ? "" : entry.teaches());
    }

    @FXML
    private void onLoad() {
        viewModel.load();
    }

    @FXML
    private void onRun() {
        viewModel.runToEnd();
    }

    @FXML
    private void onTraffic() {
        viewModel.postTraffic();
    }
}
