package org.rdmalab.softroce;

import java.nio.ByteBuffer;
import org.rdmalab.wire.Aeth;
import org.rdmalab.wire.AtomicAckEth;
import org.rdmalab.wire.AtomicEth;
import org.rdmalab.wire.Opcode;
import org.rdmalab.wire.Psn;
import org.rdmalab.wire.RocePacket;
import org.rdmalab.wire.RocePacketEncoder;
import org.rdmalab.verbs.AccessFlag;
import org.rdmalab.verbs.QpState;
import org.rdmalab.verbs.WcFlag;
import org.rdmalab.verbs.WcOpcode;
import org.rdmalab.verbs.WcStatus;
import org.rdmalab.verbs.WorkCompletion;

/**
 * The responder of a queue pair: executes incoming requests and answers them with ACKs, NAKs,
 * RNR NAKs, READ responses and atomic ACKs. It corresponds to rxe's {@code rxe_resp.c}; a request
 * runs through states named as rxe's {@code enum resp_states} ({@link State}), and each method
 * names the rxe function it stands for.
 *
 * <p>It owns the receive side (rxe's {@code qp->resp}): the expected PSN ({@code resp.psn}), the
 * message sequence number ({@code resp.msn}), whether a sequence NAK was sent
 * ({@code resp.sent_psn_nak}), the message in progress and its receive ({@code resp.opcode},
 * {@code resp.wqe}), the WRITE target ({@code resp.mr}, {@code resp.va}, {@code resp.resid}),
 * UC's dropped message ({@code resp.drop_msg}) and the saved READ/atomic resources
 * ({@code resp.resources}), and it consumes the receive queue ({@link WorkQueue}).
 *
 * <p>Threads: the transport loop only.
 */
final class Responder {

    /** rxe's {@code enum resp_states}; the states a request passes through here. */
    enum State {
        /** Within, ahead of or behind the expected PSN ({@code check_psn}). */
        RESPST_CHK_PSN,
        /** Does the opcode continue the message in progress ({@code check_op_seq})? */
        RESPST_CHK_OP_SEQ,
        /** Does the QP allow the operation ({@code check_op_valid})? */
        RESPST_CHK_OP_VALID,
        /** May a READ or atomic be answered: not with max_dest_rd_atomic 0 ({@code check_resource}). */
        RESPST_CHK_RESOURCE,
        /** Is the payload as long as its position requires ({@code rxe_resp_check_length})? */
        RESPST_CHK_LENGTH,
        /** SEND and WRITE data placed ({@code execute}, {@code send_data_in}, {@code write_data_in}). */
        RESPST_EXECUTE,
        /** A READ answered ({@code read_reply}). */
        RESPST_READ_REPLY,
        /** An atomic executed and answered ({@code atomic_reply}). */
        RESPST_ATOMIC_REPLY,
        /** The PSN advances and an ACK goes out when asked for ({@code acknowledge}, {@code send_ack}). */
        RESPST_ACKNOWLEDGE,
        /** An earlier PSN again ({@code duplicate_request}). */
        RESPST_DUPLICATE_REQUEST,
        /** A later PSN: one sequence NAK, then drop until the expected one. */
        RESPST_ERR_PSN_OUT_OF_SEQ,
        /** Done with this packet. */
        RESPST_DONE
    }

    private static final int NONE = 0;
    private static final int IN_SEND = 1;
    private static final int IN_WRITE = 2;

    private final QpConfig config;
    private final WorkQueue<RecvWqe> receiveQueue;

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
    private Resource[] resources = newResources(1);
    private int nextResource;
    // The READ being answered (rxe's qp->resp.res while read_reply runs): its responses go out a
    // few at a time, as the socket takes them.
    private boolean replying;
    private boolean replyScheduled;
    private SoftMemoryRegion replyRegion;
    private int replyFirstPsn;
    private boolean replyFromStart;
    private int replyCount;
    private int replyNext;
    private long replyAddress;
    private long replyLength;

    Responder(QpConfig config, WorkQueue<RecvWqe> receiveQueue) {
        this.config = config;
        this.receiveQueue = receiveQueue;
    }

    /** {@code rq_psn} applied by {@code ibv_modify_qp}. */
    void setPsn(int rqPsn) {
        expectedPsn = rqPsn;
    }

    /** INIT to RTR: a fresh message sequence and {@code max_dest_rd_atomic} resource slots. */
    void start() {
        msn = 0;
        sequenceNakSent = false;
        inProgress = NONE;
        ucDropping = false;
        resources = newResources(Math.max(1, config.maxDestRdAtomic));
        nextResource = 0;
    }

    /** Back to the initial state (reset): no receive, no message, no resource. */
    void reset() {
        receiveQueue.clear();
        currentRecv = null;
        inProgress = NONE;
        writeRegion = null;
        for (Resource resource : resources) {
            resource.clear();
        }
        stopReadReply();
    }

    /** The QP goes to ERR: the receive in use and every posted one complete with a flush error. */
    void flush() {
        currentRecv = null; // the queue's head: flushed first below
        while (receiveQueue.peek() != null) {
            flushHead();
        }
        inProgress = NONE;
        stopReadReply();
    }

    /** The head receive's slot is freed, then it completes with a flush error. */
    private void flushHead() {
        long wrId = receiveQueue.peek().wrId;
        receiveQueue.removeHead();
        config.recvCq.pushError(wrId, WcStatus.WR_FLUSH_ERR, WcOpcode.RECV, config.qpn);
    }

    /**
     * Posted receives reach the receive queue ({@code rxe_post_recv}): every receive posted so far
     * is taken in, in posting order; in ERR each is flushed. Receives posted before a reset that
     * has happened since are not there any more: the reset emptied the ring they were in, as rxe's
     * does. This is the loop's half of every receive post, one pre-made task ({@link SoftQueuePair}).
     */
    void admitPosted() {
        while (receiveQueue.hasPosted()) {
            if (config.closed() && config.state != QpState.ERR) {
                // The QP is being destroyed: its reset, coming next on the loop, drops every
                // receive without a completion, this one too.
                break;
            }
            receiveQueue.admit();
            if (config.state == QpState.ERR) {
                flushHead(); // in ERR the queue is empty (everything was flushed): this is its head
            }
        }
    }

    // ---- RC: rxe_responder ----

    /** An RC request for this QP ({@code rxe_responder}, one packet from its request queue). */
    void onRequest(RocePacket packet) {
        int psn = packet.psn();
        switch (checkPsn(psn)) {
            case RESPST_ERR_PSN_OUT_OF_SEQ -> {
                // rxe (check_psn) counts out_of_seq_request once per sequence NAK, not per dropped packet.
                if (!sequenceNakSent) {
                    sequenceNakSent = true;
                    config.count(Counter.OUT_OF_SEQ_REQUEST);
                    sendAcknowledge(Aeth.nakSyndrome(Aeth.NAK_PSN_SEQUENCE_ERROR), expectedPsn);
                }
            }
            case RESPST_DUPLICATE_REQUEST -> {
                config.count(Counter.DUPLICATE_REQUEST);
                duplicateRequest(packet, psn);
            }
            default -> {
                sequenceNakSent = false;
                execute(packet, psn, false);
            }
        }
    }

    /** {@code check_psn}. */
    private State checkPsn(int psn) {
        int distance = Psn.diff(psn, expectedPsn);
        if (distance > 0) {
            return State.RESPST_ERR_PSN_OUT_OF_SEQ;
        }
        if (distance < 0) {
            return State.RESPST_DUPLICATE_REQUEST;
        }
        return State.RESPST_CHK_OP_SEQ;
    }

    /**
     * {@code duplicate_request}: SENDs and WRITEs are acknowledged again with the last PSN; an
     * atomic's saved result is replayed from the resource that holds it. A READ asked again, in
     * whole or from a later PSN after lost responses, is answered from its PSN on if it is the
     * saved READ or a part of it (same rkey, its range inside the original one): from the first
     * PSN with FIRST or ONLY, from a later one continuing the message with MIDDLE … LAST. Any other
     * duplicate READ, and a duplicate with no saved resource, is dropped without an answer (rxe's
     * class D). A READ whose memory region is gone by then is a remote access error.
     */
    private void duplicateRequest(RocePacket packet, int psn) {
        Opcode op = packet.opcode();
        if (op.isSend() || op.isWrite()) {
            sendAcknowledge(Aeth.ACK_SYNDROME, Psn.add(expectedPsn, -1));
            return;
        }
        Resource resource = findResource(psn, op.isReadRequest());
        if (resource == null) {
            return;
        }
        if (op.isReadRequest()) {
            int rkey = packet.rethRkey();
            long address = packet.rethVirtualAddress();
            long length = packet.rethDmaLength();
            if (!resource.holds(rkey, address, length)) {
                return;
            }
            SoftMemoryRegion region = null;
            if (length != 0) {
                region = remoteRegion(rkey, address, length, AccessFlag.REMOTE_READ);
                if (region == null) {
                    responderError(psn, Aeth.NAK_REMOTE_ACCESS_ERROR, null, false);
                    return;
                }
            }
            sendReadResponses(psn, psn == resource.firstPsn, region, address, length);
        } else {
            sendAtomicAcknowledge(psn, resource.original);
        }
    }

    /** {@code find_resource}. */
    private Resource findResource(int psn, boolean read) {
        for (Resource resource : resources) {
            if (resource.saved && resource.read == read && Psn.diff(psn, resource.firstPsn) >= 0
                    && Psn.diff(psn, resource.firstPsn) < resource.psnCount) {
                return resource;
            }
        }
        return null;
    }

    /** {@code check_rkey}: the region an rkey names, if it is this PD's, allows {@code right} and holds the range. */
    private SoftMemoryRegion remoteRegion(int rkey, long address, long length, AccessFlag right) {
        SoftMemoryRegion region = config.context.regionByKey(rkey);
        if (region == null || region.softPd() != config.pd || !region.allows(right) || !region.contains(address, length)) {
            return null;
        }
        return region;
    }

    /**
     * Executes the request with the expected PSN, from {@code RESPST_CHK_OP_SEQ} on; {@code uc}
     * suppresses every ACK and NAK.
     */
    private void execute(RocePacket packet, int psn, boolean uc) {
        Opcode op = packet.opcode();
        State state = State.RESPST_CHK_OP_SEQ;
        while (state != State.RESPST_DONE) {
            state = switch (state) {
                case RESPST_CHK_OP_SEQ -> checkOpSeq(op, psn, uc);
                case RESPST_CHK_OP_VALID -> checkOpValid(op, psn, uc);
                case RESPST_CHK_RESOURCE -> checkResource(op, psn, uc);
                case RESPST_CHK_LENGTH -> checkLength(packet, psn, uc);
                case RESPST_READ_REPLY -> readReply(packet, psn, uc);
                case RESPST_ATOMIC_REPLY -> atomicReply(packet, psn, uc);
                case RESPST_EXECUTE -> (op.isSend() ? sendDataIn(packet, psn, uc) : writeDataIn(packet, psn, uc))
                        ? State.RESPST_ACKNOWLEDGE : State.RESPST_DONE;
                case RESPST_ACKNOWLEDGE -> {
                    expectedPsn = Psn.add(expectedPsn, 1);
                    if (!uc && packet.ackRequest()) {
                        sendAcknowledge(Aeth.ACK_SYNDROME, psn);
                    }
                    yield State.RESPST_DONE;
                }
                default -> throw new IllegalStateException(state.name());
            };
        }
    }

    /** {@code check_op_seq}: MIDDLE and LAST continue a message of their kind; FIRST and ONLY start one. */
    private State checkOpSeq(Opcode op, int psn, boolean uc) {
        if (op.isMiddle() || op.isLast()) {
            if ((op.isSend() && inProgress != IN_SEND) || (op.isWrite() && inProgress != IN_WRITE)) {
                responderError(psn, Aeth.NAK_INVALID_REQUEST, null, uc);
                return State.RESPST_DONE;
            }
        } else if (inProgress != NONE) {
            responderError(psn, Aeth.NAK_INVALID_REQUEST, WcStatus.REM_INV_REQ_ERR, uc);
            return State.RESPST_DONE;
        }
        return State.RESPST_CHK_OP_VALID;
    }

    /** {@code check_op_valid}: the QP's own access flags allow the operation. */
    private State checkOpValid(Opcode op, int psn, boolean uc) {
        int access = config.qpAccess;
        if ((op.isWrite() && !AccessFlag.has(access, AccessFlag.REMOTE_WRITE))
                || (op.isReadRequest() && !AccessFlag.has(access, AccessFlag.REMOTE_READ))
                || (op.isAtomic() && !AccessFlag.has(access, AccessFlag.REMOTE_ATOMIC))) {
            responderError(psn, Aeth.NAK_INVALID_REQUEST, null, uc);
            return State.RESPST_DONE;
        }
        return State.RESPST_CHK_RESOURCE;
    }

    /**
     * {@code check_resource}: with {@code max_dest_rd_atomic} 0 the QP holds no READ/atomic
     * resource, so such a request is an invalid request (rxe's {@code RESPST_ERR_TOO_MANY_RDMA_ATM_REQ},
     * class C: NAK, the QP goes to ERR). A SEND, and the packet of a WRITE_WITH_IMM that carries
     * the immediate, takes its receive here, before the length and rkey checks, so a later error
     * in the same packet completes that receive (or, with none posted, it gets an RNR NAK first).
     */
    private State checkResource(Opcode op, int psn, boolean uc) {
        if ((op.isReadRequest() || op.isAtomic()) && config.maxDestRdAtomic == 0) {
            responderError(psn, Aeth.NAK_INVALID_REQUEST, WcStatus.REM_INV_REQ_ERR, uc);
            return State.RESPST_DONE;
        }
        if ((op.isSend() || (op.isWrite() && op.hasImmDt())) && !takeReceive(psn, uc)) {
            return State.RESPST_DONE;
        }
        return State.RESPST_CHK_LENGTH;
    }

    /**
     * {@code rxe_resp_check_length} (IBA C9-92, C9-94): a SEND or WRITE packet's payload is exactly
     * one MTU on FIRST and MIDDLE, at most one on ONLY, and between 1 byte and one MTU on LAST (a
     * zero-length LAST is refused); a RETH's DMA length is at most 2^31. A failure is rxe's
     * {@code RESPST_ERR_LENGTH}: on RC a NAK invalid request, the receive in use completes with
     * IBV_WC_REM_INV_REQ_ERR and the QP goes to ERR; on UC the message is dropped.
     */
    private State checkLength(RocePacket packet, int psn, boolean uc) {
        Opcode op = packet.opcode();
        int mtu = config.mtu;
        int payload = packet.payloadLength();
        boolean bad = false;
        if (op.hasPayload()) {
            if (op.isOnly()) {
                bad = payload > mtu;
            } else if (op.isFirst() || op.isMiddle()) {
                bad = payload != mtu;
            } else if (op.isLast()) {
                bad = payload == 0 || payload > mtu;
            }
        }
        if (op.hasReth() && packet.rethDmaLength() > (1L << 31)) {
            bad = true;
        }
        if (bad) {
            responderError(psn, Aeth.NAK_INVALID_REQUEST, WcStatus.REM_INV_REQ_ERR, uc);
            return State.RESPST_DONE;
        }
        if (op.isReadRequest()) {
            return State.RESPST_READ_REPLY;
        }
        if (op.isAtomic()) {
            return State.RESPST_ATOMIC_REPLY;
        }
        return State.RESPST_EXECUTE;
    }

    /**
     * The receive a SEND (or WRITE_WITH_IMM) lands in ({@code get_srq_wqe} / {@code check_resource}):
     * with none posted, an RNR NAK ({@code RESPST_ERR_RNR}).
     */
    private boolean takeReceive(int psn, boolean uc) {
        if (currentRecv != null) {
            return true;
        }
        currentRecv = receiveQueue.peek(); // in use until it completes, then its slot is free
        if (currentRecv == null) {
            if (!uc) {
                config.count(Counter.SEND_RNR_ERR);
                sendAcknowledge(Aeth.rnrNakSyndrome(config.minRnrTimer), psn);
            }
            return false;
        }
        recvOffset = 0;
        return true;
    }

    /** {@code send_data_in}: the payload goes into the receive; its last packet completes it. */
    private boolean sendDataIn(RocePacket packet, int psn, boolean uc) {
        Opcode op = packet.opcode();
        RecvWqe recv = currentRecv;
        int payload = packet.payloadLength();
        // rxe (send_data_in, copy_data) finds both faults while it copies into the receive and
        // calls each a malformed receive (RESPST_ERR_MALFORMED_WQE, class A): the receive
        // completes with IBV_WC_LOC_QP_OP_ERR and the NAK is a remote operational error.
        if ((long) recvOffset + payload > recv.capacity || !recv.resolve(config.context, config.pd)) {
            responderError(psn, Aeth.NAK_REMOTE_OPERATIONAL_ERROR, WcStatus.LOC_QP_OP_ERR, uc);
            return false;
        }
        if (payload > 0) {
            recv.sges.copy(recvOffset, packet.buffer(), packet.payloadOffset(), payload, true);
        }
        recvOffset += payload;
        if (op.isLast() || op.isOnly()) {
            boolean imm = packet.hasImmDt();
            doComplete(recv.wrId, WcOpcode.RECV, recvOffset, imm ? packet.immDt() : 0,
                    imm ? WcFlag.WITH_IMM.value() : 0, packet.solicitedEvent());
        } else {
            inProgress = IN_SEND;
        }
        return true;
    }

    /**
     * {@code do_complete}: the receive completes (its completion given field by field, so that it
     * allocates nothing) and the message sequence number advances.
     */
    private void doComplete(long wrId, WcOpcode opcode, int byteLength, int immData, int wcFlags, boolean solicited) {
        inProgress = NONE;
        msn = Psn.add(msn, 1);
        // rxe (do_complete) counts rdma_recvs for each receive that completes successfully.
        config.count(Counter.RDMA_RECVS);
        // The slot is free before the completion is seen, as rxe advances the queue's consumer
        // index before it posts the CQE: an application that reposts for each completion it polls
        // never finds the queue full. Nothing reads the slot after this (wrId is a copy).
        currentRecv = null;
        receiveQueue.removeHead();
        boolean stored = config.recvCq.push(wrId, WcStatus.SUCCESS, opcode, 0, byteLength, immData, config.qpn,
                config.destQpn, wcFlags, solicited);
        if (!stored) {
            config.enterError();
        }
    }

    /** {@code write_data_in}: the payload goes to the RETH's region; WRITE_WITH_IMM's last packet completes a receive. */
    private boolean writeDataIn(RocePacket packet, int psn, boolean uc) {
        Opcode op = packet.opcode();
        int payload = packet.payloadLength();
        boolean ends = op.isLast() || op.isOnly();
        if (op.isFirst() || op.isOnly()) {
            long address = packet.rethVirtualAddress();
            long length = packet.rethDmaLength();
            SoftMemoryRegion region = null;
            if (length > 0) {
                region = remoteRegion(packet.rethRkey(), address, length, AccessFlag.REMOTE_WRITE);
                if (region == null) {
                    // rxe (check_rkey, RESPST_ERR_RKEY_VIOLATION): a WRITE_WITH_IMM's receive, taken
                    // before the rkey is checked, completes with the same status.
                    responderError(psn, Aeth.NAK_REMOTE_ACCESS_ERROR, WcStatus.REM_ACCESS_ERR, uc);
                    return false;
                }
            }
            writeRegion = region;
            writeAddress = address;
            writeRemaining = length;
            writeLength = length;
        }
        if (!writeLengthFits(packet, payload, ends)) {
            responderError(psn, Aeth.NAK_INVALID_REQUEST, WcStatus.REM_INV_REQ_ERR, uc);
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
                doComplete(currentRecv.wrId, WcOpcode.RECV_RDMA_WITH_IMM, (int) writeLength, packet.immDt(),
                        WcFlag.WITH_IMM.value(), packet.solicitedEvent());
            } else {
                inProgress = NONE;
                msn = Psn.add(msn, 1);
            }
        } else {
            inProgress = IN_WRITE;
        }
        return true;
    }

    /**
     * The length and PadCnt checks rxe makes on a WRITE packet against what is left of the RETH's
     * DMA length ({@code check_rkey}, failing as {@code RESPST_ERR_LENGTH}): while more than one
     * MTU is left the packet carries exactly one MTU and no pad; the packet that ends the WRITE
     * carries all that is left, with PadCnt {@code (-left) & 3}. A WRITE of length 0 is not
     * checked, as rxe skips it.
     */
    private boolean writeLengthFits(RocePacket packet, int payload, boolean ends) {
        if (writeLength == 0) {
            return payload == 0;
        }
        int pad = packet.padCount();
        if (writeRemaining > config.mtu) {
            return payload == config.mtu && pad == 0 && !ends;
        }
        return payload == writeRemaining && pad == ((int) -writeRemaining & 3);
    }

    /** {@code read_reply}: saves the READ as a resource, reserves its PSNs and sends the responses. */
    private State readReply(RocePacket packet, int psn, boolean uc) {
        int rkey = packet.rethRkey();
        long address = packet.rethVirtualAddress();
        long length = packet.rethDmaLength();
        SoftMemoryRegion region = null;
        if (length > 0) {
            region = remoteRegion(rkey, address, length, AccessFlag.REMOTE_READ);
            if (region == null) {
                responderError(psn, Aeth.NAK_REMOTE_ACCESS_ERROR, null, uc);
                return State.RESPST_DONE;
            }
        }
        int count = Math.max(1, (int) ((length + config.mtu - 1) / config.mtu));
        saveResource(true, psn, count, 0, rkey, address, length);
        expectedPsn = Psn.add(expectedPsn, count);
        msn = Psn.add(msn, 1);
        sendReadResponses(psn, true, region, address, length);
        return State.RESPST_DONE;
    }

    /** {@code atomic_reply}: executes the atomic once, saves its original value and answers it. */
    private State atomicReply(RocePacket packet, int psn, boolean uc) {
        AtomicEth eth = packet.atomicEth();
        if ((eth.virtualAddress() & 7) != 0) {
            responderError(psn, Aeth.NAK_INVALID_REQUEST, null, uc);
            return State.RESPST_DONE;
        }
        SoftMemoryRegion region = remoteRegion(eth.rkey(), eth.virtualAddress(), 8, AccessFlag.REMOTE_ATOMIC);
        if (region == null) {
            responderError(psn, Aeth.NAK_REMOTE_ACCESS_ERROR, null, uc);
            return State.RESPST_DONE;
        }
        long original = packet.opcode() == Opcode.RC_COMPARE_SWAP
                ? region.compareSwap(eth.virtualAddress(), eth.compare(), eth.swapOrAdd())
                : region.fetchAdd(eth.virtualAddress(), eth.swapOrAdd());
        saveResource(false, psn, 1, original, eth.rkey(), eth.virtualAddress(), 8);
        expectedPsn = Psn.add(expectedPsn, 1);
        msn = Psn.add(msn, 1);
        sendAtomicAcknowledge(psn, original);
        return State.RESPST_DONE;
    }

    /** Saves a READ or atomic in the next resource slot, over the oldest one ({@code rxe_prepare_res}). */
    private void saveResource(boolean read, int firstPsn, int psnCount, long original, int rkey, long address,
                              long length) {
        resources[nextResource].save(read, firstPsn, psnCount, original, rkey, address, length);
        nextResource = (nextResource + 1) % resources.length;
    }

    /**
     * At most this many READ responses leave in one turn of the loop; then the loop receives and
     * runs other work before the next ones, as rxe's responder sends one response per pass of its
     * state machine and its task yields after a bounded number of passes.
     */
    static final int READ_RESPONSES_PER_TURN = 64;

    /**
     * The READ responses, one per MTU chunk from {@code firstPsn} on ({@code read_reply}, one
     * response per pass): the first ones now, the rest in later turns of the loop, and none while
     * the socket has no room (the transport resumes the reply then). Requests that arrive
     * meanwhile wait for the reply to end ({@link #replying()}), as rxe's do in its request queue.
     * {@code fromStart}: the answer starts the message (FIRST or ONLY, rxe's
     * {@code rdatm_res_state_new}); otherwise it continues one whose start was answered before
     * (MIDDLE … LAST, {@code rdatm_res_state_replay}).
     */
    private void sendReadResponses(int firstPsn, boolean fromStart, SoftMemoryRegion region, long address,
                                   long length) {
        replying = true;
        replyFromStart = fromStart;
        replyRegion = region;
        replyFirstPsn = firstPsn;
        replyCount = Math.max(1, (int) ((length + config.mtu - 1) / config.mtu));
        replyNext = 0;
        replyAddress = address;
        replyLength = length;
        continueReadReply();
    }

    /** True while a READ's responses are still being sent; the next request waits until then. */
    boolean replying() {
        return replying;
    }

    /**
     * Sends the next READ responses: up to {@link #READ_RESPONSES_PER_TURN}, fewer when the socket
     * fills. Called when a reply starts, on a later turn of the loop and when the transport has
     * room again.
     */
    void continueReadReply() {
        int mtu = config.mtu;
        int budget = READ_RESPONSES_PER_TURN;
        while (replying && replyNext < replyCount) {
            if (config.state == QpState.ERR || config.state == QpState.RESET || config.closed()) {
                stopReadReply();
                return;
            }
            if (config.transport.blocked()) {
                config.transport.awaitWritable(config.qp);
                return;
            }
            if (budget-- == 0) {
                if (!replyScheduled) {
                    replyScheduled = true;
                    config.loop.schedule(0, () -> {
                        replyScheduled = false;
                        config.qp.resumeSending();
                    });
                }
                return;
            }
            int i = replyNext;
            int psn = Psn.add(replyFirstPsn, i);
            int chunk = (int) Math.min(mtu, replyLength - (long) i * mtu);
            if (chunk > 0 && replyRegion.isClosed()) {
                // rxe rechecks the MR for every response after the first (rxe_recheck_mr).
                stopReadReply();
                responderError(psn, Aeth.NAK_REMOTE_ACCESS_ERROR, null, false);
                return;
            }
            boolean first = i == 0 && replyFromStart;
            boolean last = i == replyCount - 1;
            Opcode op = first && last ? Opcode.RC_RDMA_READ_RESPONSE_ONLY : first ? Opcode.RC_RDMA_READ_RESPONSE_FIRST
                    : last ? Opcode.RC_RDMA_READ_RESPONSE_LAST : Opcode.RC_RDMA_READ_RESPONSE_MIDDLE;
            ByteBuffer out = config.transport.packetBuffer();
            // FIRST, LAST and ONLY carry an ACK's AETH (the opcode says); MIDDLE none.
            RocePacketEncoder.encodeResponse(out, op, config.destQpn, psn, Aeth.ACK_SYNDROME, msn,
                    chunk == 0 ? null : replyRegion.memory(),
                    chunk == 0 ? 0 : replyRegion.offsetOf(replyAddress + (long) i * mtu), chunk);
            replyNext++;
            config.transmit();
        }
        stopReadReply();
    }

    private void stopReadReply() {
        replying = false;
        replyRegion = null;
    }

    /** {@code send_atomic_ack}. */
    private void sendAtomicAcknowledge(int psn, long original) {
        ByteBuffer out = config.transport.packetBuffer();
        RocePacketEncoder.encode(out, Opcode.RC_ATOMIC_ACKNOWLEDGE, config.destQpn, psn, false, false, null,
                Aeth.ack(msn), null, new AtomicAckEth(original), 0, null, 0, 0);
        config.transmit();
    }

    /**
     * {@code send_ack}: an ACKNOWLEDGE whose AETH carries {@code syndrome} (ACK, NAK or RNR NAK) and
     * the current MSN; written from the two fields, so an ACK builds no header object.
     */
    private void sendAcknowledge(int syndrome, int psn) {
        ByteBuffer out = config.transport.packetBuffer();
        RocePacketEncoder.encodeResponse(out, Opcode.RC_ACKNOWLEDGE, config.destQpn, psn, syndrome, msn, null, 0, 0);
        config.transmit();
    }

    /**
     * A request the responder cannot execute ({@code do_class_ac_error} and the error states):
     * complete the receive in use with {@code recvStatus} (when there is one), move the QP to ERR
     * and NAK with {@code code}. On UC the packet is silently dropped and the message abandoned
     * ({@code do_class_d1e_error}).
     */
    private void responderError(int psn, int code, WcStatus recvStatus, boolean uc) {
        if (uc) {
            inProgress = NONE;
            ucDropping = true;
            return;
        }
        WorkCompletion cause = null;
        if (currentRecv != null && recvStatus != null) {
            RecvWqe recv = currentRecv;
            cause = WorkCompletion.error(recv.wrId, recvStatus, WcOpcode.RECV, config.qpn);
            currentRecv = null;
            receiveQueue.removeHead();
        }
        config.enterError(config.recvCq, cause);
        // The NAK leaves last: once the requester sees its error, this QP is already in ERR.
        sendAcknowledge(Aeth.nakSyndrome(code), psn);
    }

    // ---- UC ----

    /** UC: no ACKs; a PSN gap abandons the message in progress and waits for the next FIRST or ONLY. */
    void onUcRequest(RocePacket packet) {
        int psn = packet.psn();
        Opcode op = packet.opcode();
        if (psn != expectedPsn) {
            // rxe (check_psn) counts nothing for UC: the message is dropped silently.
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

    private static Resource[] newResources(int count) {
        Resource[] slots = new Resource[count];
        for (int i = 0; i < count; i++) {
            slots[i] = new Resource();
        }
        return slots;
    }

    /**
     * A READ or atomic the responder executed, kept to answer duplicates (rxe's {@code struct
     * resp_res}): its PSNs, an atomic's original value, and the rkey and range it named. The slots
     * are made when the QP reaches RTR and overwritten in turn, as rxe reuses its
     * {@code resp.resources} ring, so executing a READ or atomic allocates nothing.
     */
    private static final class Resource {
        boolean saved;
        boolean read;
        int firstPsn;
        int psnCount;
        long original;
        int rkey;
        long address;
        long length;

        void save(boolean read, int firstPsn, int psnCount, long original, int rkey, long address, long length) {
            this.saved = true;
            this.read = read;
            this.firstPsn = firstPsn;
            this.psnCount = psnCount;
            this.original = original;
            this.rkey = rkey;
            this.address = address;
            this.length = length;
        }

        void clear() {
            saved = false;
        }

        /** Whether a request for {@code length} bytes at {@code address} with {@code rkey} is this one or a part of it. */
        boolean holds(int otherRkey, long otherAddress, long otherLength) {
            return otherRkey == rkey && Long.compareUnsigned(otherAddress, address) >= 0 && otherLength <= length
                    && Long.compareUnsigned(otherAddress + otherLength, address + length) <= 0;
        }
    }
}
