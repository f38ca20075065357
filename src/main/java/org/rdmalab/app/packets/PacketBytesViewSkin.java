package org.rdmalab.app.packets;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javafx.collections.FXCollections;
import javafx.scene.control.ContentDisplay;
import javafx.scene.control.Label;
import javafx.scene.control.ListCell;
import javafx.scene.control.ListView;
import javafx.scene.control.SelectionMode;
import javafx.scene.control.SkinBase;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Region;
import org.rdmalab.wire.Dissection;

/**
 * Draws a {@link PacketBytesView}: a {@link ListView} of rows (row numbers, fixed cell size), each
 * row its offset, its bytes in hex and as ASCII, every byte styled by its header's layer and lit
 * when it lies in the selection. The row width (16 or 8 bytes) follows the control's width.
 */
public class PacketBytesViewSkin extends SkinBase<PacketBytesView> {

    private final ListView<Integer> list = new ListView<>();
    private final Label placeholder = new Label();
    private int perRow = 16;

    public PacketBytesViewSkin(PacketBytesView control) {
        super(control);
        list.getSelectionModel().setSelectionMode(SelectionMode.SINGLE);
        list.setFocusTraversable(false);
        list.setCellFactory(view -> new RowCell());
        list.setPlaceholder(placeholder);
        getChildren().add(list);
        registerChangeListener(control.dissectionProperty(), observable -> rebuild());
        registerChangeListener(control.selectedProperty(), observable -> {
            list.refresh();
            int[] range = control.selectedRange();
            if (range != null) {
                scrollTo(range[0]);
            }
        });
        registerChangeListener(control.widthProperty(), observable -> {
            int wanted = control.getWidth() >= PacketBytesView.WIDE ? 16 : 8;
            if (wanted != perRow) {
                perRow = wanted;
                rebuild();
            }
        });
        rebuild();
    }

    private void rebuild() {
        Dissection shown = getSkinnable().dissectionProperty().get();
        int length = shown == null ? 0 : shown.length();
        List<Integer> rows = new ArrayList<>();
        for (int row = 0; row * perRow < length; row++) {
            rows.add(row);
        }
        list.setItems(FXCollections.observableArrayList(rows));
    }

    private void scrollTo(int offset) {
        int row = offset / perRow;
        if (row < list.getItems().size()) {
            list.scrollTo(Math.max(0, row - 1));
        }
    }

    /** One row of the packet: offset, hex bytes, ASCII. */
    private final class RowCell extends ListCell<Integer> {
        private final HBox row = new HBox();
        private final Label offset = new Label();
        private final HBox hexBox = new HBox();
        private final HBox asciiBox = new HBox();
        private final List<Label> hex = new ArrayList<>();
        private final List<Label> ascii = new ArrayList<>();

        RowCell() {
            setContentDisplay(ContentDisplay.GRAPHIC_ONLY);
            row.getStyleClass().add("packet-row");
            offset.getStyleClass().add("packet-offset");
            offset.setMinWidth(Region.USE_PREF_SIZE);
            asciiBox.getStyleClass().add("packet-ascii-column");
            row.getChildren().addAll(offset, hexBox, asciiBox);
        }

        private void ensure(int count) {
            while (hex.size() < count) {
                int index = hex.size();
                Label byteLabel = new Label();
                byteLabel.setMinWidth(Region.USE_PREF_SIZE);
                Label asciiLabel = new Label();
                asciiLabel.setMinWidth(Region.USE_PREF_SIZE);
                byteLabel.setOnMouseClicked(event -> click(index));
                asciiLabel.setOnMouseClicked(event -> click(index));
                hex.add(byteLabel);
                ascii.add(asciiLabel);
            }
            if (hexBox.getChildren().size() != count) {
                hexBox.getChildren().setAll(hex.subList(0, count));
                asciiBox.getChildren().setAll(ascii.subList(0, count));
            }
        }

        private void click(int index) {
            Integer item = getItem();
            if (item != null) {
                getSkinnable().selectByte(item * perRow + index);
            }
        }

        @Override
        protected void updateItem(Integer index, boolean empty) {
            super.updateItem(index, empty);
            Dissection shown = getSkinnable().dissectionProperty().get();
            if (empty || index == null || shown == null) {
                setGraphic(null);
                return;
            }
            ensure(perRow);
            int start = index * perRow;
            offset.setText(String.format(Locale.ROOT, "%04x", start));
            int[] selected = getSkinnable().selectedRange();
            for (int i = 0; i < perRow; i++) {
                int at = start + i;
                Label byteLabel = hex.get(i);
                Label asciiLabel = ascii.get(i);
                byteLabel.getStyleClass().setAll("label", PacketBytesView.BYTE_CLASS);
                asciiLabel.getStyleClass().setAll("label", PacketBytesView.ASCII_CLASS);
                // The offset each label shows now (cells are reused), for tests and accessibility.
                byteLabel.setUserData(at < shown.length() ? at : null);
                asciiLabel.setUserData(at < shown.length() ? at : null);
                if (at >= shown.length()) {
                    byteLabel.setText("  ");
                    asciiLabel.setText(" ");
                    continue;
                }
                int value = shown.byteAt(at);
                byteLabel.setText(String.format(Locale.ROOT, "%02x", value));
                asciiLabel.setText(value >= 0x20 && value < 0x7f ? String.valueOf((char) value) : ".");
                shown.headerAt(at).ifPresent(header -> {
                    String layer = PacketBytesView.layerClass(header.layer());
                    byteLabel.getStyleClass().add(layer);
                    asciiLabel.getStyleClass().add(layer);
                    if (header.check() == Dissection.Check.BAD) {
                        byteLabel.getStyleClass().add(PacketBytesView.BAD_CLASS);
                    }
                });
                if (selected != null && at >= selected[0] && at < selected[1]) {
                    byteLabel.getStyleClass().add(PacketBytesView.SELECTED_CLASS);
                    asciiLabel.getStyleClass().add(PacketBytesView.SELECTED_CLASS);
                }
            }
            setGraphic(row);
        }
    }
}
