package org.rdmalab.app.buffer;

import java.util.Locale;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;
import javafx.collections.ObservableListBase;
import javafx.scene.control.ContentDisplay;
import javafx.scene.control.Label;
import javafx.scene.control.ListCell;
import javafx.scene.control.ListView;
import javafx.scene.control.SelectionMode;
import javafx.scene.control.SkinBase;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;

/**
 * Draws a {@link HexBufferView}: the caption, a column header and a {@link ListView} with a fixed
 * cell size over a list of row numbers that is computed, not stored (4 M rows for 64 MiB cost no
 * memory). A cell reads its 16 bytes when it is given a row, so only the rows on screen are read.
 */
public class HexBufferViewSkin extends SkinBase<HexBufferView> {

    private final ListView<Integer> list = new ListView<>();
    private final RowView header = new RowView();
    private final Label placeholder = new Label("no buffer");
    private int addressDigits = 8;

    /** Builds the skin's nodes for {@code control}. */
    public HexBufferViewSkin(HexBufferView control) {
        super(control);
        Label caption = new Label();
        caption.getStyleClass().add(HexBufferView.CAPTION_CLASS);
        caption.textProperty().bind(control.captionProperty());
        caption.visibleProperty().bind(control.captionProperty().isNotEmpty());
        caption.managedProperty().bind(caption.visibleProperty());
        caption.setMinWidth(0);

        header.getStyleClass().add(HexBufferView.HEADER_CLASS);
        placeholder.getStyleClass().add("hex-placeholder");
        placeholder.setWrapText(true);
        list.setPlaceholder(placeholder);
        list.getSelectionModel().setSelectionMode(SelectionMode.SINGLE);
        list.setCellFactory(view -> new RowCell());
        VBox.setVgrow(list, Priority.ALWAYS);
        VBox content = new VBox(header, list);
        content.getStyleClass().add("hex-content");
        VBox outer = new VBox(4, caption, content);
        VBox.setVgrow(content, Priority.ALWAYS);
        getChildren().add(outer);

        registerChangeListener(control.sourceProperty(), observable -> sourceChanged());
        registerChangeListener(control.baseAddressProperty(), observable -> sourceChanged());
        registerChangeListener(control.emptyTextProperty(), observable -> sourceChanged());
        sourceChanged();
        long pending = control.takePendingScrollOffset();
        if (pending >= 0) {
            scrollToOffset(pending);
        }
    }

    void refresh() {
        list.refresh();
    }

    void scrollToOffset(long offset) {
        long row = Math.max(0, offset) / HexBufferView.BYTES_PER_ROW;
        if (!list.getItems().isEmpty()) {
            list.scrollTo((int) Math.min(row, list.getItems().size() - 1));
        }
    }

    private void sourceChanged() {
        ByteSource source = getSkinnable().getSource();
        long length;
        try {
            length = source == null ? 0 : source.length();
        } catch (RuntimeException e) {
            placeholder.setText("cannot read the buffer: " + message(e));
            list.setItems(FXCollections.emptyObservableList());
            return;
        }
        placeholder.setText(source == null ? "no buffer" : getSkinnable().getEmptyText());
        long last = getSkinnable().getBaseAddress() + Math.max(0, length - 1);
        int digits = Math.max(8, Long.toHexString(last).length());
        addressDigits = (digits + 3) / 4 * 4;
        header.showHeader(addressDigits);
        long rows = (length + HexBufferView.BYTES_PER_ROW - 1) / HexBufferView.BYTES_PER_ROW;
        int count = (int) Math.min(rows, HexBufferView.MAX_ROWS);
        if (list.getItems() instanceof RowNumbers shown && shown.size() == count) {
            // The same rows with new bytes (a new snapshot of the buffer): the shown cells read them
            // again. New items would reset the list (its scroll position too) for every snapshot,
            // which for a 64 MiB buffer took the JavaFX thread hundreds of milliseconds each time.
            list.refresh();
            return;
        }
        list.setItems(new RowNumbers(count));
    }

    private String address(long offset) {
        String hex = Long.toHexString(getSkinnable().getBaseAddress() + offset);
        return "0".repeat(Math.max(0, addressDigits - hex.length())) + hex;
    }

    static String message(RuntimeException e) {
        String text = e.getMessage();
        return text == null || text.isBlank() ? e.getClass().getSimpleName() : text;
    }

    /** The row numbers 0 .. size-1, computed on demand. */
    private static final class RowNumbers extends ObservableListBase<Integer> {
        private final int size;

        RowNumbers(int size) {
            this.size = size;
        }

        @Override
        public Integer get(int index) {
            if (index < 0 || index >= size) {
                throw new IndexOutOfBoundsException(index);
            }
            return index;
        }

        @Override
        public int size() {
            return size;
        }

        @Override
        public int indexOf(Object o) {
            return o instanceof Integer row && row >= 0 && row < size ? row : -1;
        }

        @Override
        public int lastIndexOf(Object o) {
            return indexOf(o);
        }

        @Override
        public boolean contains(Object o) {
            return indexOf(o) >= 0;
        }
    }

    /** A list cell showing one row; reads the row's bytes when it is given a row. */
    private final class RowCell extends ListCell<Integer> {
        private final RowView row = new RowView();

        RowCell() {
            setContentDisplay(ContentDisplay.GRAPHIC_ONLY);
            setText(null);
        }

        @Override
        protected void updateItem(Integer index, boolean empty) {
            super.updateItem(index, empty);
            if (empty || index == null) {
                setGraphic(null);
                return;
            }
            HexBufferView view = getSkinnable();
            ByteSource source = view.getSource();
            long offset = (long) index * HexBufferView.BYTES_PER_ROW;
            if (source == null) {
                setGraphic(null);
                return;
            }
            setGraphic(row);
            try {
                long length = source.length();
                int count = (int) Math.min(HexBufferView.BYTES_PER_ROW, Math.max(0, length - offset));
                byte[] bytes = source.read(offset, count);
                if (bytes == null) {
                    throw new IllegalStateException("the source returned no bytes");
                }
                row.showBytes(address(offset), offset, bytes, Math.min(count, bytes.length), view);
            } catch (RuntimeException e) {
                row.showError(address(offset), "read failed: " + message(e));
            }
        }
    }

    /** The labels of one row: address, 16 hex bytes (8 + 8), 16 ASCII characters, or an error. */
    static final class RowView extends HBox {
        private final Label address = new Label();
        private final Label[] hex = new Label[HexBufferView.BYTES_PER_ROW];
        private final Label[] ascii = new Label[HexBufferView.BYTES_PER_ROW];
        private final HBox hexBox = new HBox();
        private final HBox asciiBox = new HBox();
        private final Label error = new Label();

        RowView() {
            getStyleClass().add(HexBufferView.ROW_CLASS);
            address.getStyleClass().add(HexBufferView.ADDRESS_CLASS);
            address.setMinWidth(Region.USE_PREF_SIZE);
            hexBox.getStyleClass().add("hex-bytes");
            asciiBox.getStyleClass().add("hex-ascii-column");
            for (int i = 0; i < HexBufferView.BYTES_PER_ROW; i++) {
                hex[i] = new Label();
                hex[i].getStyleClass().add(HexBufferView.BYTE_CLASS);
                hex[i].setMinWidth(Region.USE_PREF_SIZE);
                ascii[i] = new Label();
                ascii[i].getStyleClass().add(HexBufferView.ASCII_CLASS);
                ascii[i].setMinWidth(Region.USE_PREF_SIZE);
                if (i == HexBufferView.BYTES_PER_ROW / 2) {
                    Region groupGap = new Region();
                    groupGap.getStyleClass().add("hex-group-gap");
                    hexBox.getChildren().add(groupGap);
                }
                hexBox.getChildren().add(hex[i]);
                asciiBox.getChildren().add(ascii[i]);
            }
            error.getStyleClass().add(HexBufferView.ERROR_CLASS);
            error.setManaged(false);
            error.setVisible(false);
            getChildren().addAll(address, hexBox, asciiBox, error);
        }

        void showHeader(int addressDigits) {
            address.setText(String.format(Locale.ROOT, "%-" + addressDigits + "s", "address"));
            for (int i = 0; i < HexBufferView.BYTES_PER_ROW; i++) {
                hex[i].setText(String.format(Locale.ROOT, "%02x", i));
                ascii[i].setText(Integer.toHexString(i));
            }
        }

        void showBytes(String addressText, long offset, byte[] bytes, int count, HexBufferView view) {
            setError(null);
            address.setText(addressText);
            for (int i = 0; i < HexBufferView.BYTES_PER_ROW; i++) {
                boolean present = i < count;
                int value = present ? bytes[i] & 0xff : 0;
                boolean printable = value >= 0x20 && value < 0x7f;
                hex[i].setText(present ? String.format(Locale.ROOT, "%02x", value) : "  ");
                ascii[i].setText(present ? (printable ? String.valueOf((char) value) : ".") : " ");
                boolean changed = present && view.isHighlighted(offset + i);
                mark(hex[i], HexBufferView.CHANGED_CLASS, changed);
                mark(ascii[i], HexBufferView.CHANGED_CLASS, changed);
                mark(hex[i], HexBufferView.QUIET_CLASS, present && value == 0);
                mark(ascii[i], HexBufferView.QUIET_CLASS, present && !printable);
            }
            setAccessibleText(addressText + ": " + hexText() + " | " + asciiText());
        }

        private String hexText() {
            StringBuilder text = new StringBuilder();
            for (Label label : hex) {
                if (!label.getText().isBlank()) {
                    text.append(text.length() == 0 ? "" : " ").append(label.getText());
                }
            }
            return text.toString();
        }

        void showError(String addressText, String message) {
            address.setText(addressText);
            setError(message);
            setAccessibleText(addressText + ": " + message);
        }

        private void setError(String message) {
            boolean failed = message != null;
            error.setText(failed ? message : "");
            error.setVisible(failed);
            error.setManaged(failed);
            hexBox.setVisible(!failed);
            hexBox.setManaged(!failed);
            asciiBox.setVisible(!failed);
            asciiBox.setManaged(!failed);
        }

        /** The ASCII column's text. */
        String asciiText() {
            StringBuilder text = new StringBuilder();
            for (Label label : ascii) {
                text.append(label.getText());
            }
            return text.toString();
        }

        private static void mark(Label label, String styleClass, boolean on) {
            ObservableList<String> classes = label.getStyleClass();
            if (on && !classes.contains(styleClass)) {
                classes.add(styleClass);
            } else if (!on) {
                classes.remove(styleClass);
            }
        }
    }
}
