package org.rdmalab.app.lab;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executor;
import javafx.beans.binding.Bindings;
import javafx.beans.binding.StringBinding;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.IntegerProperty;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.beans.property.SimpleIntegerProperty;
import javafx.beans.property.SimpleObjectProperty;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;
import org.rdmalab.app.common.UiText;
import org.rdmalab.control.ControlProtocol;
import org.rdmalab.lab.Flows;
import org.rdmalab.lab.LabSetup;
import org.rdmalab.lab.Role;
import org.rdmalab.verbs.Context;
import org.rdmalab.verbs.Device;
import org.rdmalab.verbs.GidEntry;
import org.rdmalab.verbs.GidSelection;
import org.rdmalab.verbs.LinkLayer;
import org.rdmalab.verbs.PortAttributes;
import org.rdmalab.verbs.VerbsException;
import org.rdmalab.verbs.spi.Backends;
import org.rdmalab.verbs.spi.DeviceOptions;

/**
 * The setup bar: devices of every backend, the chosen device's ports and GID table (with the
 * recommended entry and why), the mode, and for two machines the role, addresses, TCP port and
 * protocol. Devices are listed and queried on the background executor; results are published on
 * the UI executor. Keeps the seed's defaults: port 1, gid_idx -1, TCP port 12025.
 */
public final class SetupViewModel {

    /**
     * A device in the picker.
     *
     * @param name its name (soft0, rxe0)
     * @param backend the backend that lists it
     * @param description one line
     */
    public record DeviceChoice(String name, String backend, String description) {
        @Override
        public String toString() {
            return name + " (" + description + ")";
        }
    }

    /**
     * A port of the chosen device.
     *
     * @param number port number
     * @param attributes what ibv_query_port said
     */
    public record PortChoice(int number, PortAttributes attributes) {
        @Override
        public String toString() {
            return number + " · " + attributes.state().name() + " · " + attributes.linkLayer().text() + " · MTU "
                    + attributes.activeMtu().bytes() + " (max " + attributes.maxMtu().bytes() + ")";
        }
    }

    /**
     * One GID table entry.
     *
     * @param entry the entry
     * @param recommended true for the entry perftest's scoring picks
     */
    public record GidChoice(GidEntry entry, boolean recommended) {
        @Override
        public String toString() {
            return entry.index() + "  " + entry.gid() + "  " + entry.type().text()
                    + (recommended ? "  ★ recommended" : "");
        }
    }

    private final Backends backends;
    private final Executor background;
    private final Executor ui;
    private final ObservableList<DeviceChoice> devices = FXCollections.observableArrayList();
    private final ObjectProperty<DeviceChoice> device = new SimpleObjectProperty<>();
    private final ObservableList<PortChoice> ports = FXCollections.observableArrayList();
    private final ObjectProperty<PortChoice> port = new SimpleObjectProperty<>();
    private final ObservableList<GidChoice> gids = FXCollections.observableArrayList();
    private final StringProperty gidIndex = new SimpleStringProperty("-1");
    private final ObjectProperty<LabSetup.Mode> mode = new SimpleObjectProperty<>(LabSetup.Mode.LOOPBACK);
    private final ObjectProperty<Role> role = new SimpleObjectProperty<>(Role.SERVER);
    private final StringProperty localIp = new SimpleStringProperty(LabSetup.LOOPBACK_SERVER_IP);
    private final StringProperty peerIp = new SimpleStringProperty(LabSetup.LOOPBACK_SERVER_IP);
    private final IntegerProperty tcpPort = new SimpleIntegerProperty(LabSetup.SEED_TCP_PORT);
    private final ObjectProperty<ControlProtocol> protocol = new SimpleObjectProperty<>(ControlProtocol.LAB);
    private final ObjectProperty<Flows.SeedFlow> flow = new SimpleObjectProperty<>(Flows.SeedFlow.WRITE_ONLY);
    private final BooleanProperty querying = new SimpleBooleanProperty();
    private final ReadOnlyStringWrapper status = new ReadOnlyStringWrapper(UiText.text("setup.lookingForDevices"));
    private final StringBinding gidWarning;
    private final StringBinding recommendation;
    private DeviceOptions base;
    /** The device to choose once the devices are listed (the remembered one), if it is among them. */
    private String preferred = "soft0";
    /** Counts the queries asked for; only the latest one's answer is shown. */
    private long queries;

    /**
     * Lists the devices on {@code background}; tests pass same-thread executors.
     *
     * @param base device options for software devices (their address follows the local IP)
     */
    public SetupViewModel(Backends backends, DeviceOptions base, Executor background, Executor ui) {
        this.backends = backends;
        this.base = base;
        this.background = background;
        this.ui = ui;
        gidWarning = Bindings.createStringBinding(this::warning, gidIndex, port, gids);
        recommendation = Bindings.createStringBinding(this::recommendationText, gids);
        device.addListener((observable, before, chosen) -> query(chosen));
        // soft0's GID table follows its address: the local IP in two machines, the server's in the loopback lab.
        mode.addListener((observable, before, now) -> requery());
        localIp.addListener((observable, before, now) -> {
            if (mode.get() == LabSetup.Mode.TWO_MACHINES) {
                requery();
            }
        });
        background.execute(this::listDevices);
    }

    private void listDevices() {
        List<DeviceChoice> found = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        for (Backends.Listing listing : backends.list(probeOptions())) {
            for (Device each : listing.devices()) {
                found.add(new DeviceChoice(each.name(), listing.provider().name(), each.description()));
            }
            if (listing.failure() != null) {
                problems.add(listing.provider().name() + ": " + listing.failure().detail());
            }
        }
        String line = found.size() + " device(s)" + (problems.isEmpty() ? "" : "; " + String.join("; ", problems));
        ui.execute(() -> {
            devices.setAll(found);
            status.set(line);
            if (device.get() == null && !found.isEmpty()) {
                device.set(found.stream().filter(choice -> choice.name().equals(preferred)).findFirst()
                        .or(() -> found.stream().filter(choice -> choice.name().equals("soft0")).findFirst())
                        .orElse(found.get(0)));
            }
        });
    }

    private DeviceOptions probeOptions() {
        return probeAddress().map(base::withAddress).orElse(base);
    }

    /** The address software devices are queried on, or empty while the local IP is not an address yet. */
    private Optional<java.net.Inet4Address> probeAddress() {
        String address = mode.get() == LabSetup.Mode.LOOPBACK ? LabSetup.LOOPBACK_SERVER_IP : localIp.get();
        try {
            return Optional.of(DeviceOptions.parseAddress(address));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /**
     * Queries the chosen device again when the address it is queried on changed (the mode, or the
     * local IP once it is an address); while the local IP is half typed the last table stays.
     */
    private void requery() {
        if (probeAddress().isPresent()) {
            query(device.get());
        }
    }

    /** Queries the ports and GID table of {@code chosen} again (after the local IP changed, say). */
    public void query(DeviceChoice chosen) {
        if (chosen == null) {
            return;
        }
        querying.set(true);
        DeviceOptions options = probeOptions();
        long asked = ++queries;
        background.execute(() -> {
            List<PortChoice> foundPorts = new ArrayList<>();
            List<GidChoice> table = new ArrayList<>();
            String problem = null;
            try {
                Device opened = backends.find(chosen.name(), options);
                try (Context context = opened.open()) {
                    int count = context.queryDevice().physPortCount();
                    for (int number = 1; number <= count; number++) {
                        foundPorts.add(new PortChoice(number, context.queryPort(number)));
                    }
                    List<GidEntry> entries = context.gidTable(1);
                    Optional<GidEntry> best = GidSelection.best(entries);
                    for (GidEntry entry : entries) {
                        table.add(new GidChoice(entry, best.isPresent() && best.get().index() == entry.index()));
                    }
                }
            } catch (VerbsException | IllegalArgumentException e) {
                problem = chosen.name() + ": " + e.getMessage();
            }
            String failure = problem;
            ui.execute(() -> {
                if (asked != queries) {
                    return; // A later query's answer replaces this one.
                }
                ports.setAll(foundPorts);
                port.set(foundPorts.isEmpty() ? null : foundPorts.get(0));
                gids.setAll(table);
                querying.set(false);
                if (failure != null) {
                    status.set(failure);
                }
            });
        });
    }

    private String warning() {
        PortChoice chosen = port.get();
        String index = gidIndex.get() == null ? "" : gidIndex.get().trim();
        if (chosen == null) {
            return "";
        }
        boolean roce = chosen.attributes().linkLayer() == LinkLayer.ETHERNET;
        if (index.equals("-1") && roce) {
            return UiText.text("setup.warning.noGrh");
        }
        if (!index.equals("-1") && !index.equalsIgnoreCase("auto")) {
            try {
                int value = Integer.parseInt(index);
                if (gids.stream().noneMatch(choice -> choice.entry().index() == value)) {
                    return UiText.format("setup.warning.notInTable", value, chosen.number());
                }
            } catch (NumberFormatException e) {
                return UiText.format("setup.warning.badIndex", index);
            }
        }
        return "";
    }

    private String recommendationText() {
        return recommended().map(entry -> UiText.format("gid.recommended", entry.index(), reason(entry))).orElse("");
    }

    /** Why perftest's scoring puts {@code entry} first ({@link GidSelection#reason}), in the window's language. */
    private static String reason(GidEntry entry) {
        return UiText.format("gid.reason", GidSelection.rules(entry).stream().map(rule -> switch (rule) {
            case IPV4_MAPPED -> UiText.format("gid.ipv4Mapped", entry.ipAddress() == null || entry.ipAddress().isEmpty()
                    ? UiText.text("gid.anIpv4Address") : UiText.format("gid.theIpv4Address", entry.ipAddress()));
            case NOT_IPV4_MAPPED -> UiText.text("gid.notIpv4Mapped");
            case LINK_LOCAL -> UiText.text("gid.linkLocal");
            case NOT_LINK_LOCAL -> UiText.text("gid.notLinkLocal");
            case ROCE_V2 -> UiText.text("gid.roceV2");
            case ROCE_V1 -> UiText.text("gid.roceV1");
            case OTHER_TYPE -> entry.type().text();
        }).toArray());
    }

    /** The recommended entry, if the table has any. */
    public Optional<GidEntry> recommended() {
        return gids.stream().filter(GidChoice::recommended).map(GidChoice::entry).findFirst();
    }

    /** The one-click lesson: use the recommended GID. */
    public void useRecommendedGid() {
        recommended().ifPresent(entry -> gidIndex.set(Integer.toString(entry.index())));
    }

    /**
     * The setup as chosen.
     *
     * @throws IllegalArgumentException naming the field that is wrong
     */
    public LabSetup toSetup(LabSetup defaults) {
        DeviceChoice chosen = device.get();
        if (chosen == null) {
            throw new IllegalArgumentException("choose a device first");
        }
        return toSetup(defaults, chosen.name());
    }

    /**
     * The setup as chosen, on the device named {@code deviceName} (the window's first setup, applied
     * before the devices are listed).
     *
     * @throws IllegalArgumentException naming the field that is wrong
     */
    public LabSetup toSetup(LabSetup defaults, String deviceName) {
        int portNumber = port.get() == null ? Flows.IB_PORT : port.get().number();
        LabSetup setup = defaults.withBase(base).withDevice(deviceName, portNumber)
                .withGidIndex(gidIndex.get().trim()).withFlow(flow.get());
        if (mode.get() == LabSetup.Mode.LOOPBACK) {
            return setup.withMode(LabSetup.Mode.LOOPBACK);
        }
        DeviceOptions.parseAddress(localIp.get());
        if (role.get() == Role.CLIENT) {
            DeviceOptions.parseAddress(peerIp.get());
        }
        return setup.twoMachines(role.get(), localIp.get().trim(), peerIp.get().trim(), protocol.get(), tcpPort.get());
    }

    /**
     * Chooses the device named {@code name} when it is listed (now, or once the devices are listed);
     * soft0 stays the choice where it is not.
     */
    public void preferDevice(String name) {
        preferred = name;
        devices.stream().filter(choice -> choice.name().equals(name)).findFirst().ifPresent(device::set);
    }

    /** Device options of software devices (tests use their own UDP port). */
    void base(DeviceOptions options) {
        base = options;
    }

    public ObservableList<DeviceChoice> devices() {
        return devices;
    }

    public ObjectProperty<DeviceChoice> deviceProperty() {
        return device;
    }

    public ObservableList<PortChoice> ports() {
        return ports;
    }

    public ObjectProperty<PortChoice> portProperty() {
        return port;
    }

    public ObservableList<GidChoice> gids() {
        return gids;
    }

    /** The gid_idx field: -1, auto or an index. */
    public StringProperty gidIndexProperty() {
        return gidIndex;
    }

    /** A warning at the gid_idx field, or empty. */
    public StringBinding gidWarningProperty() {
        return gidWarning;
    }

    /** Which entry is recommended and why, or empty. */
    public StringBinding recommendationProperty() {
        return recommendation;
    }

    public ObjectProperty<LabSetup.Mode> modeProperty() {
        return mode;
    }

    public ObjectProperty<Role> roleProperty() {
        return role;
    }

    public StringProperty localIpProperty() {
        return localIp;
    }

    public StringProperty peerIpProperty() {
        return peerIp;
    }

    public IntegerProperty tcpPortProperty() {
        return tcpPort;
    }

    public ObjectProperty<ControlProtocol> protocolProperty() {
        return protocol;
    }

    public ObjectProperty<Flows.SeedFlow> flowProperty() {
        return flow;
    }

    /** True while a device is being queried. */
    public BooleanProperty queryingProperty() {
        return querying;
    }

    /** The devices found and any backend that failed, in one line. */
    public ReadOnlyStringProperty statusProperty() {
        return status.getReadOnlyProperty();
    }
}
