package org.rdmalab.lab;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import org.rdmalab.control.ConnectionData;
import org.rdmalab.control.ControlException;
import org.rdmalab.text.Phrase;
import org.rdmalab.verbs.CompletionQueue;
import org.rdmalab.verbs.Context;
import org.rdmalab.verbs.GidEntry;
import org.rdmalab.verbs.MemoryRegion;
import org.rdmalab.verbs.PacketObservable;
import org.rdmalab.verbs.PortAttributes;
import org.rdmalab.verbs.ProtectionDomain;
import org.rdmalab.verbs.QpState;
import org.rdmalab.verbs.QueuePair;
import org.rdmalab.verbs.ReceiveWorkRequest;
import org.rdmalab.verbs.SendFlag;
import org.rdmalab.verbs.SendWorkRequest;
import org.rdmalab.verbs.VerbsException;
import org.rdmalab.verbs.WcOpcode;
import org.rdmalab.verbs.WorkCompletion;
import org.rdmalab.verbs.WrOpcode;
import org.rdmalab.verbs.spi.Backends;
import org.rdmalab.verbs.spi.DeviceOptions;

/**
 * One peer's lab: an ordered list of steps over one device and one control link, the verbs
 * objects they create, and the events they emit. UI-free; the CLI and the GUI drive it and listen.
 *
 * <p>After the steps, the traffic methods ({@link #postSend(TrafficRequest)}, {@link #postReceive},
 * {@link #pollCompletions}, {@link #readPeerBuffer}) let a user go on experimenting; the getters
 * ({@link #context()}, {@link #port()}, {@link #protectionDomain()}, {@link #localWire()}, ...)
 * tell a view what exists.
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

    private Context context;
    private AutoCloseable packetSubscription;
    private PortAttributes portAttributes;
    private GidEntry gidEntry;
    private ProtectionDomain pd;
    private CompletionQueue cq;
    private MemoryRegion mr;
    private QueuePair qp;
    private boolean connected;
    private ConnectionData local;
    private ConnectionData remote;
    private int sendPsn;
    private int receivesPosted;
    /** Open posts by queue and wr_id, oldest first, for the completions' elapsed time. */
    private final Map<PostKey, ArrayDeque<Posted>> posts = new ConcurrentHashMap<>();

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
        link.attach(this::emit);
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
        if (connected) {
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
        if (context != null) {
            context.close();
        }
        context = null;
        pd = null;
        cq = null;
        mr = null;
        qp = null;
        portAttributes = null;
        gidEntry = null;
        connected = false;
        local = null;
        remote = null;
        receivesPosted = 0;
        posts.clear();
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

    void opened(Context opened) {
        context = opened;
        if (packetEvents && opened instanceof PacketObservable observable) {
            packetSubscription = observable.subscribe(packet -> emit(new LabEvent.Packet(packet)));
        }
    }

    /** The open context, if the device was opened. */
    public Optional<Context> context() {
        return Optional.ofNullable(context);
    }

    PortAttributes portAttributes() {
        return portAttributes;
    }

    void portAttributes(PortAttributes attributes) {
        portAttributes = attributes;
    }

    /** The GID entry chosen for RoCE (absent when gid_idx is -1). */
    public Optional<GidEntry> gidEntry() {
        return Optional.ofNullable(gidEntry);
    }

    void gidEntry(GidEntry entry) {
        gidEntry = entry;
    }

    ProtectionDomain pd() {
        return pd;
    }

    void pd(ProtectionDomain created) {
        pd = created;
    }

    CompletionQueue cq() {
        return cq;
    }

    void cq(CompletionQueue created) {
        cq = created;
    }

    /** The registered buffer, once registered. */
    public Optional<MemoryRegion> memoryRegion() {
        return Optional.ofNullable(mr);
    }

    MemoryRegion mr() {
        return mr;
    }

    void mr(MemoryRegion created) {
        mr = created;
        link.serveBuffer((offset, length) -> {
            int start = (int) Math.min(offset, created.length());
            return created.read(start, Math.min(length, created.length() - start));
        });
    }

    /** The QP, once created. */
    public Optional<QueuePair> queuePair() {
        return Optional.ofNullable(qp);
    }

    QueuePair qp() {
        return qp;
    }

    void qp(QueuePair created) {
        qp = created;
    }

    boolean connected() {
        return connected;
    }

    void connected(boolean value) {
        connected = value;
    }

    /** The first PSN this side sends with (the seed: 0; ibv_rc_pingpong: random 24 bits). */
    public int sendPsn() {
        return sendPsn;
    }

    /** Sets the first send PSN (before the exchange). */
    public void sendPsn(int psn) {
        if (psn < 0 || psn > 0xffffff) {
            throw new IllegalArgumentException("a PSN is 24 bits; " + psn + " does not fit");
        }
        sendPsn = psn;
    }

    int receivesPosted() {
        return receivesPosted;
    }

    void receivesPosted(int count) {
        receivesPosted = count;
    }

    /** What this peer sent in the exchange. */
    public Optional<ConnectionData> localData() {
        return Optional.ofNullable(local);
    }

    /** What the peer sent in the exchange. */
    public Optional<ConnectionData> remoteData() {
        return Optional.ofNullable(remote);
    }

    void exchanged(ConnectionData sent, ConnectionData received) {
        local = sent;
        remote = received;
    }

    void stateChanged(QpState from, QpState to) {
        emit(new LabEvent.QpStateChange(LabEvent.Side.LOCAL, qp.qpNum(), from, to));
        try {
            link.publishQpState(qp.qpNum(), to);
        } catch (ControlException e) {
            print("could not tell the peer the QP state: " + e.getMessage());
        }
    }

    // ---- facts for a view (read-only) ----

    /** The control protocol in use: "seed", "pingpong", "lab" or "memory". */
    public String protocol() {
        return link.protocol();
    }

    /** True once the TCP step connected (until reset). */
    public boolean isConnected() {
        return connected;
    }

    /** The queried port's attributes, once the port was queried. */
    public Optional<PortAttributes> port() {
        return Optional.ofNullable(portAttributes);
    }

    /** The protection domain, once allocated. */
    public Optional<ProtectionDomain> protectionDomain() {
        return Optional.ofNullable(pd);
    }

    /** The completion queue, once created. */
    public Optional<CompletionQueue> completionQueue() {
        return Optional.ofNullable(cq);
    }

    /** This side's connection data as the protocol in use puts it on the wire, once exchanged. */
    public Optional<WireImage> localWire() {
        return Optional.ofNullable(local).map(data -> WireImage.of(link.protocol(), data));
    }

    /** The peer's connection data as the protocol in use put it on the wire, once received. */
    public Optional<WireImage> remoteWire() {
        return Optional.ofNullable(remote).map(data -> WireImage.of(link.protocol(), data));
    }

    // ---- traffic after the seed's steps ----

    /** Which queue a post went to, and its wr_id. */
    private record PostKey(boolean receive, long wrId) {
    }

    /**
     * A post the session made: when, and what its completion means for the local buffer.
     *
     * @param nanos System.nanoTime() at the post
     * @param opcode the send opcode, or null for a receive
     * @param localOffset where the local SGE starts
     * @param length its length
     * @param remoteOffset where the remote range starts (READ)
     */
    private record Posted(long nanos, WrOpcode opcode, int localOffset, int length, long remoteOffset) {
    }

    /**
     * Posts one send WR of the user's choosing ({@code ibv_post_send}) on the session's QP: the
     * data (if any) is first copied into this side's buffer at the local offset. Emits a
     * {@link LabEvent.VerbCall} and, for the data, a {@link LabEvent.BufferChanged}.
     *
     * @return ok with what was posted; failed with the reason when the QP is missing or not in
     *     RTS, no connection data was exchanged, the range is outside the buffer, or the verb failed
     */
    public StepResult postSend(TrafficRequest request) {
        Objects.requireNonNull(request, "request");
        if (qp == null) {
            return cannotPost(LabPhrase.of("blocked.createQp"));
        }
        if (qp.state() != QpState.RTS) {
            return cannotPost(LabPhrase.of("blocked.rtsIs", qp.state().name()));
        }
        if (remote == null) {
            return cannotPost(LabPhrase.of("blocked.exchange"));
        }
        if (mr == null) {
            return cannotPost(LabPhrase.of("blocked.registerMr"));
        }
        if ((long) request.localOffset() + request.length() > mr.length()) {
            return cannotPost(LabPhrase.of("post.outside", request.localOffset(), request.length(), mr.length()));
        }
        byte[] data = request.data();
        if (data != null) {
            if ((long) request.localOffset() + data.length > mr.length()) {
                return cannotPost(LabPhrase.of("post.dataNoFit", data.length, request.localOffset(), mr.length()));
            }
            mr.write(request.localOffset(), data);
            emit(new LabEvent.BufferChanged(LabEvent.Side.LOCAL, request.localOffset(), data.length,
                    "local write before " + request.opcode().cName()));
        }
        WrOpcode opcode = request.opcode();
        boolean send = opcode == WrOpcode.SEND || opcode == WrOpcode.SEND_WITH_IMM;
        long remoteAddress = send ? 0 : remote.addr() + request.remoteOffset();
        SendWorkRequest wr = new SendWorkRequest(request.wrId(), List.of(mr.sge(request.localOffset(),
                request.length())), opcode, request.signaled() ? SendFlag.SIGNALED.value() : 0, request.imm(),
                remoteAddress, send ? 0 : remote.rkey(), request.compareAdd(), request.swap());
        Phrase what = posting(opcode, request.length(), remoteAddress, remote.rkey());
        try {
            postSend(wr, what.english(), request.remoteOffset());
        } catch (VerbsException e) {
            return StepResult.failed(e.getMessage());
        }
        return StepResult.ok(LabPhrase.of("result.posted", what), Phrase.literal("wr_id " + request.wrId()));
    }

    /** What a send WR does: "IBV_WR_RDMA_WRITE of 11 bytes at remote 0x… rkey 0x…" ("IBV_WR_SEND of 11 bytes"). */
    static Phrase posting(WrOpcode opcode, int length, long remoteAddress, int rkey) {
        return opcode == WrOpcode.SEND || opcode == WrOpcode.SEND_WITH_IMM
                ? LabPhrase.of("post.send", opcode.cName(), length)
                : LabPhrase.of("post.remote", opcode.cName(), length, String.format("0x%x", remoteAddress),
                        String.format("0x%x", rkey));
    }

    private static StepResult cannotPost(Phrase why) {
        return StepResult.failed(LabPhrase.of("result.cannotPost", why));
    }

    /**
     * Posts one receive WR ({@code ibv_post_recv}) of {@code length} bytes at {@code localOffset}
     * of this side's buffer. Emits a {@link LabEvent.VerbCall}.
     *
     * @return ok, or failed with the reason (no QP or MR, range outside the buffer, the verb failed)
     */
    public StepResult postReceive(long wrId, int localOffset, int length) {
        if (qp == null) {
            return cannotPost(LabPhrase.of("blocked.createQp"));
        }
        if (mr == null) {
            return cannotPost(LabPhrase.of("blocked.registerMr"));
        }
        if (localOffset < 0 || length < 0 || (long) localOffset + length > mr.length()) {
            return cannotPost(LabPhrase.of("post.outside", localOffset, length, mr.length()));
        }
        Phrase what = LabPhrase.of("post.recv", length, localOffset);
        try {
            postRecv(List.of(ReceiveWorkRequest.of(wrId, mr.sge(localOffset, length))), what.english());
        } catch (VerbsException e) {
            return StepResult.failed(e.getMessage());
        }
        return StepResult.ok(LabPhrase.of("result.posted", what), Phrase.literal("wr_id " + wrId));
    }

    /**
     * Polls the CQ ({@code ibv_poll_cq}) until at least one completion arrives or {@code timeout}
     * passes, then takes what else is there, up to {@code max} in all. Emits a
     * {@link LabEvent.Completion} per completion (with the time since its post) and, where a
     * completion changed this side's buffer (READ or atomic result, received SEND), a
     * {@link LabEvent.BufferChanged}; a successful RDMA READ also emits the bytes it read as a
     * {@link LabEvent.RemoteBuffer} with source "RDMA READ".
     *
     * @return the completions, oldest first; empty when none came in time
     * @throws IllegalStateException when there is no CQ yet
     */
    public List<WorkCompletion> pollCompletions(Duration timeout, int max) throws VerbsException {
        if (cq == null) {
            throw new IllegalStateException("create the CQ first");
        }
        if (max < 1) {
            throw new IllegalArgumentException("max: at least one completion, not " + max);
        }
        List<WorkCompletion> polled = new ArrayList<>();
        long deadline = System.nanoTime() + timeout.toNanos();
        long pause = 1_000;
        while (true) {
            List<WorkCompletion> batch = cq.poll(max - polled.size());
            for (WorkCompletion completion : batch) {
                completed(completion);
            }
            polled.addAll(batch);
            if (polled.size() >= max || (!polled.isEmpty() && batch.isEmpty())) {
                return polled;
            }
            if (polled.isEmpty() && System.nanoTime() - deadline >= 0) {
                return polled;
            }
            if (batch.isEmpty()) {
                LockSupport.parkNanos(pause);
                pause = Math.min(pause * 2, 100_000);
            }
        }
    }

    /**
     * A snapshot of the peer's buffer over TCP, where the protocol carries one (lab); emits a
     * {@link LabEvent.RemoteBuffer} with source "peer snapshot (lab protocol)".
     *
     * @return the bytes, or empty when not connected or the protocol cannot carry a snapshot
     * @throws ControlException when the peer refuses (range outside its buffer) or does not answer
     */
    public Optional<byte[]> readPeerBuffer(long offset, int length) throws ControlException {
        if (!connected || !link.protocol().equals("lab")) {
            return Optional.empty();
        }
        byte[] bytes = link.readPeerBuffer(offset, length);
        emit(new LabEvent.RemoteBuffer(bytes, offset, "peer snapshot (lab protocol)", Instant.now()));
        return Optional.of(bytes);
    }

    /**
     * {@code ibv_post_send} of one WR on the session's QP, remembered for its completion, logged.
     *
     * @param remoteOffset where the WR's remote range starts in the peer's buffer (for the RDMA READ view)
     */
    void postSend(SendWorkRequest wr, String what, long remoteOffset) throws VerbsException {
        String arguments = VerbArgs.postSend(qp, wr);
        ScatterGatherElementRange range = ScatterGatherElementRange.of(mr, wr);
        Posted posted = new Posted(System.nanoTime(), wr.opcode(), range.offset(), range.length(), remoteOffset);
        PostKey key = new PostKey(false, wr.wrId());
        posts.computeIfAbsent(key, k -> new ArrayDeque<>()).add(posted);
        try {
            qp.postSend(wr);
        } catch (VerbsException e) {
            forget(key, posted);
            emit(LabEvent.VerbCall.failed("ibv_post_send", arguments, e));
            throw e;
        }
        emit(LabEvent.VerbCall.ok("ibv_post_send", arguments, "0 (" + what + ")"));
    }

    /** {@code ibv_post_recv} of the WRs on the session's QP, remembered for their completions, logged. */
    void postRecv(List<ReceiveWorkRequest> requests, String what) throws VerbsException {
        String arguments = VerbArgs.postRecv(qp, requests);
        long now = System.nanoTime();
        List<Posted> added = new ArrayList<>();
        for (ReceiveWorkRequest request : requests) {
            long address = request.sgList().isEmpty() ? 0 : request.sgList().get(0).address();
            int offset = mr == null ? 0 : (int) Math.max(0, address - mr.address());
            Posted posted = new Posted(now, null, offset, (int) Math.min(Integer.MAX_VALUE,
                    request.sgList().stream().mapToLong(sge -> Integer.toUnsignedLong(sge.length())).sum()), 0);
            posts.computeIfAbsent(new PostKey(true, request.wrId()), k -> new ArrayDeque<>()).add(posted);
            added.add(posted);
        }
        try {
            qp.postRecv(requests);
        } catch (VerbsException e) {
            for (int i = 0; i < requests.size(); i++) {
                forget(new PostKey(true, requests.get(i).wrId()), added.get(i));
            }
            emit(LabEvent.VerbCall.failed("ibv_post_recv", arguments, e));
            throw e;
        }
        emit(LabEvent.VerbCall.ok("ibv_post_recv", arguments, "0 (" + what + ")"));
    }

    private void forget(PostKey key, Posted posted) {
        ArrayDeque<Posted> queue = posts.get(key);
        if (queue != null) {
            queue.remove(posted);
        }
    }

    /** Polls one completion, as the seed's poll_completion does, and reports it. */
    Optional<WorkCompletion> pollOne(Duration timeout) throws VerbsException {
        Optional<WorkCompletion> polled = cq.pollOne(timeout);
        polled.ifPresent(this::completed);
        return polled;
    }

    /** Emits a completion with the time since its post, and what it did to the local buffer. */
    private void completed(WorkCompletion completion) {
        long now = System.nanoTime();
        boolean receive = completion.opcode() == WcOpcode.RECV || completion.opcode() == WcOpcode.RECV_RDMA_WITH_IMM;
        ArrayDeque<Posted> queue = posts.get(new PostKey(receive, completion.wrId()));
        Posted posted = queue == null ? null : queue.poll();
        if (!completion.isSuccess() && posted == null && !receive) {
            // An error completion's opcode is not meaningful: it may belong to a receive.
            queue = posts.get(new PostKey(true, completion.wrId()));
            posted = queue == null ? null : queue.poll();
        }
        emit(new LabEvent.Completion(completion, posted == null ? -1 : now - posted.nanos(), Instant.now()));
        if (posted == null || !completion.isSuccess() || mr == null) {
            return;
        }
        if (receive) {
            int length = (int) Math.min(posted.length(), Integer.toUnsignedLong(completion.byteLength()));
            if (length > 0) {
                emit(new LabEvent.BufferChanged(LabEvent.Side.LOCAL, posted.localOffset(), length,
                        "received " + (completion.opcode() == WcOpcode.RECV ? "SEND" : "RDMA WRITE with immediate")));
            }
        } else if (posted.opcode() == WrOpcode.RDMA_READ) {
            emit(new LabEvent.BufferChanged(LabEvent.Side.LOCAL, posted.localOffset(), posted.length(),
                    "RDMA READ result"));
            emit(new LabEvent.RemoteBuffer(mr.read(posted.localOffset(), posted.length()), posted.remoteOffset(),
                    "RDMA READ", Instant.now()));
        } else if (posted.opcode() != null && posted.opcode().isAtomic()) {
            emit(new LabEvent.BufferChanged(LabEvent.Side.LOCAL, posted.localOffset(), posted.length(),
                    posted.opcode().name() + " result (the remote word's old value)"));
        }
    }

    /** Where a send WR's first SGE lies in the session's MR. */
    private record ScatterGatherElementRange(int offset, int length) {
        static ScatterGatherElementRange of(MemoryRegion mr, SendWorkRequest wr) {
            if (wr.sgList().isEmpty() || mr == null) {
                return new ScatterGatherElementRange(0, 0);
            }
            long offset = Math.max(0, wr.sgList().get(0).address() - mr.address());
            return new ScatterGatherElementRange((int) Math.min(offset, mr.length()),
                    (int) Math.min(Integer.MAX_VALUE, wr.totalLength()));
        }
    }
}
