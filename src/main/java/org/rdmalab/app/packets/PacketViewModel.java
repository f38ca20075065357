package org.rdmalab.app.packets;

import java.util.Locale;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleObjectProperty;
import org.rdmalab.app.common.UiText;
import org.rdmalab.app.lab.PacketRow;
import org.rdmalab.verbs.PacketEvent;
import org.rdmalab.wire.Dissection;
import org.rdmalab.wire.Dissector;

/**
 * The packet opened: the packet the student picked (in the Packets table, or on the ladder) taken
 * apart by {@link Dissector} into its headers and fields, the field or header selected in the tree
 * or the bytes, and the words the view shows for them in the window's language. A software
 * device's packet is its UDP payload; its IPv4 and UDP headers are rebuilt from its addresses, as
 * the device sends them. JavaFX thread only.
 */
public final class PacketViewModel {

    private final ObjectProperty<PacketRow> packet = new SimpleObjectProperty<>(this, "packet");
    private final ReadOnlyObjectWrapper<Dissection> dissection = new ReadOnlyObjectWrapper<>(this, "dissection");
    private final ObjectProperty<Object> selected = new SimpleObjectProperty<>(this, "selected");
    private final ReadOnlyStringWrapper caption = new ReadOnlyStringWrapper(this, "caption",
            UiText.text("packet.pick"));

    public PacketViewModel() {
        packet.addListener((observable, before, row) -> open(row));
    }

    /** The packet shown, or null. */
    public ObjectProperty<PacketRow> packetProperty() {
        return packet;
    }

    /** Its fields, or null (no packet, or a device that kept no bytes). */
    public ReadOnlyObjectProperty<Dissection> dissectionProperty() {
        return dissection.getReadOnlyProperty();
    }

    /** The selected {@link Dissection.Field} or {@link Dissection.Header}, or null. */
    public ObjectProperty<Object> selectedProperty() {
        return selected;
    }

    /** One line over the packet: side, direction, opcode, PSN, size and the ICRC's verdict. */
    public ReadOnlyStringProperty captionProperty() {
        return caption.getReadOnlyProperty();
    }

    private void open(PacketRow row) {
        selected.set(null);
        if (row == null) {
            dissection.set(null);
            caption.set(UiText.text("packet.pick"));
            return;
        }
        PacketEvent event = row.packet();
        if (event.bytes() == null) {
            dissection.set(null);
            caption.set(UiText.format("packet.noBytes", event.opcode(), event.psn()));
            return;
        }
        Dissection opened = Dissector.udpPayload(event.bytes(), event.source(), event.destination());
        dissection.set(opened);
        String verdict = switch (opened.icrcCheck()) {
            case GOOD -> UiText.text("packet.icrcGood");
            case BAD -> UiText.text("packet.icrcBad");
            default -> UiText.text("packet.icrcUnknown");
        };
        caption.set(UiText.format("packet.caption", UiText.side(row.side()),
                event.direction().name().toLowerCase(Locale.ROOT), event.opcode(), event.psn(), opened.length(),
                verdict));
    }

    /** What a value means, in the window's language; empty for none. */
    public static String meaning(Dissection.Meaning meaning) {
        if (meaning == null) {
            return "";
        }
        return UiText.format("dissect." + meaning.key(), meaning.args().toArray());
    }

    /** A header's line in the tree: "Base Transport Header · RC_RDMA_WRITE_ONLY to QP 0x000011, PSN 0". */
    public static String line(Dissection.Header header) {
        String said = meaning(header.summary());
        return said.isEmpty() ? header.name() : header.name() + " · " + said;
    }

    /**
     * A field's line in the tree as Wireshark writes it, the bits first for a bit field:
     * "1... .... = Acknowledge Request: 1".
     */
    public static String line(Dissection.Field field, Dissection in) {
        String bits = field.isBits() ? field.bitPattern(in.bytes()) + " = " : "";
        return bits + field.name() + ": " + field.value();
    }
}
