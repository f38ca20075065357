package org.rdmalab.lab;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.rdmalab.control.ControlException;
import org.rdmalab.text.Phrase;
import org.rdmalab.verbs.Context;
import org.rdmalab.verbs.PacketObservable;
import org.rdmalab.verbs.QpState;
import org.rdmalab.verbs.QueuePair;
import org.rdmalab.verbs.VerbsException;
import org.rdmalab.verbs.spi.Backends;
import org.rdmalab.verbs.spi.DeviceOptions;

/**
 * One peer's lab: an ordered list of steps over one device and one control link, and the events
 * they emit. UI-free; the CLI and the GUI drive it and listen. What the steps create is its
 * {@link #resources()} ({@link LabResources}: the verbs objects and connection data, whose getters
 * tell a view what exists); the user's traffic after the steps, and the steps' posts and polls,
 * are its {@link #traffic()} ({@link LabTraffic}).
 *
 * <p>Thread rules: steps and the traffic methods run on the thread that calls them (never the
 * JavaFX thread: they block up to their timeouts). One thread drives a session at a time.
 * Listeners are called on the running thread, packet events on the device's thread, and the
 * peer's QP states and control messages (lab protocol) on the link's reader thread.
 */
public final class LabSession implements AutoCloseable {

    /** The seed's CQ poll timeout (MAX_POLL_CQ_TIMEOUT). */
    public static final Duration SEED_POLL_TIMEOUT = Duration.ofMillis(2000);

    private final Role role;
    private final Backends backends;
    private final DeviceOptions deviceOptions;
    private final PeerLink link;
    private final List<Step> steps;
    private final List<Consumer<LabEvent>> listeners = new CopyOnWriteArrayList<>();
    private volatile boolean packetEvents = true;
    private int next;

    private final LabResources resources;
    private final LabTraffic traffic;
    private AutoCloseable packetSubscription;
    private final List<Consumer<Context>> openedListeners = new CopyOnWriteArrayList<>();
    /** The device's counters when a step opened it: a kernel device counts from its creation. */
    private java.util.Map<String, Long> countersAtOpen = java.util.Map.of();
    /** The QP state last emitted as a {@link LabEvent.QpStateChange}, for {@link #queryQpState}. */
    private QpState lastToldState;

    /**
     * A session of {@code role} with the given steps.
     *
     * @param deviceOptions how to configure software devices (their address is this peer's IP)
     */
    public LabSession(Role role, Backends backends, DeviceOptions deviceOptions, PeerLink link, List<Step> steps) {
        this.role = Objects.requireNonNull(role);
        this.backends = Objects.requireNonNull(backends);
        this.deviceOptions = Objects.requireNonNull(deviceOptions);
        this.link = Objects.requireNonNull(link);
        this.steps = List.copyOf(steps);
        this.resources = new LabResources(link);
        this.traffic = new LabTraffic(this, resources);
        link.attach(this::emit);
    }

    /** What the steps created and learnt: the verbs objects and the connection data. */
    public LabResources resources() {
        return resources;
    }

    /** The user's traffic after the steps, and the steps' posts and polls. */
    public LabTraffic traffic() {
        return traffic;
    }

    /** Server or client. */
    public Role role() {
        return role;
    }

    /** The steps, in order. */
    public List<Step> steps() {
        return steps;
    }

    /** The step that runs next, if any. */
    public Optional<Step> nextStep() {
        return next < steps.size() ? Optional.of(steps.get(next)) : Optional.empty();
    }

    /** True when every step ran successfully. */
    public boolean finished() {
        return next == steps.size() && steps.stream().allMatch(step -> step.status() == Step.Status.DONE);
    }

    /**
     * Whether a software device's packets become {@link LabEvent.Packet}s (on by default). Each
     * costs a decode and a description per packet on the data path, so a caller that shows no
     * packets turns them off before the device opens.
     */
    public void packetEvents(boolean on) {
        packetEvents = on;
    }

    /** Adds a listener for every event. */
    public void addListener(Consumer<LabEvent> listener) {
        listeners.add(listener);
    }

    void emit(LabEvent event) {
        for (Consumer<LabEvent> listener : listeners) {
            listener.accept(event);
        }
    }

    /** Emits a line of program output. */
    void print(String text) {
        emit(new LabEvent.Output(text));
    }

    /**
     * Runs the next step. A step that cannot run yet fails with the reason; a failed step can be
     * fixed (edit its parameters) and run again; its result's {@link StepResult#diagnosis()} names
     * the parameter to change. After {@link #requestState} moved the QP by hand the next step runs
     * all the same and fails with the kernel's reason when the QP is not where it expects.
     *
     * @return the step's result, or empty when all steps have run
     */
    public Optional<StepResult> runNext() {
        if (next >= steps.size()) {
            return Optional.empty();
        }
        Step step = steps.get(next);
        StepResult result = run(step);
        if (result.ok()) {
            next++;
        }
        return Optional.of(result);
    }

    /** Runs steps until one fails or all have run; returns the last result. */
    public Optional<StepResult> runToEnd() {
        Optional<StepResult> last = Optional.empty();
        while (next < steps.size()) {
            last = runNext();
            if (last.isPresent() && !last.get().ok()) {
                break;
            }
        }
        return last;
    }

    private StepResult run(Step step) {
        Optional<Phrase> blocked = step.blockedBy(this);
        StepResult result;
        if (blocked.isPresent()) {
            result = StepResult.failed(LabPhrase.of("result.cannotRunYet", blocked.get()));
        } else {
            Exception failure = null;
            try {
                result = step.execute(this);
            } catch (VerbsException e) {
                result = StepResult.failed(e.getMessage());
                failure = e;
            } catch (ControlException e) {
                result = StepResult.failed(LabPhrase.of("result.controlPlane", e.getMessage()));
                failure = e;
            } catch (IllegalArgumentException | IllegalStateException e) {
                result = StepResult.failed(e.getMessage() != null ? e.getMessage() : e.toString());
            } catch (Exception e) {
                result = StepResult.failed(e.toString());
            }
            result = diagnosed(step, result, failure);
        }
        step.finish(result);
        emit(new LabEvent.StepFinished(step, result));
        if (resources.connected()) {
            try {
                link.publishStep(steps.indexOf(step), step.title(), result.ok(), result.ok() ? "" : result.summary());
            } catch (ControlException e) {
                print("could not tell the peer about the step: " + e.getMessage());
            }
        }
        return result;
    }

    /** {@code result} with the diagnosis of {@code failure} attached, when one parameter can be blamed. */
    private StepResult diagnosed(Step step, StepResult result, Exception failure) {
        if (failure == null || result.ok()) {
            return result;
        }
        return Diagnoses.of(this, step, failure).map(result::withDiagnosis).orElse(result);
    }

    /**
     * Moves the QP to {@code target} by hand, as a click on the state diagram does: one
     * {@code ibv_modify_qp} with {@code attr.qp_state = target} and the mask {@code IBV_QP_STATE}
     * alone (a bare request carries no other attribute, so only the transitions the kernel's table
     * allows without one succeed: RESET from any state, ERR from any state but RESET, RTS → SQD,
     * SQD → RTS, SQE → RTS). Success emits {@link LabEvent.QpStateChange} and tells the peer, as a step does;
     * a refusal emits {@link LabEvent.TransitionRefused} with the kernel's reason and leaves the QP
     * as it was. Moving to ERR flushes the pending work requests (IBV_WC_WR_FLUSH_ERR).
     *
     * <p>The step list is not changed: {@link #runNext()} then simply runs the next step, which
     * fails with the kernel's reason when the QP is no longer where that step expects it (its
     * diagnosis says to reset and replay).
     *
     * @return true when the QP moved
     * @throws IllegalStateException when there is no QP yet
     */
    public boolean requestState(QpState target) {
        Objects.requireNonNull(target, "target");
        QueuePair qp = resources.qp();
        if (qp == null) {
            throw new IllegalStateException("there is no QP yet: run the steps up to 'Create QP' first");
        }
        QpState from = qp.state();
        try {
            qp.modify(new org.rdmalab.verbs.QpAttributes().state(target), org.rdmalab.verbs.QpAttrMask.STATE.value());
        } catch (VerbsException e) {
            emit(new LabEvent.VerbCall("ibv_modify_qp", e.getMessage(), false));
            emit(new LabEvent.TransitionRefused(LabEvent.Side.LOCAL, qp.qpNum(), from, target, e.errno(),
                    Diagnoses.refusal(qp, from, target, e)));
            return false;
        }
        QpState to = qp.state();
        emit(new LabEvent.VerbCall("ibv_modify_qp", from.name() + " → " + to.name() + " (by hand, mask STATE)", true));
        stateChanged(from, to);
        return true;
    }

    /**
     * {@code ibv_modify_qp} with the caller's attributes and mask, through {@link org.rdmalab.verbs.RcPath}
     * as the modify steps do: a lesson's transition that no step of the flow makes (RESET → RTR
     * at once, to see it refused). Success emits {@link LabEvent.QpStateChange} and tells the peer;
     * a refusal emits the failed {@link LabEvent.VerbCall} and {@link LabEvent.TransitionRefused}
     * with the QP state table's reason, and is thrown.
     *
     * @return the attributes the QP was given
     * @throws VerbsException as the device returned it
     * @throws IllegalStateException when there is no QP yet
     */
    public org.rdmalab.verbs.QpAttributes modifyQp(org.rdmalab.verbs.QpAttributes attributes, int mask)
            throws VerbsException {
        QueuePair qp = requireQp();
        QpState from = qp.state();
        org.rdmalab.verbs.QpAttributes applied;
        try {
            applied = org.rdmalab.verbs.RcPath.modify(qp, attributes, mask);
        } catch (VerbsException e) {
            emit(LabEvent.VerbCall.failed("ibv_modify_qp", VerbArgs.modifyQp(qp, attributes, mask), e));
            emit(new LabEvent.TransitionRefused(LabEvent.Side.LOCAL, qp.qpNum(), from,
                    attributes.state() == null ? from : attributes.state(), e.errno(),
                    Diagnoses.refusal(qp, from, attributes.state() == null ? from : attributes.state(), e)));
            throw e;
        }
        QpState to = qp.state();
        if (attributes.state() != null) {
            resources.applied(attributes.state(), applied);
        }
        emit(LabEvent.VerbCall.ok("ibv_modify_qp", VerbArgs.modifyQp(qp, applied, mask), from.name() + " → "
                + to.name()));
        if (from != to) {
            stateChanged(from, to);
        }
        return applied;
    }

    /**
     * {@code ibv_query_qp} of the QP's state: where the device has it now (an error completion
     * moves a QP to ERR without any modify). Emits the call and, when the state differs from the
     * last one the session told, a {@link LabEvent.QpStateChange}.
     *
     * @throws IllegalStateException when there is no QP yet
     */
    public QpState queryQpState() throws VerbsException {
        QueuePair qp = requireQp();
        String arguments = String.format("qp 0x%x, attr_mask IBV_QP_STATE", qp.qpNum());
        QpState state;
        try {
            state = qp.query(org.rdmalab.verbs.QpAttrMask.STATE.value()).state();
        } catch (VerbsException e) {
            emit(LabEvent.VerbCall.failed("ibv_query_qp", arguments, e));
            throw e;
        }
        emit(LabEvent.VerbCall.ok("ibv_query_qp", arguments, "qp_state " + state.cName()));
        if (lastToldState != null && lastToldState != state) {
            emit(new LabEvent.QpStateChange(LabEvent.Side.LOCAL, qp.qpNum(), lastToldState, state));
            lastToldState = state;
        }
        return state;
    }

    /**
     * {@code ibv_destroy_qp} before the end: the peer goes silent, and packets for its QP number
     * are dropped from now on. The session keeps no QP afterwards.
     *
     * @throws IllegalStateException when there is no QP
     */
    public void destroyQp() {
        QueuePair qp = requireQp();
        int number = qp.qpNum();
        qp.close();
        resources.qp(null);
        emit(LabEvent.VerbCall.ok("ibv_destroy_qp", String.format("qp 0x%x", number), "0"));
    }

    private QueuePair requireQp() {
        QueuePair qp = resources.qp();
        if (qp == null) {
            throw new IllegalStateException("there is no QP yet: run the steps up to 'Create QP' first");
        }
        return qp;
    }

    /**
     * What the device's counters counted since the session opened it (rxe's count from the
     * device's creation, soft0's from its opening): name → value in the device's order. Empty when
     * the device has none.
     *
     * @throws VerbsException when the device cannot be read
     * @throws IllegalStateException when no device is open
     */
    public java.util.Map<String, Long> countersSinceOpen() throws VerbsException {
        Context context = resources.context().orElseThrow(() -> new IllegalStateException("no device is open"));
        java.util.Map<String, Long> now = context.queryCounters();
        java.util.Map<String, Long> since = new java.util.LinkedHashMap<>();
        now.forEach((name, value) -> since.put(name, value - countersAtOpen.getOrDefault(name, 0L)));
        return since;
    }

    /**
     * Puts step {@code index} and every step after it back to PENDING, keeping what the steps before
     * it created and learnt (the QP, the connection data): {@link #runNext()} then runs step
     * {@code index} again. This is how a QP moved to RESET by hand ({@link #requestState}) is
     * brought back through INIT, RTR and RTS: the same QP, with the parameters as they are now. A
     * rewound step that creates an object creates another; the one before stays with the context,
     * which releases both at {@link #reset()} or {@link #close()}.
     *
     * @throws IllegalArgumentException when {@code index} is not a step that ran or the next one
     */
    public void rewindTo(int index) {
        if (index < 0 || index > next || index >= steps.size()) {
            throw new IllegalArgumentException("step " + index + " has not run yet; run again from a step up to "
                    + "the next one (" + next + ")");
        }
        for (int i = index; i < steps.size(); i++) {
            steps.get(i).clear();
        }
        next = index;
    }

    /** Tears everything down and puts every step back to PENDING with its parameters kept. */
    public void reset() {
        releaseResources();
        for (Step step : steps) {
            step.clear();
        }
        next = 0;
    }

    private void releaseResources() {
        link.close();
        if (packetSubscription != null) {
            try {
                packetSubscription.close();
            } catch (Exception e) {
                print("stopping packet events failed: " + e.getMessage());
            }
            packetSubscription = null;
        }
        resources.release();
        traffic.clear();
        lastToldState = null;
        countersAtOpen = java.util.Map.of();
    }

    /** Releases the link and every verbs object; idempotent. */
    @Override
    public void close() {
        releaseResources();
    }

    // ---- state the steps share (package-private) ----

    Backends backends() {
        return backends;
    }

    DeviceOptions deviceOptions() {
        return deviceOptions;
    }

    PeerLink link() {
        return link;
    }

    /**
     * Runs {@code action} with every context the steps open from now on (after a reset too), on the
     * thread that opened it, before the step goes on: a window sets the device up there (its faults)
     * before it sends a packet. It must not block.
     */
    public void whenOpened(Consumer<Context> action) {
        openedListeners.add(Objects.requireNonNull(action));
    }

    void opened(Context opened) {
        resources.context(opened);
        try {
            countersAtOpen = opened.queryCounters();
        } catch (VerbsException | RuntimeException e) {
            countersAtOpen = java.util.Map.of(); // countersSinceOpen reports the device's own error
        }
        for (Consumer<Context> listener : openedListeners) {
            listener.accept(opened);
        }
        if (packetEvents && opened instanceof PacketObservable observable) {
            packetSubscription = observable.subscribe(packet -> emit(new LabEvent.Packet(packet)));
        }
    }

    void stateChanged(QpState from, QpState to) {
        lastToldState = to;
        emit(new LabEvent.QpStateChange(LabEvent.Side.LOCAL, resources.qp().qpNum(), from, to));
        try {
            link.publishQpState(resources.qp().qpNum(), to);
        } catch (ControlException e) {
            print("could not tell the peer the QP state: " + e.getMessage());
        }
    }
}
