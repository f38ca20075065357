package org.rdmalab.app.buffer;

import java.net.URL;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Function;
import javafx.beans.property.LongProperty;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.SimpleLongProperty;
import javafx.beans.property.SimpleObjectProperty;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;
import javafx.css.CssMetaData;
import javafx.css.Styleable;
import javafx.css.StyleableObjectProperty;
import javafx.css.StyleableProperty;
import javafx.css.StyleablePropertyFactory;
import javafx.scene.control.Control;
import javafx.scene.control.Skin;
import javafx.scene.paint.Color;

/**
 * A buffer in hex and ASCII, 16 bytes a row: the address column (the {@linkplain #baseAddressProperty()
 * base address} plus the offset), the bytes in two groups of eight, and the same bytes as ASCII with
 * '.' for anything not printable. Rows are virtualised: only the rows on screen are read from the
 * {@link ByteSource}, so a 64 MiB memory region scrolls as smoothly as a 64-byte one. Bytes changed
 * by the last operation can be {@linkplain #highlight highlighted}. A source that throws is shown as
 * a row saying so. Each row is drawn on one canvas, so its colours are the control's CSS
 * properties: {@code -rl-hex-text}, {@code -rl-hex-muted} (addresses, the header),
 * {@code -rl-hex-quiet} (zero bytes, non-printable characters), {@code -rl-hex-changed} (a
 * highlighted byte's background) and {@code -rl-hex-changed-text}; {@code styles/controls.css} sets
 * them from the tokens of {@code styles/rdma-lab.css}. JavaFX thread only.
 */
public class HexBufferView extends Control {

    /** Style class of the control. */
    public static final String STYLE_CLASS = "hex-buffer-view";
    /** The caption above the rows. */
    public static final String CAPTION_CLASS = "hex-caption";
    /** One row (also the column header, which has {@link #HEADER_CLASS} too). */
    public static final String ROW_CLASS = "hex-row";
    /** The column header row. */
    public static final String HEADER_CLASS = "hex-header";
    /** The message of a row whose read failed. */
    public static final String ERROR_CLASS = "read-error";
    /** Bytes a row shows. */
    public static final int BYTES_PER_ROW = 16;
    /** Rows above this are not shown (2^31 - 1 rows of 16 bytes: 32 GiB). */
    public static final long MAX_ROWS = Integer.MAX_VALUE;

    private static final StyleablePropertyFactory<HexBufferView> CSS = new StyleablePropertyFactory<>(
            Control.getClassCssMetaData());

    private static final URL STYLESHEET = HexBufferView.class.getResource("/styles/controls.css");

    /** A highlighted range of offsets, {@code [offset, offset + length)}. */
    public record Range(long offset, long length) {
        /** True when {@code position} is inside. */
        public boolean contains(long position) {
            return position >= offset && position - offset < length;
        }
    }

    private final ObjectProperty<ByteSource> source = new SimpleObjectProperty<>(this, "source");
    private final StringProperty caption = new SimpleStringProperty(this, "caption", "");
    private final StringProperty emptyText = new SimpleStringProperty(this, "emptyText", "the buffer is empty (0 bytes)");
    private final LongProperty baseAddress = new SimpleLongProperty(this, "baseAddress", 0);
    private final List<Range> highlights = new ArrayList<>();
    private long pendingScrollOffset = -1;

    private final StyleableObjectProperty<Color> textColor = color("textColor", "-rl-hex-text", "#1e293b",
            view -> view.textColor);
    private final StyleableObjectProperty<Color> mutedColor = color("mutedColor", "-rl-hex-muted", "#64748b",
            view -> view.mutedColor);
    private final StyleableObjectProperty<Color> quietColor = color("quietColor", "-rl-hex-quiet", "#a3aebd",
            view -> view.quietColor);
    private final StyleableObjectProperty<Color> changedColor = color("changedColor", "-rl-hex-changed", "#fde68a",
            view -> view.changedColor);
    private final StyleableObjectProperty<Color> changedTextColor = color("changedTextColor", "-rl-hex-changed-text",
            "#1e293b", view -> view.changedTextColor);

    private StyleableObjectProperty<Color> color(String name, String css, String initial,
                                                 Function<HexBufferView, StyleableProperty<Color>> property) {
        return (StyleableObjectProperty<Color>) CSS.createStyleableColorProperty(this, name, css, property,
                Color.web(initial));
    }

    /** An empty view. */
    public HexBufferView() {
        getStyleClass().add(STYLE_CLASS);
        // An author style sheet of this subtree: a user-agent one would replace modena's looked-up
        // colours for everything inside the control (a ListView's cells, for one).
        getStylesheets().add(STYLESHEET.toExternalForm());
    }

    /** The bytes shown; null shows a placeholder. */
    public final ObjectProperty<ByteSource> sourceProperty() {
        return source;
    }

    public final ByteSource getSource() {
        return source.get();
    }

    public final void setSource(ByteSource value) {
        source.set(value);
    }

    /** The line above the rows, e.g. "remote buffer · RDMA READ at 12:03:04.512". */
    public final StringProperty captionProperty() {
        return caption;
    }

    public final String getCaption() {
        return caption.get();
    }

    public final void setCaption(String value) {
        caption.set(value);
    }

    /** What an empty buffer's rows say instead (the window's language). */
    public final StringProperty emptyTextProperty() {
        return emptyText;
    }

    public final String getEmptyText() {
        return emptyText.get();
    }

    public final void setEmptyText(String value) {
        emptyText.set(value);
    }

    /** The address of offset 0 in the address column (the MR's address); 0 by default. */
    public final LongProperty baseAddressProperty() {
        return baseAddress;
    }

    public final long getBaseAddress() {
        return baseAddress.get();
    }

    public final void setBaseAddress(long value) {
        baseAddress.set(value);
    }

    /**
     * Highlights the bytes at {@code [offset, offset + length)} (offsets into the source, not
     * addresses), in addition to earlier highlights; call {@link #clearHighlights()} first to show
     * only the last operation's bytes.
     */
    public void highlight(long offset, long length) {
        if (offset < 0 || length < 0) {
            throw new IllegalArgumentException("highlight needs a non-negative offset and length, got "
                    + offset + " and " + length);
        }
        if (length > 0) {
            highlights.add(new Range(offset, length));
            refresh();
        }
    }

    /** Removes every highlight. */
    public void clearHighlights() {
        if (!highlights.isEmpty()) {
            highlights.clear();
            refresh();
        }
    }

    /** The highlighted ranges, in the order given. */
    public List<Range> getHighlights() {
        return Collections.unmodifiableList(highlights);
    }

    /** True when the byte at {@code offset} is in a highlighted range. */
    public boolean isHighlighted(long offset) {
        for (Range range : highlights) {
            if (range.contains(offset)) {
                return true;
            }
        }
        return false;
    }

    /** Reads the visible rows again (after the buffer's bytes changed). */
    public void refresh() {
        if (getSkin() instanceof HexBufferViewSkin skin) {
            skin.refresh();
        }
    }

    /** Scrolls so that the row holding {@code offset} (an offset into the source) is visible. */
    public void scrollToOffset(long offset) {
        if (getSkin() instanceof HexBufferViewSkin skin) {
            skin.scrollToOffset(offset);
        } else {
            pendingScrollOffset = offset;
        }
    }

    long takePendingScrollOffset() {
        long offset = pendingScrollOffset;
        pendingScrollOffset = -1;
        return offset;
    }

    /** A byte's and a character's colour ({@code -rl-hex-text}). */
    public final StyleableObjectProperty<Color> textColorProperty() {
        return textColor;
    }

    public final Color getTextColor() {
        return textColor.get();
    }

    /** The addresses' and the header's colour ({@code -rl-hex-muted}). */
    public final StyleableObjectProperty<Color> mutedColorProperty() {
        return mutedColor;
    }

    public final Color getMutedColor() {
        return mutedColor.get();
    }

    /** A zero byte's and a non-printable character's colour ({@code -rl-hex-quiet}). */
    public final StyleableObjectProperty<Color> quietColorProperty() {
        return quietColor;
    }

    public final Color getQuietColor() {
        return quietColor.get();
    }

    /** A highlighted byte's background ({@code -rl-hex-changed}). */
    public final StyleableObjectProperty<Color> changedColorProperty() {
        return changedColor;
    }

    public final Color getChangedColor() {
        return changedColor.get();
    }

    /** A highlighted byte's colour, drawn bold ({@code -rl-hex-changed-text}). */
    public final StyleableObjectProperty<Color> changedTextColorProperty() {
        return changedTextColor;
    }

    public final Color getChangedTextColor() {
        return changedTextColor.get();
    }

    public static List<CssMetaData<? extends Styleable, ?>> getClassCssMetaData() {
        return CSS.getCssMetaData();
    }

    @Override
    public List<CssMetaData<? extends Styleable, ?>> getControlCssMetaData() {
        return getClassCssMetaData();
    }

    @Override
    protected Skin<?> createDefaultSkin() {
        return new HexBufferViewSkin(this);
    }
}
