package org.rdmalab.app.lessons;

import java.io.PrintWriter;
import java.io.Writer;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executor;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleObjectProperty;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;
import javafx.beans.value.ChangeListener;
import javafx.collections.FXCollections;
import javafx.collections.ListChangeListener;
import javafx.collections.ObservableList;
import org.rdmalab.app.common.BoundedLog;
import org.rdmalab.app.common.EventQueue;
import org.rdmalab.app.common.UiText;
import org.rdmalab.app.lab.LabViewModel;
import org.rdmalab.app.lab.SideViewModel;
import org.rdmalab.app.lab.StepRow;
import org.rdmalab.lab.LabSession;
import org.rdmalab.lab.LabSetup;
import org.rdmalab.lab.scenario.LoopbackSettings;
import org.rdmalab.lab.scenario.Scenario;
import org.rdmalab.lab.scenario.ScenarioPrinter;
import org.rdmalab.lab.scenario.ScenarioResult;
import org.rdmalab.lab.scenario.ScenarioSessions;
import org.rdmalab.lab.scenario.ScenarioTexts;
import org.rdmalab.lab.scenario.Scenarios;
import org.rdmalab.verbs.VerbsException;
import org.rdmalab.verbs.spi.Backends;
import org.rdmalab.verbs.spi.DeviceOptions;

/**
 * The Scenarios gallery: every scenario of {@code loopback} with what happens and what it
 * teaches, and the one chosen put into the lab: its two sessions (the scenario's own steps, built
 * by {@link ScenarioSessions}) become the lab's sides, so the lab's controls run them step by step;
 * once every step ran, the scenario's traffic is posted on a side's worker and its checks say
 * whether the outcome is the one expected, and if not what differed. The log holds what happened
 * in {@code loopback}'s words. JavaFX thread only; the steps and the traffic run on the sides'
 * workers, never here.
 */
public final class ScenariosViewModel {

    /**
     * One scenario of the gallery, in the window's language.
     *
     * @param scenario the scenario
     * @param happens what happens
     * @param teaches what it teaches: the outcome to expect
     */
    public record Entry(Scenario scenario, String happens, String teaches) {

        /** The scenario's name ({@code bad-rkey}). */
        public String name() {
            return scenario.name();
        }

        @Override
        public String toString() {
            return scenario.name();
        }
    }

    /** Where the chosen scenario stands. */
    public enum Phase {
        /** Nothing is in the lab yet (or the lab was set up anew). */
        NONE,
        /** Its steps are in the lab's columns; some have not run. */
        STEPS,
        /** Its traffic is being posted and checked. */
        TRAFFIC,
        /** Its outcome was checked. */
        CHECKED,
        /** A step failed where the scenario did not expect it. */
        STOPPED
    }

    /** Lines of the log kept before the oldest are dropped. */
    static final int LOG_LIMIT = 5_000;

    private final LabViewModel lab;
    private final Executor ui;
    private final Backends backends;
    private final DeviceOptions base;
    private final ObservableList<Entry> entries = FXCollections.observableArrayList();
    private final ObjectProperty<Entry> selected = new SimpleObjectProperty<>();
    private final StringProperty device = new SimpleStringProperty(SOFT_DEVICE);
    private final ObservableList<String> devices = FXCollections.observableArrayList(SOFT_DEVICE);
    private final ReadOnlyObjectWrapper<Entry> loaded = new ReadOnlyObjectWrapper<>();
    private final ReadOnlyObjectWrapper<Phase> phase = new ReadOnlyObjectWrapper<>(Phase.NONE);
    private final ReadOnlyStringWrapper outcome = new ReadOnlyStringWrapper("");
    private final ReadOnlyBooleanWrapper asExpected = new ReadOnlyBooleanWrapper();
    private final ReadOnlyBooleanWrapper trafficReady = new ReadOnlyBooleanWrapper();
    private final ObservableList<String> problems = FXCollections.observableArrayList();
    private final BoundedLog<String> log = new BoundedLog<>(LOG_LIMIT);
    private final EventQueue<String> lines;
    private final ChangeListener<Boolean> idleWatch = (observable, before, busy) -> {
        if (!busy) {
            sidesIdle();
        }
    };
    private ScenarioSessions sessions;
    private List<SideViewModel> sides = List.of();
    /** Counts loads, so that a late answer from a replaced scenario is dropped. */
    private int generation;

    /** The software device, which every lab has. */
    static final String SOFT_DEVICE = "soft0";

    /**
     * @param lab the lab whose sides run the scenario's sessions
     * @param backends where devices come from
     * @param base software devices' options (their address is set per side)
     * @param ui the JavaFX thread (a frame executor) or, in tests, a same-thread executor
     */
    public ScenariosViewModel(LabViewModel lab, Backends backends, DeviceOptions base, Executor ui) {
        this.lab = Objects.requireNonNull(lab);
        this.ui = Objects.requireNonNull(ui);
        this.backends = Objects.requireNonNull(backends);
        this.base = Objects.requireNonNull(base);
        this.lines = new EventQueue<>(ui, log::addAll);
        ScenarioTexts texts = ScenarioTexts.of(UiText.locale());
        for (Scenario scenario : Scenarios.all()) {
            entries.add(new Entry(scenario, plain(texts.happens(scenario.name())),
                    plain(texts.teaches(scenario.name()))));
        }
        selected.set(entries.get(0));
        phase.addListener((observable, before, now) -> trafficReady.set(false));
        lab.sides().addListener((ListChangeListener<SideViewModel>) change -> sidesReplaced());
        lab.setup().devices().addListener((ListChangeListener<org.rdmalab.app.lab.SetupViewModel.DeviceChoice>) change -> listDevices());
        listDevices();
    }

    /** The resource's texts carry Markdown's code marks for the docs; the window shows the words. */
    static String plain(String text) {
        return text.replace("`", "");
    }

    /** soft0 and every other device the backends list (rxe0, a NIC): a scenario runs on any, as {@code loopback --device} does. */
    private void listDevices() {
        List<String> names = new ArrayList<>();
        names.add(SOFT_DEVICE);
        lab.setup().devices().forEach(choice -> {
            if (!names.contains(choice.name())) {
                names.add(choice.name());
            }
        });
        devices.setAll(names);
        if (!names.contains(device.get())) {
            device.set(SOFT_DEVICE);
        }
    }

    /** Every scenario, in {@code loopback}'s order. */
    public ObservableList<Entry> entries() {
        return entries;
    }

    /** The scenario the gallery shows. */
    public ObjectProperty<Entry> selectedProperty() {
        return selected;
    }

    /** The device both sides open: soft0 (one for each side), or a kernel device both share. */
    public StringProperty deviceProperty() {
        return device;
    }

    /** The devices a scenario can run on. */
    public ObservableList<String> devices() {
        return devices;
    }

    /** The scenario whose sessions are the lab's sides, or null. */
    public ReadOnlyObjectProperty<Entry> loadedProperty() {
        return loaded.getReadOnlyProperty();
    }

    /** Where the loaded scenario stands. */
    public ReadOnlyObjectProperty<Phase> phaseProperty() {
        return phase.getReadOnlyProperty();
    }

    /** The checked outcome in one line ("as expected: …", "not as expected: …"), or empty. */
    public ReadOnlyStringProperty outcomeProperty() {
        return outcome.getReadOnlyProperty();
    }

    /** True when the checked outcome is the expected one. */
    public ReadOnlyBooleanProperty asExpectedProperty() {
        return asExpected.getReadOnlyProperty();
    }

    /** True when every step of the loaded scenario ran and its traffic has not been posted yet. */
    public ReadOnlyBooleanProperty trafficReadyProperty() {
        return trafficReady.getReadOnlyProperty();
    }

    /** What differed from the expectation, one line each (empty when as expected). */
    public ObservableList<String> problems() {
        return problems;
    }

    /** What happened, in {@code loopback}'s words: each step, post, completion, buffer, note and check. */
    public ObservableList<String> log() {
        return log.rows();
    }

    /** The settings {@code loopback} would use on {@code deviceName} with this window's device options. */
    LoopbackSettings settings(String deviceName) {
        DeviceOptions server = base.withAddress(DeviceOptions.parseAddress(LabSetup.LOOPBACK_SERVER_IP));
        DeviceOptions client = base.withAddress(DeviceOptions.parseAddress(LabSetup.LOOPBACK_CLIENT_IP));
        return new LoopbackSettings(deviceName, server, client, org.rdmalab.verbs.Mtu.MTU_256, 0,
                LoopbackSettings.SEED_POLL_TIMEOUT);
    }

    /**
     * Puts the selected scenario into the lab: its sessions replace the lab's sides (whatever they
     * were doing is released), their steps wait in the columns for the lab's controls.
     */
    public void load() {
        Entry entry = selected.get();
        if (entry == null) {
            return;
        }
        generation++;
        log.clear();
        problems.clear();
        outcome.set("");
        asExpected.set(false);
        ScenarioPrinter printer = new ScenarioPrinter(new PrintWriter(new LineWriter(lines::offer)));
        LoopbackSettings settings = settings(device.get());
        printer.header(entry.scenario(), settings);
        // The sessions report their packets to the lab (the Wire tab shows them); the log keeps loopback's lines.
        int loadedGeneration = generation;
        ScenarioSessions built = ScenarioSessions.withTrafficStep(entry.scenario(), backends, settings, event -> {
            if (!(event instanceof org.rdmalab.lab.scenario.ScenarioEvent.Packet)) {
                printer.onEvent(event);
            }
        }, true, result -> {
            // On the last side's worker, as its last step ends.
            printer.result(result);
            ui.execute(() -> {
                if (generation == loadedGeneration) {
                    checked(result);
                }
            });
        });
        sessions = built;
        LabSetup shown = LabSetup.loopback().withDevice(device.get(), org.rdmalab.lab.Flows.IB_PORT)
                .withGidIndex("auto").withBase(base);
        loaded.set(entry);
        // The setup bar shows the GID the sides choose (gid_idx auto: the GID of their address).
        lab.setup().useRecommendedGid();
        lab.applySessions(shown, built.sessions());
        phase.set(Phase.STEPS);
    }

    /**
     * Runs the selected scenario to its end: puts it into the lab afresh (unless it is there and
     * nothing ran yet), runs every side's remaining steps on its worker, then posts the traffic and
     * checks the outcome.
     */
    public void runToEnd() {
        if (loaded.get() != selected.get() || phase.get() != Phase.STEPS || anyStepRan()) {
            load();
        }
        phase.set(Phase.TRAFFIC);
        outcome.set(UiText.text("lessons.posting"));
        lab.runAllToEnd();
    }

    /**
     * Posts the traffic and checks the outcome, once every other step of the loaded scenario ran:
     * runs the last side's last step, "Post the traffic and check", as its Next step would.
     */
    public void postTraffic() {
        if (!sides.isEmpty() && sessions != null && sessions.trafficNext()) {
            phase.set(Phase.TRAFFIC);
            outcome.set(UiText.text("lessons.posting"));
            sides.get(sides.size() - 1).runToEnd();
        }
    }

    private boolean anyStepRan() {
        return sides.stream().anyMatch(side -> side.steps().stream()
                .anyMatch(row -> row.statusProperty().get() != StepRow.Status.PENDING));
    }

    /** The lab's sides changed: they are this scenario's sessions, or the lab was set up anew. */
    private void sidesReplaced() {
        sides.forEach(side -> side.busyProperty().removeListener(idleWatch));
        List<SideViewModel> now = List.copyOf(lab.sides());
        if (now.isEmpty()) {
            // The lab closes its sides before it shows the new ones.
            sides = List.of();
            return;
        }
        boolean ours = sessions != null && now.stream().map(SideViewModel::session).toList()
                .equals(sessions.sessions());
        if (!ours) {
            sides = List.of();
            sessions = null;
            loaded.set(null);
            phase.set(Phase.NONE);
            return;
        }
        sides = now;
        sides.forEach(side -> side.busyProperty().addListener(idleWatch));
    }

    /** When every side is idle: where the scenario stands (a step that failed, the traffic next). */
    private void sidesIdle() {
        if (sessions == null || sides.isEmpty() || sides.stream().anyMatch(side -> side.busyProperty().get())) {
            return;
        }
        if (phase.get() == Phase.CHECKED) {
            return;
        }
        for (SideViewModel side : sides) {
            int failed = side.failedIndex();
            if (failed >= 0 && !side.steps().get(failed).step().id().equals(TRAFFIC_STEP)) {
                StepRow row = side.steps().get(failed);
                phase.set(Phase.STOPPED);
                asExpected.set(false);
                problems.setAll(row.summaryProperty().get());
                outcome.set(UiText.format("lessons.stepFailed", UiText.side(side.name()),
                        UiText.stepTitle(row.step())));
                return;
            }
        }
        if (sessions.trafficNext()) {
            phase.set(Phase.STEPS);
            outcome.set(UiText.text("lessons.stepsDone"));
            trafficReady.set(true);
        } else if (!sessions.stepsDone()) {
            phase.set(Phase.STEPS);
            if (UiText.text("lessons.posting").equals(outcome.get())) {
                outcome.set("");
            }
        }
    }

    /** The id of the scenario's last step, "Post the traffic and check". */
    static final String TRAFFIC_STEP = "scenario-traffic";

    private void checked(ScenarioResult result) {
        asExpected.set(result.asExpected());
        problems.setAll(result.asExpected() ? List.of() : result.problems());
        outcome.set(UiText.format(result.asExpected() ? "lessons.asExpected" : "lessons.notAsExpected",
                result.summary()));
        phase.set(Phase.CHECKED);
    }

    /** The sessions now in the lab, for tests and the gui command; null when none. */
    ScenarioSessions sessions() {
        return sessions;
    }

    /** The lab's sides running the loaded scenario. */
    List<LabSession> labSessions() {
        return sessions == null ? List.of() : sessions.sessions();
    }

    /** Hands each whole line written to it to {@code sink} (the printer's lines, from any thread). */
    private static final class LineWriter extends Writer {

        private final java.util.function.Consumer<String> sink;
        private final StringBuilder pending = new StringBuilder();

        LineWriter(java.util.function.Consumer<String> sink) {
            this.sink = sink;
        }

        @Override
        public synchronized void write(char[] buffer, int offset, int length) {
            for (int i = offset; i < offset + length; i++) {
                char c = buffer[i];
                if (c == '\n') {
                    String line = pending.toString();
                    pending.setLength(0);
                    if (!line.isBlank()) {
                        sink.accept(line.stripTrailing());
                    }
                } else if (c != '\r') {
                    pending.append(c);
                }
            }
        }

        @Override
        public void flush() {
            // Whole lines are handed on as they end.
        }

        @Override
        public void close() {
            flush();
        }
    }
}
