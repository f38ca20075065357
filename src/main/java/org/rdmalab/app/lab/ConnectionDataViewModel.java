package org.rdmalab.app.lab;

import java.util.Optional;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import org.rdmalab.app.common.UiText;
import org.rdmalab.lab.WireImage;

/**
 * The connection data of the selected side: what it sent and what it received, field by field
 * with the names of {@code cm_con_data_t} (or the pingpong text, or the lab frame), and the bytes
 * on the wire as the protocol's own codec lays them out. JavaFX thread only.
 */
public final class ConnectionDataViewModel {

    private final LabViewModel lab;
    private final ReadOnlyObjectWrapper<WireImage> local = new ReadOnlyObjectWrapper<>();
    private final ReadOnlyObjectWrapper<WireImage> remote = new ReadOnlyObjectWrapper<>();
    private final ReadOnlyStringWrapper title = new ReadOnlyStringWrapper("");

    public ConnectionDataViewModel(LabViewModel lab) {
        this.lab = lab;
        lab.selectedSideProperty().addListener((observable, before, side) -> refresh());
        lab.afterEvents(this::refresh);
        refresh();
    }

    void refresh() {
        SideViewModel side = lab.selectedSideProperty().get();
        if (side == null) {
            title.set(UiText.text("connection.noSide"));
            local.set(null);
            remote.set(null);
            return;
        }
        Optional<WireImage> sent = side.session().resources().localWire();
        Optional<WireImage> received = side.session().resources().remoteWire();
        title.set(UiText.side(side.name()) + " (" + side.address() + ") · " + sent.or(() -> received)
                .map(image -> UiText.format("connection.protocol", image.protocol()))
                .orElse(UiText.text("connection.nothingExchanged")));
        if (!same(local.get(), sent.orElse(null))) {
            local.set(sent.orElse(null));
        }
        if (!same(remote.get(), received.orElse(null))) {
            remote.set(received.orElse(null));
        }
    }

    private static boolean same(WireImage a, WireImage b) {
        return a == null ? b == null : b != null && a.protocol().equals(b.protocol())
                && java.util.Arrays.equals(a.bytes(), b.bytes());
    }

    /** What the selected side sent, or null before the exchange. */
    public ReadOnlyObjectProperty<WireImage> localProperty() {
        return local.getReadOnlyProperty();
    }

    /** What the selected side received, or null before the exchange. */
    public ReadOnlyObjectProperty<WireImage> remoteProperty() {
        return remote.getReadOnlyProperty();
    }

    /** Which side and protocol. */
    public ReadOnlyStringProperty titleProperty() {
        return title.getReadOnlyProperty();
    }
}
