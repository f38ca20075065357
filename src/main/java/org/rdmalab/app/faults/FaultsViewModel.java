package org.rdmalab.app.faults;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.DoubleProperty;
import javafx.beans.property.LongProperty;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.beans.property.SimpleDoubleProperty;
import javafx.beans.property.SimpleLongProperty;
import javafx.beans.property.SimpleObjectProperty;
import javafx.collections.FXCollections;
import javafx.collections.ListChangeListener;
import javafx.collections.ObservableList;
import org.rdmalab.app.common.BoundedLog;
import org.rdmalab.app.lab.LabViewModel;
import org.rdmalab.app.lab.SideViewModel;
import org.rdmalab.lab.LabEvent;
import org.rdmalab.lab.LabSession;
import org.rdmalab.verbs.FaultControl;
import org.rdmalab.verbs.FaultSettings;
import org.rdmalab.verbs.OneShotFault;
import org.rdmalab.verbs.PacketEvent;

/**
 * The Faults panel's state: the random faults (drop, duplicate, reorder and corrupt rates, a
 * delay, one seed) that every software device of the lab injects on its outgoing packets, the
 * one-shot faults armed for the next packet going one way, and the log of every fault that fired
 * with the packet it hit.
 *
 * <p>A change applies at once: the settings go to the devices through the verbs API
 * ({@link FaultControl}); a device the steps open later (after a reset, a new setup) takes them
 * as it opens, before it sends a packet. A one-shot fault is armed on every device and fires once,
 * on whichever sends a matching packet first. The window starts with the faults of
 * {@code gui --fault SPEC} (the devices were made with them too).
 *
 * <p>Threads: JavaFX thread, except the hook each session runs on its worker as a device opens.
 */
public final class FaultsViewModel {

    /** Fired faults kept in the log before the oldest are dropped (and counted). */
    static final int LOG_LIMIT = 10_000;

    /**
     * One fault that fired.
     *
     * @param at when the window heard of it
     * @param side the side whose device sent (or lost) the packet
     * @param packet the packet it hit
     * @param fault what it did
     */
    public record FaultRow(Instant at, String side, PacketEvent packet, PacketEvent.Fault fault) {
    }

    private final LabViewModel lab;
    private final DoubleProperty drop = new SimpleDoubleProperty();
    private final DoubleProperty duplicate = new SimpleDoubleProperty();
    private final DoubleProperty reorder = new SimpleDoubleProperty();
    private final DoubleProperty corrupt = new SimpleDoubleProperty();
    private final DoubleProperty delayMillis = new SimpleDoubleProperty();
    private final LongProperty seed = new SimpleLongProperty(1);
    private final ObjectProperty<OneShotFault.Way> way = new SimpleObjectProperty<>(OneShotFault.Way.REQUESTER_TO_RESPONDER);
    private final ReadOnlyStringWrapper spec = new ReadOnlyStringWrapper();
    private final ReadOnlyStringWrapper problem = new ReadOnlyStringWrapper("");
    private final BooleanProperty reachable = new SimpleBooleanProperty(true);
    private final ObservableList<OneShotFault> shots = FXCollections.observableArrayList();
    private final BoundedLog<FaultRow> log = new BoundedLog<>(LOG_LIMIT);
    /** What a device that opens now takes (read by the sessions' workers). */
    private final AtomicReference<FaultSettings> current = new AtomicReference<>(FaultSettings.NONE);
    /** One-shot faults still waiting, for devices that open after they were armed. */
    private final List<OneShotFault> waiting = new CopyOnWriteArrayList<>();
    /** The device each session has open, if it injects faults. */
    private final Map<LabSession, FaultControl> devices = new ConcurrentHashMap<>();
    private final List<FaultRow> fired = new ArrayList<>();
    private boolean loading;

    /**
     * @param lab the lab whose devices get the faults
     * @param initial the faults the window starts with ({@code gui --fault})
     */
    public FaultsViewModel(LabViewModel lab, FaultSettings initial) {
        this.lab = lab;
        show(initial);
        current.set(initial);
        spec.set(initial.toSpec());
        for (javafx.beans.property.Property<?> each : List.of(drop, duplicate, reorder, corrupt, delayMillis, seed)) {
            each.addListener((observable, before, now) -> {
                if (!loading) {
                    apply();
                }
            });
        }
        lab.sides().addListener((ListChangeListener<SideViewModel>) change -> watch());
        watch();
        lab.afterEvent(this::heard);
        lab.afterEvents(this::publish);
    }

    private void show(FaultSettings settings) {
        loading = true;
        try {
            drop.set(settings.drop());
            duplicate.set(settings.duplicate());
            reorder.set(settings.reorder());
            corrupt.set(settings.corrupt());
            delayMillis.set(settings.delayNanos() / 1e6);
            seed.set(settings.seed());
        } finally {
            loading = false;
        }
    }

    /** The settings the controls show. */
    public FaultSettings settings() {
        return new FaultSettings(drop.get(), duplicate.get(), reorder.get(), corrupt.get(),
                Math.round(delayMillis.get() * 1e6), seed.get());
    }

    /**
     * Sends the settings the controls show to every device at once (the controls call it on each
     * change). Values out of range leave the devices as they were and say why in {@link #problemProperty()}.
     */
    public void apply() {
        FaultSettings settings;
        try {
            settings = settings();
        } catch (IllegalArgumentException e) {
            problem.set(e.getMessage());
            return;
        }
        problem.set("");
        current.set(settings);
        spec.set(settings.toSpec());
        devices.values().forEach(device -> device.setFaults(settings));
    }

    /** Turns every random fault off (the seed stays). */
    public void off() {
        show(FaultSettings.NONE.withSeed(seed.get()));
        apply();
    }

    /** Takes the faults of a spec (the command line's syntax) into the controls and the devices. */
    public void useSpec(String text) {
        show(FaultSettings.parse(text));
        apply();
    }

    /**
     * Arms a one-shot fault of {@code kind} for the next packet going {@link #wayProperty()} (an
     * ACK always comes back) on every device, including those that open later.
     */
    public OneShotFault arm(OneShotFault.Kind kind) {
        OneShotFault shot = OneShotFault.of(kind, way.get());
        waiting.add(shot);
        shots.add(0, shot);
        devices.values().forEach(device -> device.arm(shot));
        return shot;
    }

    /** Takes back every one-shot fault that has not fired. */
    public void cancelWaiting() {
        waiting.forEach(OneShotFault::cancel);
        waiting.clear();
        refreshShots();
    }

    /** Every session gets the hook that hands a device the faults as it opens. */
    private void watch() {
        devices.keySet().retainAll(lab.sides().stream().map(SideViewModel::session).toList());
        for (SideViewModel side : lab.sides()) {
            LabSession session = side.session();
            if (!hooked.contains(session)) {
                hooked.add(session);
                session.whenOpened(context -> opened(session, context));
            }
        }
        hooked.retainAll(lab.sides().stream().map(SideViewModel::session).toList());
    }

    private final java.util.Set<LabSession> hooked = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());

    /** A side's device opened (its worker thread): it takes the faults and the waiting one-shots before any packet. */
    private void opened(LabSession session, org.rdmalab.verbs.Context context) {
        if (context instanceof FaultControl device) {
            devices.put(session, device);
            device.setFaults(current.get());
            waiting.forEach(device::arm);
        } else {
            devices.remove(session);
        }
    }

    private void heard(SideViewModel.SideEvent event) {
        if (event.event() instanceof LabEvent.Packet packet && packet.packet().faulted()) {
            for (PacketEvent.Fault fault : packet.packet().faults()) {
                fired.add(new FaultRow(event.at(), event.side().name(), packet.packet(), fault));
            }
        }
    }

    private void publish() {
        if (!fired.isEmpty()) {
            log.addAll(List.copyOf(fired));
            fired.clear();
            refreshShots();
        }
        reachable.set(lab.currentProperty().get() == null || "soft0".equals(lab.currentProperty().get().device()));
    }

    /** The one-shot list shows each one's state again (armed, fired, cancelled). */
    private void refreshShots() {
        waiting.removeIf(shot -> !shot.waiting());
        List<OneShotFault> copy = List.copyOf(shots);
        shots.setAll(copy);
    }

    public DoubleProperty dropProperty() {
        return drop;
    }

    public DoubleProperty duplicateProperty() {
        return duplicate;
    }

    public DoubleProperty reorderProperty() {
        return reorder;
    }

    public DoubleProperty corruptProperty() {
        return corrupt;
    }

    /** The extra delay of every packet, in milliseconds. */
    public DoubleProperty delayMillisProperty() {
        return delayMillis;
    }

    public LongProperty seedProperty() {
        return seed;
    }

    /** Which way the next one-shot fault waits for. */
    public ObjectProperty<OneShotFault.Way> wayProperty() {
        return way;
    }

    /** The settings as {@code --fault} takes them, to repeat the run on the command line. */
    public ReadOnlyStringProperty specProperty() {
        return spec.getReadOnlyProperty();
    }

    /** Why the last change was not applied, or empty. */
    public ReadOnlyStringProperty problemProperty() {
        return problem.getReadOnlyProperty();
    }

    /** False when the lab's device cannot inject faults (a native device: only soft0 does). */
    public BooleanProperty reachableProperty() {
        return reachable;
    }

    /** The one-shot faults armed in this window, newest first. */
    public ObservableList<OneShotFault> shots() {
        return shots;
    }

    /** Every fault that fired, oldest first. */
    public BoundedLog<FaultRow> log() {
        return log;
    }
}
