package org.rdmalab.app;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleObjectProperty;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;
import org.rdmalab.lab.Flows;
import org.rdmalab.lab.LabSession;
import org.rdmalab.lab.Parameter;
import org.rdmalab.lab.PeerLink;
import org.rdmalab.lab.PeerLinks;
import org.rdmalab.lab.Role;
import org.rdmalab.lab.Step;
import org.rdmalab.verbs.Device;
import org.rdmalab.verbs.spi.Backends;
import org.rdmalab.verbs.spi.DeviceOptions;

/**
 * State of the main window: the devices of every backend, the seed client's steps with their
 * parameters and C code, and a status line. The only class of the window that touches the lower
 * layers; listing devices runs on the background executor, results reach the properties through
 * the UI executor.
 */
public final class MainViewModel {

    private final ObservableList<String> devices = FXCollections.observableArrayList();
    private final ObservableList<Step> steps = FXCollections.observableArrayList();
    private final ObjectProperty<Step> selectedStep = new SimpleObjectProperty<>();
    private final ReadOnlyStringWrapper stepDetail = new ReadOnlyStringWrapper("");
    private final ReadOnlyStringWrapper status = new ReadOnlyStringWrapper("looking for devices...");
    private final LabSession session;

    /**
     * Lists the devices of {@code backends} on {@code background} and publishes them on {@code ui}.
     * Tests pass a same-thread executor for both.
     */
    public MainViewModel(Backends backends, Executor background, Executor ui) {
        PeerLink[] links = PeerLinks.memoryPair(Duration.ofSeconds(30));
        session = new LabSession(Role.CLIENT, backends, DeviceOptions.defaults(), links[1],
                Flows.seed(Role.CLIENT, Flows.SeedFlow.RC_EXAMPLE, Flows.Settings.seed("soft0")));
        steps.setAll(session.steps());
        selectedStep.addListener((observable, before, step) -> stepDetail.set(describe(step)));
        background.execute(() -> {
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
            String line = names.size() + " device(s)" + (problems.isEmpty() ? "" : "; " + String.join("; ", problems));
            ui.execute(() -> {
                devices.setAll(names);
                status.set(line);
            });
        });
    }

    private String describe(Step step) {
        if (step == null) {
            return "";
        }
        StringBuilder text = new StringBuilder();
        for (Parameter parameter : step.parameters()) {
            text.append(String.format("%-20s %s%n", parameter.name(), parameter.value()));
        }
        if (!step.parameters().isEmpty()) {
            text.append('\n');
        }
        return text.append(step.cCode(session)).toString();
    }

    /** Devices for the device picker. */
    public ObservableList<String> devices() {
        return devices;
    }

    /** The seed client's steps, in order. */
    public ObservableList<Step> steps() {
        return steps;
    }

    /** The step shown in the middle panel. */
    public ObjectProperty<Step> selectedStepProperty() {
        return selectedStep;
    }

    /** The selected step's parameters and C code. */
    public ReadOnlyStringProperty stepDetailProperty() {
        return stepDetail.getReadOnlyProperty();
    }

    /** One line for the status bar. */
    public ReadOnlyStringProperty statusProperty() {
        return status.getReadOnlyProperty();
    }
}
