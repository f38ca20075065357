package org.rdmalab.softroce;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.rdmalab.softroce.wire.Aeth;
import org.rdmalab.softroce.wire.AtomicAckEth;
import org.rdmalab.softroce.wire.AtomicEth;
import org.rdmalab.softroce.wire.Opcode;
import org.rdmalab.softroce.wire.Psn;
import org.rdmalab.softroce.wire.Reth;
import org.rdmalab.softroce.wire.RocePacket;
import org.rdmalab.softroce.wire.RocePacketEncoder;
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
import org.rdmalab.verbs.WcFlag;
import org.rdmalab.verbs.WcOpcode;
import org.rdmalab.verbs.WcStatus;
import org.rdmalab.verbs.WorkCompletion;
import org.rdmalab.verbs.WrOpcode;
import org.rdmalab.verbs.spi.ResourceNode;

/**
 * An RC (or UC) queue pair of the software device, with its requester and responder.
 *
 * <p>Threads: the verbs methods run on the caller's thread; they validate, then hand work to the
 * device's transport loop. Everything below "requester" and "responder" (queues, PSNs, timers,
 * resources) is touched only on that loop. {@link #state} is volatile: the loop writes it (errors,
 * applied modifies), callers read it.
 *
 * <p>Protocol rules follow rxe and the IBTA (rocev2.md): segmentation by path MTU, AckReq on the
 * last packet of a message and on a packet that finds more than 64 sent without one, go-back-N on timeout or sequence NAK, RNR NAK
 * and waits, at most 128 unacknowledged PSNs and max_rd_atomic outstanding READ/atomics,
 * duplicates re-ACKed, READs re-answered and atomics replayed from saved results.
 */
final class SoftQueuePair extends ResourceNode implements QueuePair {

    static final int MAX_UNACKED_PSNS = 128;
    /** rxe's RXE_MAX_PKT_PER_ACK: a packet that finds more than this many sent without AckReq asks for an ACK. */
    static final int MAX_PACKETS_PER_ACK = 64;
    private static final Duration LOOP_TIMEOUT = Duration.ofSeconds(5);
    private static final int QP_ACCESS_BITS = AccessFlag.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE,
            AccessFlag.REMOTE_READ, AccessFlag.REMOTE_ATOMIC, AccessFlag.MW_BIND);

    private final SoftProtectionDomain pd;
    private final SoftRoceContext context;
    private final SoftTransport transport;
    private final EventLoop loop;
    private final int qpn;
    private final QpType type;
    private final SoftCompletionQueue sendCq;
    private final SoftCompletionQueue recvCq;
    private final QpCapabilities capabilities;
    private final boolean sqSigAll;
    private final QpAttributes attributes = new QpAttributes();
    private final AtomicInteger sendUsed = new AtomicInteger();
    private final AtomicInteger recvUsed = new AtomicInteger();
    private final Object modifyLock = new Object();
    private volatile QpState state = QpState.RESET;

    // ---- configuration applied on the loop ----
    private int peerIp;
    private int destQpn;
    private int mtu = 1024;
    private int trafficClass;
    private int hopLimit = 64;
    private int qpAccess;
    private long ackTimeoutNanos;
    private int retryCount;
    private int rnrRetry;
    private int minRnrTimer;
    private int maxRdAtomic;
    private int maxDestRdAtomic;

    // ---- requester (loop) ----
    private final SendWqe[] ring;
    private long head;
    private long tail;
    private long sendIndex;
    private int sendPacket;
    private int nextPsn;
    private int ackedPsn;
    private int rdOutstanding;
    private int retryLeft;
    private int rnrLeft;
    private boolean rnrWaiting;
    private EventLoop.Timer rnrTimer;
    private boolean timerActive;
    private boolean timerScheduled;
    private long retransmitDeadline;
    private int packetsSinceAckRequest;
    private int gatherOffset;
    private int lastGapRetryPsn = -1;

    // ---- responder (loop) ----
    private final ArrayDeque<RecvWqe> recvQueue = new ArrayDeque<>();
    private int expectedPsn;
    private int msn;
    private boolean sequenceNakSent;
    private int inProgress;
    private RecvWqe currentRecv;
    private int recvOffset;
    private SoftMemoryRegion writeRegion;
    private long writeAddress;
    private long writeRemaining;
    private long writeLength;
    private boolean ucDropping;
    private Resource[] resources = new Resource[1];
    private int nextResource;

    private static final int NONE = 0;
    private static final int IN_SEND = 1;
    private static final int IN_WRITE = 2;

    private SoftQueuePair(SoftProtectionDomain pd, SoftTransport transport, int qpn, QpType type,
                          SoftCompletionQueue sendCq, SoftCompletionQueue recvCq, QpCapabilities capabilities,
                          boolean sqSigAll) {
        super(pd, Kind.QUEUE_PAIR);
        this.pd = pd;
        this.context = pd.softContext();
        this.transport = transport;
        this.loop = transport.loop();
        this.qpn = qpn;
        this.type = type;
        this.sendCq = sendCq;
        this.recvCq = recvCq;
        this.capabilities = capabilities;
        this.sqSigAll = sqSigAll;
        this.ring = new SendWqe[Math.max(1, capabilities.maxSendWr())];
        attributes.capabilities(capabilities).portNum(1);
    }

    /**
     * {@code ibv_create_qp}: EOPNOTSUPP for UD and other types, EINVAL for a CQ of another context
     * or capabilities beyond rxe's limits. Starts the device's transport (binds its UDP socket) on
     * the first QP, which can fail with EADDRINUSE. The granted capabilities follow rxe: the
     * inline size and SGE count both grow to fill the send WQE ({@code max(16 × max_send_sge,
     * max_inline_data)} bytes).
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
        QpCapabilities granted = new QpCapabilities(cap.maxSendWr(), cap.maxRecvWr(),
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
        return qpn;
    }

    @Override
    public QpType type() {
        return type;
    }

    @Override
    public QpState state() {
        return state;
    }

    @Override
    public ProtectionDomain pd() {
        return pd;
    }

    @Override
    public CompletionQueue sendCq() {
        return sendCq;
    }

    @Override
    public CompletionQueue recvCq() {
        return recvCq;
    }

    @Override
    public QpCapabilities capabilities() {
        return capabilities;
    }

    /**
     * {@code ibv_modify_qp}: checks the transition with {@link QpTransitions}, then each attribute
     * the mask names, then applies them on the transport loop. Every refusal is EINVAL with a
     * sentence naming the attribute.
     */
    @Override
    public void modify(QpAttributes requested, int mask) throws VerbsException {
        ensureOpen();
        String verb = "ibv_modify_qp";
        QpAttributes attr = requested.copy();
        synchronized (modifyLock) {
            QpState current = state;
            QpState target = has(mask, QpAttrMask.STATE) ? attr.state() : current;
            if (target == null || target == QpState.UNKNOWN) {
                throw new VerbsException(verb, Errno.EINVAL, "qp_state " + target + " is not a state a QP can be moved to");
            }
            QpTransitions.Check check = QpTransitions.check(type, current, target, mask);
            if (!check.valid()) {
                throw new VerbsException(verb, Errno.EINVAL, check.explanation());
            }
            if (has(mask, QpAttrMask.CUR_STATE) && attr.currentState() != current) {
                throw new VerbsException(verb, Errno.EINVAL, "cur_qp_state " + attr.currentState()
                        + " does not match the QP's state " + current);
            }
            int newPeer = validateAttributes(attr, mask);
            loop.call(verb, LOOP_TIMEOUT, () -> {
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
            int active = context.softDevice().profile().portAttributes().activeMtu().bytes();
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
        List<GidEntry> table = context.softDevice().profile().gidTable();
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
        return SimulatedNetwork.toInt(grh.dgid().ipv4());
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

    /** {@code ibv_query_qp}: every attribute as last set, with the current state. */
    @Override
    public QpAttributes query(int mask) {
        ensureOpen();
        synchronized (attributes) {
            QpState now = state;
            return attributes.copy().state(now).currentState(now).capabilities(capabilities);
        }
    }

    /**
     * {@code ibv_post_send}: EINVAL before RTS (rxe's rule), for too many SGEs, an unsupported
     * opcode, inline data that is too long or an atomic that is not one aligned 8-byte word;
     * ENOMEM when the send queue is full. In ERR the requests are accepted and flushed.
     */
    @Override
    public void postSend(List<SendWorkRequest> requests) throws VerbsException {
        ensureOpen();
        String verb = "ibv_post_send";
        List<SendWqe> accepted = new ArrayList<>(requests.size());
        VerbsException failure = null;
        for (SendWorkRequest request : requests) {
            try {
                QpState now = state;
                if (now == QpState.RESET || now == QpState.INIT || now == QpState.RTR) {
                    throw new VerbsException(verb, Errno.EINVAL, "the QP is in " + now
                            + "; the send queue accepts work requests from RTS on");
                }
                accepted.add(checkSend(request));
            } catch (VerbsException e) {
                failure = e;
                break;
            }
        }
        if (!accepted.isEmpty()) {
            loop.execute(() -> enqueueSends(accepted));
        }
        if (failure != null) {
            throw failure;
        }
    }

    private SendWqe checkSend(SendWorkRequest request) throws VerbsException {
        String verb = "ibv_post_send";
        WrOpcode opcode = request.opcode();
        boolean supported = switch (opcode) {
            case RDMA_WRITE, RDMA_WRITE_WITH_IMM, SEND, SEND_WITH_IMM -> true;
            case RDMA_READ, ATOMIC_CMP_AND_SWP, ATOMIC_FETCH_AND_ADD -> type == QpType.RC;
            default -> false;
        };
        if (!supported) {
            throw new VerbsException(verb, Errno.EINVAL, "opcode " + opcode.cName() + " is not supported on a " + type
                    + " QP of this device");
        }
        if (request.sgList().size() > capabilities.maxSendSge()) {
            throw new VerbsException(verb, Errno.EINVAL, "num_sge " + request.sgList().size() + " is above the QP's max_send_sge "
                    + capabilities.maxSendSge());
        }
        boolean atomic = opcode == WrOpcode.ATOMIC_CMP_AND_SWP || opcode == WrOpcode.ATOMIC_FETCH_AND_ADD;
        long length = request.totalLength();
        if (atomic && (length != 8 || (request.remoteAddress() & 7) != 0)) {
            throw new VerbsException(verb, Errno.EINVAL, "an atomic works on one 8-byte word: the local SGE must be 8 bytes "
                    + "(it is " + length + ") and remote_addr 8-byte aligned (it is 0x" + Long.toHexString(request.remoteAddress()) + ")");
        }
        byte[] inline = null;
        if (SendFlag.has(request.sendFlags(), SendFlag.INLINE) && opcode != WrOpcode.RDMA_READ && !atomic) {
            if (length > capabilities.maxInlineData()) {
                throw new VerbsException(verb, Errno.EINVAL, "inline data of " + length + " bytes is above the QP's max_inline_data "
                        + capabilities.maxInlineData());
            }
            inline = new byte[(int) length];
            int at = 0;
            for (ScatterGatherElement sge : request.sgList()) {
                SoftMemoryRegion region = context.regionByAddress(sge.address(), sge.length());
                if (region == null && sge.length() > 0) {
                    throw new VerbsException(verb, Errno.EFAULT, String.format("inline SGE 0x%x+%d is not inside any memory "
                            + "of this device context", sge.address(), sge.length()));
                }
                if (sge.length() > 0) {
                    System.arraycopy(region.memory(), region.offsetOf(sge.address()), inline, at, sge.length());
                }
                at += sge.length();
            }
        }
        int used;
        do {
            used = sendUsed.get();
            if (used >= capabilities.maxSendWr()) {
                throw new VerbsException(verb, Errno.ENOMEM, "the send queue is full: max_send_wr " + capabilities.maxSendWr()
                        + " work requests are outstanding (poll the send CQ to free them)");
            }
        } while (!sendUsed.compareAndSet(used, used + 1));
        boolean signaled = sqSigAll || request.signaled();
        return new SendWqe(request, signaled, inline, length);
    }

    /** {@code ibv_post_recv}: EINVAL in RESET, for too many SGEs or 2 GiB or more, ENOMEM when the receive queue is full. */
    @Override
    public void postRecv(List<ReceiveWorkRequest> requests) throws VerbsException {
        ensureOpen();
        String verb = "ibv_post_recv";
        List<RecvWqe> accepted = new ArrayList<>(requests.size());
        VerbsException failure = null;
        for (ReceiveWorkRequest request : requests) {
            if (state == QpState.RESET) {
                failure = new VerbsException(verb, Errno.EINVAL, "the QP is in RESET; the receive queue accepts work "
                        + "requests from INIT on");
                break;
            }
            if (request.sgList().size() > capabilities.maxRecvSge()) {
                failure = new VerbsException(verb, Errno.EINVAL, "num_sge " + request.sgList().size()
                        + " is above the QP's max_recv_sge " + capabilities.maxRecvSge());
                break;
            }
            if (request.totalLength() >= SoftRoceProfile.MAX_MESSAGE_SIZE) {
                failure = new VerbsException(verb, Errno.EINVAL, "the scatter list holds " + request.totalLength()
                        + " bytes; a message is at most 2^31 - 1 bytes");
                break;
            }
            int used = recvUsed.get();
            if (used >= capabilities.maxRecvWr() || !recvUsed.compareAndSet(used, used + 1)) {
                failure = new VerbsException(verb, Errno.ENOMEM, "the receive queue is full: max_recv_wr "
                        + capabilities.maxRecvWr() + " work requests are posted");
                break;
            }
            accepted.add(new RecvWqe(request));
        }
        if (!accepted.isEmpty()) {
            loop.execute(() -> enqueueRecvs(accepted));
        }
        if (failure != null) {
            throw failure;
        }
    }

    /** {@code ibv_destroy_qp}: unregisters from the transport; pending work requests vanish without completions. */
    @Override
    protected void destroy() {
        try {
            loop.call("ibv_destroy_qp", LOOP_TIMEOUT, () -> {
                transport.unregister(this);
                resetOnLoop();
                state = QpState.RESET;
                return null;
            });
        } catch (VerbsException e) {
            state = QpState.RESET;
        }
    }

    @Override
    public String toString() {
        return String.format("%s QP 0x%x (%s)", type, qpn, state);
    }

    // =========================================================================================
    // Loop: state changes
    // =========================================================================================

    private void apply(QpAttributes attr, int mask, QpState from, QpState to, int newPeer) throws VerbsException {
        if (state != from) {
            throw new VerbsException("ibv_modify_qp", Errno.EINVAL, "the QP moved from " + from + " to " + state
                    + " while the modify was on its way");
        }
        if (has(mask, QpAttrMask.AV)) {
            peerIp = newPeer;
            trafficClass = attr.addressVector().grh().trafficClass();
            hopLimit = attr.addressVector().grh().hopLimit();
        }
        if (has(mask, QpAttrMask.PATH_MTU)) {
            mtu = attr.pathMtu().bytes();
        }
        if (has(mask, QpAttrMask.DEST_QPN)) {
            destQpn = attr.destQpNum();
        }
        if (has(mask, QpAttrMask.ACCESS_FLAGS)) {
            qpAccess = attr.accessFlags();
        }
        if (has(mask, QpAttrMask.TIMEOUT)) {
            ackTimeoutNanos = RnrTimer.ackTimeoutNanos(attr.timeout());
        }
        if (has(mask, QpAttrMask.RETRY_CNT)) {
            retryCount = attr.retryCount();
        }
        if (has(mask, QpAttrMask.RNR_RETRY)) {
            rnrRetry = attr.rnrRetry();
        }
        if (has(mask, QpAttrMask.MIN_RNR_TIMER)) {
            minRnrTimer = attr.minRnrTimer();
        }
        if (has(mask, QpAttrMask.MAX_QP_RD_ATOMIC)) {
            maxRdAtomic = attr.maxRdAtomic();
        }
        if (has(mask, QpAttrMask.MAX_DEST_RD_ATOMIC)) {
            maxDestRdAtomic = attr.maxDestRdAtomic();
        }
        if (has(mask, QpAttrMask.RQ_PSN)) {
            expectedPsn = attr.rqPsn();
        }
        if (has(mask, QpAttrMask.SQ_PSN)) {
            nextPsn = attr.sqPsn();
            ackedPsn = Psn.add(nextPsn, -1);
        }
        switch (to) {
            case RESET -> {
                resetOnLoop();
                state = QpState.RESET;
            }
            case ERR -> enterError();
            case RTR -> {
                if (from == QpState.INIT) {
                    msn = 0;
                    sequenceNakSent = false;
                    inProgress = NONE;
                    ucDropping = false;
                    resources = new Resource[Math.max(1, maxDestRdAtomic)];
                    nextResource = 0;
                }
                state = to;
            }
            case RTS -> {
                if (from == QpState.RTR) {
                    retryLeft = retryCount;
                    rnrLeft = rnrRetry;
                    packetsSinceAckRequest = 0;
                }
                state = to;
                pump();
            }
            default -> state = to;
        }
    }

    private void resetOnLoop() {
        for (long i = head; i < tail; i++) {
            ring[slot(i)] = null;
        }
        head = tail = sendIndex = 0;
        sendPacket = 0;
        rdOutstanding = 0;
        rnrWaiting = false;
        if (rnrTimer != null) {
            rnrTimer.cancel();
            rnrTimer = null;
        }
        timerActive = false;
        recvQueue.clear();
        currentRecv = null;
        inProgress = NONE;
        writeRegion = null;
        sendUsed.set(0);
        recvUsed.set(0);
        java.util.Arrays.fill(resources, null);
        lastGapRetryPsn = -1;
    }

    /** Moves the QP to ERR and flushes every outstanding work request (loop). */
    private void enterError() {
        if (state == QpState.ERR) {
            return;
        }
        state = QpState.ERR;
        synchronized (attributes) {
            attributes.state(QpState.ERR).currentState(QpState.ERR);
        }
        if (rnrTimer != null) {
            rnrTimer.cancel();
            rnrTimer = null;
        }
        rnrWaiting = false;
        timerActive = false;
        for (long i = head; i < tail; i++) {
            SendWqe wqe = ring[slot(i)];
            ring[slot(i)] = null;
            sendUsed.decrementAndGet();
            sendCq.push(WorkCompletion.error(wqe.wrId, WcStatus.WR_FLUSH_ERR, wqe.opcode.completionOpcode(), qpn), false);
        }
        head = tail;
        sendIndex = tail;
        rdOutstanding = 0;
        if (currentRecv != null) {
            flushRecv(currentRecv);
            currentRecv = null;
        }
        RecvWqe recv;
        while ((recv = recvQueue.poll()) != null) {
            flushRecv(recv);
        }
        inProgress = NONE;
    }

    private void flushRecv(RecvWqe recv) {
        recvUsed.decrementAndGet();
        recvCq.push(WorkCompletion.error(recv.wrId, WcStatus.WR_FLUSH_ERR, WcOpcode.RECV, qpn), false);
    }

    private int slot(long index) {
        return (int) (index % ring.length);
    }

    // =========================================================================================
    // Loop: requester
    // =========================================================================================

    private void enqueueSends(List<SendWqe> wqes) {
        for (SendWqe wqe : wqes) {
            if (state == QpState.ERR || isClosed()) {
                sendUsed.decrementAndGet();
                sendCq.push(WorkCompletion.error(wqe.wrId, WcStatus.WR_FLUSH_ERR, wqe.opcode.completionOpcode(), qpn), false);
                continue;
            }
            ring[slot(tail)] = wqe;
            tail++;
        }
        pump();
    }

    /** Sends what the window, the READ/atomic limit and the state allow. */
    private void pump() {
        if (state != QpState.RTS || rnrWaiting) {
            return;
        }
        while (sendIndex < tail) {
            SendWqe wqe = ring[slot(sendIndex)];
            if (!wqe.started) {
                if (wqe.done) {
                    break;
                }
                if (wqe.readOrAtomic() && rdOutstanding >= maxRdAtomic) {
                    break;
                }
                if (SendFlag.has(wqe.flags, SendFlag.FENCE) && rdOutstanding > 0) {
                    break;
                }
                WcStatus local = resolveLocal(wqe);
                if (local != null) {
                    wqe.done = true;
                    wqe.status = local;
                    retire();
                    return;
                }
                wqe.started = true;
                wqe.firstPsn = nextPsn;
                wqe.psnCount = wqe.opcode == WrOpcode.RDMA_READ || !wqe.readOrAtomic()
                        ? Math.max(1, (int) ((wqe.length + mtu - 1) / mtu)) : 1;
                wqe.readPsn = wqe.firstPsn;
                nextPsn = Psn.add(nextPsn, wqe.psnCount);
                if (wqe.readOrAtomic()) {
                    rdOutstanding++;
                }
                transport.count(Counter.RDMA_SENDS);
                sendPacket = 0;
            }
            int psn = Psn.add(wqe.firstPsn, sendPacket);
            if (type == QpType.RC && Psn.diff(psn, ackedPsn) > MAX_UNACKED_PSNS) {
                break;
            }
            sendRequest(wqe, sendPacket);
            if (type == QpType.RC) {
                startTimer();
            }
            if (wqe.readOrAtomic()) {
                sendIndex++;
                sendPacket = 0;
            } else if (++sendPacket >= wqe.psnCount) {
                sendIndex++;
                sendPacket = 0;
                if (type == QpType.UC) {
                    wqe.done = true;
                    wqe.status = WcStatus.SUCCESS;
                    retire();
                    if (state != QpState.RTS) {
                        return;
                    }
                }
            }
        }
    }

    /** Checks the gather list as the requester reads it: null when usable, else the local error. */
    private WcStatus resolveLocal(SendWqe wqe) {
        if (wqe.length > SoftRoceProfile.MAX_MESSAGE_SIZE) {
            return WcStatus.LOC_LEN_ERR;
        }
        if (wqe.inline != null) {
            return null;
        }
        int count = wqe.sges.size();
        wqe.regions = new SoftMemoryRegion[count];
        wqe.offsets = new int[count];
        wqe.lengths = new int[count];
        boolean needsWrite = wqe.readOrAtomic();
        for (int i = 0; i < count; i++) {
            ScatterGatherElement sge = wqe.sges.get(i);
            wqe.lengths[i] = sge.length();
            if (sge.length() == 0) {
                continue;
            }
            SoftMemoryRegion region = context.regionByKey(sge.lkey());
            if (region == null || region.softPd() != pd || !region.contains(sge.address(), Integer.toUnsignedLong(sge.length()))
                    || (needsWrite && !region.allows(AccessFlag.LOCAL_WRITE))) {
                return WcStatus.LOC_PROT_ERR;
            }
            wqe.regions[i] = region;
            wqe.offsets[i] = region.offsetOf(sge.address());
        }
        return null;
    }

    private Opcode opcode(Opcode rc) {
        return type == QpType.UC ? Opcode.of(rc.value() | Opcode.UC_BASE) : rc;
    }

    private void sendRequest(SendWqe wqe, int packet) {
        int psn = Psn.add(wqe.firstPsn, packet);
        ByteBuffer out = transport.packetBuffer();
        switch (wqe.opcode) {
            case RDMA_READ -> {
                long offset = (long) packet * mtu;
                wqe.requestPsn = psn;
                packetsSinceAckRequest = 0;
                Reth reth = new Reth(wqe.remoteAddress + offset, wqe.rkey, (int) (wqe.length - offset));
                RocePacketEncoder.encode(out, Opcode.RC_RDMA_READ_REQUEST, destQpn, psn, true, false, reth, null, null,
                        null, 0, null, 0, 0);
            }
            case ATOMIC_CMP_AND_SWP -> {
                packetsSinceAckRequest = 0;
                AtomicEth eth = new AtomicEth(wqe.remoteAddress, wqe.rkey, wqe.swap, wqe.compareAdd);
                RocePacketEncoder.encode(out, Opcode.RC_COMPARE_SWAP, destQpn, psn, true, false, null, null, eth, null,
                        0, null, 0, 0);
            }
            case ATOMIC_FETCH_AND_ADD -> {
                packetsSinceAckRequest = 0;
                AtomicEth eth = new AtomicEth(wqe.remoteAddress, wqe.rkey, wqe.compareAdd, 0);
                RocePacketEncoder.encode(out, Opcode.RC_FETCH_ADD, destQpn, psn, true, false, null, null, eth, null,
                        0, null, 0, 0);
            }
            default -> {
                boolean write = wqe.opcode == WrOpcode.RDMA_WRITE || wqe.opcode == WrOpcode.RDMA_WRITE_WITH_IMM;
                boolean imm = wqe.opcode.hasImmediate();
                boolean first = packet == 0;
                boolean last = packet == wqe.psnCount - 1;
                Opcode op;
                if (first && last) {
                    op = write ? (imm ? Opcode.RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE : Opcode.RC_RDMA_WRITE_ONLY)
                            : (imm ? Opcode.RC_SEND_ONLY_WITH_IMMEDIATE : Opcode.RC_SEND_ONLY);
                } else if (first) {
                    op = write ? Opcode.RC_RDMA_WRITE_FIRST : Opcode.RC_SEND_FIRST;
                } else if (last) {
                    op = write ? (imm ? Opcode.RC_RDMA_WRITE_LAST_WITH_IMMEDIATE : Opcode.RC_RDMA_WRITE_LAST)
                            : (imm ? Opcode.RC_SEND_LAST_WITH_IMMEDIATE : Opcode.RC_SEND_LAST);
                } else {
                    op = write ? Opcode.RC_RDMA_WRITE_MIDDLE : Opcode.RC_SEND_MIDDLE;
                }
                Reth reth = write && first ? new Reth(wqe.remoteAddress, wqe.rkey, (int) wqe.length) : null;
                boolean ackRequest = last || packetsSinceAckRequest++ > MAX_PACKETS_PER_ACK;
                if (ackRequest) {
                    packetsSinceAckRequest = 0;
                }
                int offset = packet * mtu;
                int length = (int) Math.min(mtu, wqe.length - offset);
                byte[] data = gather(wqe, offset, length);
                boolean solicited = last && SendFlag.has(wqe.flags, SendFlag.SOLICITED);
                RocePacketEncoder.encode(out, opcode(op), destQpn, psn, ackRequest, solicited, reth, null, null, null,
                        wqe.imm, data, gatherOffset, length);
            }
        }
        transport.transmit(peerIp, trafficClass, hopLimit);
    }

    /** The array holding bytes {@code [offset, offset + length)} of the message; sets {@link #gatherOffset}. */
    private byte[] gather(SendWqe wqe, int offset, int length) {
        if (length == 0) {
            gatherOffset = 0;
            return null;
        }
        if (wqe.inline != null) {
            gatherOffset = offset;
            return wqe.inline;
        }
        int start = 0;
        for (int i = 0; i < wqe.lengths.length; i++) {
            int segment = wqe.lengths[i];
            if (offset < start + segment) {
                int within = offset - start;
                if (within + length <= segment) {
                    gatherOffset = wqe.offsets[i] + within;
                    return wqe.regions[i].memory();
                }
                break;
            }
            start += segment;
        }
        byte[] scratch = transport.scratch();
        copy(wqe.regions, wqe.offsets, wqe.lengths, offset, scratch, 0, length, false);
        gatherOffset = 0;
        return scratch;
    }

    /** Copies between a message's byte range and an array: into the SGEs when {@code toSges}. */
    private static void copy(SoftMemoryRegion[] regions, int[] offsets, int[] lengths, long messageOffset, byte[] array,
                             int arrayOffset, int length, boolean toSges) {
        long start = 0;
        int remaining = length;
        for (int i = 0; i < lengths.length && remaining > 0; i++) {
            long segmentEnd = start + lengths[i];
            if (messageOffset < segmentEnd) {
                int within = (int) (messageOffset - start);
                int chunk = (int) Math.min(remaining, lengths[i] - within);
                if (toSges) {
                    System.arraycopy(array, arrayOffset, regions[i].memory(), offsets[i] + within, chunk);
                } else {
                    System.arraycopy(regions[i].memory(), offsets[i] + within, array, arrayOffset, chunk);
                }
                arrayOffset += chunk;
                messageOffset += chunk;
                remaining -= chunk;
            }
            start = segmentEnd;
        }
    }

    private boolean outstanding() {
        return head < tail && ring[slot(head)].started;
    }

    private void startTimer() {
        if (ackTimeoutNanos == 0 || timerActive) {
            return;
        }
        timerActive = true;
        retransmitDeadline = loop.nanoTime() + ackTimeoutNanos;
        scheduleTimer(ackTimeoutNanos);
    }

    private void restartTimer() {
        if (ackTimeoutNanos == 0) {
            return;
        }
        if (!outstanding()) {
            timerActive = false;
            return;
        }
        timerActive = true;
        retransmitDeadline = loop.nanoTime() + ackTimeoutNanos;
        scheduleTimer(ackTimeoutNanos);
    }

    private void scheduleTimer(long delay) {
        if (!timerScheduled) {
            timerScheduled = true;
            loop.schedule(delay, this::onTimer);
        }
    }

    private void onTimer() {
        timerScheduled = false;
        if (!timerActive || (state != QpState.RTS && state != QpState.SQD) || isClosed()) {
            return;
        }
        if (!outstanding()) {
            timerActive = false;
            return;
        }
        long now = loop.nanoTime();
        if (rnrWaiting || retransmitDeadline - now > 0) {
            scheduleTimer(rnrWaiting ? ackTimeoutNanos : retransmitDeadline - now);
            return;
        }
        retry();
    }

    /** Go-back-N from the oldest unacknowledged PSN, counting against retry_cnt. */
    private void retry() {
        if (retryLeft == 0) {
            transport.count(Counter.RETRY_EXCEEDED_ERR);
            failHead(WcStatus.RETRY_EXC_ERR);
            return;
        }
        retryLeft--;
        transport.count(Counter.COMPLETER_RETRY_ERR);
        rewind(Psn.add(ackedPsn, 1));
        timerActive = false;
        startTimer();
        pump();
    }

    private void failHead(WcStatus status) {
        if (head < tail) {
            SendWqe wqe = ring[slot(head)];
            wqe.done = true;
            wqe.status = status;
            retire();
        }
    }

    /** Points the sender back at {@code psn}. */
    private void rewind(int psn) {
        for (long i = head; i < tail; i++) {
            SendWqe wqe = ring[slot(i)];
            if (!wqe.started) {
                sendIndex = i;
                sendPacket = 0;
                return;
            }
            int last = Psn.add(wqe.firstPsn, wqe.psnCount - 1);
            if (Psn.diff(psn, last) <= 0) {
                sendIndex = i;
                if (wqe.opcode == WrOpcode.RDMA_READ) {
                    sendPacket = Psn.diff(wqe.readPsn, wqe.firstPsn);
                } else if (wqe.readOrAtomic()) {
                    sendPacket = 0;
                } else {
                    sendPacket = Math.max(0, Psn.diff(psn, wqe.firstPsn));
                }
                return;
            }
        }
        sendIndex = tail;
        sendPacket = 0;
    }

    /** Completes finished work requests from the head of the send queue, in order. */
    private void retire() {
        while (head < tail) {
            SendWqe wqe = ring[slot(head)];
            if (!wqe.done) {
                break;
            }
            ring[slot(head)] = null;
            head++;
            sendUsed.decrementAndGet();
            if (wqe.readOrAtomic() && wqe.started && wqe.status != WcStatus.SUCCESS) {
                rdOutstanding = Math.max(0, rdOutstanding - 1);
            }
            if (wqe.status == WcStatus.SUCCESS) {
                if (wqe.signaled) {
                    WorkCompletion completion = new WorkCompletion(wqe.wrId, WcStatus.SUCCESS,
                            wqe.opcode.completionOpcode(), 0, (int) wqe.length, 0, qpn, 0, 0);
                    if (!sendCq.push(completion, false)) {
                        enterError();
                        return;
                    }
                }
            } else {
                transport.count(Counter.SEND_ERR);
                sendCq.push(WorkCompletion.error(wqe.wrId, wqe.status, wqe.opcode.completionOpcode(), qpn), false);
                enterError();
                return;
            }
        }
        if (sendIndex < head) {
            sendIndex = head;
            sendPacket = 0;
        }
    }

    private void progress() {
        retryLeft = retryCount;
        rnrLeft = rnrRetry;
        lastGapRetryPsn = -1;
        restartTimer();
    }

    private void onResponse(RocePacket packet) {
        int psn = packet.bth().psn();
        Opcode op = packet.opcode();
        if (head == tail || Psn.diff(psn, Psn.add(nextPsn, -1)) > 0) {
            transport.count(Counter.RCVD_UNEXPECTED_RESPONSE);
            return;
        }
        if (op.isReadResponse()) {
            onReadResponse(packet, psn);
        } else if (op.hasAtomicAckEth()) {
            onAtomicAck(packet, psn);
        } else {
            onAcknowledge(packet.aeth(), psn);
        }
        if (state == QpState.RTS) {
            pump();
        }
    }

    private void onAcknowledge(Aeth aeth, int psn) {
        if (aeth.isAck()) {
            acknowledge(psn);
            return;
        }
        acknowledge(Psn.add(psn, -1));
        if (state == QpState.ERR || Psn.diff(psn, ackedPsn) <= 0 || head == tail) {
            return;
        }
        if (aeth.isRnrNak()) {
            onRnrNak(aeth.code());
            return;
        }
        switch (aeth.code()) {
            case Aeth.NAK_PSN_SEQUENCE_ERROR -> {
                transport.count(Counter.RCVD_SEQ_ERR);
                if (!rnrWaiting) {
                    retry();
                }
            }
            case Aeth.NAK_INVALID_REQUEST -> failHead(WcStatus.REM_INV_REQ_ERR);
            case Aeth.NAK_REMOTE_ACCESS_ERROR -> failHead(WcStatus.REM_ACCESS_ERR);
            case Aeth.NAK_REMOTE_OPERATIONAL_ERROR -> failHead(WcStatus.REM_OP_ERR);
            default -> failHead(WcStatus.BAD_RESP_ERR);
        }
    }

    /** Everything up to and including {@code psn} is acknowledged. */
    private void acknowledge(int psn) {
        if (Psn.diff(psn, ackedPsn) <= 0) {
            return;
        }
        while (head < tail) {
            SendWqe wqe = ring[slot(head)];
            if (!wqe.started) {
                break;
            }
            int last = Psn.add(wqe.firstPsn, wqe.psnCount - 1);
            if (Psn.diff(last, psn) > 0) {
                break;
            }
            if (wqe.readOrAtomic()) {
                // The responder went past a READ or atomic whose response never arrived: ask again.
                int resume = wqe.opcode == WrOpcode.RDMA_READ ? wqe.readPsn : wqe.firstPsn;
                ackedPsn = Psn.add(resume, -1);
                if (lastGapRetryPsn != resume) {
                    lastGapRetryPsn = resume;
                    retry();
                }
                return;
            }
            wqe.done = true;
            wqe.status = WcStatus.SUCCESS;
            ackedPsn = last;
            retire();
            if (state == QpState.ERR) {
                return;
            }
        }
        if (Psn.diff(psn, ackedPsn) > 0) {
            ackedPsn = psn;
        }
        progress();
    }

    /** Completes the SEND/WRITE requests a READ response or atomic ACK at {@code psn} implies. */
    private SendWqe implicitAcknowledge(int psn) {
        while (head < tail) {
            SendWqe wqe = ring[slot(head)];
            if (!wqe.started) {
                return null;
            }
            int last = Psn.add(wqe.firstPsn, wqe.psnCount - 1);
            if (!wqe.readOrAtomic() && Psn.diff(last, psn) < 0) {
                wqe.done = true;
                wqe.status = WcStatus.SUCCESS;
                ackedPsn = last;
                retire();
                if (state == QpState.ERR) {
                    return null;
                }
                continue;
            }
            return wqe;
        }
        return null;
    }

    private void onReadResponse(RocePacket packet, int psn) {
        SendWqe wqe = implicitAcknowledge(psn);
        if (wqe == null || wqe.opcode != WrOpcode.RDMA_READ || Psn.diff(psn, wqe.firstPsn) < 0
                || Psn.diff(psn, wqe.firstPsn) >= wqe.psnCount) {
            transport.count(Counter.RCVD_UNEXPECTED_RESPONSE);
            return;
        }
        int gap = Psn.diff(psn, wqe.readPsn);
        if (gap < 0) {
            transport.count(Counter.RCVD_UNEXPECTED_RESPONSE);
            return;
        }
        if (gap > 0) {
            if (lastGapRetryPsn != wqe.readPsn) {
                lastGapRetryPsn = wqe.readPsn;
                ackedPsn = Psn.add(wqe.readPsn, -1);
                retry();
            }
            return;
        }
        int index = Psn.diff(psn, wqe.firstPsn);
        long offset = (long) index * mtu;
        int expected = (int) Math.min(mtu, wqe.length - offset);
        Opcode op = packet.opcode();
        // Responses to a READ asked again from a later PSN start over with FIRST (or ONLY).
        int restart = Psn.diff(wqe.requestPsn, wqe.firstPsn);
        boolean rightOpcode = expectedOpcode(op, index, wqe.psnCount)
                || (restart > 0 && index >= restart && expectedOpcode(op, index - restart, wqe.psnCount - restart));
        if (!rightOpcode || packet.payloadLength() != expected) {
            transport.count(Counter.RCVD_UNEXPECTED_RESPONSE);
            return;
        }
        if (expected > 0) {
            copy(wqe.regions, wqe.offsets, wqe.lengths, offset, packet.buffer(), packet.payloadOffset(), expected, true);
        }
        wqe.readPsn = Psn.add(wqe.readPsn, 1);
        ackedPsn = psn;
        if (index == wqe.psnCount - 1) {
            wqe.done = true;
            wqe.status = WcStatus.SUCCESS;
            rdOutstanding--;
            retire();
        }
        progress();
    }

    private static boolean expectedOpcode(Opcode op, int index, int count) {
        return count == 1 ? op.isOnly() : index == 0 ? op.isFirst() : index == count - 1 ? op.isLast() : op.isMiddle();
    }

    private void onAtomicAck(RocePacket packet, int psn) {
        SendWqe wqe = implicitAcknowledge(psn);
        if (wqe == null || !wqe.readOrAtomic() || wqe.opcode == WrOpcode.RDMA_READ || wqe.firstPsn != psn || wqe.done) {
            transport.count(Counter.RCVD_UNEXPECTED_RESPONSE);
            return;
        }
        if (!packet.aeth().isAck()) {
            onAcknowledge(packet.aeth(), psn);
            return;
        }
        long original = packet.atomicAckEth().originalData();
        byte[] word = new byte[8];
        for (int i = 0; i < 8; i++) {
            word[i] = (byte) (original >>> (8 * i)); // host (little-endian) order in memory
        }
        copy(wqe.regions, wqe.offsets, wqe.lengths, 0, word, 0, 8, true);
        wqe.done = true;
        wqe.status = WcStatus.SUCCESS;
        ackedPsn = psn;
        rdOutstanding--;
        retire();
        progress();
    }

    private void onRnrNak(int timerCode) {
        transport.count(Counter.RCVD_RNR_ERR);
        if (rnrWaiting) {
            return;
        }
        if (rnrRetry != 7) {
            if (rnrLeft == 0) {
                transport.count(Counter.RETRY_RNR_EXCEEDED_ERR);
                failHead(WcStatus.RNR_RETRY_EXC_ERR);
                return;
            }
            rnrLeft--;
        }
        rnrWaiting = true;
        rnrTimer = loop.schedule(RnrTimer.nanos(timerCode), () -> {
            rnrTimer = null;
            rnrWaiting = false;
            if (state == QpState.RTS) {
                rewind(Psn.add(ackedPsn, 1));
                timerActive = false;
                startTimer();
                pump();
            }
        });
    }

    // =========================================================================================
    // Loop: receiving
    // =========================================================================================

    /** Why a packet is refused before any protocol processing, or null (loop). */
    String accepts(RocePacket packet, int sourceIp) {
        Opcode op = packet.opcode();
        if (sourceIp != peerIp) {
            transport.count(Counter.RCVD_WRONG_PEER);
            return "not from the QP's connected peer " + (peerIp == 0 ? "(none yet)" : SoftTransport.address(peerIp, 0));
        }
        if ((type == QpType.RC) != op.isRc()) {
            transport.count(Counter.RCVD_MALFORMED);
            return "an opcode of another transport than the QP's " + type;
        }
        boolean ready = op.isRequest()
                ? state == QpState.RTR || state == QpState.RTS || state == QpState.SQD || state == QpState.SQE
                : state == QpState.RTS || state == QpState.SQD || state == QpState.SQE;
        if (!ready) {
            transport.count(Counter.RCVD_QP_NOT_READY);
            return "QP is in " + state;
        }
        return null;
    }

    /** Handles a packet that passed {@link #accepts} (loop). */
    void receive(RocePacket packet) {
        if (packet.opcode().isRequest()) {
            if (type == QpType.UC) {
                onUcRequest(packet);
            } else {
                onRequest(packet);
            }
        } else if (type == QpType.RC) {
            onResponse(packet);
        }
    }

    private void enqueueRecvs(List<RecvWqe> wqes) {
        for (RecvWqe wqe : wqes) {
            if (state == QpState.ERR || isClosed()) {
                flushRecv(wqe);
            } else {
                recvQueue.add(wqe);
            }
        }
    }

    // =========================================================================================
    // Loop: responder
    // =========================================================================================

    private void onRequest(RocePacket packet) {
        int psn = packet.bth().psn();
        int distance = Psn.diff(psn, expectedPsn);
        if (distance > 0) {
            transport.count(Counter.OUT_OF_SEQ_REQUEST);
            if (!sequenceNakSent) {
                sequenceNakSent = true;
                sendAcknowledge(Aeth.nak(Aeth.NAK_PSN_SEQUENCE_ERROR, msn), expectedPsn);
            }
            return;
        }
        if (distance < 0) {
            transport.count(Counter.DUPLICATE_REQUEST);
            onDuplicate(packet, psn);
            return;
        }
        sequenceNakSent = false;
        execute(packet, psn, false);
    }

    private void onDuplicate(RocePacket packet, int psn) {
        Opcode op = packet.opcode();
        if (op.isSend() || op.isWrite()) {
            sendAcknowledge(Aeth.ack(msn), Psn.add(expectedPsn, -1));
            return;
        }
        Resource resource = findResource(psn, op.isReadRequest());
        if (resource == null) {
            return;
        }
        if (op.isReadRequest()) {
            Reth reth = packet.reth();
            long length = reth.dmaLengthUnsigned();
            SoftMemoryRegion region = length == 0 ? null : remoteRegion(reth.rkey(), reth.virtualAddress(), length,
                    AccessFlag.REMOTE_READ);
            if (length != 0 && region == null) {
                return;
            }
            sendReadResponses(psn, region, reth.virtualAddress(), length);
        } else {
            sendAtomicAcknowledge(psn, resource.original);
        }
    }

    private Resource findResource(int psn, boolean read) {
        for (Resource resource : resources) {
            if (resource != null && resource.read == read && Psn.diff(psn, resource.firstPsn) >= 0
                    && Psn.diff(psn, resource.firstPsn) < resource.psnCount) {
                return resource;
            }
        }
        return null;
    }

    private SoftMemoryRegion remoteRegion(int rkey, long address, long length, AccessFlag right) {
        SoftMemoryRegion region = context.regionByKey(rkey);
        if (region == null || region.softPd() != pd || !region.allows(right) || !region.contains(address, length)) {
            return null;
        }
        return region;
    }

    /** Executes the request with the expected PSN; {@code uc} suppresses every ACK and NAK. */
    private void execute(RocePacket packet, int psn, boolean uc) {
        Opcode op = packet.opcode();
        int payload = packet.payloadLength();
        if (op.isMiddle() || op.isLast()) {
            if ((op.isSend() && inProgress != IN_SEND) || (op.isWrite() && inProgress != IN_WRITE)) {
                responderError(psn, Aeth.NAK_INVALID_REQUEST, null, uc);
                return;
            }
        } else if (inProgress != NONE) {
            responderError(psn, Aeth.NAK_INVALID_REQUEST, WcStatus.REM_INV_REQ_ERR, uc);
            return;
        }
        if ((op.isWrite() && !AccessFlag.has(qpAccess, AccessFlag.REMOTE_WRITE))
                || (op.isReadRequest() && !AccessFlag.has(qpAccess, AccessFlag.REMOTE_READ))
                || (op.isAtomic() && !AccessFlag.has(qpAccess, AccessFlag.REMOTE_ATOMIC))) {
            responderError(psn, Aeth.NAK_INVALID_REQUEST, null, uc);
            return;
        }
        if (payload > mtu || ((op.isFirst() || op.isMiddle()) && payload != mtu)) {
            responderError(psn, Aeth.NAK_INVALID_REQUEST, WcStatus.LOC_LEN_ERR, uc);
            return;
        }
        if (op.isReadRequest()) {
            executeRead(packet, psn, uc);
            return;
        }
        if (op.isAtomic()) {
            executeAtomic(packet, psn, uc);
            return;
        }
        if (op.isSend()) {
            if (!executeSend(packet, psn, uc)) {
                return;
            }
        } else if (!executeWrite(packet, psn, uc)) {
            return;
        }
        expectedPsn = Psn.add(expectedPsn, 1);
        if (!uc && packet.bth().ackRequest()) {
            sendAcknowledge(Aeth.ack(msn), psn);
        }
    }

    private boolean takeReceive(int psn, boolean uc) {
        if (currentRecv != null) {
            return true;
        }
        currentRecv = recvQueue.poll();
        if (currentRecv == null) {
            if (!uc) {
                transport.count(Counter.SEND_RNR_ERR);
                sendAcknowledge(Aeth.rnrNak(minRnrTimer, msn), psn);
            }
            return false;
        }
        recvOffset = 0;
        return true;
    }

    private boolean executeSend(RocePacket packet, int psn, boolean uc) {
        Opcode op = packet.opcode();
        if (!takeReceive(psn, uc)) {
            return false;
        }
        RecvWqe recv = currentRecv;
        int payload = packet.payloadLength();
        if ((long) recvOffset + payload > recv.capacity) {
            responderError(psn, Aeth.NAK_INVALID_REQUEST, WcStatus.LOC_LEN_ERR, uc);
            return false;
        }
        if (!recv.resolve(context, pd)) {
            responderError(psn, Aeth.NAK_REMOTE_OPERATIONAL_ERROR, WcStatus.LOC_PROT_ERR, uc);
            return false;
        }
        if (payload > 0) {
            copy(recv.regions, recv.offsets, recv.lengths, recvOffset, packet.buffer(), packet.payloadOffset(), payload, true);
        }
        recvOffset += payload;
        if (op.isLast() || op.isOnly()) {
            boolean imm = packet.hasImmDt();
            WorkCompletion completion = new WorkCompletion(recv.wrId, WcStatus.SUCCESS, WcOpcode.RECV, 0, recvOffset,
                    imm ? packet.immDt() : 0, qpn, destQpn, imm ? WcFlag.WITH_IMM.value() : 0);
            completeMessage(completion, packet.bth().solicitedEvent());
        } else {
            inProgress = IN_SEND;
        }
        return true;
    }

    private void completeMessage(WorkCompletion completion, boolean solicited) {
        currentRecv = null;
        inProgress = NONE;
        recvUsed.decrementAndGet();
        msn = Psn.add(msn, 1);
        transport.count(Counter.RDMA_RECVS);
        if (!recvCq.push(completion, solicited)) {
            enterError();
        }
    }

    private boolean executeWrite(RocePacket packet, int psn, boolean uc) {
        Opcode op = packet.opcode();
        int payload = packet.payloadLength();
        boolean ends = op.isLast() || op.isOnly();
        if (op.hasImmDt() && ends && !takeReceive(psn, uc)) {
            return false;
        }
        if (op.isFirst() || op.isOnly()) {
            Reth reth = packet.reth();
            long length = reth.dmaLengthUnsigned();
            SoftMemoryRegion region = null;
            if (length > 0) {
                region = remoteRegion(reth.rkey(), reth.virtualAddress(), length, AccessFlag.REMOTE_WRITE);
                if (region == null) {
                    responderError(psn, Aeth.NAK_REMOTE_ACCESS_ERROR, null, uc);
                    return false;
                }
            }
            writeRegion = region;
            writeAddress = reth.virtualAddress();
            writeRemaining = length;
            writeLength = length;
        }
        if (payload > writeRemaining || (ends && payload != writeRemaining)) {
            responderError(psn, Aeth.NAK_INVALID_REQUEST, null, uc);
            return false;
        }
        if (payload > 0) {
            System.arraycopy(packet.buffer(), packet.payloadOffset(), writeRegion.memory(),
                    writeRegion.offsetOf(writeAddress), payload);
        }
        writeAddress += payload;
        writeRemaining -= payload;
        if (ends) {
            writeRegion = null;
            if (op.hasImmDt()) {
                WorkCompletion completion = new WorkCompletion(currentRecv.wrId, WcStatus.SUCCESS,
                        WcOpcode.RECV_RDMA_WITH_IMM, 0, (int) writeLength, packet.immDt(), qpn, destQpn,
                        WcFlag.WITH_IMM.value());
                completeMessage(completion, packet.bth().solicitedEvent());
            } else {
                inProgress = NONE;
                msn = Psn.add(msn, 1);
                transport.count(Counter.RDMA_RECVS);
            }
        } else {
            inProgress = IN_WRITE;
        }
        return true;
    }

    private void executeRead(RocePacket packet, int psn, boolean uc) {
        Reth reth = packet.reth();
        long length = reth.dmaLengthUnsigned();
        SoftMemoryRegion region = null;
        if (length > 0) {
            region = remoteRegion(reth.rkey(), reth.virtualAddress(), length, AccessFlag.REMOTE_READ);
            if (region == null) {
                responderError(psn, Aeth.NAK_REMOTE_ACCESS_ERROR, null, uc);
                return;
            }
        }
        int count = Math.max(1, (int) ((length + mtu - 1) / mtu));
        saveResource(new Resource(true, psn, count, 0));
        expectedPsn = Psn.add(expectedPsn, count);
        msn = Psn.add(msn, 1);
        transport.count(Counter.RDMA_RECVS);
        sendReadResponses(psn, region, reth.virtualAddress(), length);
    }

    private void executeAtomic(RocePacket packet, int psn, boolean uc) {
        AtomicEth eth = packet.atomicEth();
        if ((eth.virtualAddress() & 7) != 0) {
            responderError(psn, Aeth.NAK_INVALID_REQUEST, null, uc);
            return;
        }
        SoftMemoryRegion region = remoteRegion(eth.rkey(), eth.virtualAddress(), 8, AccessFlag.REMOTE_ATOMIC);
        if (region == null) {
            responderError(psn, Aeth.NAK_REMOTE_ACCESS_ERROR, null, uc);
            return;
        }
        long original = packet.opcode() == Opcode.RC_COMPARE_SWAP
                ? region.compareSwap(eth.virtualAddress(), eth.compare(), eth.swapOrAdd())
                : region.fetchAdd(eth.virtualAddress(), eth.swapOrAdd());
        saveResource(new Resource(false, psn, 1, original));
        expectedPsn = Psn.add(expectedPsn, 1);
        msn = Psn.add(msn, 1);
        transport.count(Counter.RDMA_RECVS);
        sendAtomicAcknowledge(psn, original);
    }

    private void saveResource(Resource resource) {
        resources[nextResource] = resource;
        nextResource = (nextResource + 1) % resources.length;
    }

    private void sendReadResponses(int firstPsn, SoftMemoryRegion region, long address, long length) {
        int count = Math.max(1, (int) ((length + mtu - 1) / mtu));
        for (int i = 0; i < count; i++) {
            Opcode op = count == 1 ? Opcode.RC_RDMA_READ_RESPONSE_ONLY : i == 0 ? Opcode.RC_RDMA_READ_RESPONSE_FIRST
                    : i == count - 1 ? Opcode.RC_RDMA_READ_RESPONSE_LAST : Opcode.RC_RDMA_READ_RESPONSE_MIDDLE;
            int chunk = (int) Math.min(mtu, length - (long) i * mtu);
            Aeth aeth = op.hasAeth() ? Aeth.ack(msn) : null;
            ByteBuffer out = transport.packetBuffer();
            RocePacketEncoder.encode(out, op, destQpn, Psn.add(firstPsn, i), false, false, null, aeth, null, null, 0,
                    chunk == 0 ? null : region.memory(), chunk == 0 ? 0 : region.offsetOf(address + (long) i * mtu), chunk);
            transport.transmit(peerIp, trafficClass, hopLimit);
        }
    }

    private void sendAtomicAcknowledge(int psn, long original) {
        ByteBuffer out = transport.packetBuffer();
        RocePacketEncoder.encode(out, Opcode.RC_ATOMIC_ACKNOWLEDGE, destQpn, psn, false, false, null, Aeth.ack(msn), null,
                new AtomicAckEth(original), 0, null, 0, 0);
        transport.transmit(peerIp, trafficClass, hopLimit);
    }

    private void sendAcknowledge(Aeth aeth, int psn) {
        ByteBuffer out = transport.packetBuffer();
        RocePacketEncoder.encode(out, Opcode.RC_ACKNOWLEDGE, destQpn, psn, false, false, null, aeth, null, null, 0,
                null, 0, 0);
        transport.transmit(peerIp, trafficClass, hopLimit);
    }

    /**
     * A request the responder cannot execute: complete the receive in use with {@code recvStatus}
     * (when there is one), move the QP to ERR and NAK with {@code code} (rxe's responder). On UC
     * the packet is silently dropped and the message abandoned.
     */
    private void responderError(int psn, int code, WcStatus recvStatus, boolean uc) {
        if (uc) {
            inProgress = NONE;
            ucDropping = true;
            return;
        }
        if (currentRecv != null && recvStatus != null) {
            RecvWqe recv = currentRecv;
            currentRecv = null;
            recvUsed.decrementAndGet();
            transport.count(Counter.SEND_ERR);
            recvCq.push(WorkCompletion.error(recv.wrId, recvStatus, WcOpcode.RECV, qpn), false);
        }
        enterError();
        // The NAK leaves last: once the requester sees its error, this QP is already in ERR.
        sendAcknowledge(Aeth.nak(code, msn), psn);
    }

    /** UC: no ACKs; a PSN gap abandons the message in progress and waits for the next FIRST or ONLY. */
    private void onUcRequest(RocePacket packet) {
        int psn = packet.bth().psn();
        Opcode op = packet.opcode();
        if (psn != expectedPsn) {
            transport.count(Counter.OUT_OF_SEQ_REQUEST);
            inProgress = NONE;
            ucDropping = true;
            writeRegion = null;
        }
        expectedPsn = Psn.add(psn, 1);
        if (ucDropping) {
            if (!(op.isFirst() || op.isOnly())) {
                return;
            }
            ucDropping = false;
            if (currentRecv != null) {
                recvOffset = 0;
            }
        }
        int before = expectedPsn;
        expectedPsn = psn;
        execute(packet, psn, true);
        expectedPsn = before;
    }

    // =========================================================================================
    // Work queue entries
    // =========================================================================================

    /** A posted send work request and its progress (loop after posting). */
    static final class SendWqe {
        final long wrId;
        final WrOpcode opcode;
        final int flags;
        final boolean signaled;
        final int imm;
        final long remoteAddress;
        final int rkey;
        final long compareAdd;
        final long swap;
        final List<ScatterGatherElement> sges;
        final byte[] inline;
        final long length;
        SoftMemoryRegion[] regions;
        int[] offsets;
        int[] lengths;
        boolean started;
        boolean done;
        WcStatus status;
        int firstPsn;
        int psnCount;
        int readPsn;
        int requestPsn;

        SendWqe(SendWorkRequest request, boolean signaled, byte[] inline, long length) {
            this.wrId = request.wrId();
            this.opcode = request.opcode();
            this.flags = request.sendFlags();
            this.signaled = signaled;
            this.imm = request.immData();
            this.remoteAddress = request.remoteAddress();
            this.rkey = request.rkey();
            this.compareAdd = request.compareAdd();
            this.swap = request.swap();
            this.sges = request.sgList();
            this.inline = inline;
            this.length = length;
        }

        boolean readOrAtomic() {
            return opcode == WrOpcode.RDMA_READ || opcode == WrOpcode.ATOMIC_CMP_AND_SWP
                    || opcode == WrOpcode.ATOMIC_FETCH_AND_ADD;
        }
    }

    /** A posted receive. */
    static final class RecvWqe {
        final long wrId;
        final List<ScatterGatherElement> sges;
        final long capacity;
        SoftMemoryRegion[] regions;
        int[] offsets;
        int[] lengths;
        private Boolean valid;

        RecvWqe(ReceiveWorkRequest request) {
            this.wrId = request.wrId();
            this.sges = request.sgList();
            this.capacity = request.totalLength();
        }

        /** Checks the scatter list once: lkeys of this PD with LOCAL_WRITE, ranges inside. */
        boolean resolve(SoftRoceContext context, SoftProtectionDomain pd) {
            if (valid != null) {
                return valid;
            }
            int count = sges.size();
            regions = new SoftMemoryRegion[count];
            offsets = new int[count];
            lengths = new int[count];
            valid = true;
            for (int i = 0; i < count; i++) {
                ScatterGatherElement sge = sges.get(i);
                lengths[i] = sge.length();
                if (sge.length() == 0) {
                    continue;
                }
                SoftMemoryRegion region = context.regionByKey(sge.lkey());
                if (region == null || region.softPd() != pd || !region.allows(AccessFlag.LOCAL_WRITE)
                        || !region.contains(sge.address(), Integer.toUnsignedLong(sge.length()))) {
                    valid = false;
                    return false;
                }
                regions[i] = region;
                offsets[i] = region.offsetOf(sge.address());
            }
            return true;
        }
    }

    /** A READ or atomic the responder executed, kept to answer duplicates. */
    private record Resource(boolean read, int firstPsn, int psnCount, long original) {
    }
}
