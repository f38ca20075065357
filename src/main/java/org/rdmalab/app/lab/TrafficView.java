package org.rdmalab.app.lab;

import javafx.beans.binding.Bindings;
import javafx.fxml.FXML;
import javafx.scene.control.Button;
import javafx.scene.control.CheckBox;
import javafx.scene.control.ComboBox;
import javafx.scene.control.Label;
import javafx.scene.control.RadioButton;
import javafx.scene.control.TextField;
import javafx.util.StringConverter;
import org.rdmalab.app.common.UiText;
import org.rdmalab.verbs.WrOpcode;

/** Controller of {@code TrafficView.fxml}: binds the traffic form to the {@link TrafficViewModel}. */
public final class TrafficView {

    private final TrafficViewModel viewModel;
    private final LabViewModel lab;

    @FXML
    private ComboBox<SideViewModel> sidePicker;
    @FXML
    private ComboBox<WrOpcode> opcodePicker;
    @FXML
    private TextField wrIdField;
    @FXML
    private CheckBox signaledBox;
    @FXML
    private TextField localOffsetField;
    @FXML
    private TextField lengthField;
    @FXML
    private TextField remoteOffsetField;
    @FXML
    private TextField immField;
    @FXML
    private TextField compareAddField;
    @FXML
    private TextField swapField;
    @FXML
    private RadioButton textData;
    @FXML
    private RadioButton hexData;
    @FXML
    private TextField dataField;
    @FXML
    private Label preview;
    @FXML
    private Button postButton;
    @FXML
    private TextField receiveWrIdField;
    @FXML
    private TextField receiveOffsetField;
    @FXML
    private TextField receiveLengthField;
    @FXML
    private Button postReceiveButton;
    @FXML
    private Label outcomeLabel;

    public TrafficView(TrafficViewModel viewModel, LabViewModel lab) {
        this.viewModel = viewModel;
        this.lab = lab;
    }

    @FXML
    private void initialize() {
        sidePicker.setItems(lab.sides());
        sidePicker.valueProperty().bindBidirectional(viewModel.sideProperty());
        sidePicker.setConverter(new StringConverter<>() {
            @Override
            public String toString(SideViewModel side) {
                return side == null ? "" : UiText.side(side.name()) + " (" + side.address() + ")";
            }

            @Override
            public SideViewModel fromString(String text) {
                return null;
            }
        });
        opcodePicker.getItems().setAll(TrafficViewModel.OPCODES);
        opcodePicker.valueProperty().bindBidirectional(viewModel.opcodeProperty());
        opcodePicker.setConverter(new StringConverter<>() {
            @Override
            public String toString(WrOpcode opcode) {
                return opcode == null ? "" : opcode.cName();
            }

            @Override
            public WrOpcode fromString(String text) {
                return null;
            }
        });
        wrIdField.textProperty().bindBidirectional(viewModel.wrIdProperty());
        signaledBox.selectedProperty().bindBidirectional(viewModel.signaledProperty());
        localOffsetField.textProperty().bindBidirectional(viewModel.localOffsetProperty());
        lengthField.textProperty().bindBidirectional(viewModel.lengthProperty());
        remoteOffsetField.textProperty().bindBidirectional(viewModel.remoteOffsetProperty());
        immField.textProperty().bindBidirectional(viewModel.immProperty());
        compareAddField.textProperty().bindBidirectional(viewModel.compareAddProperty());
        swapField.textProperty().bindBidirectional(viewModel.swapProperty());
        dataField.textProperty().bindBidirectional(viewModel.dataProperty());
        hexData.setSelected(viewModel.hexDataProperty().get());
        hexData.selectedProperty().bindBidirectional(viewModel.hexDataProperty());
        preview.textProperty().bind(Bindings.createStringBinding(viewModel::preview, viewModel.dataProperty(),
                viewModel.hexDataProperty()));
        var opcode = viewModel.opcodeProperty();
        immField.disableProperty().bind(Bindings.createBooleanBinding(() -> !opcode.get().hasImmediate(), opcode));
        var atomic = Bindings.createBooleanBinding(() -> opcode.get().isAtomic(), opcode);
        compareAddField.disableProperty().bind(atomic.not());
        swapField.disableProperty().bind(opcode.isNotEqualTo(WrOpcode.ATOMIC_CMP_AND_SWP));
        lengthField.disableProperty().bind(atomic);
        remoteOffsetField.disableProperty().bind(opcode.isEqualTo(WrOpcode.SEND).or(opcode.isEqualTo(WrOpcode.SEND_WITH_IMM)));
        dataField.disableProperty().bind(atomic.or(opcode.isEqualTo(WrOpcode.RDMA_READ)));
        receiveWrIdField.textProperty().bindBidirectional(viewModel.receiveWrIdProperty());
        receiveOffsetField.textProperty().bindBidirectional(viewModel.receiveOffsetProperty());
        receiveLengthField.textProperty().bindBidirectional(viewModel.receiveLengthProperty());
        outcomeLabel.textProperty().bind(viewModel.outcomeProperty());
        outcomeLabel.setId("trafficOutcome");
    }

    @FXML
    private void onPost() {
        viewModel.post();
    }

    @FXML
    private void onPostReceive() {
        viewModel.postReceive();
    }
}
