package org.rdmalab.app.lab;

import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Function;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleObjectProperty;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;
import org.rdmalab.app.common.BoundedLog;
import org.rdmalab.app.common.FrameExecutor;
import org.rdmalab.app.common.UiText;
import org.rdmalab.lab.LabEvent;
import org.rdmalab.lab.LabSession;
import org.rdmalab.lab.LabSetup;
import org.rdmalab.sched.BackgroundPriority;
import org.rdmalab.verbs.spi.Backends;
import org.rdmalab.verbs.spi.DeviceOptions;

/**
 * The whole lab window's state: the setup, one side (two machines) or two (the loopback lab), and
 * the tables every side feeds: completions, the verbs log, packets and control messages. The only
 * place that builds sessions; everything shown comes from {@link LabSession}, its events and the
 * verbs API. JavaFX thread only, except where a method says otherwise.
 */
public final class LabViewModel implements AutoCloseable {

    /** How the tables print times. */
    public static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss.SSS").withZone(ZoneId.systemDefault());

    /** Rows kept per table before the oldest are dropped (and counted). */
    static final int TABLE_LIMIT = 10_000;

    private final Backends backends;
    private final Executor ui;
    private final Function<String, ExecutorService> workers;
    private final SetupViewModel setup;
    private final ObservableList<SideViewModel> sides = FXCollections.observableArrayList();
    private final ObjectProperty<SideViewModel> selectedSide = new SimpleObjectProperty<>();
    private final ObjectProperty<StepRow> selectedStep = new SimpleObjectProperty<>();
    private final BoundedLog<CompletionRow> completions = new BoundedLog<>(TABLE_LIMIT);
    private final ObjectProperty<CompletionRow> selectedCompletion = new SimpleObjectProperty<>();
    private final BoundedLog<VerbRow> verbs = new BoundedLog<>(TABLE_LIMIT);
    private final BoundedLog<PacketRow> packets = new BoundedLog<>(TABLE_LIMIT);
    private final BoundedLog<String> control = new BoundedLog<>(TABLE_LIMIT);
    private final ReadOnlyStringWrapper status = new ReadOnlyStringWrapper("");
    private final ReadOnlyObjectWrapper<LabSetup> current = new ReadOnlyObjectWrapper<>();
    private final List<Runnable> afterEvents = new ArrayList<>();
    private final java.util.Map<SideViewModel, List<org.rdmalab.lab.CExport.ExtraWork>> traffic = new java.util.HashMap<>();
    private final List<java.util.function.Consumer<SideViewModel.SideEvent>> eventListeners = new ArrayList<>();
    private LabSetup defaults;

    /**
     * @param backends where devices come from
     * @param base device options for software devices (tests give their own UDP port)
     * @param background lists and queries devices
     * @param ui the JavaFX thread (a {@link FrameExecutor}) or, in tests, a same-thread executor
     * @param workers makes each side's worker thread, given the side's name
     */
    public LabViewModel(Backends backends, DeviceOptions base, Executor background, Executor ui,
                        Function<String, ExecutorService> workers) {
        this.backends = backends;
        this.ui = ui;
        this.workers = workers;
        this.defaults = LabSetup.loopback().withBase(base);
        this.setup = new SetupViewModel(backends, base, background, ui);
    }

    /** Says {@code sentence} in the status line (the window's own news, such as a setting changed). */
    public void tell(String sentence) {
        status.set(sentence);
    }

    /** The setup the window starts with: the loopback lab with the seed's defaults. */
    public LabSetup defaultSetup() {
        return defaults;
    }

    /** Named daemon worker threads, one per side. */
    public static Function<String, ExecutorService> daemonWorkers() {
        return name -> Executors.newSingleThreadExecutor(runnable -> {
            Thread thread = new Thread(BackgroundPriority.process().yielding(runnable), "rdma-lab " + name);
            thread.setDaemon(true);
            return thread;
        });
    }

    /**
     * Builds the sessions for the setup as chosen, closing the ones before.
     *
     * @throws IllegalArgumentException naming the setup field that is wrong
     */
    public void apply() {
        LabSetup chosen = setup.toSetup(defaults);
        apply(chosen);
    }

    /** Builds the sessions for {@code chosen}, closing the ones before. */
    public void apply(LabSetup chosen) {
        closeSides();
        show(chosen, chosen.open(backends));
    }

    /**
     * Shows sessions built elsewhere (a lesson's: {@code sessions} from a scenario of the gallery)
     * as the lab's sides, closing the ones before; {@code chosen} says what they are (the loopback
     * lab on its device). The sides own the sessions from now on: they run their steps with the
     * lab's own controls and release them when replaced.
     */
    public void applySessions(LabSetup chosen, List<LabSession> sessions) {
        closeSides();
        show(chosen, sessions);
    }

    private void show(LabSetup chosen, List<LabSession> sessions) {
        List<SideViewModel> built = new ArrayList<>();
        for (LabSession session : sessions) {
            String name = chosen.mode() == LabSetup.Mode.LOOPBACK
                    ? session.role().name().toLowerCase(java.util.Locale.ROOT) : "local";
            String address = chosen.mode() == LabSetup.Mode.TWO_MACHINES ? chosen.localIp()
                    : session.role() == org.rdmalab.lab.Role.SERVER ? LabSetup.LOOPBACK_SERVER_IP
                    : LabSetup.LOOPBACK_CLIENT_IP;
            built.add(new SideViewModel(name, address, session, chosen.protocol(), chosen.mode(), workers.apply(name), ui,
                    this::onEvents));
        }
        traffic.clear();
        selectedCompletion.set(null);
        completions.clear();
        verbs.clear();
        packets.clear();
        control.clear();
        current.set(chosen);
        sides.setAll(built);
        selectedSide.set(built.get(built.size() - 1));
        selectedStep.set(built.get(built.size() - 1).steps().isEmpty() ? null : built.get(built.size() - 1).steps().get(0));
        status.set(describe(chosen));
    }

    private static String describe(LabSetup chosen) {
        if (chosen.mode() == LabSetup.Mode.LOOPBACK) {
            return UiText.format("status.loopback", LabSetup.LOOPBACK_SERVER_IP, LabSetup.LOOPBACK_CLIENT_IP,
                    chosen.device(), chosen.ibPort(), chosen.gidIndex());
        }
        String role = chosen.role().name().toLowerCase(java.util.Locale.ROOT);
        return UiText.format("status.twoMachines", UiText.side(role), chosen.localIp(),
                chosen.role() == org.rdmalab.lab.Role.CLIENT ? UiText.format("status.server", chosen.peerIp()) : "",
                chosen.tcpPort(), chosen.protocol().cliName(), chosen.device(), chosen.ibPort(), chosen.gidIndex());
    }

    /** One side's batch of events: one change per table, then the views refresh once. */
    private void onEvents(List<SideViewModel.SideEvent> batch) {
        List<CompletionRow> newCompletions = new ArrayList<>();
        List<VerbRow> newVerbs = new ArrayList<>();
        List<PacketRow> newPackets = new ArrayList<>();
        List<String> newControl = new ArrayList<>();
        for (SideViewModel.SideEvent sideEvent : batch) {
            LabEvent event = sideEvent.event();
            String side = sideEvent.side().name();
            Instant at = sideEvent.at();
            if (event instanceof LabEvent.Completion completion) {
                newCompletions.add(new CompletionRow(completion.at(), side, completion.completion(),
                        completion.elapsedNanos()));
            } else if (event instanceof LabEvent.VerbCall call) {
                newVerbs.add(new VerbRow(at, side, call.verb(), call.arguments(), call.result(), call.ok(),
                        call.errno() == null ? "" : call.errno().name() + " (" + call.errno().value() + ", "
                                + call.errno().text() + ")"));
            } else if (event instanceof LabEvent.Packet packet) {
                newPackets.add(new PacketRow(at, side, packet.packet()));
            } else if (event instanceof LabEvent.ControlMessage message) {
                newControl.add(TIME.format(at) + "  " + side + "  " + (message.sent() ? "→ " : "← ")
                        + message.description() + (message.length() > 0 ? "  (" + message.length() + " bytes)" : ""));
            } else if (event instanceof LabEvent.StepFinished finished) {
                sayFinished(sideEvent.side(), finished);
            }
        }
        completions.addAll(newCompletions);
        verbs.addAll(newVerbs);
        packets.addAll(newPackets);
        control.addAll(newControl);
        for (SideViewModel.SideEvent sideEvent : batch) {
            eventListeners.forEach(listener -> listener.accept(sideEvent));
        }
        afterEvents.forEach(Runnable::run);
    }

    /** The sides whose last step ran, since their steps last started over. */
    private final java.util.Set<SideViewModel> ranToTheEnd = new java.util.HashSet<>();

    /**
     * The status line says the latest thing that happened: a step that failed, else the step that
     * just ran, and once every side ran its last step, that the flow ended.
     */
    private void sayFinished(SideViewModel side, LabEvent.StepFinished finished) {
        String said = UiText.format(finished.result().ok() ? "status.stepDone" : "status.stepFailed",
                UiText.side(side.name()), UiText.stepTitle(finished.step()), UiText.say(finished.result().said()));
        boolean last = !side.steps().isEmpty() && side.steps().get(side.steps().size() - 1).step() == finished.step();
        if (last && finished.result().ok()) {
            ranToTheEnd.add(side);
        } else {
            ranToTheEnd.remove(side);
        }
        ranToTheEnd.retainAll(sides);
        status.set(ranToTheEnd.containsAll(sides) ? UiText.format("status.flowDone", said) : said);
    }

    /** Hands every event to {@code listener} on the UI thread, after the tables took it. */
    public void afterEvent(java.util.function.Consumer<SideViewModel.SideEvent> listener) {
        eventListeners.add(listener);
    }

    /** Runs {@code action} on the UI thread after each batch of events is applied (views refresh from it). */
    public void afterEvents(Runnable action) {
        afterEvents.add(action);
    }

    /**
     * The one-click lesson for gid_idx -1 on RoCE: every side takes the recommended GID, resets
     * (a new GID must be exchanged again) and runs back to where it was, so the flow goes on.
     */
    public void useRecommendedGidAndReplay() {
        setup.recommended().ifPresent(entry -> applyFix(null, new org.rdmalab.lab.Diagnosis.Fix("query-port",
                "gid_idx", Integer.toString(entry.index()), org.rdmalab.lab.LabPhrase.of("fix.useGid", entry.index()))));
    }

    /**
     * Applies a diagnosis's fix. A new GID changes what was exchanged, so every side takes it, resets
     * and runs back to where it was; any other fix sets the parameter on {@code side} and runs the
     * failed step again.
     *
     * <p>The sides run again only once every side has reset: a reset forgets what the peer had sent
     * this side, so in the loopback lab a side that ran ahead could send its connection data before
     * its peer's reset dropped it, and the peer would wait for it until its timeout.
     */
    public void applyFix(SideViewModel side, org.rdmalab.lab.Diagnosis.Fix fix) {
        if (fix.parameter().equals("gid_idx")) {
            setup.gidIndexProperty().set(fix.value());
            List<SideViewModel> all = List.copyOf(sides);
            java.util.Map<SideViewModel, Integer> targets = new java.util.LinkedHashMap<>();
            for (SideViewModel each : all) {
                int failed = each.failedIndex();
                targets.put(each, failed >= 0 ? failed : each.nextIndexProperty().get() - 1);
            }
            int[] resetting = {all.size()};
            Runnable runBack = () -> {
                resetting[0]--;
                if (resetting[0] == 0 && sides.equals(all)) {
                    targets.forEach(SideViewModel::runTo);
                }
            };
            for (SideViewModel each : all) {
                each.reset(session -> session.steps().stream()
                        .filter(step -> step.id().equals(fix.stepId())).findFirst()
                        .ifPresent(step -> step.parameter(fix.parameter()).set(fix.value())), runBack);
            }
            status.set(UiText.format("status.fixApplied", fix.parameter(), fix.value()));
            return;
        }
        side.steps().stream().filter(row -> row.step().id().equals(fix.stepId())).findFirst()
                .ifPresent(row -> row.step().parameter(fix.parameter()).set(fix.value()));
        int failed = side.failedIndex();
        if (failed >= 0) {
            side.runTo(failed);
        }
        status.set(UiText.format("status.fixRetry", UiText.side(side.name()), fix.parameter(), fix.value()));
    }

    /** Remembers a send request {@code side} posted from the traffic form, for Export as C. */
    void posted(SideViewModel side, org.rdmalab.lab.TrafficRequest request) {
        traffic.computeIfAbsent(side, key -> new ArrayList<>()).add(new org.rdmalab.lab.CExport.ExtraWork(
                request.opcode(), request.localOffset(), request.length(), (int) request.remoteOffset(),
                request.data(), request.imm(), request.signaled(), request.compareAdd(), request.swap()));
    }

    /**
     * Export as C: the selected side's session, with the values chosen and the traffic posted from
     * the form, as one C program for libibverbs, written to {@code file}.
     *
     * @return a line saying what was written
     * @throws IllegalStateException when the side is running a step (its parameters are in use)
     */
    public String exportC(java.nio.file.Path file) throws java.io.IOException {
        SideViewModel side = selectedSide.get();
        if (side == null) {
            throw new IllegalStateException(UiText.text("export.nothing"));
        }
        if (side.busyProperty().get()) {
            throw new IllegalStateException(UiText.format("export.busy", UiText.side(side.name())));
        }
        List<org.rdmalab.lab.CExport.ExtraWork> extras = traffic.getOrDefault(side, List.of());
        String program = org.rdmalab.lab.CExport.of(side.session(), extras);
        java.nio.file.Files.writeString(file, program);
        String role = UiText.side(side.role().name().toLowerCase(java.util.Locale.ROOT));
        String line = extras.isEmpty() ? UiText.format("export.done", role, file.getFileName(), file.getFileName())
                : UiText.format("export.doneWithRequests", role, extras.size(), file.getFileName(), file.getFileName());
        status.set(line);
        return line;
    }

    /** Resets every side. */
    public void resetAll() {
        sides.forEach(SideViewModel::reset);
    }

    /** Runs every side to its end, each on its own worker (the loopback lab's peers wait for each other). */
    public void runAllToEnd() {
        sides.forEach(SideViewModel::runToEnd);
    }

    private void closeSides() {
        for (SideViewModel side : sides) {
            side.close();
        }
        sides.clear();
    }

    /** Releases every session and worker thread. */
    @Override
    public void close() {
        closeSides();
    }

    public SetupViewModel setup() {
        return setup;
    }

    /** One side (two machines) or server and client (loopback lab). */
    public ObservableList<SideViewModel> sides() {
        return sides;
    }

    /** The side whose step the detail pane shows. */
    public ObjectProperty<SideViewModel> selectedSideProperty() {
        return selectedSide;
    }

    /** The step the detail pane shows. */
    public ObjectProperty<StepRow> selectedStepProperty() {
        return selectedStep;
    }

    /** The setup the sessions were built from. */
    public ReadOnlyObjectProperty<LabSetup> currentProperty() {
        return current.getReadOnlyProperty();
    }

    public ObservableList<CompletionRow> completions() {
        return completions.rows();
    }

    /**
     * The completion selected in the completions table, or by a view tied to it (the Ladder tab's
     * work requests); null for none.
     */
    public ObjectProperty<CompletionRow> selectedCompletionProperty() {
        return selectedCompletion;
    }

    BoundedLog<CompletionRow> completionLog() {
        return completions;
    }

    BoundedLog<VerbRow> verbLog() {
        return verbs;
    }

    public BoundedLog<PacketRow> packetLog() {
        return packets;
    }

    public BoundedLog<String> controlLog() {
        return control;
    }

    /** A line for the status bar. */
    public ReadOnlyStringProperty statusProperty() {
        return status.getReadOnlyProperty();
    }

    /** Sets the status line (a command's outcome). */
    public void status(String text) {
        status.set(text);
    }
}
