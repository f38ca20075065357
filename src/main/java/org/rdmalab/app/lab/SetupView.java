package org.rdmalab.app.lab;

import javafx.beans.binding.Bindings;
import javafx.fxml.FXML;
import javafx.scene.control.Button;
import javafx.scene.control.ComboBox;
import javafx.scene.control.Label;
import javafx.scene.control.ListCell;
import javafx.scene.control.RadioButton;
import javafx.scene.control.TextField;
import javafx.scene.control.ToggleButton;
import javafx.scene.control.ToggleGroup;
import javafx.scene.layout.HBox;
import javafx.util.StringConverter;
import org.rdmalab.app.common.UiText;
import org.rdmalab.control.ControlProtocol;
import org.rdmalab.lab.Flows;
import org.rdmalab.lab.LabSetup;
import org.rdmalab.lab.Role;

/**
 * Controller of {@code SetupView.fxml}: binds the setup bar to the {@link SetupViewModel} and
 * applies it through the {@link LabViewModel}. The gid_idx field says at once when -1 cannot work
 * on RoCE and offers the recommended entry in one click.
 */
public final class SetupView {

    private final LabViewModel lab;
    private final SetupViewModel setup;

    @FXML
    private ToggleGroup modeGroup;
    @FXML
    private ToggleGroup roleGroup;
    @FXML
    private ToggleButton loopbackMode;
    @FXML
    private ToggleButton twoMachinesMode;
    @FXML
    private ComboBox<SetupViewModel.DeviceChoice> devicePicker;
    @FXML
    private ComboBox<SetupViewModel.PortChoice> portPicker;
    @FXML
    private ComboBox<String> gidPicker;
    @FXML
    private Button applyButton;
    @FXML
    private Button exportButton;
    /**
     * Asks where Export as C writes (a save dialog), or null when the user cancels; tests answer
     * with a file instead of a dialog.
     */
    java.util.function.Function<javafx.stage.Window, java.io.File> exportTarget = this::chooseExportFile;
    @FXML
    private HBox gidLesson;
    @FXML
    private Label gidWarning;
    @FXML
    private Button useRecommendedGid;
    @FXML
    private HBox twoMachinesRow;
    @FXML
    private RadioButton serverRole;
    @FXML
    private RadioButton clientRole;
    @FXML
    private TextField localIpField;
    @FXML
    private Label peerIpLabel;
    @FXML
    private TextField peerIpField;
    @FXML
    private TextField tcpPortField;
    @FXML
    private ComboBox<ControlProtocol> protocolPicker;
    @FXML
    private ComboBox<Flows.SeedFlow> flowPicker;
    @FXML
    private Label recommendation;
    @FXML
    private Button runAllButton;

    public SetupView(LabViewModel lab) {
        this.lab = lab;
        this.setup = lab.setup();
    }

    @FXML
    private void initialize() {
        devicePicker.setItems(setup.devices());
        devicePicker.valueProperty().bindBidirectional(setup.deviceProperty());
        portPicker.setItems(setup.ports());
        portPicker.valueProperty().bindBidirectional(setup.portProperty());

        gidPicker.setEditable(false);
        setup.gids().addListener((javafx.collections.ListChangeListener<SetupViewModel.GidChoice>) change -> fillGids());
        fillGids();
        gidPicker.setCellFactory(list -> new GidCell());
        gidPicker.setButtonCell(new GidCell());
        gidPicker.valueProperty().addListener((observable, before, value) -> {
            if (value != null) {
                setup.gidIndexProperty().set(value);
            }
        });
        setup.gidIndexProperty().addListener((observable, before, value) -> gidPicker.setValue(value));
        gidPicker.setValue(setup.gidIndexProperty().get());

        gidWarning.textProperty().bind(setup.gidWarningProperty());
        gidLesson.visibleProperty().bind(setup.gidWarningProperty().isNotEmpty());
        gidLesson.managedProperty().bind(gidLesson.visibleProperty());
        useRecommendedGid.textProperty().bind(Bindings.createStringBinding(() -> setup.recommended()
                .map(entry -> UiText.format("setup.useGid", entry.index())).orElse(UiText.text("setup.noGid")),
                setup.gids()));
        useRecommendedGid.disableProperty().bind(Bindings.isEmpty(setup.gids()));
        recommendation.textProperty().bind(setup.recommendationProperty());

        loopbackMode.setSelected(setup.modeProperty().get() == LabSetup.Mode.LOOPBACK);
        twoMachinesMode.setSelected(setup.modeProperty().get() == LabSetup.Mode.TWO_MACHINES);
        modeGroup.selectedToggleProperty().addListener((observable, before, toggle) -> {
            if (toggle == null) {
                before.setSelected(true);
                return;
            }
            setup.modeProperty().set(toggle == loopbackMode ? LabSetup.Mode.LOOPBACK : LabSetup.Mode.TWO_MACHINES);
        });
        setup.modeProperty().addListener((observable, before, mode) -> {
            (mode == LabSetup.Mode.LOOPBACK ? loopbackMode : twoMachinesMode).setSelected(true);
            if (mode == LabSetup.Mode.TWO_MACHINES && setup.roleProperty().get() == Role.CLIENT
                    && setup.localIpProperty().get().equals(LabSetup.LOOPBACK_SERVER_IP)) {
                setup.localIpProperty().set(LabSetup.LOOPBACK_CLIENT_IP);
            }
        });
        twoMachinesRow.visibleProperty().bind(setup.modeProperty().isEqualTo(LabSetup.Mode.TWO_MACHINES));
        twoMachinesRow.managedProperty().bind(twoMachinesRow.visibleProperty());
        runAllButton.textProperty().bind(Bindings.when(setup.modeProperty().isEqualTo(LabSetup.Mode.LOOPBACK))
                .then(UiText.text("setup.runBothToEnd")).otherwise(UiText.text("setup.runToEnd")));
        exportButton.disableProperty().bind(lab.selectedSideProperty().isNull());
        exportButton.getProperties().put(SetupView.class, this);

        serverRole.setSelected(setup.roleProperty().get() == Role.SERVER);
        clientRole.setSelected(setup.roleProperty().get() == Role.CLIENT);
        roleGroup.selectedToggleProperty().addListener((observable, before, toggle) -> {
            if (toggle == null) {
                before.setSelected(true);
                return;
            }
            setup.roleProperty().set(toggle == serverRole ? Role.SERVER : Role.CLIENT);
        });
        setup.roleProperty().addListener((observable, before, role) -> (role == Role.SERVER ? serverRole : clientRole)
                .setSelected(true));
        peerIpField.disableProperty().bind(setup.roleProperty().isEqualTo(Role.SERVER));
        localIpField.textProperty().bindBidirectional(setup.localIpProperty());
        peerIpField.textProperty().bindBidirectional(setup.peerIpProperty());
        tcpPortField.setText(Integer.toString(setup.tcpPortProperty().get()));
        tcpPortField.textProperty().addListener((observable, before, text) -> {
            try {
                setup.tcpPortProperty().set(Integer.parseInt(text.trim()));
            } catch (NumberFormatException e) {
                // Checked when applied.
            }
        });
        setup.tcpPortProperty().addListener((observable, before, port) -> {
            if (!tcpPortField.getText().trim().equals(port.toString())) {
                tcpPortField.setText(port.toString());
            }
        });

        protocolPicker.getItems().setAll(ControlProtocol.values());
        protocolPicker.valueProperty().bindBidirectional(setup.protocolProperty());
        protocolPicker.setConverter(new StringConverter<>() {
            @Override
            public String toString(ControlProtocol protocol) {
                if (protocol == null) {
                    return "";
                }
                return switch (protocol) {
                    case LAB -> UiText.text("setup.protocol.lab");
                    case SEED -> UiText.text("setup.protocol.seed");
                    case PINGPONG -> UiText.text("setup.protocol.pingpong");
                };
            }

            @Override
            public ControlProtocol fromString(String text) {
                return ControlProtocol.parse(text);
            }
        });
        flowPicker.getItems().setAll(Flows.SeedFlow.values());
        flowPicker.valueProperty().bindBidirectional(setup.flowProperty());
        flowPicker.setConverter(new StringConverter<>() {
            @Override
            public String toString(Flows.SeedFlow flow) {
                if (flow == null) {
                    return "";
                }
                return UiText.text(flow == Flows.SeedFlow.WRITE_ONLY ? "setup.flow.writeOnly" : "setup.flow.rcExample");
            }

            @Override
            public Flows.SeedFlow fromString(String text) {
                return Flows.SeedFlow.parse(text);
            }
        });
    }

    private void fillGids() {
        String value = setup.gidIndexProperty().get();
        java.util.List<String> items = new java.util.ArrayList<>();
        items.add("-1");
        items.add("auto");
        for (SetupViewModel.GidChoice choice : setup.gids()) {
            items.add(Integer.toString(choice.entry().index()));
        }
        if (!items.contains(value)) {
            items.add(value);
        }
        gidPicker.getItems().setAll(items);
        gidPicker.setValue(value);
    }

    /** Describes a gid_idx value with its table entry. */
    private final class GidCell extends ListCell<String> {
        @Override
        protected void updateItem(String value, boolean empty) {
            super.updateItem(value, empty);
            if (empty || value == null) {
                setText(null);
                return;
            }
            if (value.equals("-1")) {
                setText("-1   " + UiText.text("setup.gid.noGrh"));
                return;
            }
            if (value.equalsIgnoreCase("auto")) {
                setText("auto   " + UiText.text("setup.gid.auto"));
                return;
            }
            setText(setup.gids().stream().filter(choice -> Integer.toString(choice.entry().index()).equals(value))
                    .findFirst().map(choice -> {
                        var entry = choice.entry();
                        return entry.index() + "   " + entry.gid() + "   " + entry.type().text() + "   "
                                + (entry.netdev() == null ? "" : entry.netdev()) + (entry.ipAddress() == null
                                || entry.ipAddress().isEmpty() ? "" : "   " + entry.ipAddress())
                                + (choice.recommended() ? "   ★" : "");
                    }).orElse(value + "   " + UiText.text("setup.gid.notInTable")));
        }
    }

    @FXML
    private void onApply() {
        try {
            lab.apply();
        } catch (IllegalArgumentException e) {
            lab.status("setup: " + e.getMessage());
        }
    }

    @FXML
    private void onUseRecommendedGid() {
        lab.useRecommendedGidAndReplay();
    }

    @FXML
    private void onExport() {
        java.io.File file = exportTarget.apply(runAllButton.getScene().getWindow());
        if (file == null) {
            return;
        }
        try {
            lab.exportC(file.toPath());
        } catch (java.io.IOException | RuntimeException e) {
            lab.status(UiText.format("setup.exportCFailed", e.getMessage()));
        }
    }

    private java.io.File chooseExportFile(javafx.stage.Window owner) {
        javafx.stage.FileChooser chooser = new javafx.stage.FileChooser();
        chooser.setTitle(UiText.text("setup.exportCTitle"));
        chooser.setInitialFileName("rdma_lab_" + (lab.selectedSideProperty().get() == null ? "session"
                : lab.selectedSideProperty().get().role().name().toLowerCase(java.util.Locale.ROOT)) + ".c");
        chooser.getExtensionFilters().add(new javafx.stage.FileChooser.ExtensionFilter(UiText.text("setup.cSource"),
                "*.c"));
        return chooser.showSaveDialog(owner);
    }

    @FXML
    private void onRunAll() {
        lab.runAllToEnd();
    }
}
