package org.rdmalab.app;

import javafx.fxml.FXML;
import javafx.scene.control.ComboBox;
import javafx.scene.control.Label;
import javafx.scene.control.ListView;
import javafx.scene.control.TextArea;
import org.rdmalab.lab.Step;

/** Controller of {@code MainView.fxml}: binds controls to the {@link MainViewModel}. */
public final class MainView {

    private final MainViewModel viewModel;

    @FXML
    private ComboBox<String> devicePicker;

    @FXML
    private ListView<Step> stepList;

    @FXML
    private Label stepTitle;

    @FXML
    private TextArea stepDetail;

    @FXML
    private Label statusLabel;

    MainView(MainViewModel viewModel) {
        this.viewModel = viewModel;
    }

    @FXML
    private void initialize() {
        devicePicker.setItems(viewModel.devices());
        viewModel.devices().addListener((javafx.collections.ListChangeListener<String>) change -> {
            if (devicePicker.getValue() == null && !viewModel.devices().isEmpty()) {
                devicePicker.getSelectionModel().selectFirst();
            }
        });
        stepList.setItems(viewModel.steps());
        viewModel.selectedStepProperty().bind(stepList.getSelectionModel().selectedItemProperty());
        stepTitle.textProperty().bind(viewModel.selectedStepProperty().map(Step::title).orElse("Step"));
        stepDetail.textProperty().bind(viewModel.stepDetailProperty());
        stepList.getSelectionModel().selectFirst();
        statusLabel.textProperty().bind(viewModel.statusProperty());
    }
}
