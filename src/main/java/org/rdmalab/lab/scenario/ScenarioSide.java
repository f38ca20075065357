package org.rdmalab.lab.scenario;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.rdmalab.control.ConnectionData;
import org.rdmalab.lab.Flows;
import org.rdmalab.lab.LabEvent;
import org.rdmalab.lab.LabResources;
import org.rdmalab.lab.LabSession;
import org.rdmalab.lab.Step;
import org.rdmalab.lab.StepResult;
import org.rdmalab.verbs.AccessFlag;
import org.rdmalab.verbs.AddressVector;
import org.rdmalab.verbs.GidEntry;
import org.rdmalab.verbs.MemoryRegion;
import org.rdmalab.verbs.PortAttributes;
import org.rdmalab.verbs.QpAttributes;
import org.rdmalab.verbs.QpState;
import org.rdmalab.verbs.QueuePair;
import org.rdmalab.verbs.ReceiveWorkRequest;
import org.rdmalab.verbs.RnrTimer;
import org.rdmalab.verbs.ScatterGatherElement;
import org.rdmalab.verbs.SendFlag;
import org.rdmalab.verbs.SendWorkRequest;
import org.rdmalab.verbs.VerbsException;
import org.rdmalab.verbs.WorkCompletion;

/**
 * One side of a scenario on its {@link LabSession}: the session's steps built it (the same steps
 * the window runs), and the scenario's traffic goes through the session's
 * {@link org.rdmalab.lab.LabTraffic} and its QP requests. It reports what happens as
 * {@link ScenarioEvent}s, in the words {@code loopback} prints: a line per step from what the step
 * created, a line per post, completion and buffer view. It calls no verb itself.
 *
 * <p>Thread rules: the session's: one thread drives it at a time; packets are reported from the
 * device's thread.
 */
public final class ScenarioSide {

    private final PeerRole role;
    private final LabSession session;
    private final PeerSetup setup;
    private final ScenarioListener listener;
    private boolean failedInStep;
    private volatile long lastElapsedNanos = -1;
    private boolean qpDestroyed;

    ScenarioSide(PeerRole role, LabSession session, PeerSetup setup, ScenarioListener listener) {
        this.role = Objects.requireNonNull(role);
        this.session = Objects.requireNonNull(session);
        this.setup = Objects.requireNonNull(setup);
        this.listener = Objects.requireNonNull(listener);
        session.addListener(this::onLabEvent);
    }

    /** Server or client. */
    public PeerRole role() {
        return role;
    }

    /** The lab session this side runs on. */
    public LabSession session() {
        return session;
    }

    /** How this side was built. */
    public PeerSetup setup() {
        return setup;
    }

    private LabResources resources() {
        return session.resources();
    }

    private MemoryRegion mr() {
        return resources().memoryRegion().orElseThrow(() -> new IllegalStateException("no memory region"));
    }

    private QueuePair qp() {
        return resources().queuePair().orElseThrow(() -> new IllegalStateException("no QP"));
    }

    /** The whole registered buffer as one SGE. */
    public ScatterGatherElement sge() {
        return mr().sge();
    }

    /** {@code length} bytes of the registered buffer at {@code offset} as one SGE. */
    public ScatterGatherElement sge(int offset, int length) {
        return mr().sge(offset, length);
    }

    /** What this side sent its partner in the exchange (buffer address, rkey, QP number, LID, GID). */
    public ConnectionData connectionData() {
        return resources().localData().orElseThrow(() -> new IllegalStateException("nothing was exchanged yet"));
    }

    /** The QP's number. */
    public int qpNum() {
        return qp().qpNum();
    }

    /** The GID entry this side sends from. */
    public GidEntry gid() {
        return resources().gidEntry().orElseThrow(() -> new IllegalStateException("no GID was chosen"));
    }

    private void step(String verb, String detail) {
        listener.onEvent(new ScenarioEvent.Step(role, verb, detail));
    }

    private void failed(VerbsException e) {
        listener.onEvent(new ScenarioEvent.VerbFailed(role, e.verb(), e.getMessage()));
    }

    // ---- the session's events in loopback's words ----

    private void onLabEvent(LabEvent event) {
        if (event instanceof LabEvent.StepFinished finished) {
            stepFinished(finished.step(), finished.result());
        } else if (event instanceof LabEvent.VerbCall call && !call.ok()) {
            failedInStep = true;
            listener.onEvent(new ScenarioEvent.VerbFailed(role, call.verb(), call.result()));
        } else if (event instanceof LabEvent.Completion completion) {
            lastElapsedNanos = completion.elapsedNanos();
            listener.onEvent(new ScenarioEvent.Completion(role, completion.completion(), completion.elapsedNanos()));
        } else if (event instanceof LabEvent.Packet packet) {
            listener.onEvent(new ScenarioEvent.Packet(role, packet.packet()));
        }
    }

    /** The verb a step's failure is told under when the step emitted no failed call itself. */
    private static String verbOf(Step step) {
        return switch (step.id()) {
            case "open-device" -> "ibv_open_device";
            case "query-port" -> "ibv_query_port";
            case "connect", "exchange", "send-data", "receive-data" -> "exchange";
            default -> step.id();
        };
    }

    private void stepFinished(Step step, StepResult result) {
        if (step instanceof TrafficStep) {
            // The traffic reported itself: its posts, completions, notes and checks.
            failedInStep = false;
            return;
        }
        if (!result.ok()) {
            if (!failedInStep) {
                listener.onEvent(new ScenarioEvent.VerbFailed(role, verbOf(step), result.summary()));
            }
            failedInStep = false;
            return;
        }
        failedInStep = false;
        LabResources resources = resources();
        switch (step.id()) {
            case "open-device" -> resources.context().ifPresent(context -> step("ibv_open_device",
                    context.device().name() + " (" + context.device().description() + ")"));
            case "query-port" -> {
                PortAttributes port = resources.port().orElseThrow();
                step("ibv_query_port", String.format("port %d: %s, active_mtu %d, max_mtu %d, link_layer %s, lid %d",
                        Flows.IB_PORT, port.state().cName(), port.activeMtu().bytes(), port.maxMtu().bytes(),
                        port.linkLayer().text(), port.lid()));
                resources.gidEntry().ifPresent(gid -> step("ibv_query_gid_ex", String.format(
                        "gid_idx %d: %s %s (%s, of %d entries)", gid.index(), gid.gid(), gid.type().text(),
                        resources.gidReason(), resources.gidTableSize())));
            }
            case "alloc-pd" -> resources.protectionDomain().ifPresent(pd -> step("ibv_alloc_pd",
                    "pd handle " + pd.handle()));
            case "reg-mr" -> {
                MemoryRegion mr = mr();
                step("ibv_reg_mr", String.format("%d bytes at 0x%x, lkey 0x%x, rkey 0x%x, access %s", mr.length(),
                        mr.address(), mr.lkey(), mr.rkey(), AccessFlag.names(mr.accessFlags())));
            }
            case "create-cq" -> resources.completionQueue().ifPresent(cq -> step("ibv_create_cq",
                    "cqe " + cq.capacity()));
            case "create-qp" -> {
                QueuePair qp = qp();
                step("ibv_create_qp", String.format("RC qp_num 0x%x, max_send_wr %d, max_recv_wr %d, sq_sig_all 1, %s",
                        qp.qpNum(), qp.capabilities().maxSendWr(), qp.capabilities().maxRecvWr(),
                        qp.state().cName()));
            }
            case "send-data", "exchange" -> step("exchange", "sends " + describe(connectionData()));
            case "modify-init" -> resources.applied(QpState.INIT).ifPresent(a -> modified("RESET -> INIT",
                    init(a)));
            case "modify-rtr" -> resources.applied(QpState.RTR).ifPresent(a -> modified("INIT -> RTR", rtr(a)));
            case "modify-rts" -> resources.applied(QpState.RTS).ifPresent(a -> modified("RTR -> RTS", rts(a)));
            default -> {
                // connect, receive-data: nothing the seed's program prints
            }
        }
    }

    private void modified(String transition, String detail) {
        step("ibv_modify_qp", String.format("%-14s %s", transition, detail));
    }

    /** "addr 0x… rkey 0x… qp_num 0x… lid 0 gid ::ffff:127.0.0.1", as the seed's cm_con_data_t holds it. */
    static String describe(ConnectionData data) {
        return String.format("addr 0x%x, rkey 0x%x, qp_num 0x%x, lid %d, gid %s", data.addr(), data.rkey(),
                data.qpn(), data.lid(), data.gid());
    }

    static String init(QpAttributes a) {
        return String.format("port_num %d, pkey_index %d, qp_access_flags %s", a.portNum(), a.pkeyIndex(),
                AccessFlag.names(a.accessFlags()));
    }

    static String rtr(QpAttributes a) {
        AddressVector av = a.addressVector();
        String grh = av != null && av.isGlobal() ? String.format("GRH dgid %s sgid_index %d hop_limit %d",
                av.grh().dgid(), av.grh().sgidIndex(), av.grh().hopLimit()) : "no GRH";
        return String.format("path_mtu %s, dest_qp_num 0x%x, rq_psn %d, max_dest_rd_atomic %d, min_rnr_timer 0x%x"
                + " (%s), %s", a.pathMtu().cName(), a.destQpNum(), a.rqPsn(), a.maxDestRdAtomic(), a.minRnrTimer(),
                ScenarioPrinter.millis(RnrTimer.nanos(a.minRnrTimer())), grh);
    }

    static String rts(QpAttributes a) {
        return String.format("timeout 0x%x (%s), retry_cnt %d, rnr_retry %d, sq_psn %d, max_rd_atomic %d",
                a.timeout(), ScenarioPrinter.millis(RnrTimer.ackTimeoutNanos(a.timeout())), a.retryCount(),
                a.rnrRetry(), a.sqPsn(), a.maxRdAtomic());
    }

    // ---- the scenario's traffic, through the session ----

    /**
     * {@code ibv_modify_qp} with the scenario's own attributes and mask (a transition no step
     * makes); reports the transition and what it set, or the errno.
     *
     * @throws VerbsException as the device returned it (also reported)
     */
    public void modify(QpAttributes attributes, int mask, String transition, String detail) throws VerbsException {
        session.modifyQp(attributes, mask);
        modified(transition, detail);
    }

    /** {@code ibv_post_send} of one request, reported like the C struct it fills. */
    public void postSend(SendWorkRequest wr) throws VerbsException {
        postSend(List.of(wr));
    }

    /** {@code ibv_post_send} of several requests in one call (a chain of WRs). */
    public void postSend(List<SendWorkRequest> wrs) throws VerbsException {
        session.traffic().postSend(wrs);
        for (SendWorkRequest wr : wrs) {
            step("ibv_post_send", describe(wr));
        }
    }

    /** {@code ibv_post_recv} of one receive. */
    public void postRecv(ReceiveWorkRequest wr) throws VerbsException {
        session.traffic().postRecv(List.of(wr), "the scenario's receive");
        StringBuilder text = new StringBuilder("wr_id " + wr.wrId());
        for (ScatterGatherElement sge : wr.sgList()) {
            text.append(String.format(", sge 0x%x len %d lkey 0x%x", sge.address(), sge.length(), sge.lkey()));
        }
        if (wr.sgList().isEmpty()) {
            text.append(", no SGE");
        }
        step("ibv_post_recv", text.toString());
    }

    /**
     * Polls one completion for up to {@code timeout}, as the seed's {@code poll_completion}; the
     * completion is reported, or that none came.
     */
    public Optional<WorkCompletion> poll(Duration timeout) throws VerbsException {
        Optional<WorkCompletion> completion;
        try {
            completion = session.traffic().pollOne(timeout);
        } catch (VerbsException e) {
            failed(e);
            throw e;
        }
        if (completion.isEmpty()) {
            step("ibv_poll_cq", "no completion in the CQ after " + timeout.toMillis() + " ms");
        }
        return completion;
    }

    /** Nanoseconds from the post to the completion last polled, or -1 when its post is unknown. */
    public long lastElapsedNanos() {
        return lastElapsedNanos;
    }

    /** Polls whatever is in the CQ without waiting; each completion is reported, or that the CQ is empty. */
    public List<WorkCompletion> drain() throws VerbsException {
        List<WorkCompletion> all;
        try {
            all = session.traffic().pollCompletions(Duration.ZERO, Integer.MAX_VALUE);
        } catch (VerbsException e) {
            failed(e);
            throw e;
        }
        if (all.isEmpty()) {
            step("ibv_poll_cq", "CQ empty");
        }
        return all;
    }

    /** {@code ibv_query_qp}: the QP's current state, reported. */
    public QpState queryState() throws VerbsException {
        QpState state = session.queryQpState();
        step("ibv_query_qp", String.format("qp_num 0x%x is in %s", qpNum(), state.cName()));
        return state;
    }

    /** Copies {@code data} into the buffer at {@code offset} (the CPU writing its own memory). */
    public void fill(int offset, byte[] data, String what) {
        session.traffic().write(offset, data, "memcpy of " + what);
        step("memcpy", String.format("%s into the buffer at offset %d (%d bytes)", what, offset, data.length));
    }

    /** Reads the buffer and reports what the CPU sees there. */
    public byte[] show(int offset, int length, String label) {
        byte[] bytes = session.traffic().read(offset, length);
        listener.onEvent(new ScenarioEvent.Buffer(role, label, bytes));
        return bytes;
    }

    /** {@code ibv_destroy_qp} before the end (a peer going silent). */
    public void destroyQp() {
        int number = qpNum();
        session.destroyQp();
        qpDestroyed = true;
        step("ibv_destroy_qp", String.format("qp_num 0x%x destroyed: packets for it are now dropped", number));
    }

    /** Reports what the device's counters counted since the session opened it (none when it has none). */
    void reportCounters() {
        if (resources().context().isEmpty()) {
            return;
        }
        try {
            Map<String, Long> during = session.countersSinceOpen();
            listener.onEvent(new ScenarioEvent.Counters(role, during));
        } catch (VerbsException e) {
            failed(e);
        } catch (RuntimeException e) {
            listener.onEvent(new ScenarioEvent.Note(role.label() + " counters unavailable: " + e.getMessage()));
        }
    }

    /**
     * Releases the session: reports the teardown in the seed's order (QP, MR, CQ, PD, device),
     * which closing the device does for every object made from it, then closes it. Idempotent.
     */
    void close() {
        LabResources resources = resources();
        Optional<String> device = resources.context().map(context -> context.device().name());
        try {
            if (!qpDestroyed) {
                resources.queuePair().ifPresent(qp -> step("ibv_destroy_qp", String.format("qp_num 0x%x", qp.qpNum())));
            }
            resources.memoryRegion().ifPresent(mr -> step("ibv_dereg_mr", String.format("lkey 0x%x", mr.lkey())));
            resources.completionQueue().ifPresent(cq -> step("ibv_destroy_cq", ""));
            resources.protectionDomain().ifPresent(pd -> step("ibv_dealloc_pd", ""));
        } finally {
            session.close();
            device.ifPresent(name -> step("ibv_close_device", name));
        }
    }

    /** "wr_id 1 IBV_WR_RDMA_WRITE, sge 0x..+11 lkey 0x.., remote_addr 0x.. rkey 0x..". */
    static String describe(SendWorkRequest wr) {
        StringBuilder text = new StringBuilder(String.format("wr_id %d %s", wr.wrId(), wr.opcode().cName()));
        for (ScatterGatherElement sge : wr.sgList()) {
            text.append(String.format(", sge 0x%x len %d lkey 0x%x", sge.address(), sge.length(), sge.lkey()));
        }
        switch (wr.opcode()) {
            case RDMA_WRITE, RDMA_READ, RDMA_WRITE_WITH_IMM ->
                    text.append(String.format(", remote_addr 0x%x rkey 0x%x", wr.remoteAddress(), wr.rkey()));
            case ATOMIC_FETCH_AND_ADD -> text.append(String.format(", remote_addr 0x%x rkey 0x%x, add %d",
                    wr.remoteAddress(), wr.rkey(), wr.compareAdd()));
            case ATOMIC_CMP_AND_SWP -> text.append(String.format(", remote_addr 0x%x rkey 0x%x, compare %d swap %d",
                    wr.remoteAddress(), wr.rkey(), wr.compareAdd(), wr.swap()));
            default -> {
            }
        }
        if (wr.opcode().hasImmediate()) {
            text.append(String.format(", imm_data 0x%08x", wr.immData()));
        }
        if (SendFlag.has(wr.sendFlags(), SendFlag.SIGNALED)) {
            text.append(", IBV_SEND_SIGNALED");
        }
        return text.toString();
    }
}
