package org.rdmalab.app.packets;

import java.net.URL;
import java.util.Locale;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.SimpleObjectProperty;
import javafx.scene.control.Control;
import javafx.scene.control.Skin;
import org.rdmalab.wire.Dissection;

/**
 * A packet's bytes in hex and ASCII, each byte coloured by the header it belongs to (Ethernet,
 * IP, UDP, BTH, the extension headers, payload, ICRC), with the selected field's bytes (or the
 * selected header's) lit. Clicking a byte selects the field that holds it; the selection is a
 * property, so the field tree beside it follows and leads. Sixteen bytes a row when there is room,
 * eight when the pane is narrow; rows are virtualised. Style: {@code styles/controls.css}. JavaFX
 * thread only.
 */
public class PacketBytesView extends Control {

    /** Style class of the control. */
    public static final String STYLE_CLASS = "packet-bytes-view";
    /** One byte in hex (also carries {@link #layerClass}). */
    public static final String BYTE_CLASS = "packet-byte";
    /** One byte as ASCII. */
    public static final String ASCII_CLASS = "packet-ascii";
    /** Added to the bytes of the selected field, or of the selected header. */
    public static final String SELECTED_CLASS = "selected-bytes";
    /** Added to the bytes of a header whose check failed (a bad ICRC, a malformed rest). */
    public static final String BAD_CLASS = "bad-bytes";
    /** Width from which a row holds 16 bytes instead of 8. */
    static final double WIDE = 520;

    private static final URL STYLESHEET = PacketBytesView.class.getResource("/styles/controls.css");

    private final ObjectProperty<Dissection> dissection = new SimpleObjectProperty<>(this, "dissection");
    private final ObjectProperty<Object> selected = new SimpleObjectProperty<>(this, "selected");

    public PacketBytesView() {
        getStyleClass().add(STYLE_CLASS);
        getStylesheets().add(STYLESHEET.toExternalForm());
    }

    /** The packet shown; null shows nothing. */
    public final ObjectProperty<Dissection> dissectionProperty() {
        return dissection;
    }

    /** The selected {@link Dissection.Field} or {@link Dissection.Header}, or null. */
    public final ObjectProperty<Object> selectedProperty() {
        return selected;
    }

    /** The style class of a header's bytes: {@code layer-bth}, {@code layer-ipv4}, ... */
    public static String layerClass(Dissection.Layer layer) {
        return "layer-" + layer.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** Selects the field that holds byte {@code offset} (a click on it). */
    public void selectByte(int offset) {
        Dissection shown = dissection.get();
        if (shown == null) {
            return;
        }
        shown.fieldAt(offset).ifPresentOrElse(selected::set,
                () -> shown.headerAt(offset).ifPresent(selected::set));
    }

    /** The byte range {@code [from, to)} lit now, or null. */
    public int[] selectedRange() {
        Object part = selected.get();
        if (part instanceof Dissection.Field field) {
            return new int[] {field.offset(), field.offset() + field.length()};
        }
        if (part instanceof Dissection.Header header) {
            return new int[] {header.offset(), header.offset() + header.length()};
        }
        return null;
    }

    @Override
    protected Skin<?> createDefaultSkin() {
        return new PacketBytesViewSkin(this);
    }
}
