package org.rdmalab.app.lab;

import javafx.fxml.FXML;
import javafx.scene.control.Label;
import javafx.scene.layout.FlowPane;
import javafx.scene.layout.GridPane;
import javafx.scene.layout.VBox;
import org.rdmalab.app.common.UiText;
import org.rdmalab.lab.WireImage;

/**
 * Controller of {@code ConnectionDataView.fxml}: for each direction the fields (name, offset,
 * length, value) and the bytes on the wire, each field's bytes in its own colour.
 */
public final class ConnectionDataView {

    /** Colours cycle through this many field style classes ({@code wire-field-0} ...). */
    static final int FIELD_COLOURS = 5;

    private final ConnectionDataViewModel viewModel;

    @FXML
    private Label titleLabel;
    @FXML
    private VBox localBox;
    @FXML
    private VBox remoteBox;

    public ConnectionDataView(ConnectionDataViewModel viewModel) {
        this.viewModel = viewModel;
    }

    @FXML
    private void initialize() {
        titleLabel.textProperty().bind(viewModel.titleProperty());
        String sent = UiText.text("connection.sent");
        String received = UiText.text("connection.received");
        viewModel.localProperty().addListener((observable, before, image) -> show(localBox, sent, image));
        viewModel.remoteProperty().addListener((observable, before, image) -> show(remoteBox, received, image));
        show(localBox, sent, viewModel.localProperty().get());
        show(remoteBox, received, viewModel.remoteProperty().get());
    }

    private static void show(VBox box, String heading, WireImage image) {
        box.getChildren().clear();
        Label title = new Label(image == null ? UiText.format("connection.nothingYet", heading) : heading + " · "
                + image.protocol() + " · " + UiText.format("connection.bytes", image.bytes().length));
        title.getStyleClass().add("panel-title");
        // A narrow pane (the smallest window, projector mode) wraps the heading rather than cutting it.
        title.setWrapText(true);
        title.setMinHeight(javafx.scene.layout.Region.USE_PREF_SIZE);
        box.getChildren().add(title);
        if (image == null) {
            return;
        }
        GridPane fields = new GridPane();
        fields.setHgap(10);
        fields.setVgap(2);
        fields.getStyleClass().add("wire-fields");
        fields.addRow(0, header(UiText.text("connection.field")), header("offset"), header("len"),
                header(UiText.text("connection.value")));
        FlowPane bytes = new FlowPane(3, 3);
        bytes.getStyleClass().add("wire-bytes");
        byte[] all = image.bytes();
        int row = 1;
        for (WireImage.WireField field : image.fields()) {
            String colour = "wire-field-" + ((row - 1) % FIELD_COLOURS);
            Label name = new Label(field.name());
            name.getStyleClass().addAll("wire-name", colour);
            fields.addRow(row++, name, new Label(Integer.toString(field.offset())),
                    new Label(Integer.toString(field.length())), new Label(field.value()));
            StringBuilder hex = new StringBuilder();
            for (int i = field.offset(); i < field.offset() + field.length() && i < all.length; i++) {
                hex.append(hex.length() == 0 ? "" : " ").append(String.format("%02x", all[i] & 0xff));
            }
            Label chunk = new Label(hex.toString());
            chunk.getStyleClass().addAll("wire-chunk", colour);
            chunk.setWrapText(true);
            chunk.setTooltip(new javafx.scene.control.Tooltip(field.name() + " = " + field.value()));
            bytes.getChildren().add(chunk);
        }
        box.getChildren().addAll(fields, new Label(UiText.text("connection.onTheWire")), bytes);
    }

    private static Label header(String text) {
        Label label = new Label(text);
        label.getStyleClass().add("section-title");
        return label;
    }
}
