package org.rdmalab.app.buffer;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.WeakHashMap;
import javafx.collections.FXCollections;
import javafx.collections.ObservableListBase;
import javafx.geometry.Rectangle2D;
import javafx.geometry.VPos;
import javafx.scene.AccessibleAttribute;
import javafx.scene.canvas.Canvas;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.control.ContentDisplay;
import javafx.scene.control.Label;
import javafx.scene.control.ListCell;
import javafx.scene.control.ListView;
import javafx.scene.control.SelectionMode;
import javafx.scene.control.SkinBase;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;
import javafx.scene.paint.Color;
import javafx.scene.text.Font;
import javafx.scene.text.FontWeight;
import javafx.scene.text.Text;
import javafx.scene.text.TextAlignment;

/**
 * Draws a {@link HexBufferView}: the caption, a column header and a {@link ListView} with a fixed
 * cell size over a list of row numbers that is computed, not stored (4 M rows for 64 MiB cost no
 * memory). A cell reads its 16 bytes when it is given a row, so only the rows on screen are read.
 *
 * <p>A row is one {@link Canvas} (address, 16 bytes in hex, 16 in ASCII), not a label per byte: a
 * new snapshot of a 64 MiB buffer restyled 33 labels a row in every view at once (a CSS pass and
 * a bounds pass over thousands of nodes, 110-240 ms on the JavaFX thread). The colours are the
 * control's CSS properties ({@code -rl-hex-text}, ...), the font is monospaced 12 px. A refresh
 * (new bytes, new highlights) draws the rows on screen again in the next layout pass, in place: no
 * cell is made again.
 */
public class HexBufferViewSkin extends SkinBase<HexBufferView> {

    /** The rows' font; a byte inside a highlight is drawn bold in the same cell. */
    static final Font FONT = Font.font("Monospaced", 12);
    private static final Font CHANGED_FONT = Font.font("Monospaced", FontWeight.BOLD, 12);
    /** Between the address, the hex bytes and the ASCII column, as the label rows had. */
    private static final double COLUMN_GAP = 12;
    /** Between the two groups of eight bytes. */
    private static final double GROUP_GAP = 8;
    /** Left and right of each hex byte. */
    private static final double BYTE_PADDING = 1.5;
    /** Each byte value in two hex digits, "00" to "ff", made once. */
    private static final String[] HEX = new String[256];
    /** Each byte value as the ASCII column shows it: itself if printable, else ".". */
    private static final String[] ASCII = new String[256];

    static {
        String digits = "0123456789abcdef";
        for (int value = 0; value < 256; value++) {
            HEX[value] = new String(new char[] {digits.charAt(value >> 4), digits.charAt(value & 0xf)});
            ASCII[value] = RowView.printable(value) ? String.valueOf((char) value) : ".";
        }
    }

    private final ListView<Integer> list = new ListView<>();
    private final RowView header;
    private final Label placeholder = new Label("no buffer");
    private final Set<RowCell> cells = Collections.newSetFromMap(new WeakHashMap<>());
    private final Metrics metrics = Metrics.measure();
    private int addressDigits = 8;
    private boolean redraw;

    /** Builds the skin's nodes for {@code control}. */
    public HexBufferViewSkin(HexBufferView control) {
        super(control);
        header = new RowView(metrics, control);
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
        list.setCellFactory(view -> {
            RowCell cell = new RowCell();
            cells.add(cell);
            return cell;
        });
        VBox.setVgrow(list, Priority.ALWAYS);
        VBox content = new VBox(header, list);
        content.getStyleClass().add("hex-content");
        VBox outer = new VBox(4, caption, content);
        VBox.setVgrow(content, Priority.ALWAYS);
        getChildren().add(outer);

        registerChangeListener(control.sourceProperty(), observable -> sourceChanged());
        registerChangeListener(control.baseAddressProperty(), observable -> sourceChanged());
        registerChangeListener(control.emptyTextProperty(), observable -> sourceChanged());
        for (var colour : List.of(control.textColorProperty(), control.mutedColorProperty(),
                control.quietColorProperty(), control.changedColorProperty(), control.changedTextColorProperty())) {
            registerChangeListener(colour, observable -> {
                header.showHeader(addressDigits);
                refresh();
            });
        }
        sourceChanged();
        long pending = control.takePendingScrollOffset();
        if (pending >= 0) {
            scrollToOffset(pending);
        }
    }

    /** Draws the rows on screen again in the next layout pass (their bytes or highlights changed). */
    void refresh() {
        redraw = true;
        getSkinnable().requestLayout();
    }

    @Override
    protected void layoutChildren(double x, double y, double w, double h) {
        if (redraw) {
            redraw = false;
            for (RowCell cell : new ArrayList<>(cells)) {
                cell.redraw();
            }
        }
        super.layoutChildren(x, y, w, h);
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
            // The same rows with new bytes (a new snapshot of the buffer): the shown rows read them
            // again. New items would reset the list (its scroll position too) for every snapshot,
            // which for a 64 MiB buffer took the JavaFX thread hundreds of milliseconds each time.
            refresh();
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

    /** A list cell showing one row; reads the row's bytes when it is given a row or drawn again. */
    private final class RowCell extends ListCell<Integer> {
        private final RowView row = new RowView(metrics, getSkinnable());

        RowCell() {
            setContentDisplay(ContentDisplay.GRAPHIC_ONLY);
            setText(null);
        }

        @Override
        protected void updateItem(Integer index, boolean empty) {
            super.updateItem(index, empty);
            show(empty ? null : index);
        }

        void redraw() {
            if (!isEmpty() && getItem() != null) {
                show(getItem());
            }
        }

        private void show(Integer index) {
            HexBufferView view = getSkinnable();
            ByteSource source = view.getSource();
            if (index == null || source == null) {
                setGraphic(null);
                return;
            }
            long offset = (long) index * HexBufferView.BYTES_PER_ROW;
            setGraphic(row);
            try {
                long length = source.length();
                int count = (int) Math.min(HexBufferView.BYTES_PER_ROW, Math.max(0, length - offset));
                byte[] bytes = source.read(offset, count);
                if (bytes == null) {
                    throw new IllegalStateException("the source returned no bytes");
                }
                row.showBytes(address(offset), offset, bytes, Math.min(count, bytes.length));
            } catch (RuntimeException e) {
                row.showError(address(offset), "read failed: " + message(e));
            }
        }
    }

    /** The width and height of one character of {@link #FONT}, measured once. */
    record Metrics(double charWidth, double height) {
        static Metrics measure() {
            Text text = new Text("0123456789abcdef");
            text.setFont(FONT);
            return new Metrics(text.getLayoutBounds().getWidth() / 16, Math.ceil(text.getLayoutBounds().getHeight()));
        }
    }

    /**
     * One row drawn on one canvas: the address, the 16 bytes in hex (8 + 8), the same bytes as
     * ASCII, or the address and an error message (a label, shown only then). The header row is
     * one too, with the byte offsets as its bytes.
     */
    static final class RowView extends Region {
        private final Metrics metrics;
        private final HexBufferView view;
        private final Canvas canvas = new Canvas();
        private final Label error = new Label();
        private String address = "";
        private final byte[] bytes = new byte[HexBufferView.BYTES_PER_ROW];
        private int count;
        private boolean header;
        private final boolean[] changed = new boolean[HexBufferView.BYTES_PER_ROW];
        /** What the canvas holds (address, bytes, highlights, error, colours), or null before the first draw. */
        private Object[] drawn;
        /** How many times the canvas was drawn. */
        private int draws;

        RowView(Metrics metrics, HexBufferView view) {
            this.metrics = metrics;
            this.view = view;
            getStyleClass().add(HexBufferView.ROW_CLASS);
            error.getStyleClass().add(HexBufferView.ERROR_CLASS);
            error.setManaged(false);
            error.setVisible(false);
            canvas.setHeight(metrics.height());
            getChildren().addAll(canvas, error);
        }

        void showHeader(int addressDigits) {
            header = true;
            address = String.format(Locale.ROOT, "%-" + addressDigits + "s", "address");
            count = HexBufferView.BYTES_PER_ROW;
            for (int i = 0; i < count; i++) {
                bytes[i] = (byte) i;
                changed[i] = false;
            }
            setError(null);
            draw();
        }

        void showBytes(String addressText, long offset, byte[] values, int present) {
            header = false;
            address = addressText;
            count = Math.max(0, Math.min(present, HexBufferView.BYTES_PER_ROW));
            for (int i = 0; i < HexBufferView.BYTES_PER_ROW; i++) {
                bytes[i] = i < count ? values[i] : 0;
                changed[i] = i < count && view.isHighlighted(offset + i);
            }
            setError(null);
            draw();
        }

        void showError(String addressText, String message) {
            header = false;
            address = addressText;
            count = 0;
            Arrays.fill(changed, false);
            setError(message);
            draw();
        }

        private void setError(String message) {
            boolean failed = message != null;
            error.setText(failed ? message : "");
            error.setVisible(failed);
            if (failed) {
                requestLayout();
            }
        }

        /** The address column's text. */
        String addressText() {
            return address;
        }

        /** The bytes shown, in hex, {@code separator} between them; none for an error row. */
        String hexText(String separator) {
            StringBuilder text = new StringBuilder();
            for (int i = 0; i < count; i++) {
                text.append(i == 0 ? "" : separator).append(hex(i));
            }
            return text.toString();
        }

        /** The ASCII column's text, a blank for each byte past the end of the buffer. */
        String asciiText() {
            StringBuilder text = new StringBuilder();
            for (int i = 0; i < HexBufferView.BYTES_PER_ROW; i++) {
                text.append(i < count ? ascii(i) : " ");
            }
            return text.toString();
        }

        /** True when byte {@code i} of the row is drawn as changed. */
        boolean isChanged(int i) {
            return changed[i];
        }

        /** The error message shown, or null. */
        String errorText() {
            return error.isVisible() ? error.getText() : null;
        }

        /** Where hex byte {@code i}'s cell (its changed background) is, in the row's coordinates. */
        Rectangle2D byteCell(int i) {
            return new Rectangle2D(canvas.getLayoutX() + hexX(i), canvas.getLayoutY(),
                    byteWidth(), canvas.getHeight());
        }

        /** Where ASCII byte {@code i}'s character is, in the row's coordinates. */
        Rectangle2D asciiCell(int i) {
            return new Rectangle2D(canvas.getLayoutX() + asciiX(i), canvas.getLayoutY(),
                    metrics.charWidth(), canvas.getHeight());
        }

        private String hex(int i) {
            return HEX[header ? i : bytes[i] & 0xff];
        }

        private String ascii(int i) {
            if (header) {
                return HEX[i].substring(1);
            }
            return ASCII[bytes[i] & 0xff];
        }

        /**
         * What a screen reader reads for the row: its address, then its bytes in hex and in ASCII,
         * or the error. Built when one asks, not for every row shown at each new snapshot of the
         * buffer (every completion), where building it with a format per byte was part of the
         * JavaFX thread's work after the 64 MiB WRITE's completion. The header row has none.
         */
        @Override
        public Object queryAccessibleAttribute(AccessibleAttribute attribute, Object... parameters) {
            if (attribute == AccessibleAttribute.TEXT && !header) {
                String error = errorText();
                return address + ": " + (error != null ? error : hexText(" ") + " | " + asciiText());
            }
            return super.queryAccessibleAttribute(attribute, parameters);
        }

        private static boolean printable(int value) {
            return value >= 0x20 && value < 0x7f;
        }

        private double byteWidth() {
            return 2 * metrics.charWidth() + 2 * BYTE_PADDING;
        }

        private double addressWidth() {
            return address.length() * metrics.charWidth();
        }

        private double hexX(int i) {
            double group = i >= HexBufferView.BYTES_PER_ROW / 2 ? GROUP_GAP : 0;
            return addressWidth() + COLUMN_GAP + i * byteWidth() + group;
        }

        private double asciiX(int i) {
            return hexX(HexBufferView.BYTES_PER_ROW) + COLUMN_GAP + i * metrics.charWidth();
        }

        /** How many times the row's canvas was drawn (a row shown again unchanged is not). */
        int draws() {
            return draws;
        }

        /**
         * Draws the row on its canvas, unless the canvas already holds what it would draw: a canvas
         * drawn again is painted again, and each new snapshot of a buffer (every completion) drew
         * every row shown, both buffers' rows, though most of their bytes had not changed.
         */
        private void draw() {
            double width = Math.ceil(asciiX(HexBufferView.BYTES_PER_ROW));
            if (canvas.getWidth() != width) {
                canvas.setWidth(width);
                requestLayout();
            }
            Object[] now = {width, header, address, count, bytes.clone(), changed.clone(), errorText(),
                view.getMutedColor(), view.getChangedColor(), view.getChangedTextColor(), view.getQuietColor(),
                view.getTextColor()};
            if (Arrays.deepEquals(now, drawn)) {
                return;
            }
            drawn = now;
            draws++;
            // A screen reader reading the row asks for its text again (queryAccessibleAttribute).
            notifyAccessibleAttributeChanged(AccessibleAttribute.TEXT);
            GraphicsContext g = canvas.getGraphicsContext2D();
            double height = canvas.getHeight();
            g.clearRect(0, 0, canvas.getWidth(), height);
            g.setTextBaseline(VPos.CENTER);
            g.setTextAlign(TextAlignment.LEFT);
            g.setFont(FONT);
            Color muted = view.getMutedColor();
            g.setFill(muted);
            g.fillText(address, 0, height / 2);
            if (errorText() != null) {
                return;
            }
            double cw = metrics.charWidth();
            for (int i = 0; i < count; i++) {
                int value = bytes[i] & 0xff;
                if (changed[i]) {
                    g.setFill(view.getChangedColor());
                    g.fillRoundRect(hexX(i), 0, byteWidth(), height, 4, 4);
                    g.fillRoundRect(asciiX(i), 0, cw, height, 4, 4);
                }
                g.setFont(changed[i] ? CHANGED_FONT : FONT);
                g.setFill(header ? muted : changed[i] ? view.getChangedTextColor()
                        : value == 0 ? view.getQuietColor() : view.getTextColor());
                g.fillText(hex(i), hexX(i) + BYTE_PADDING, height / 2);
                g.setFill(header ? muted : changed[i] ? view.getChangedTextColor()
                        : !printable(value) ? view.getQuietColor() : view.getTextColor());
                g.fillText(ascii(i), asciiX(i), height / 2);
            }
        }

        @Override
        protected double computePrefWidth(double height) {
            double errorWidth = errorText() == null ? 0
                    : addressWidth() + COLUMN_GAP + error.prefWidth(-1);
            return snappedLeftInset() + Math.max(canvas.getWidth(), errorWidth) + snappedRightInset();
        }

        @Override
        protected double computePrefHeight(double width) {
            return snappedTopInset() + canvas.getHeight() + snappedBottomInset();
        }

        @Override
        protected double computeMinWidth(double height) {
            return computePrefWidth(height);
        }

        @Override
        protected double computeMinHeight(double width) {
            return computePrefHeight(width);
        }

        @Override
        protected void layoutChildren() {
            double left = snappedLeftInset();
            double top = snappedTopInset();
            double inner = getHeight() - top - snappedBottomInset();
            canvas.relocate(left, top + Math.max(0, (inner - canvas.getHeight()) / 2));
            if (error.isVisible()) {
                double w = error.prefWidth(-1);
                double h = error.prefHeight(w);
                error.resizeRelocate(left + addressWidth() + COLUMN_GAP, top + (inner - h) / 2, w, h);
            }
        }
    }
}
