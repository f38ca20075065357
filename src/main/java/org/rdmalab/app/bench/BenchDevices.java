package org.rdmalab.app.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.logging.Level;
import java.util.logging.Logger;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;
import org.rdmalab.app.common.UiText;
import org.rdmalab.verbs.Device;
import org.rdmalab.verbs.spi.Backends;
import org.rdmalab.verbs.spi.DeviceOptions;

/**
 * The devices the Bench tab's device box offers: those of every backend, as {@code devices} and the
 * lab's setup find them (soft0 always, rxe0 / mlx5_0 where libibverbs has them), with a line per
 * device and per backend that could not list its devices.
 *
 * <p>Threads: {@link #list()} runs on a background thread (it asks the backends) and hands what it
 * found to the UI executor; everything else is read on the JavaFX thread.
 */
public final class BenchDevices {

    private static final Logger LOG = Logger.getLogger(BenchDevices.class.getName());

    private final Backends backends;
    private final ObjectProperty<String> chosen;
    private final Executor ui;
    private final ObservableList<String> names = FXCollections.observableArrayList(BenchForm.DEFAULT_DEVICE);
    private final ReadOnlyStringWrapper note = new ReadOnlyStringWrapper(UiText.text("bench.lookingForDevices"));

    /**
     * @param backends where the list comes from
     * @param chosen the form's device, kept when the list arrives (a name no backend lists stays choosable)
     * @param ui the UI thread
     */
    BenchDevices(Backends backends, ObjectProperty<String> chosen, Executor ui) {
        this.backends = backends;
        this.chosen = chosen;
        this.ui = ui;
    }

    /**
     * Asks every backend for its devices and publishes them on the UI executor; a backend that
     * cannot answer is named in {@link #noteProperty()}. Called on a background thread.
     */
    void list() {
        List<String> found = new ArrayList<>();
        List<String> lines = new ArrayList<>();
        try {
            for (Backends.Listing listing : backends.list(DeviceOptions.defaults())) {
                for (Device each : listing.devices()) {
                    found.add(each.name());
                    lines.add(each.name() + ": " + each.description() + " (" + listing.provider().name() + ")");
                }
                if (listing.failure() != null) {
                    lines.add(listing.provider().name() + ": " + listing.failure().getMessage());
                }
            }
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "listing the devices for the bench failed", e);
            lines.add(UiText.format("bench.devicesNotListed", e.getMessage()));
        }
        if (!found.contains(BenchForm.DEFAULT_DEVICE)) {
            // Keep the default choosable: a run on it explains what is wrong.
            found.add(0, BenchForm.DEFAULT_DEVICE);
        }
        ui.execute(() -> {
            String kept = chosen.get();
            names.setAll(found);
            if (kept != null && !found.contains(kept)) {
                names.add(kept);
            }
            chosen.set(kept);
            note.set(String.join("\n", lines));
        });
    }

    /** The devices every backend lists (soft0 first until the list arrives). */
    public ObservableList<String> names() {
        return names;
    }

    /** One line per device and per backend that could not list its devices (libibverbs: ENOSYS...). */
    public ReadOnlyStringProperty noteProperty() {
        return note.getReadOnlyProperty();
    }
}
