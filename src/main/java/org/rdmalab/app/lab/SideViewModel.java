package org.rdmalab.app.lab;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.function.Consumer;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyIntegerProperty;
import javafx.beans.property.ReadOnlyIntegerWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleObjectProperty;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;
import org.rdmalab.app.common.EventQueue;
import org.rdmalab.app.common.FrameExecutor;
import org.rdmalab.app.common.UiText;
import org.rdmalab.control.ControlProtocol;
import org.rdmalab.lab.LabEvent;
import org.rdmalab.lab.LabSession;
import org.rdmalab.lab.LabSetup;
import org.rdmalab.lab.Role;
import org.rdmalab.lab.Step;
import org.rdmalab.verbs.QpState;

/**
 * One peer of the lab as the window sees it: its session's steps with their status, the three
 * commands (run the next step, run to a step, reset), and the local and peer QP states. Steps run
 * on this side's own worker thread; the session's events come back through an {@link EventQueue}
 * and are applied on the UI executor, then handed to the lab for the shared tables.
 */
public final class SideViewModel {

    /**
     * A QP state change or a refused change, for the diagram to animate.
     *
     * @param from the state before
     * @param to the state asked for (and reached, unless refused)
     * @param refused true when the modify was refused
     * @param reason why it was refused, or empty
     */
    public record Transition(QpState from, QpState to, boolean refused, String reason) {
    }

    /**
     * A session event with its side and arrival time, for the lab's tables.
     *
     * @param side the side it came from
     * @param event the event
     * @param at when it arrived
     * @param buffer the leading bytes of this side's buffer when the event happened (steps,
     *     completions, buffer changes), or null
     */
    public record SideEvent(SideViewModel side, LabEvent event, Instant at, byte[] buffer) {
    }

    private sealed interface Item {
    }

    private record EventItem(LabEvent event, Instant at, byte[] buffer) implements Item {
    }

    private record Started(int index) implements Item {
    }

    /** The side is idle at step {@code next}; {@code then}, when not null, runs on the UI executor after. */
    private record Idle(int next, Runnable then) implements Item {
    }

    private record Cleared() implements Item {
    }

    private record Rewound(int index) implements Item {
    }

    private record Performed(String outcome, Consumer<String> done) implements Item {
    }

    private final String name;
    private final String address;
    private final LabSession session;
    private final ControlProtocol protocol;
    private final LabSetup.Mode mode;
    private final ExecutorService worker;
    private final Consumer<List<SideEvent>> out;
    private final EventQueue<Item> queue;
    private final ObservableList<StepRow> steps = FXCollections.observableArrayList(
            row -> new javafx.beans.Observable[] {row.statusProperty(), row.summaryProperty(), row.nextProperty()});
    private final ReadOnlyBooleanWrapper busy = new ReadOnlyBooleanWrapper();
    private final ReadOnlyStringWrapper activity = new ReadOnlyStringWrapper("");
    private final ReadOnlyObjectWrapper<QpState> localState = new ReadOnlyObjectWrapper<>();
    private final ReadOnlyObjectWrapper<QpState> peerState = new ReadOnlyObjectWrapper<>();
    private final ReadOnlyIntegerWrapper localQpn = new ReadOnlyIntegerWrapper(-1);
    private final ReadOnlyIntegerWrapper peerQpn = new ReadOnlyIntegerWrapper(-1);
    private final ObjectProperty<Transition> lastLocalTransition = new SimpleObjectProperty<>();
    private final ObjectProperty<Transition> lastPeerTransition = new SimpleObjectProperty<>();
    private final ReadOnlyIntegerWrapper nextIndex = new ReadOnlyIntegerWrapper(0);
    private final ReadOnlyObjectWrapper<StepRow> lastFailure = new ReadOnlyObjectWrapper<>();
    private Future<?> running;

    /**
     * @param name "server", "client" (loopback lab) or "local"
     * @param address this peer's IPv4 address
     * @param session the session this side drives; this view model closes it
     * @param worker the thread the steps run on; this view model shuts it down
     * @param ui where results are applied (the JavaFX thread, through a {@link FrameExecutor})
     * @param out receives each batch of events on the UI executor, after this side applied them
     */
    SideViewModel(String name, String address, LabSession session, ControlProtocol protocol, LabSetup.Mode mode,
                  ExecutorService worker, Executor ui, Consumer<List<SideEvent>> out) {
        this.name = name;
        this.address = address;
        this.session = session;
        this.protocol = protocol;
        this.mode = mode;
        this.worker = worker;
        this.out = out;
        this.queue = new EventQueue<>(ui, this::apply);
        List<StepRow> rows = new ArrayList<>();
        for (Step step : session.steps()) {
            rows.add(new StepRow(step, rows.size()));
        }
        steps.setAll(rows);
        markNext(0);
        session.addListener(event -> queue.offer(new EventItem(event, Instant.now(), snapshot(event))));
    }

    /** "server", "client" or "local". */
    public String name() {
        return name;
    }

    /** Bytes of this side's buffer compared to find what an operation changed. */
    static final int SNAPSHOT_LIMIT = 1 << 20;

    /**
     * A copy of the buffer's leading bytes as the event happens (on the thread that emits it), so
     * the window can tell which bytes the next operation changed even when it draws later.
     */
    private byte[] snapshot(LabEvent event) {
        if (!(event instanceof LabEvent.StepFinished || event instanceof LabEvent.Completion
                || event instanceof LabEvent.BufferChanged)) {
            return null;
        }
        try {
            return session.resources().memoryRegion().map(mr -> mr.read(0, Math.min(mr.length(), SNAPSHOT_LIMIT)))
                    .orElse(null);
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** This peer's IPv4 address. */
    public String address() {
        return address;
    }

    /** Server or client. */
    public Role role() {
        return session.role();
    }

    /** The session (read its facts on the UI thread only while the side is idle). */
    public LabSession session() {
        return session;
    }

    /** The steps, in order. */
    public ObservableList<StepRow> steps() {
        return steps;
    }

    /** True while a command runs on the worker. */
    public ReadOnlyBooleanProperty busyProperty() {
        return busy.getReadOnlyProperty();
    }

    /** What the side is doing ("running Exchange connection data"), or empty. */
    public ReadOnlyStringProperty activityProperty() {
        return activity.getReadOnlyProperty();
    }

    /** The local QP's state; null before the QP exists. */
    public ReadOnlyObjectProperty<QpState> localStateProperty() {
        return localState.getReadOnlyProperty();
    }

    /** The peer QP's state as far as the control plane tells; null when unknown. */
    public ReadOnlyObjectProperty<QpState> peerStateProperty() {
        return peerState.getReadOnlyProperty();
    }

    public ReadOnlyIntegerProperty localQpnProperty() {
        return localQpn.getReadOnlyProperty();
    }

    public ReadOnlyIntegerProperty peerQpnProperty() {
        return peerQpn.getReadOnlyProperty();
    }

    /** The last change of the local QP (or a refused one). */
    public ObjectProperty<Transition> lastLocalTransitionProperty() {
        return lastLocalTransition;
    }

    /** The last change of the peer's QP, as reported or implied. */
    public ObjectProperty<Transition> lastPeerTransitionProperty() {
        return lastPeerTransition;
    }

    /** The step that failed last (the window shows it at once). */
    public ReadOnlyObjectProperty<StepRow> lastFailureProperty() {
        return lastFailure.getReadOnlyProperty();
    }

    /** Index of the step that runs next (the list's size when all ran). */
    public ReadOnlyIntegerProperty nextIndexProperty() {
        return nextIndex.getReadOnlyProperty();
    }

    /** True when the protocol tells this side the peer's QP states as they happen. */
    public boolean peerStateIsLive() {
        return mode == LabSetup.Mode.TWO_MACHINES && protocol == ControlProtocol.LAB;
    }

    /** A line saying where the peer's QP state comes from. */
    public String peerStateNote() {
        if (mode == LabSetup.Mode.LOOPBACK) {
            return "";
        }
        return switch (protocol) {
            case LAB -> UiText.text("peer.note.lab");
            case SEED -> UiText.text("peer.note.seed");
            case PINGPONG -> UiText.text("peer.note.pingpong");
        };
    }

    /** Runs the next step; ignored while busy. */
    public void runNext() {
        submit(() -> {
            session.nextStep().ifPresent(step -> queue.offer(new Started(session.steps().indexOf(step))));
            session.runNext();
        });
    }

    /** Runs steps up to and including {@code target}, stopping at the first failure; ignored while busy. */
    public void runTo(int target) {
        submit(() -> runSteps(target));
    }

    /** The marker that ends a command: the side is idle and says which step runs next. */
    private Idle idle() {
        return idle(null);
    }

    private Idle idle(Runnable then) {
        return new Idle(session.nextStep().map(step -> session.steps().indexOf(step)).orElse(session.steps().size()),
                then);
    }

    /** On the worker: runs steps up to and including {@code target}, stopping at the first failure or an interrupt. */
    private void runSteps(int target) {
        Optional<Step> next = session.nextStep();
        while (next.isPresent() && session.steps().indexOf(next.get()) <= target
                && !Thread.currentThread().isInterrupted()) {
            queue.offer(new Started(session.steps().indexOf(next.get())));
            if (!session.runNext().map(result -> result.ok()).orElse(false)) {
                return;
            }
            next = session.nextStep();
        }
    }

    /**
     * Runs {@code action} on this side's worker (a post, a poll, a transition) and hands its one-line
     * outcome to {@code done} on the UI executor, after the events it caused. Ignored while busy.
     *
     * @return false when the side was busy and nothing was started
     */
    public boolean perform(String what, java.util.function.Function<LabSession, String> action, Consumer<String> done) {
        if (busy.get()) {
            return false;
        }
        activity.set(what);
        submit(() -> {
            String outcome;
            try {
                outcome = action.apply(session);
            } catch (RuntimeException e) {
                outcome = UiText.format("step.failed", e.getMessage());
            }
            queue.offer(new Performed(outcome, done));
        });
        return true;
    }

    /**
     * Asks the session to move the local QP to {@code target} by hand (ibv_modify_qp with only the
     * state); a refusal comes back as a refused transition with the kernel's reason.
     */
    public void requestState(QpState target) {
        if (session.resources().queuePair().isEmpty() || localState.get() == null) {
            announceLocal(new Transition(QpState.RESET, target, true,
                    UiText.text("activity.noQp")));
            return;
        }
        perform(UiText.format("activity.modifyQp", target.name()), each -> each.requestState(target)
                ? UiText.format("activity.moved", target.name()) : UiText.text("activity.refused"), outcome -> { });
    }

    /** Runs every remaining step. */
    public void runToEnd() {
        runTo(steps.size() - 1);
    }

    private void submit(Runnable command) {
        if (busy.get()) {
            return;
        }
        busy.set(true);
        running = worker.submit(() -> {
            try {
                command.run();
            } finally {
                queue.offer(idle());
            }
        });
    }

    /**
     * Interrupts what runs (a wait for the peer ends at once), releases every verbs object and the
     * connection, and puts the steps back to pending with their parameters kept.
     */
    public void reset() {
        reset(session -> { }, null);
    }

    /**
     * Resets as {@link #reset()} does, lets {@code edit} change parameters on the worker, and once
     * the side is idle at its first step runs {@code then} (when not null) on the UI executor; after
     * a reset that failed it does not run.
     */
    public void reset(Consumer<LabSession> edit, Runnable then) {
        if (running != null) {
            running.cancel(true);
        }
        busy.set(true);
        activity.set(UiText.text("activity.resetting"));
        running = worker.submit(() -> {
            Thread.interrupted();
            boolean done = false;
            try {
                session.reset();
                queue.offer(new Cleared());
                edit.accept(session);
                done = true;
            } finally {
                queue.offer(idle(done ? then : null));
            }
        });
    }

    /**
     * Puts step {@code index} and the steps after it back to pending, keeping what the steps before
     * it created ({@link LabSession#rewindTo}): a QP moved to RESET by hand runs INIT, RTR and RTS
     * again as the same QP. Ignored while busy or for a step that has not run.
     *
     * @return false when nothing was rewound
     */
    public boolean rewindTo(int index) {
        if (busy.get() || index < 0 || index > nextIndex.get() || index >= steps.size()) {
            return false;
        }
        submit(() -> {
            session.rewindTo(index);
            queue.offer(new Rewound(index));
        });
        return true;
    }

    /** The index of the step that failed last, or -1 when none has failed. */
    public int failedIndex() {
        for (StepRow row : steps) {
            if (row.statusProperty().get() == StepRow.Status.FAILED) {
                return row.index();
            }
        }
        return -1;
    }

    /**
     * Releases the session and stops the worker without waiting on the calling (JavaFX) thread: a
     * running step is interrupted, the session is closed on the worker after it, and the worker
     * ends. A step stuck in a TCP read ends at its timeout, then the close runs.
     */
    void close() {
        if (running != null) {
            running.cancel(true);
        }
        worker.execute(session::close);
        worker.shutdown();
    }

    private void apply(List<Item> batch) {
        List<SideEvent> forLab = new ArrayList<>();
        for (Item item : batch) {
            if (item instanceof Started started) {
                StepRow row = steps.get(started.index());
                row.statusProperty().set(StepRow.Status.RUNNING);
                activity.set(UiText.format("activity.running", UiText.stepTitle(row.step())));
            } else if (item instanceof Idle idle) {
                busy.set(false);
                activity.set("");
                markNext(idle.next());
                if (idle.then() != null) {
                    idle.then().run();
                }
            } else if (item instanceof Performed performed) {
                performed.done().accept(performed.outcome());
            } else if (item instanceof Rewound rewound) {
                steps.stream().filter(row -> row.index() >= rewound.index()).forEach(StepRow::clear);
                markNext(rewound.index());
            } else if (item instanceof Cleared) {
                steps.forEach(StepRow::clear);
                localState.set(null);
                peerState.set(null);
                localQpn.set(-1);
                peerQpn.set(-1);
                lastLocalTransition.set(null);
                lastPeerTransition.set(null);
                markNext(0);
            } else if (item instanceof EventItem eventItem) {
                applyEvent(eventItem.event());
                forLab.add(new SideEvent(this, eventItem.event(), eventItem.at(), eventItem.buffer()));
            }
        }
        if (!forLab.isEmpty()) {
            out.accept(forLab);
        }
    }

    private void applyEvent(LabEvent event) {
        if (event instanceof LabEvent.StepFinished finished) {
            int index = session.steps().indexOf(finished.step());
            if (index >= 0) {
                steps.get(index).finished(finished.result());
                if (!finished.result().ok()) {
                    lastFailure.set(null);
                    lastFailure.set(steps.get(index));
                }
            }
            if (localState.get() == null) {
                session.resources().queuePair().ifPresent(qp -> {
                    localQpn.set(qp.qpNum());
                    localState.set(QpState.RESET);
                });
            }
        } else if (event instanceof LabEvent.QpStateChange change) {
            if (change.side() == LabEvent.Side.LOCAL) {
                localQpn.set(change.qpNum());
                localState.set(change.to());
                announceLocal(new Transition(change.from(), change.to(), false, ""));
            } else {
                movePeer(change.qpNum(), change.to());
            }
        } else if (event instanceof LabEvent.TransitionRefused refused && refused.side() == LabEvent.Side.LOCAL) {
            announceLocal(new Transition(refused.from(), refused.to(), true,
                    (refused.errno() == null ? "" : refused.errno().name() + ": ") + refused.reason()));
        } else if (event instanceof LabEvent.ControlMessage message && !peerStateIsLive()) {
            LabSetup.impliedPeerState(protocol, session.role(), event).ifPresent(state -> {
                int qpn = session.resources().remoteData().map(data -> data.qpn()).orElse(-1);
                movePeer(qpn, state);
            });
            if (!message.sent() && peerQpn.get() < 0) {
                session.resources().remoteData().ifPresent(data -> peerQpn.set(data.qpn()));
            }
        }
    }

    private void movePeer(int qpn, QpState to) {
        QpState from = peerState.get();
        peerQpn.set(qpn);
        peerState.set(to);
        announcePeer(new Transition(from == null ? QpState.RESET : from, to, false, ""));
    }

    /** Sets the last transition even when it equals the one before (a refusal tried twice flashes twice). */
    private void announceLocal(Transition transition) {
        lastLocalTransition.set(null);
        lastLocalTransition.set(transition);
    }

    private void announcePeer(Transition transition) {
        lastPeerTransition.set(null);
        lastPeerTransition.set(transition);
    }

    private void markNext(int index) {
        nextIndex.set(index);
        for (StepRow row : steps) {
            row.nextProperty().set(row.index() == index);
        }
    }
}
