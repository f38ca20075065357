package org.rdmalab.softroce;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.rdmalab.softroce.net.Fabric;
import org.rdmalab.softroce.net.LoopTask;
import org.rdmalab.softroce.wire.Opcode;
import org.rdmalab.softroce.wire.Psn;
import org.rdmalab.softroce.wire.RocePacket;
import org.rdmalab.verbs.AccessFlag;
import org.rdmalab.verbs.CompletionQueue;
import org.rdmalab.verbs.Errno;
import org.rdmalab.verbs.GidEntry;
import org.rdmalab.verbs.GidType;
import org.rdmalab.verbs.GlobalRoute;
import org.rdmalab.verbs.ProtectionDomain;
import org.rdmalab.verbs.QpAttrMask;
import org.rdmalab.verbs.QpAttributes;
import org.rdmalab.verbs.QpCapabilities;
import org.rdmalab.verbs.QpInitAttributes;
import org.rdmalab.verbs.QpState;
import org.rdmalab.verbs.QpTransitions;
import org.rdmalab.verbs.QpType;
import org.rdmalab.verbs.QueuePair;
import org.rdmalab.verbs.ReceiveWorkRequest;
import org.rdmalab.verbs.RnrTimer;
import org.rdmalab.verbs.ScatterGatherElement;
import org.rdmalab.verbs.SendFlag;
import org.rdmalab.verbs.SendWorkRequest;
import org.rdmalab.verbs.VerbsException;
import org.rdmalab.verbs.WcStatus;
import org.rdmalab.verbs.WorkCompletion;
import org.rdmalab.verbs.WrOpcode;
import org.rdmalab.verbs.spi.ResourceNode;

/**
 * An RC (or UC) queue pair of the software device: the verbs a caller uses and the QP's own
 * state changes. This is the caller side, rxe's {@code rxe_verbs.c} and {@code rxe_qp.c}: it
 * validates and applies attributes ({@code ibv_modify_qp}, {@code ibv_query_qp}) and checks posted
 * work requests; the protocol runs in three parts on the device's transport loop, each with its
 * own state, set side by side with rxe's files: the {@link Requester} ({@code rxe_req.c}), the
 * {@link Completer} ({@code rxe_comp.c}) and the {@link Responder} ({@code rxe_resp.c}). They
 * share the {@link QpConfig} and the work queues ({@link WorkQueue}s of {@link SendWqe} and {@link RecvWqe}).
 *
 * <p>Threads: the verbs methods run on the caller's thread; they validate, then hand work to the
 * transport loop. {@link #apply}, {@link #enterError}, {@link #accepts} and {@link #receive} run
 * on the loop. The QP state is volatile: the loop writes it (errors, applied modifies), callers
 * read it.
 */
final class SoftQueuePair extends ResourceNode implements QueuePair {

    /** At most this many PSNs unacknowledged (rxe's RXE_MAX_UNACKED_PSNS; see {@link Requester}). */
    static final int MAX_UNACKED_PSNS = Requester.MAX_UNACKED_PSNS;
    private static final Duration LOOP_TIMEOUT = Duration.ofSeconds(5);
    private static final int QP_ACCESS_BITS = AccessFlag.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE,
            AccessFlag.REMOTE_READ, AccessFlag.REMOTE_ATOMIC, AccessFlag.MW_BIND);

    private final QpCapabilities capabilities;
    private final boolean sqSigAll;
    private final QpAttributes attributes = new QpAttributes();
    private final Object modifyLock = new Object();

    private final QpConfig config;
    private final WorkQueue<SendWqe> sendQueue;
    private final WorkQueue<RecvWqe> receiveQueue;
    private final Requester requester;
    private final Completer completer;
    private final Responder responder;
    /**
     * The loop's half of a send post, made once: it takes in whatever has been posted
     * ({@link Requester#admitPosted}), so a post hands the loop no new object (issue 8), and a
     * post while it still waits on the loop does not queue it again.
     */
    private final LoopTask sendPosted;
    /** The loop's half of a receive post, made once ({@link Responder#admitPosted}). */
    private final LoopTask receivePosted;
    /** The regions of an inline request's SGEs between its checks and its copy; under the post lock. */
    private final SoftMemoryRegion[] inlineRegions;
    /**
     * RC requests that arrived while the responder was still sending a READ's responses; they run
     * in order once it is done (rxe's responder takes the next packet from its queue only then).
     */
    private final java.util.ArrayDeque<RocePacket> waitingRequests = new java.util.ArrayDeque<>();
    /** At most this many requests wait; the peer's window keeps far fewer in flight, and it retries the rest. */
    private static final int WAITING_REQUESTS_LIMIT = 4 * MAX_UNACKED_PSNS;

    private SoftQueuePair(SoftProtectionDomain pd, SoftTransport transport, int qpn, QpType type,
                          SoftCompletionQueue sendCq, SoftCompletionQueue recvCq, QpCapabilities capabilities,
                          boolean sqSigAll) {
        super(pd, Kind.QUEUE_PAIR);
        this.capabilities = capabilities;
        this.sqSigAll = sqSigAll;
        this.config = new QpConfig(this, pd, transport, qpn, type, sendCq, recvCq);
        this.sendQueue = new WorkQueue<>(capabilities.maxSendWr(), () -> new SendWqe(capabilities.maxSendSge()));
        this.inlineRegions = new SoftMemoryRegion[Math.max(1, capabilities.maxSendSge())];
        this.receiveQueue = new WorkQueue<>(capabilities.maxRecvWr(), () -> new RecvWqe(capabilities.maxRecvSge()));
        this.requester = new Requester(config, sendQueue);
        this.completer = new Completer(config, sendQueue, requester);
        this.requester.connect(completer);
        this.responder = new Responder(config, receiveQueue);
        this.sendPosted = new LoopTask(requester::admitPosted);
        this.receivePosted = new LoopTask(responder::admitPosted);
        attributes.capabilities(capabilities).portNum(1);
    }

    /**
     * {@code ibv_create_qp} (rxe: {@code rxe_create_qp}, {@code rxe_qp_chk_init}, {@code rxe_qp_from_init}):
     * EOPNOTSUPP for UD and other types, EINVAL for a CQ of another context
     * or capabilities beyond rxe's limits. Starts the device's transport (binds its UDP socket) on
     * the first QP, which can fail with EADDRINUSE. The granted capabilities follow rxe
     * ({@code rxe_init_sq}, {@code rxe_init_rq}): the inline size and SGE count both grow to fill
     * the send WQE ({@code max(16 × max_send_sge, max_inline_data)} bytes), and each queue's depth
     * is rounded up to {@code 2^k - 1} ({@link SoftRoceProfile#queueDepth}); the QP reports the
     * granted values.
     */
    static SoftQueuePair create(SoftProtectionDomain pd, QpInitAttributes init) throws VerbsException {
        String verb = "ibv_create_qp";
        if (init.type() != QpType.RC && init.type() != QpType.UC) {
            throw new VerbsException(verb, Errno.EOPNOTSUPP, "qp_type " + init.type()
                    + " is not supported by the software device (RC and UC are)");
        }
        SoftRoceContext context = pd.softContext();
        SoftCompletionQueue sendCq = ownCq(context, init.sendCq(), "send_cq");
        SoftCompletionQueue recvCq = ownCq(context, init.recvCq(), "recv_cq");
        QpCapabilities cap = init.capabilities();
        checkCap(cap.maxSendWr(), SoftRoceProfile.MAX_QP_WR, "max_send_wr");
        checkCap(cap.maxRecvWr(), SoftRoceProfile.MAX_QP_WR, "max_recv_wr");
        checkCap(cap.maxSendSge(), SoftRoceProfile.MAX_SGE, "max_send_sge");
        checkCap(cap.maxRecvSge(), SoftRoceProfile.MAX_SGE, "max_recv_sge");
        checkCap(cap.maxInlineData(), SoftRoceProfile.MAX_INLINE_DATA, "max_inline_data");
        int wqeBytes = Math.max(16 * cap.maxSendSge(), cap.maxInlineData());
        QpCapabilities granted = new QpCapabilities(SoftRoceProfile.queueDepth(cap.maxSendWr()),
                SoftRoceProfile.queueDepth(cap.maxRecvWr()),
                Math.min(SoftRoceProfile.MAX_SGE, wqeBytes / 16), cap.maxRecvSge(), wqeBytes);
        SoftTransport transport = context.transport(verb);
        SoftQueuePair qp = new SoftQueuePair(pd, transport, context.allocateQpNumber(), init.type(), sendCq, recvCq,
                granted, init.sqSigAll());
        transport.loop().execute(() -> transport.register(qp));
        return qp;
    }

    private static SoftCompletionQueue ownCq(SoftRoceContext context, CompletionQueue cq, String name)
            throws VerbsException {
        if (!(cq instanceof SoftCompletionQueue soft) || soft.context() != context) {
            throw new VerbsException("ibv_create_qp", Errno.EINVAL, name + " belongs to another device context");
        }
        if (soft.isClosed()) {
            throw new IllegalStateException(name + " is closed");
        }
        return soft;
    }

    private static void checkCap(int value, int limit, String name) throws VerbsException {
        if (value < 0 || value > limit) {
            throw new VerbsException("ibv_create_qp", Errno.EINVAL, name + " " + value + " is outside 0.." + limit
                    + " (the device's limit)");
        }
    }

    // =========================================================================================
    // Verbs (caller threads)
    // =========================================================================================

    @Override
    public int qpNum() {
        return config.qpn;
    }

    /** The peer's QP number (dest_qp_num), as the loop last saw it; 0 before RTR. */
    int peerQpn() {
        return config.destQpn;
    }

    @Override
    public QpType type() {
        return config.type;
    }

    @Override
    public QpState state() {
        return config.state;
    }

    @Override
    public ProtectionDomain pd() {
        return config.pd;
    }

    @Override
    public CompletionQueue sendCq() {
        return config.sendCq;
    }

    @Override
    public CompletionQueue recvCq() {
        return config.recvCq;
    }

    @Override
    public QpCapabilities capabilities() {
        return capabilities;
    }

    /**
     * {@code ibv_modify_qp} (rxe: {@code rxe_modify_qp}, {@code rxe_qp_chk_attr}, then
     * {@code rxe_qp_from_attr} on the loop): checks the transition with {@link QpTransitions}, then each attribute
     * the mask names, then applies them on the transport loop. Every refusal is EINVAL with a
     * sentence naming the attribute.
     */
    @Override
    public void modify(QpAttributes requested, int mask) throws VerbsException {
        ensureOpen();
        String verb = "ibv_modify_qp";
        QpAttributes attr = requested.copy();
        synchronized (modifyLock) {
            QpState current = config.state;
            QpState target = has(mask, QpAttrMask.STATE) ? attr.state() : current;
            if (target == null || target == QpState.UNKNOWN) {
                throw new VerbsException(verb, Errno.EINVAL, "qp_state " + target + " is not a state a QP can be moved to");
            }
            QpTransitions.Check check = QpTransitions.check(config.type, current, target, mask);
            if (!check.valid()) {
                throw new VerbsException(verb, Errno.EINVAL, check.explanation());
            }
            if (has(mask, QpAttrMask.CUR_STATE) && attr.currentState() != current) {
                throw new VerbsException(verb, Errno.EINVAL, "cur_qp_state " + attr.currentState()
                        + " does not match the QP's state " + current);
            }
            int newPeer = validateAttributes(attr, mask);
            config.loop.call(verb, LOOP_TIMEOUT, () -> {
                apply(attr, mask, current, target, newPeer);
                return null;
            });
            synchronized (attributes) {
                copyMasked(attr, mask, target);
            }
        }
    }

    private static boolean has(int mask, QpAttrMask bit) {
        return (mask & bit.value()) != 0;
    }

    /** Checks the values of the masked attributes; returns the peer's IPv4 address when AV is set. */
    private int validateAttributes(QpAttributes attr, int mask) throws VerbsException {
        String verb = "ibv_modify_qp";
        if (has(mask, QpAttrMask.PORT) && attr.portNum() != 1) {
            throw new VerbsException(verb, Errno.EINVAL, "port_num " + attr.portNum() + " does not exist (the device has port 1)");
        }
        if (has(mask, QpAttrMask.PKEY_INDEX) && attr.pkeyIndex() != 0) {
            throw new VerbsException(verb, Errno.EINVAL, "pkey_index " + attr.pkeyIndex()
                    + " is outside the P_Key table (one entry, index 0, P_Key 0xffff)");
        }
        if (has(mask, QpAttrMask.ACCESS_FLAGS) && (attr.accessFlags() & ~QP_ACCESS_BITS) != 0) {
            throw new VerbsException(verb, Errno.EINVAL, String.format("qp_access_flags 0x%x hold bits a QP does not use "
                    + "(valid: LOCAL_WRITE, REMOTE_WRITE, REMOTE_READ, REMOTE_ATOMIC, MW_BIND)", attr.accessFlags()));
        }
        if (has(mask, QpAttrMask.PATH_MTU)) {
            if (attr.pathMtu() == null) {
                throw new VerbsException(verb, Errno.EINVAL, "path_mtu is not set");
            }
            int active = config.context.softDevice().profile().portAttributes().activeMtu().bytes();
            if (attr.pathMtu().bytes() > active) {
                throw new VerbsException(verb, Errno.EINVAL, "path_mtu " + attr.pathMtu().cName() + " is above the port's "
                        + "active MTU " + active + " (ibv_query_port's active_mtu); use IBV_MTU_" + active + " or less");
            }
        }
        int peer = 0;
        if (has(mask, QpAttrMask.AV)) {
            peer = validateAddressVector(attr);
        }
        if (has(mask, QpAttrMask.DEST_QPN)) {
            check24(attr.destQpNum(), "dest_qp_num");
        }
        if (has(mask, QpAttrMask.RQ_PSN)) {
            check24(attr.rqPsn(), "rq_psn");
        }
        if (has(mask, QpAttrMask.SQ_PSN)) {
            check24(attr.sqPsn(), "sq_psn");
        }
        if (has(mask, QpAttrMask.TIMEOUT)) {
            checkRange(attr.timeout(), 0, 31, "timeout", " (4.096 µs × 2^timeout; 0 means no retransmission timer)");
        }
        if (has(mask, QpAttrMask.RETRY_CNT)) {
            checkRange(attr.retryCount(), 0, 7, "retry_cnt", "");
        }
        if (has(mask, QpAttrMask.RNR_RETRY)) {
            checkRange(attr.rnrRetry(), 0, 7, "rnr_retry", " (7 means retry forever)");
        }
        if (has(mask, QpAttrMask.MIN_RNR_TIMER)) {
            checkRange(attr.minRnrTimer(), 0, 31, "min_rnr_timer", " (an RNR timer code)");
        }
        if (has(mask, QpAttrMask.MAX_QP_RD_ATOMIC)) {
            checkRange(attr.maxRdAtomic(), 0, SoftRoceProfile.MAX_RD_ATOMIC, "max_rd_atomic",
                    " (the device's max_qp_rd_atom)");
        }
        if (has(mask, QpAttrMask.MAX_DEST_RD_ATOMIC)) {
            checkRange(attr.maxDestRdAtomic(), 0, SoftRoceProfile.MAX_RD_ATOMIC, "max_dest_rd_atomic",
                    " (the device's max_qp_init_rd_atom)");
        }
        return peer;
    }

    private int validateAddressVector(QpAttributes attr) throws VerbsException {
        String verb = "ibv_modify_qp";
        if (attr.addressVector() == null) {
            throw new VerbsException(verb, Errno.EINVAL, "ah_attr is not set although the mask has AV");
        }
        GlobalRoute grh = attr.addressVector().grh();
        if (grh == null) {
            throw new VerbsException(verb, Errno.EINVAL, "ah_attr.is_global is 0, but RoCE routes by GID: set is_global = 1, "
                    + "grh.sgid_index to a local RoCE v2 GID and grh.dgid to the peer's GID");
        }
        int port = attr.addressVector().portNum();
        if (port != 1 && port != 0) {
            throw new VerbsException(verb, Errno.EINVAL, "ah_attr.port_num " + port + " does not exist (the device has port 1)");
        }
        GidEntry source = null;
        List<GidEntry> table = config.context.softDevice().profile().gidTable();
        for (GidEntry entry : table) {
            if (entry.index() == grh.sgidIndex()) {
                source = entry;
            }
        }
        GidEntry v2 = null;
        for (GidEntry entry : table) {
            if (entry.type() == GidType.ROCE_V2 && entry.gid().isIpv4Mapped()) {
                v2 = entry;
            }
        }
        String hint = v2 == null ? "" : "; use index " + v2.index() + " (" + v2.gid() + ", RoCE v2)";
        if (source == null) {
            throw new VerbsException(verb, Errno.EINVAL, "grh.sgid_index " + grh.sgidIndex()
                    + " is not a populated GID of port 1 (indexes 0.." + (table.size() - 1) + " are)" + hint);
        }
        if (source.type() != GidType.ROCE_V2) {
            throw new VerbsException(verb, Errno.EINVAL, "grh.sgid_index " + grh.sgidIndex() + " is a " + source.type().text()
                    + " GID (" + source.gid() + "); this device speaks RoCE v2 (UDP/IP) only, RoCE v1 (raw Ethernet "
                    + "frames) needs a kernel device" + hint);
        }
        if (!source.gid().isIpv4Mapped()) {
            throw new VerbsException(verb, Errno.EINVAL, "grh.sgid_index " + grh.sgidIndex() + " is the link-local GID "
                    + source.gid() + "; this device sends over IPv4 only" + hint);
        }
        if (grh.dgid() == null || grh.dgid().isZero()) {
            throw new VerbsException(verb, Errno.EINVAL, "grh.dgid is all zeros: put the peer's GID (exchanged out of band) "
                    + "in ah_attr.grh.dgid");
        }
        if (!grh.dgid().isIpv4Mapped()) {
            throw new VerbsException(verb, Errno.EINVAL, "grh.dgid " + grh.dgid() + " is not an IPv4-mapped GID "
                    + "(::ffff:a.b.c.d); this device reaches its peers over IPv4, so use the peer's RoCE v2 IPv4 GID");
        }
        checkRange(grh.hopLimit(), 0, 255, "grh.hop_limit", "");
        checkRange(grh.trafficClass(), 0, 255, "grh.traffic_class", "");
        if (grh.flowLabel() < 0 || grh.flowLabel() > 0xFFFFF) {
            throw new VerbsException(verb, Errno.EINVAL, "grh.flow_label " + grh.flowLabel() + " does not fit in 20 bits");
        }
        return Fabric.toInt(grh.dgid().ipv4());
    }

    private static void check24(int value, String name) throws VerbsException {
        if (value < 0 || value > Psn.MASK) {
            throw new VerbsException("ibv_modify_qp", Errno.EINVAL, name + " " + Integer.toUnsignedString(value)
                    + " (0x" + Integer.toHexString(value) + ") does not fit in 24 bits (0..0xffffff)");
        }
    }

    private static void checkRange(int value, int low, int high, String name, String note) throws VerbsException {
        if (value < low || value > high) {
            throw new VerbsException("ibv_modify_qp", Errno.EINVAL, name + " " + value + " is outside " + low + ".." + high + note);
        }
    }

    private void copyMasked(QpAttributes attr, int mask, QpState target) {
        attributes.state(target).currentState(target);
        if (has(mask, QpAttrMask.PATH_MTU)) {
            attributes.pathMtu(attr.pathMtu());
        }
        if (has(mask, QpAttrMask.PATH_MIG_STATE)) {
            attributes.pathMigState(attr.pathMigState());
        }
        if (has(mask, QpAttrMask.QKEY)) {
            attributes.qkey(attr.qkey());
        }
        if (has(mask, QpAttrMask.RQ_PSN)) {
            attributes.rqPsn(attr.rqPsn());
        }
        if (has(mask, QpAttrMask.SQ_PSN)) {
            attributes.sqPsn(attr.sqPsn());
        }
        if (has(mask, QpAttrMask.DEST_QPN)) {
            attributes.destQpNum(attr.destQpNum());
        }
        if (has(mask, QpAttrMask.ACCESS_FLAGS)) {
            attributes.accessFlags(attr.accessFlags());
        }
        if (has(mask, QpAttrMask.AV)) {
            attributes.addressVector(attr.addressVector());
        }
        if (has(mask, QpAttrMask.PKEY_INDEX)) {
            attributes.pkeyIndex(attr.pkeyIndex());
        }
        if (has(mask, QpAttrMask.EN_SQD_ASYNC_NOTIFY)) {
            attributes.sqdAsyncNotify(attr.sqdAsyncNotify());
        }
        if (has(mask, QpAttrMask.MAX_QP_RD_ATOMIC)) {
            attributes.maxRdAtomic(attr.maxRdAtomic());
        }
        if (has(mask, QpAttrMask.MAX_DEST_RD_ATOMIC)) {
            attributes.maxDestRdAtomic(attr.maxDestRdAtomic());
        }
        if (has(mask, QpAttrMask.MIN_RNR_TIMER)) {
            attributes.minRnrTimer(attr.minRnrTimer());
        }
        if (has(mask, QpAttrMask.PORT)) {
            attributes.portNum(attr.portNum());
        }
        if (has(mask, QpAttrMask.TIMEOUT)) {
            attributes.timeout(attr.timeout());
        }
        if (has(mask, QpAttrMask.RETRY_CNT)) {
            attributes.retryCount(attr.retryCount());
        }
        if (has(mask, QpAttrMask.RNR_RETRY)) {
            attributes.rnrRetry(attr.rnrRetry());
        }
    }

    /** {@code ibv_query_qp} (rxe: {@code rxe_query_qp}, {@code rxe_qp_to_attr}): every attribute as last set, now. */
    @Override
    public QpAttributes query(int mask) {
        ensureOpen();
        synchronized (attributes) {
            QpState now = config.state;
            return attributes.copy().state(now).currentState(now).capabilities(capabilities);
        }
    }

    /**
     * {@code ibv_post_send} (rxe: {@code rxe_post_send}, {@code validate_send_wr}): EINVAL before RTS (rxe's rule), for too many SGEs, an unsupported
     * opcode, inline data that is too long or an atomic that is not one aligned 8-byte word;
     * ENOMEM when the send queue is full. In ERR the requests are accepted and flushed.
     */
    @Override
    public void postSend(List<SendWorkRequest> requests) throws VerbsException {
        ensureOpen();
        int accepted = 0;
        VerbsException failure = null;
        synchronized (config.postLock) {
            for (int i = 0; i < requests.size(); i++) {
                try {
                    requireSendState();
                    postOneSend(requests.get(i));
                    accepted++;
                } catch (VerbsException e) {
                    failure = e;
                    break;
                }
            }
        }
        if (accepted > 0) {
            // From the caller's thread when the loop is free: the packets leave without a hand-off.
            config.loop.runOrExecute(sendPosted);
        }
        if (failure != null) {
            throw failure;
        }
    }

    /**
     * {@code ibv_post_send} of one request: the checks and errors of {@link #postSend(List)}
     * without the list of accepted requests.
     */
    @Override
    public void postSend(SendWorkRequest request) throws VerbsException {
        ensureOpen();
        synchronized (config.postLock) {
            requireSendState();
            postOneSend(request);
        }
        config.loop.runOrExecute(sendPosted);
    }

    /** EINVAL before RTS, as rxe refuses sends there; called under the post lock. */
    private void requireSendState() throws VerbsException {
        QpState now = config.state;
        if (now == QpState.RESET || now == QpState.INIT || now == QpState.RTR) {
            throw new VerbsException("ibv_post_send", Errno.EINVAL, "the QP is in " + now
                    + "; the send queue accepts work requests from RTS on");
        }
    }

    /**
     * Checks one request and writes it into the send queue's next free slot ({@code post_one_send}:
     * {@code validate_send_wr}, then {@code init_send_wqe}); under the post lock. Nothing is
     * allocated: the slot is reused (see {@link WorkQueue}).
     */
    private void postOneSend(SendWorkRequest request) throws VerbsException {
        String verb = "ibv_post_send";
        WrOpcode opcode = request.opcode();
        boolean supported = switch (opcode) {
            case RDMA_WRITE, RDMA_WRITE_WITH_IMM, SEND, SEND_WITH_IMM -> true;
            case RDMA_READ, ATOMIC_CMP_AND_SWP, ATOMIC_FETCH_AND_ADD -> config.type == QpType.RC;
            default -> false;
        };
        if (!supported) {
            throw new VerbsException(verb, Errno.EINVAL, "opcode " + opcode.cName() + " is not supported on a " + config.type
                    + " QP of this device");
        }
        List<ScatterGatherElement> sges = request.sgList();
        if (sges.size() > capabilities.maxSendSge()) {
            throw new VerbsException(verb, Errno.EINVAL, "num_sge " + sges.size() + " is above the QP's max_send_sge "
                    + capabilities.maxSendSge());
        }
        boolean atomic = opcode == WrOpcode.ATOMIC_CMP_AND_SWP || opcode == WrOpcode.ATOMIC_FETCH_AND_ADD;
        long length = request.totalLength();
        if (atomic && (length != 8 || (request.remoteAddress() & 7) != 0)) {
            throw new VerbsException(verb, Errno.EINVAL, "an atomic works on one 8-byte word: the local SGE must be 8 bytes "
                    + "(it is " + length + ") and remote_addr 8-byte aligned (it is 0x" + Long.toHexString(request.remoteAddress()) + ")");
        }
        boolean inline = SendFlag.has(request.sendFlags(), SendFlag.INLINE) && opcode != WrOpcode.RDMA_READ && !atomic;
        if (inline) {
            if (length > capabilities.maxInlineData()) {
                throw new VerbsException(verb, Errno.EINVAL, "inline data of " + length + " bytes is above the QP's max_inline_data "
                        + capabilities.maxInlineData());
            }
            for (int i = 0; i < sges.size(); i++) {
                ScatterGatherElement sge = sges.get(i);
                SoftMemoryRegion region = config.context.regionByAddress(sge.address(), sge.length());
                if (region == null && sge.length() > 0) {
                    throw new VerbsException(verb, Errno.EFAULT, String.format("inline SGE 0x%x+%d is not inside any memory "
                            + "of this device context", sge.address(), sge.length()));
                }
                inlineRegions[i] = region;
            }
        }
        if (!sendQueue.reserve(capabilities.maxSendWr())) {
            throw new VerbsException(verb, Errno.ENOMEM, "the send queue is full: max_send_wr " + capabilities.maxSendWr()
                    + " work requests are outstanding (poll the send CQ to free them)");
        }
        // The slot is free now (a slot is counted in used until the loop is done with it).
        SendWqe wqe = sendQueue.nextToPost();
        wqe.fill(request, sqSigAll || request.signaled(), length);
        if (inline) {
            byte[] data = wqe.inlineBuffer((int) length);
            int at = 0;
            for (int i = 0; i < sges.size(); i++) {
                ScatterGatherElement sge = sges.get(i);
                if (sge.length() > 0) {
                    SoftMemoryRegion region = inlineRegions[i];
                    System.arraycopy(region.memory(), region.offsetOf(sge.address()), data, at, sge.length());
                }
                at += sge.length();
                inlineRegions[i] = null;
            }
        }
        sendQueue.publish();
    }

    /** {@code ibv_post_recv} (rxe: {@code rxe_post_recv}, {@code post_one_recv}): EINVAL in RESET, for too many SGEs or 2 GiB or more, ENOMEM when the receive queue is full. */
    @Override
    public void postRecv(List<ReceiveWorkRequest> requests) throws VerbsException {
        ensureOpen();
        int accepted = 0;
        VerbsException failure = null;
        synchronized (config.postLock) {
            for (int i = 0; i < requests.size(); i++) {
                failure = postOneRecv(requests.get(i));
                if (failure != null) {
                    break;
                }
                accepted++;
            }
        }
        if (accepted > 0) {
            config.loop.runOrExecuteBriefly(receivePosted);
        }
        if (failure != null) {
            throw failure;
        }
    }

    /**
     * {@code ibv_post_recv} of one request: the checks and errors of {@link #postRecv(List)}
     * without the lists.
     */
    @Override
    public void postRecv(ReceiveWorkRequest request) throws VerbsException {
        ensureOpen();
        VerbsException failure;
        synchronized (config.postLock) {
            failure = postOneRecv(request);
        }
        if (failure != null) {
            throw failure;
        }
        config.loop.runOrExecuteBriefly(receivePosted);
    }

    /**
     * Checks one receive and writes it into the receive queue's next free slot
     * ({@code post_one_recv}); under the post lock. Returns the refusal, or null. Nothing is
     * allocated when it is accepted: the slot is reused (see {@link WorkQueue}).
     */
    private VerbsException postOneRecv(ReceiveWorkRequest request) {
        String verb = "ibv_post_recv";
        if (config.state == QpState.RESET) {
            return new VerbsException(verb, Errno.EINVAL, "the QP is in RESET; the receive queue accepts work "
                    + "requests from INIT on");
        }
        if (request.sgList().size() > capabilities.maxRecvSge()) {
            return new VerbsException(verb, Errno.EINVAL, "num_sge " + request.sgList().size()
                    + " is above the QP's max_recv_sge " + capabilities.maxRecvSge());
        }
        long capacity = request.totalLength();
        if (capacity >= SoftRoceProfile.MAX_MESSAGE_SIZE) {
            return new VerbsException(verb, Errno.EINVAL, "the scatter list holds " + capacity
                    + " bytes; a message is at most 2^31 - 1 bytes");
        }
        if (!receiveQueue.reserve(capabilities.maxRecvWr())) {
            return new VerbsException(verb, Errno.ENOMEM, "the receive queue is full: max_recv_wr "
                    + capabilities.maxRecvWr() + " work requests are posted");
        }
        // The slot is free now (a slot is counted in used until its receive completed).
        receiveQueue.nextToPost().fill(request, capacity);
        receiveQueue.publish();
        return null;
    }

    /** {@code ibv_destroy_qp} (rxe: {@code rxe_destroy_qp}): unregisters from the transport; pending work requests vanish without completions. */
    @Override
    protected void destroy() {
        try {
            config.loop.call("ibv_destroy_qp", LOOP_TIMEOUT, () -> {
                config.transport.unregister(this);
                resetOnLoop();
                return null;
            });
        } catch (VerbsException e) {
            config.state = QpState.RESET;
        }
    }

    @Override
    public String toString() {
        return String.format("%s QP 0x%x (%s)", config.type, config.qpn, config.state);
    }

    // =========================================================================================
    // Loop: state changes (rxe_qp.c)
    // =========================================================================================

    /**
     * Applies a checked modify on the loop ({@code rxe_qp_from_attr}): the configuration, each
     * part's PSN, and the parts' start on RTR (responder) and RTS (requester and completer).
     */
    private void apply(QpAttributes attr, int mask, QpState from, QpState to, int newPeer) throws VerbsException {
        if (config.state != from) {
            throw new VerbsException("ibv_modify_qp", Errno.EINVAL, "the QP moved from " + from + " to " + config.state
                    + " while the modify was on its way");
        }
        if (has(mask, QpAttrMask.AV)) {
            config.peerIp = newPeer;
            config.trafficClass = attr.addressVector().grh().trafficClass();
            config.hopLimit = attr.addressVector().grh().hopLimit();
        }
        if (has(mask, QpAttrMask.PATH_MTU)) {
            config.mtu = attr.pathMtu().bytes();
        }
        if (has(mask, QpAttrMask.DEST_QPN)) {
            config.destQpn = attr.destQpNum();
        }
        if (has(mask, QpAttrMask.ACCESS_FLAGS)) {
            config.qpAccess = attr.accessFlags();
        }
        if (has(mask, QpAttrMask.TIMEOUT)) {
            config.ackTimeoutNanos = RnrTimer.ackTimeoutNanos(attr.timeout());
        }
        if (has(mask, QpAttrMask.RETRY_CNT)) {
            config.retryCount = attr.retryCount();
        }
        if (has(mask, QpAttrMask.RNR_RETRY)) {
            config.rnrRetry = attr.rnrRetry();
        }
        if (has(mask, QpAttrMask.MIN_RNR_TIMER)) {
            config.minRnrTimer = attr.minRnrTimer();
        }
        if (has(mask, QpAttrMask.MAX_QP_RD_ATOMIC)) {
            config.maxRdAtomic = attr.maxRdAtomic();
        }
        if (has(mask, QpAttrMask.MAX_DEST_RD_ATOMIC)) {
            config.maxDestRdAtomic = attr.maxDestRdAtomic();
        }
        if (has(mask, QpAttrMask.RQ_PSN)) {
            responder.setPsn(attr.rqPsn());
        }
        if (has(mask, QpAttrMask.SQ_PSN)) {
            requester.setPsn(attr.sqPsn());
            completer.setPsn(attr.sqPsn());
        }
        switch (to) {
            case RESET -> resetOnLoop();
            case ERR -> enterError(null, null);
            case RTR -> {
                if (from == QpState.INIT) {
                    responder.start();
                }
                config.state = to;
            }
            case RTS -> {
                if (from == QpState.RTR) {
                    completer.start();
                    requester.start();
                }
                config.state = to;
                requester.run();
            }
            default -> config.state = to;
        }
    }

    /**
     * To RESET with empty queues ({@code rxe_qp_reset}); work requests vanish without
     * completions, also those posted before the reset that have not reached the loop yet.
     */
    private void resetOnLoop() {
        synchronized (config.postLock) {
            waitingRequests.clear();
            sendQueue.clear();
            requester.reset();
            completer.reset();
            responder.reset();
            config.state = QpState.RESET;
        }
    }

    /**
     * Moves the QP to ERR and flushes every outstanding work request, send queue first
     * ({@code rxe_qp_error}, then the completer's and responder's drains). Loop only.
     */
    void enterError(SoftCompletionQueue causeQueue, WorkCompletion cause) {
        if (config.state == QpState.ERR) {
            if (cause != null) {
                causeQueue.push(cause, false);
            }
            return;
        }
        config.state = QpState.ERR;
        synchronized (attributes) {
            attributes.state(QpState.ERR).currentState(QpState.ERR);
        }
        if (cause != null) {
            causeQueue.push(cause, false);
        }
        completer.stop();
        while (!sendQueue.isEmpty()) {
            SendWqe wqe = sendQueue.at(sendQueue.head());
            config.sendCq.pushError(wqe.wrId, WcStatus.WR_FLUSH_ERR, wqe.opcode.completionOpcode(), config.qpn);
            sendQueue.removeHead();
        }
        requester.flushed();
        responder.flush();
        waitingRequests.clear();
    }

    // =========================================================================================
    // Loop: receiving (rxe_recv.c)
    // =========================================================================================

    /** Why a packet is refused before any protocol processing, or null ({@code check_type_state}, {@code check_addr}). */
    String accepts(RocePacket packet, int sourceIp) {
        Opcode op = packet.opcode();
        int peerIp = config.peerIp;
        if (sourceIp != peerIp) {
            config.transport.count(Counter.RCVD_WRONG_PEER);
            return "not from the QP's connected peer " + (peerIp == 0 ? "(none yet)" : SoftTransport.address(peerIp, 0));
        }
        if ((config.type == QpType.RC) != op.isRc()) {
            config.transport.count(Counter.RCVD_MALFORMED);
            return "an opcode of another transport than the QP's " + config.type;
        }
        QpState state = config.state;
        boolean ready = op.isRequest()
                ? state == QpState.RTR || state == QpState.RTS || state == QpState.SQD || state == QpState.SQE
                : state == QpState.RTS || state == QpState.SQD || state == QpState.SQE;
        if (!ready) {
            config.transport.count(Counter.RCVD_QP_NOT_READY);
            return "QP is in " + state;
        }
        return null;
    }

    /** Hands a packet that passed {@link #accepts} to the responder or the completer ({@code rxe_rcv_pkt}). */
    void receive(RocePacket packet) {
        if (packet.opcode().isRequest()) {
            if (config.type == QpType.UC) {
                responder.onUcRequest(packet);
            } else if (responder.replying() || !waitingRequests.isEmpty()) {
                if (waitingRequests.size() < WAITING_REQUESTS_LIMIT) {
                    waitingRequests.add(copy(packet)); // the transport reuses the packet's buffer
                }
            } else {
                responder.onRequest(packet);
            }
        } else if (config.type == QpType.RC) {
            completer.onResponse(packet);
        }
    }

    private static RocePacket copy(RocePacket packet) {
        try {
            return RocePacket.decode(java.util.Arrays.copyOfRange(packet.buffer(), packet.offset(),
                    packet.offset() + packet.length()), 0, packet.length());
        } catch (org.rdmalab.softroce.wire.MalformedPacketException e) {
            throw new IllegalStateException("a packet that decoded once no longer does", e);
        }
    }

    /**
     * Carries on after the transport had no room, or on the next turn of the loop: the READ reply
     * under way, then the requests that waited for it, then the requester (loop only).
     */
    void resumeSending() {
        responder.continueReadReply();
        while (!responder.replying() && !waitingRequests.isEmpty() && !isClosed()) {
            responder.onRequest(waitingRequests.poll());
        }
        requester.run();
    }
}
