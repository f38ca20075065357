package org.rdmalab.app.packets;

import javafx.beans.binding.Bindings;
import javafx.fxml.FXML;
import javafx.scene.control.Label;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableView;
import org.rdmalab.app.common.BoundedLog;
import org.rdmalab.app.common.Columns;
import org.rdmalab.app.common.UiText;
import org.rdmalab.app.lab.LabViewModel;
import org.rdmalab.app.lab.PacketRow;

/**
 * Controller of {@code PacketsView.fxml}: the RoCE v2 packets each software device sent, received
 * or dropped (native devices report none; capture them with tcpdump). Bounded and virtualised.
 * Selecting a packet opens it in the {@link PacketView} below.
 */
public final class PacketsView {

    private final LabViewModel lab;
    private final PacketViewModel opened;

    @FXML
    private Label countLabel;
    @FXML
    private TableView<PacketRow> packetTable;
    @FXML
    private TableColumn<PacketRow, String> timeColumn;
    @FXML
    private TableColumn<PacketRow, String> sideColumn;
    @FXML
    private TableColumn<PacketRow, String> directionColumn;
    @FXML
    private TableColumn<PacketRow, String> pathColumn;
    @FXML
    private TableColumn<PacketRow, String> opcodeColumn;
    @FXML
    private TableColumn<PacketRow, String> qpColumn;
    @FXML
    private TableColumn<PacketRow, String> psnColumn;
    @FXML
    private TableColumn<PacketRow, String> lengthColumn;
    @FXML
    private TableColumn<PacketRow, String> detailColumn;

    public PacketsView(LabViewModel lab, PacketViewModel opened) {
        this.lab = lab;
        this.opened = opened;
    }

    @FXML
    private void initialize() {
        BoundedLog<PacketRow> log = lab.packetLog();
        packetTable.setItems(log.rows());
        packetTable.setPlaceholder(new Label(UiText.text("packets.none")));
        Columns.show(timeColumn, row -> LabViewModel.TIME.format(row.at()));
        Columns.show(sideColumn, row -> UiText.side(row.side()));
        Columns.show(directionColumn, row -> row.packet().direction().name().toLowerCase(java.util.Locale.ROOT));
        Columns.show(pathColumn, row -> row.packet().source() + " → " + row.packet().destination());
        Columns.show(opcodeColumn, row -> row.packet().opcode() + (row.packet().ackRequest() ? " (AckReq)" : ""));
        Columns.show(qpColumn, row -> String.format("0x%x", row.packet().destQp()));
        Columns.show(psnColumn, row -> Integer.toString(row.packet().psn()));
        Columns.show(lengthColumn, row -> Integer.toString(row.packet().length()));
        Columns.show(detailColumn, row -> row.packet().detail());
        packetTable.getSelectionModel().selectedItemProperty().addListener((observable, before, row) -> {
            if (row != null) {
                opened.packetProperty().set(row);
            }
        });
        countLabel.textProperty().bind(Bindings.createStringBinding(
                () -> Columns.count(log.rows().size(), log.droppedProperty().get(), "packets"),
                log.rows(), log.droppedProperty()));
    }
}
