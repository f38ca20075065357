package org.rdmalab.lab.scenario;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.rdmalab.verbs.AccessFlag;
import org.rdmalab.verbs.AddressVector;
import org.rdmalab.verbs.CompletionQueue;
import org.rdmalab.verbs.Context;
import org.rdmalab.verbs.Device;
import org.rdmalab.verbs.GidEntry;
import org.rdmalab.verbs.GidSelection;
import org.rdmalab.verbs.GlobalRoute;
import org.rdmalab.verbs.MemoryRegion;
import org.rdmalab.verbs.Mtu;
import org.rdmalab.verbs.PortAttributes;
import org.rdmalab.verbs.ProtectionDomain;
import org.rdmalab.verbs.QpAttrMask;
import org.rdmalab.verbs.QpAttributes;
import org.rdmalab.verbs.QpState;
import org.rdmalab.verbs.QueuePair;
import org.rdmalab.verbs.RcPath;
import org.rdmalab.verbs.ReceiveWorkRequest;
import org.rdmalab.verbs.RnrTimer;
import org.rdmalab.verbs.ScatterGatherElement;
import org.rdmalab.verbs.SendFlag;
import org.rdmalab.verbs.SendWorkRequest;
import org.rdmalab.verbs.VerbsException;
import org.rdmalab.verbs.WorkCompletion;

/**
 * One side of the loopback connection: an opened device and the verbs objects the seed creates on
 * it (PD, one MR over its buffer, one CQ, one RC QP). Every call reports a step; closing tears
 * everything down in the seed's order (QP, MR, CQ, PD, device) and is idempotent.
 */
public final class Peer implements AutoCloseable {

    /** The port every peer uses (the seed's ib_port). */
    public static final int PORT = 1;

    private final PeerRole role;
    private final ScenarioListener listener;
    private final Map<Long, Long> postedAt = new HashMap<>();
    private Context context;
    /** The device's counters when this peer opened it: a kernel device counts from its creation. */
    private Map<String, Long> countersAtOpen = Map.of();
    private PortAttributes portAttributes;
    private GidEntry gid;
    private ProtectionDomain pd;
    private MemoryRegion mr;
    private CompletionQueue cq;
    private QueuePair qp;
    private PeerSetup setup;
    private boolean closed;
    private boolean qpDestroyed;
    private long lastElapsedNanos = -1;
    private AutoCloseable packetSubscription;

    Peer(PeerRole role, ScenarioListener listener) {
        this.role = role;
        this.listener = listener;
    }

    /** Server or client. */
    public PeerRole role() {
        return role;
    }

    /** The opened device. */
    public Context context() {
        return require(context, "the device is not open");
    }

    /** The GID entry this peer sends from. */
    public GidEntry gid() {
        return require(gid, "no GID was chosen");
    }

    /** The registered buffer. */
    public MemoryRegion mr() {
        return require(mr, "no memory region");
    }

    /** The CQ (send and receive completions). */
    public CompletionQueue cq() {
        return require(cq, "no CQ");
    }

    /** The RC QP. */
    public QueuePair qp() {
        return require(qp, "no QP");
    }

    /** How this peer was built. */
    public PeerSetup setup() {
        return require(setup, "no resources yet");
    }

    private static <T> T require(T value, String what) {
        if (value == null) {
            throw new IllegalStateException(what);
        }
        return value;
    }

    private void step(String verb, String detail) {
        listener.onEvent(new ScenarioEvent.Step(role, verb, detail));
    }

    private void failed(VerbsException e) {
        listener.onEvent(new ScenarioEvent.VerbFailed(role, e.verb(), e.getMessage()));
    }

    /**
     * {@code ibv_open_device}, {@code ibv_query_port} and the choice of a GID: the one that carries
     * {@code address} (both peers may share one device with two addresses, as rxe0 on a netdev with
     * two IPv4 addresses), else the best by perftest's scoring.
     */
    void open(Device device, java.net.Inet4Address address) throws VerbsException {
        try {
            context = device.open();
            step("ibv_open_device", device.name() + " (" + device.description() + ")");
            try {
                countersAtOpen = context.queryCounters();
            } catch (VerbsException | RuntimeException e) {
                countersAtOpen = Map.of(); // reportCounters says why at the end
            }
            portAttributes = context.queryPort(PORT);
            step("ibv_query_port", String.format("port %d: %s, active_mtu %d, max_mtu %d, link_layer %s, lid %d",
                    PORT, portAttributes.state().cName(), portAttributes.activeMtu().bytes(),
                    portAttributes.maxMtu().bytes(), portAttributes.linkLayer().text(), portAttributes.lid()));
            List<GidEntry> table = context.gidTable(PORT);
            GidSelection.Choice choice = chooseGid(table, address);
            gid = choice.entry();
            step("ibv_query_gid_ex", String.format("gid_idx %d: %s %s (%s, of %d entries)", gid.index(), gid.gid(),
                    gid.type().text(), choice.reason(), table.size()));
        } catch (VerbsException e) {
            failed(e);
            throw e;
        }
    }

    /**
     * The GID carrying {@code address}, else the one perftest would pick (+100 for IPv4-mapped, +10
     * for not link-local, + the RoCE version); the seed's "no GID" (gid_idx -1) cannot work on
     * RoCE, which needs a GRH.
     */
    static GidSelection.Choice chooseGid(List<GidEntry> table, java.net.Inet4Address address) throws VerbsException {
        return GidSelection.forAddress(table, address).orElseThrow(() -> new VerbsException("ibv_query_gid_ex",
                org.rdmalab.verbs.Errno.ENODATA, "port " + PORT + " has no GID; RoCE needs one for the GRH"));
    }

    /** Reports the device's packets (when it can) as {@link ScenarioEvent.Packet}s, from its own threads. */
    void reportPackets() {
        if (context instanceof org.rdmalab.verbs.PacketObservable observable) {
            packetSubscription = observable.subscribe(packet ->
                    listener.onEvent(new ScenarioEvent.Packet(role, packet)));
        }
    }

    private void closePacketSubscription() {
        if (packetSubscription != null) {
            try {
                packetSubscription.close();
            } catch (Exception e) {
                listener.onEvent(new ScenarioEvent.Note("could not stop the packet report: " + e.getMessage()));
            }
            packetSubscription = null;
        }
    }

    /** {@code ibv_alloc_pd}, {@code ibv_reg_mr}, {@code ibv_create_cq}, {@code ibv_create_qp}. */
    void createResources(PeerSetup peerSetup) throws VerbsException {
        this.setup = peerSetup;
        try {
            pd = context().allocatePd();
            step("ibv_alloc_pd", "pd handle " + pd.handle());
            mr = pd.registerMemory(peerSetup.bufferLength(), peerSetup.mrAccess());
            step("ibv_reg_mr", String.format("%d bytes at 0x%x, lkey 0x%x, rkey 0x%x, access %s",
                    mr.length(), mr.address(), mr.lkey(), mr.rkey(), AccessFlag.names(mr.accessFlags())));
            cq = context().createCq(peerSetup.cqEntries(), null, 0);
            step("ibv_create_cq", "cqe " + cq.capacity());
            qp = RcPath.createQp(pd, cq, peerSetup.capabilities(), true);
            step("ibv_create_qp", String.format("RC qp_num 0x%x, max_send_wr %d, max_recv_wr %d, sq_sig_all 1, %s",
                    qp.qpNum(), qp.capabilities().maxSendWr(), qp.capabilities().maxRecvWr(),
                    qp.state().cName()));
        } catch (VerbsException e) {
            failed(e);
            throw e;
        }
    }

    /** What this peer sends its partner. */
    public ConnectionData connectionData() {
        return new ConnectionData(mr().address(), mr().rkey(), qp().qpNum(), portAttributes.lid(), gid().gid());
    }

    /** RESET → INIT: port 1, pkey_index 0, the setup's QP access flags. */
    void toInit() throws VerbsException {
        QpAttributes attributes = new QpAttributes().state(QpState.INIT).portNum(PORT).pkeyIndex(0)
                .accessFlags(setup().qpAccess());
        modify(attributes, QpAttrMask.of(QpAttrMask.STATE, QpAttrMask.PKEY_INDEX, QpAttrMask.PORT,
                QpAttrMask.ACCESS_FLAGS), "RESET -> INIT", String.format("port_num %d, pkey_index 0, "
                + "qp_access_flags %s", PORT, AccessFlag.names(setup().qpAccess())));
    }

    /** INIT → RTR with the seed's attributes and a GRH to the peer's GID. */
    void toRtr(ConnectionData remote, Mtu mtu) throws VerbsException {
        AddressVector av = new AddressVector(GlobalRoute.of(remote.gid(), gid().index()), remote.lid(), 0, 0, 0,
                PORT);
        QpAttributes attributes = new QpAttributes().state(QpState.RTR).pathMtu(mtu).destQpNum(remote.qpNum())
                .rqPsn(0).maxDestRdAtomic(1).minRnrTimer(setup().minRnrTimer()).addressVector(av);
        modify(attributes, QpAttrMask.of(QpAttrMask.STATE, QpAttrMask.AV, QpAttrMask.PATH_MTU, QpAttrMask.DEST_QPN,
                QpAttrMask.RQ_PSN, QpAttrMask.MAX_DEST_RD_ATOMIC, QpAttrMask.MIN_RNR_TIMER), "INIT -> RTR",
                String.format("path_mtu %s, dest_qp_num 0x%x, rq_psn 0, max_dest_rd_atomic 1, min_rnr_timer 0x%x"
                        + " (%s), GRH dgid %s sgid_index %d hop_limit 1", mtu.cName(), remote.qpNum(),
                        setup().minRnrTimer(), millis(RnrTimer.nanos(setup().minRnrTimer())), remote.gid(),
                        gid().index()));
    }

    /** RTR → RTS with the setup's timers. */
    void toRts() throws VerbsException {
        PeerSetup s = setup();
        QpAttributes attributes = new QpAttributes().state(QpState.RTS).timeout(s.timeout())
                .retryCount(s.retryCount()).rnrRetry(s.rnrRetry()).sqPsn(0).maxRdAtomic(1);
        modify(attributes, QpAttrMask.of(QpAttrMask.STATE, QpAttrMask.TIMEOUT, QpAttrMask.RETRY_CNT,
                QpAttrMask.RNR_RETRY, QpAttrMask.SQ_PSN, QpAttrMask.MAX_QP_RD_ATOMIC), "RTR -> RTS",
                String.format("timeout 0x%x (%s), retry_cnt %d, rnr_retry %d, sq_psn 0, max_rd_atomic 1",
                        s.timeout(), millis(RnrTimer.ackTimeoutNanos(s.timeout())), s.retryCount(), s.rnrRetry()));
    }

    /**
     * {@code ibv_modify_qp}; reports the transition and what it set, or the errno.
     *
     * @throws VerbsException as the device returned it (also reported)
     */
    public void modify(QpAttributes attributes, int mask, String transition, String detail) throws VerbsException {
        try {
            RcPath.modify(qp(), attributes, mask);
        } catch (VerbsException e) {
            failed(e);
            throw e;
        }
        step("ibv_modify_qp", String.format("%-14s %s", transition, detail));
    }

    /** {@code ibv_post_send} of one request, reported like the C struct it fills. */
    public void postSend(SendWorkRequest wr) throws VerbsException {
        long now = System.nanoTime();
        try {
            qp().postSend(wr);
        } catch (VerbsException e) {
            failed(e);
            throw e;
        }
        postedAt.put(wr.wrId(), now);
        step("ibv_post_send", describe(wr));
    }

    /** {@code ibv_post_send} of several requests in one call (a chain of WRs). */
    public void postSend(List<SendWorkRequest> wrs) throws VerbsException {
        long now = System.nanoTime();
        try {
            qp().postSend(wrs);
        } catch (VerbsException e) {
            failed(e);
            throw e;
        }
        for (SendWorkRequest wr : wrs) {
            postedAt.put(wr.wrId(), now);
            step("ibv_post_send", describe(wr));
        }
    }

    /** {@code ibv_post_recv} of one receive. */
    public void postRecv(ReceiveWorkRequest wr) throws VerbsException {
        long now = System.nanoTime();
        try {
            qp().postRecv(wr);
        } catch (VerbsException e) {
            failed(e);
            throw e;
        }
        postedAt.put(wr.wrId(), now);
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
     * Polls one completion for up to {@code timeout}, as the seed's {@code poll_completion}; reports
     * it, or that none came.
     */
    public Optional<WorkCompletion> poll(Duration timeout) throws VerbsException {
        long start = System.nanoTime();
        Optional<WorkCompletion> completion;
        try {
            completion = cq().pollOne(timeout);
        } catch (VerbsException e) {
            failed(e);
            throw e;
        }
        if (completion.isPresent()) {
            WorkCompletion wc = completion.get();
            Long posted = postedAt.remove(wc.wrId());
            long elapsed = System.nanoTime() - (posted == null ? start : posted);
            lastElapsedNanos = elapsed;
            listener.onEvent(new ScenarioEvent.Completion(role, wc, elapsed));
        } else {
            step("ibv_poll_cq", "no completion in the CQ after " + timeout.toMillis() + " ms");
        }
        return completion;
    }

    /** Nanoseconds from the post to the completion {@link #poll} last returned, or -1. */
    public long lastElapsedNanos() {
        return lastElapsedNanos;
    }

    /** Polls whatever is in the CQ without waiting; reports each completion, or that the CQ is empty. */
    public List<WorkCompletion> drain() throws VerbsException {
        List<WorkCompletion> all = new ArrayList<>();
        while (true) {
            List<WorkCompletion> some = cq().poll(16);
            if (some.isEmpty()) {
                break;
            }
            all.addAll(some);
        }
        long now = System.nanoTime();
        for (WorkCompletion wc : all) {
            Long posted = postedAt.remove(wc.wrId());
            listener.onEvent(new ScenarioEvent.Completion(role, wc, posted == null ? -1 : now - posted));
        }
        if (all.isEmpty()) {
            step("ibv_poll_cq", "CQ empty");
        }
        return all;
    }

    /** {@code ibv_query_qp}: the QP's current state, reported. */
    public QpState queryState() throws VerbsException {
        try {
            QpState state = qp().query(QpAttrMask.STATE.value()).state();
            step("ibv_query_qp", String.format("qp_num 0x%x is in %s", qp().qpNum(), state.cName()));
            return state;
        } catch (VerbsException e) {
            failed(e);
            throw e;
        }
    }

    /** Copies {@code data} into the buffer at {@code offset} (the CPU writing its own memory). */
    public void fill(int offset, byte[] data, String what) {
        mr().write(offset, data);
        step("memcpy", String.format("%s into the buffer at offset %d (%d bytes)", what, offset, data.length));
    }

    /** Reads the buffer and reports what the CPU sees there. */
    public byte[] show(int offset, int length, String label) {
        byte[] bytes = mr().read(offset, length);
        listener.onEvent(new ScenarioEvent.Buffer(role, label, bytes));
        return bytes;
    }

    /** {@code ibv_destroy_qp} before the end (a peer going silent). */
    public void destroyQp() {
        int number = qp().qpNum();
        qp().close();
        qpDestroyed = true;
        step("ibv_destroy_qp", String.format("qp_num 0x%x destroyed: packets for it are now dropped", number));
    }

    /**
     * What the device's hardware counters (none when it has none) counted since this peer opened
     * it, reported: rxe's count from the device's creation, soft0's from its opening.
     */
    void reportCounters() {
        if (context == null) {
            return;
        }
        try {
            Map<String, Long> now = context.queryCounters();
            Map<String, Long> during = new java.util.LinkedHashMap<>();
            now.forEach((name, value) -> during.put(name, value - countersAtOpen.getOrDefault(name, 0L)));
            listener.onEvent(new ScenarioEvent.Counters(role, during));
        } catch (VerbsException e) {
            failed(e);
        } catch (RuntimeException e) {
            listener.onEvent(new ScenarioEvent.Note(role.label() + " counters unavailable: " + e.getMessage()));
        }
    }

    /** Tears down in the seed's order: QP, MR, CQ, PD, device. Idempotent; the device is always closed. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            closePacketSubscription();
            if (qp != null && !qpDestroyed) {
                qp.close();
                step("ibv_destroy_qp", String.format("qp_num 0x%x", qp.qpNum()));
            }
            if (mr != null) {
                mr.close();
                step("ibv_dereg_mr", String.format("lkey 0x%x", mr.lkey()));
            }
            if (cq != null) {
                cq.close();
                step("ibv_destroy_cq", "");
            }
            if (pd != null) {
                pd.close();
                step("ibv_dealloc_pd", "");
            }
        } finally {
            if (context != null) {
                context.close();
                step("ibv_close_device", context.device().name());
            }
        }
    }

    /** "IBV_WR_RDMA_WRITE wr_id 1, local 0x..+11 lkey 0x.., remote 0x.. rkey 0x..". */
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

    /** "1.07 s", "5.12 ms", "67.1 ms". */
    static String millis(long nanos) {
        if (nanos == 0) {
            return "no timer";
        }
        if (nanos >= 1_000_000_000L) {
            return String.format("%.2f s", nanos / 1e9);
        }
        return String.format("%.3g ms", nanos / 1e6);
    }
}
