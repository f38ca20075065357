package org.rdmalab.app;

import javafx.fxml.FXML;
import javafx.scene.control.ComboBox;
import javafx.scene.control.Label;

/** Controller of {@code MainView.fxml}: binds controls to the {@link MainViewModel}. */
public final class MainView {

    private final MainViewModel viewModel;

    @FXML
    private ComboBox<String> devicePicker;

    @FXML
    private Label statusLabel;

    MainView(MainViewModel viewModel) {
        this.viewModel = viewModel;
    }

    @FXML
    private void initialize() {
        devicePicker.setItems(viewModel.devices());
        if (!viewModel.devices().isEmpty()) {
            devicePicker.getSelectionModel().selectFirst();
        }
        statusLabel.textProperty().bind(viewModel.statusProperty());
    }
}
