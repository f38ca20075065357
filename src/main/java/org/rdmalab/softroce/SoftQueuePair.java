package org.rdmalab.softroce;

import static org.rdmalab.softroce.QpAttributeChecks.has;

import java.time.Duration;
import java.util.List;
import org.rdmalab.softroce.net.LoopTask;
import org.rdmalab.wire.Opcode;
import org.rdmalab.wire.RocePacket;
import org.rdmalab.verbs.CompletionQueue;
import org.rdmalab.verbs.Errno;
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

    private final QpCapabilities capabilities;
    private final boolean sqSigAll;
    private final QpAttributeRecord attributes;
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
        this.attributes = new QpAttributeRecord(capabilities);
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
        SoftCompletionQueue sendCq = QpAttributeChecks.ownCq(context, init.sendCq(), "send_cq");
        SoftCompletionQueue recvCq = QpAttributeChecks.ownCq(context, init.recvCq(), "recv_cq");
        QpCapabilities cap = init.capabilities();
        QpAttributeChecks.checkCapabilities(cap);
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
     * the mask names ({@link QpAttributeChecks}), then applies them on the transport loop and
     * records them for {@link #query}. Every refusal is EINVAL with a sentence naming the attribute.
     */
    @Override
    public void modify(QpAttributes requested, int mask) throws VerbsException {
        ensureOpen();
        String verb = "ibv_modify_qp";
        QpAttributes attr = requested.copy();
        synchronized (modifyLock) {
            QpState current = config.state;
            QpState target = QpAttributeChecks.checkTransition(config.type, current, attr, mask);
            int newPeer = QpAttributeChecks.checkValues(config.context.softDevice().profile(), attr, mask);
            config.loop.call(verb, LOOP_TIMEOUT, () -> {
                apply(attr, mask, current, target, newPeer);
                return null;
            });
            attributes.record(attr, mask, target);
        }
    }

    /** {@code ibv_query_qp} (rxe: {@code rxe_query_qp}, {@code rxe_qp_to_attr}): every attribute as last set, now. */
    @Override
    public QpAttributes query(int mask) {
        ensureOpen();
        return attributes.now(config);
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
        attributes.enteredError();
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
        } catch (org.rdmalab.wire.MalformedPacketException e) {
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
