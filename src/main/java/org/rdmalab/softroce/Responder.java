package org.rdmalab.softroce;

import static org.rdmalab.softroce.ResponderInfo.IN_SEND;
import static org.rdmalab.softroce.ResponderInfo.IN_WRITE;
import static org.rdmalab.softroce.ResponderInfo.NONE;

import org.rdmalab.verbs.AccessFlag;
import org.rdmalab.verbs.QpState;
import org.rdmalab.verbs.WcOpcode;
import org.rdmalab.verbs.WcStatus;
import org.rdmalab.wire.Aeth;
import org.rdmalab.wire.Opcode;
import org.rdmalab.wire.Psn;
import org.rdmalab.wire.RocePacket;

/**
 * The responder of a queue pair: executes incoming requests and answers them with ACKs, NAKs,
 * RNR NAKs, READ responses and atomic ACKs. It corresponds to rxe's {@code rxe_resp.c}; a request
 * runs through states named as rxe's {@code enum resp_states} ({@link State}), and each method
 * names the rxe function it stands for. This class takes a request in and checks it (the PSN, the
 * opcode sequence, the QP's access, the resources, the length, the receive); the rest is split
 * where rxe's file has its seams: {@link ResponderExecution} places the data and answers READs
 * and atomics, {@link ResponderResources} keeps them to answer duplicates, and
 * {@link ResponderReplies} sends the ACKs, NAKs and READ responses. They share the receive side's
 * state, {@link ResponderInfo}.
 *
 * <p>It owns the receive side (rxe's {@code qp->resp}): the expected PSN, the message sequence
 * number, the message in progress and its receive ({@link ResponderInfo}) and the saved
 * READ/atomic resources ({@link ResponderResources}), and it consumes the receive queue
 * ({@link WorkQueue}).
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

    private final QpConfig config;
    private final WorkQueue<RecvWqe> receiveQueue;
    private final ResponderInfo info = new ResponderInfo();
    private final ResponderReplies replies;
    private final ResponderResources resources;
    private final ResponderExecution execution;

    Responder(QpConfig config, WorkQueue<RecvWqe> receiveQueue) {
        this.config = config;
        this.receiveQueue = receiveQueue;
        this.replies = new ResponderReplies(config, info, receiveQueue);
        this.resources = new ResponderResources(config, info, replies);
        this.execution = new ResponderExecution(config, info, receiveQueue, resources, replies);
    }

    /** {@code rq_psn} applied by {@code ibv_modify_qp}. */
    void setPsn(int rqPsn) {
        info.expectedPsn = rqPsn;
    }

    /** INIT to RTR: a fresh message sequence and {@code max_dest_rd_atomic} resource slots. */
    void start() {
        info.msn = 0;
        info.sequenceNakSent = false;
        info.inProgress = NONE;
        info.ucDropping = false;
        resources.start(Math.max(1, config.maxDestRdAtomic));
    }

    /** Back to the initial state (reset): no receive, no message, no resource. */
    void reset() {
        receiveQueue.clear();
        info.currentRecv = null;
        info.inProgress = NONE;
        info.writeRegion = null;
        resources.clear();
        replies.stopReadReply();
    }

    /** The QP goes to ERR: the receive in use and every posted one complete with a flush error. */
    void flush() {
        info.currentRecv = null; // the queue's head: flushed first below
        while (receiveQueue.peek() != null) {
            flushHead();
        }
        info.inProgress = NONE;
        replies.stopReadReply();
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
                if (!info.sequenceNakSent) {
                    info.sequenceNakSent = true;
                    config.count(Counter.OUT_OF_SEQ_REQUEST);
                    replies.sendAcknowledge(Aeth.nakSyndrome(Aeth.NAK_PSN_SEQUENCE_ERROR), info.expectedPsn);
                }
            }
            case RESPST_DUPLICATE_REQUEST -> {
                config.count(Counter.DUPLICATE_REQUEST);
                resources.duplicateRequest(packet, psn);
            }
            default -> {
                info.sequenceNakSent = false;
                execute(packet, psn, false);
            }
        }
    }

    /** {@code check_psn}. */
    private State checkPsn(int psn) {
        int distance = Psn.diff(psn, info.expectedPsn);
        if (distance > 0) {
            return State.RESPST_ERR_PSN_OUT_OF_SEQ;
        }
        if (distance < 0) {
            return State.RESPST_DUPLICATE_REQUEST;
        }
        return State.RESPST_CHK_OP_SEQ;
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
                case RESPST_READ_REPLY -> execution.readReply(packet, psn, uc);
                case RESPST_ATOMIC_REPLY -> execution.atomicReply(packet, psn, uc);
                case RESPST_EXECUTE -> (op.isSend() ? execution.sendDataIn(packet, psn, uc)
                        : execution.writeDataIn(packet, psn, uc))
                        ? State.RESPST_ACKNOWLEDGE : State.RESPST_DONE;
                case RESPST_ACKNOWLEDGE -> {
                    info.expectedPsn = Psn.add(info.expectedPsn, 1);
                    if (!uc && packet.ackRequest()) {
                        replies.sendAcknowledge(Aeth.ACK_SYNDROME, psn);
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
            if ((op.isSend() && info.inProgress != IN_SEND) || (op.isWrite() && info.inProgress != IN_WRITE)) {
                replies.responderError(psn, Aeth.NAK_INVALID_REQUEST, null, uc);
                return State.RESPST_DONE;
            }
        } else if (info.inProgress != NONE) {
            replies.responderError(psn, Aeth.NAK_INVALID_REQUEST, WcStatus.REM_INV_REQ_ERR, uc);
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
            replies.responderError(psn, Aeth.NAK_INVALID_REQUEST, null, uc);
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
            replies.responderError(psn, Aeth.NAK_INVALID_REQUEST, WcStatus.REM_INV_REQ_ERR, uc);
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
            replies.responderError(psn, Aeth.NAK_INVALID_REQUEST, WcStatus.REM_INV_REQ_ERR, uc);
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
        if (info.currentRecv != null) {
            return true;
        }
        info.currentRecv = receiveQueue.peek(); // in use until it completes, then its slot is free
        if (info.currentRecv == null) {
            if (!uc) {
                config.count(Counter.SEND_RNR_ERR);
                replies.sendAcknowledge(Aeth.rnrNakSyndrome(config.minRnrTimer), psn);
            }
            return false;
        }
        info.recvOffset = 0;
        return true;
    }

    // ---- UC ----

    /** UC: no ACKs; a PSN gap abandons the message in progress and waits for the next FIRST or ONLY. */
    void onUcRequest(RocePacket packet) {
        int psn = packet.psn();
        Opcode op = packet.opcode();
        if (psn != info.expectedPsn) {
            // rxe (check_psn) counts nothing for UC: the message is dropped silently.
            info.inProgress = NONE;
            info.ucDropping = true;
            info.writeRegion = null;
        }
        info.expectedPsn = Psn.add(psn, 1);
        if (info.ucDropping) {
            if (!(op.isFirst() || op.isOnly())) {
                return;
            }
            info.ucDropping = false;
            if (info.currentRecv != null) {
                info.recvOffset = 0;
            }
        }
        int before = info.expectedPsn;
        info.expectedPsn = psn;
        execute(packet, psn, true);
        info.expectedPsn = before;
    }

    /** True while a READ's responses are still being sent; the next request waits until then. */
    boolean replying() {
        return replies.replying();
    }

    /** Sends the next READ responses ({@link ResponderReplies#continueReadReply}). */
    void continueReadReply() {
        replies.continueReadReply();
    }
}
