package org.rdmalab.app;

import java.util.ArrayList;
import java.util.List;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;
import org.rdmalab.verbs.Device;
import org.rdmalab.verbs.spi.Backends;
import org.rdmalab.verbs.spi.DeviceOptions;

/**
 * State of the main window: the devices of every backend and a status line. The only class of the
 * window that touches the backends.
 */
public final class MainViewModel {

    private final ObservableList<String> devices = FXCollections.observableArrayList();
    private final ReadOnlyStringWrapper status = new ReadOnlyStringWrapper("");

    /** Lists the devices of the installed backends. */
    public MainViewModel() {
        this(Backends.installed());
    }

    /** Lists the devices of {@code backends}. */
    public MainViewModel(Backends backends) {
        List<String> names = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        for (Backends.Listing listing : backends.list(DeviceOptions.defaults())) {
            for (Device device : listing.devices()) {
                names.add(device.name() + " (" + device.description() + ")");
            }
            if (listing.failure() != null) {
                problems.add(listing.provider().name() + ": " + listing.failure().detail());
            }
        }
        devices.setAll(names);
        status.set(names.size() + " device(s)" + (problems.isEmpty() ? "" : "; " + String.join("; ", problems)));
    }

    /** Devices for the device picker. */
    public ObservableList<String> devices() {
        return devices;
    }

    /** One line for the status bar. */
    public ReadOnlyStringProperty statusProperty() {
        return status.getReadOnlyProperty();
    }
}
