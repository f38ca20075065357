package org.rdmalab.app.faults;

import java.util.Locale;
import javafx.beans.binding.Bindings;
import javafx.beans.property.DoubleProperty;
import javafx.fxml.FXML;
import javafx.scene.control.Button;
import javafx.scene.control.ChoiceBox;
import javafx.scene.control.Label;
import javafx.scene.control.ListCell;
import javafx.scene.control.ListView;
import javafx.scene.control.Spinner;
import javafx.scene.control.SpinnerValueFactory;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableView;
import javafx.scene.control.TextField;
import javafx.scene.control.TextFormatter;
import javafx.util.StringConverter;
import org.rdmalab.app.common.Columns;
import org.rdmalab.app.common.UiText;
import org.rdmalab.app.lab.LabViewModel;
import org.rdmalab.verbs.FaultSettings;
import org.rdmalab.verbs.OneShotFault;
import org.rdmalab.verbs.PacketEvent;

/**
 * Controller of {@code FaultsView.fxml}: the rates, the delay and the seed of the random faults
 * (each change goes to the devices at once), the one-shot buttons with the way they wait for, the
 * one-shot faults armed and whether they fired, and the log of every fault that fired.
 */
public final class FaultsView {

    private final FaultsViewModel viewModel;

    @FXML
    private javafx.scene.layout.VBox faultsPane;
    @FXML
    private Label unreachableLabel;
    @FXML
    private Spinner<Double> dropSpinner;
    @FXML
    private Spinner<Double> duplicateSpinner;
    @FXML
    private Spinner<Double> reorderSpinner;
    @FXML
    private Spinner<Double> corruptSpinner;
    @FXML
    private Spinner<Double> delaySpinner;
    @FXML
    private TextField seedField;
    @FXML
    private Label specLabel;
    @FXML
    private Label problemLabel;
    @FXML
    private ChoiceBox<OneShotFault.Way> wayChoice;
    @FXML
    private Button dropAckButton;
    @FXML
    private ListView<OneShotFault> shotList;
    @FXML
    private Label countLabel;
    @FXML
    private TableView<FaultsViewModel.FaultRow> logTable;
    @FXML
    private TableColumn<FaultsViewModel.FaultRow, String> timeColumn;
    @FXML
    private TableColumn<FaultsViewModel.FaultRow, String> sideColumn;
    @FXML
    private TableColumn<FaultsViewModel.FaultRow, String> faultColumn;
    @FXML
    private TableColumn<FaultsViewModel.FaultRow, String> packetColumn;
    @FXML
    private TableColumn<FaultsViewModel.FaultRow, String> detailColumn;

    public FaultsView(FaultsViewModel viewModel) {
        this.viewModel = viewModel;
    }

    @FXML
    private void initialize() {
        // Scenarios find the view model of the shown window here.
        faultsPane.getProperties().put(FaultsViewModel.class, viewModel);
        rate(dropSpinner, viewModel.dropProperty());
        rate(duplicateSpinner, viewModel.duplicateProperty());
        rate(reorderSpinner, viewModel.reorderProperty());
        rate(corruptSpinner, viewModel.corruptProperty());
        bind(delaySpinner, new SpinnerValueFactory.DoubleSpinnerValueFactory(0, FaultSettings.MAX_DELAY_NANOS / 1e6,
                0, 1), viewModel.delayMillisProperty());
        TextFormatter<Long> seed = new TextFormatter<>(new StringConverter<>() {
            @Override
            public String toString(Long value) {
                return value == null ? "" : Long.toString(value);
            }

            @Override
            public Long fromString(String text) {
                try {
                    return Long.parseLong(text.trim());
                } catch (NumberFormatException e) {
                    return viewModel.seedProperty().get(); // not a number: the seed stays
                }
            }
        }, viewModel.seedProperty().get());
        seedField.setTextFormatter(seed);
        seed.valueProperty().addListener((observable, before, now) -> viewModel.seedProperty().set(now));
        viewModel.seedProperty().addListener((observable, before, now) -> seed.setValue(now.longValue()));
        specLabel.textProperty().bind(Bindings.createStringBinding(
                () -> UiText.format("faults.spec", viewModel.specProperty().get()), viewModel.specProperty()));
        problemLabel.textProperty().bind(viewModel.problemProperty());
        problemLabel.visibleProperty().bind(viewModel.problemProperty().isNotEmpty());
        problemLabel.managedProperty().bind(problemLabel.visibleProperty());
        unreachableLabel.visibleProperty().bind(viewModel.reachableProperty().not());
        unreachableLabel.managedProperty().bind(unreachableLabel.visibleProperty());

        wayChoice.getItems().setAll(OneShotFault.Way.values());
        wayChoice.setConverter(new StringConverter<>() {
            @Override
            public String toString(OneShotFault.Way way) {
                return way == null ? "" : UiText.text("faults.way." + way.name());
            }

            @Override
            public OneShotFault.Way fromString(String text) {
                return null;
            }
        });
        wayChoice.valueProperty().bindBidirectional(viewModel.wayProperty());
        dropAckButton.setTooltip(new javafx.scene.control.Tooltip(UiText.text("faults.dropAckTip")));
        shotList.setItems(viewModel.shots());
        shotList.setPlaceholder(new Label(UiText.text("faults.noShot")));
        shotList.setCellFactory(list -> new ListCell<>() {
            @Override
            protected void updateItem(OneShotFault shot, boolean empty) {
                super.updateItem(shot, empty);
                setText(empty || shot == null ? null : describe(shot));
            }
        });

        logTable.setItems(viewModel.log().rows());
        logTable.setPlaceholder(new Label(UiText.text("faults.none")));
        Columns.show(timeColumn, row -> LabViewModel.TIME.format(row.at()));
        Columns.show(sideColumn, row -> UiText.side(row.side()));
        Columns.show(faultColumn, row -> UiText.text("faults.kind." + row.fault().kind().name())
                + (row.fault().oneShot() ? UiText.text("faults.oneShotMark") : ""));
        Columns.show(packetColumn, FaultsView::packet);
        Columns.show(detailColumn, row -> row.fault().detail());
        countLabel.textProperty().bind(Bindings.createStringBinding(
                () -> UiText.format(viewModel.log().rows().size() == 1 ? "faults.count.one" : "faults.count",
                        viewModel.log().rows().size())
                        + (viewModel.log().droppedProperty().get() > 0
                        ? UiText.format("count.dropped", viewModel.log().droppedProperty().get()) : ""),
                viewModel.log().rows(), viewModel.log().droppedProperty()));
    }

    /** "sent RC_ACKNOWLEDGE PSN 0 127.0.0.2:4791 → 127.0.0.1:4791". */
    static String packet(FaultsViewModel.FaultRow row) {
        PacketEvent packet = row.packet();
        return packet.direction().name().toLowerCase(Locale.ROOT) + " " + packet.opcode() + " PSN " + packet.psn()
                + "  " + packet.source() + " → " + packet.destination();
    }

    /** "Drop the next ACK (responder → requester): fired". */
    static String describe(OneShotFault shot) {
        String state = shot.fired() ? "faults.state.fired" : shot.waiting() ? "faults.state.armed" : "faults.state.cancelled";
        return UiText.format("faults.shot", UiText.text("faults.shot." + shot.kind().name()),
                UiText.text("faults.way." + shot.way().name()), UiText.text(state));
    }

    private static void rate(Spinner<Double> spinner, DoubleProperty property) {
        bind(spinner, new SpinnerValueFactory.DoubleSpinnerValueFactory(0, 1, 0, 0.01), property);
    }

    /** The spinner shows {@code property} and sets it; a typed value is taken when it parses and is in range. */
    private static void bind(Spinner<Double> spinner, SpinnerValueFactory.DoubleSpinnerValueFactory factory,
                             DoubleProperty property) {
        factory.setConverter(new StringConverter<>() {
            @Override
            public String toString(Double value) {
                return value == null ? "" : FaultSettings.plain(value);
            }

            @Override
            public Double fromString(String text) {
                try {
                    double value = Double.parseDouble(text.trim());
                    return value >= factory.getMin() && value <= factory.getMax() ? value : property.get();
                } catch (NumberFormatException e) {
                    return property.get();
                }
            }
        });
        factory.setValue(property.get());
        spinner.setValueFactory(factory);
        factory.valueProperty().addListener((observable, before, now) -> {
            if (now != null && now != property.get()) {
                property.set(now);
            }
        });
        property.addListener((observable, before, now) -> {
            if (factory.getValue() == null || factory.getValue() != now.doubleValue()) {
                factory.setValue(now.doubleValue());
            }
        });
        spinner.focusedProperty().addListener((observable, before, focused) -> {
            if (!focused) {
                spinner.getEditor().setText(factory.getConverter().toString(factory.getValue()));
            }
        });
    }

    @FXML
    private void onOff() {
        viewModel.off();
    }

    @FXML
    private void onDropNext() {
        viewModel.arm(OneShotFault.Kind.DROP_NEXT_PACKET);
    }

    @FXML
    private void onDropAck() {
        viewModel.arm(OneShotFault.Kind.DROP_NEXT_ACK);
    }

    @FXML
    private void onCorruptNext() {
        viewModel.arm(OneShotFault.Kind.CORRUPT_NEXT_PACKET);
    }

    @FXML
    private void onCancel() {
        viewModel.cancelWaiting();
    }
}
