package org.rdmalab.softroce;

import org.rdmalab.softroce.net.EventLoop;
import org.rdmalab.wire.Aeth;
import org.rdmalab.wire.Opcode;
import org.rdmalab.wire.Psn;
import org.rdmalab.wire.RocePacket;
import org.rdmalab.verbs.QpState;
import org.rdmalab.verbs.RnrTimer;
import org.rdmalab.verbs.WcOpcode;
import org.rdmalab.verbs.WcStatus;
import org.rdmalab.verbs.WorkCompletion;
import org.rdmalab.verbs.WrOpcode;

/**
 * The completer of a queue pair: handles ACKs, NAKs, READ responses and atomic ACKs, retires send
 * work requests in order and drives retransmission. It corresponds to rxe's {@code rxe_comp.c};
 * a response runs through the states of rxe's {@code enum comp_state} ({@link State}), and each
 * method names the rxe function it stands for.
 *
 * <p>It owns the acknowledged side (rxe's {@code qp->comp}): the last acknowledged PSN
 * ({@code comp.psn}, kept here as the PSN before the next expected one), the retry counters
 * ({@code comp.retry_cnt}, {@code comp.rnr_retry}), the retransmission timer
 * ({@code qp->retrans_timer}) and the RNR timer ({@code qp->rnr_nak_timer}).
 *
 * <p>Threads: the transport loop only.
 */
final class Completer {

    /** rxe's {@code enum comp_state}; the states a response passes through here. */
    enum State {
        /** Is the response within the PSNs sent ({@code check_psn})? */
        COMPST_CHECK_PSN,
        /** Which kind of response, for which work request ({@code check_ack}). */
        COMPST_CHECK_ACK,
        /** A READ response: copy its payload ({@code do_read}). */
        COMPST_READ,
        /** An atomic ACK: write back the original value ({@code do_atomic}). */
        COMPST_ATOMIC,
        /** An ACK or NAK of SENDs and WRITEs (and an atomic's NAK). */
        COMPST_WRITE_SEND,
        /** Go-back-N after a sequence NAK ({@code req_retry} via {@code qp->req.need_retry}). */
        COMPST_ERROR_RETRY,
        /** Wait out an RNR NAK's timer, then resend. */
        COMPST_RNR_RETRY,
        /**
         * The head work request completes with the NAK's status, or with none of its own for a
         * response {@code check_ack} refuses; the QP goes to ERR.
         */
        COMPST_ERROR,
        /** The response is dropped; the requester is not run. */
        COMPST_EXIT,
        /** The response is handled; the requester runs again. */
        COMPST_DONE
    }

    private final QpConfig config;
    private final WorkQueue<SendWqe> sendQueue;
    private final Requester requester;

    private int ackedPsn;
    private int retryLeft;
    private int rnrLeft;
    private EventLoop.Timer rnrTimer;
    private boolean timerActive;
    private boolean timerScheduled;
    private long retransmitDeadline;
    private int lastGapRetryPsn = -1;
    // The response in progress through the states.
    private int nakCode;
    private WcStatus errorStatus;

    Completer(QpConfig config, WorkQueue<SendWqe> sendQueue, Requester requester) {
        this.config = config;
        this.sendQueue = sendQueue;
        this.requester = requester;
    }

    /** The last acknowledged PSN: everything up to it is done. */
    int ackedPsn() {
        return ackedPsn;
    }

    /** {@code sq_psn} applied by {@code ibv_modify_qp}: nothing before it is outstanding. */
    void setPsn(int sqPsn) {
        ackedPsn = Psn.add(sqPsn, -1);
    }

    /** RTR to RTS: full retry counters. */
    void start() {
        retryLeft = config.retryCount;
        rnrLeft = config.rnrRetry;
    }

    /** Back to the initial state (reset). */
    void reset() {
        cancelRnrTimer();
        timerActive = false;
        lastGapRetryPsn = -1;
    }

    /** The QP goes to ERR: no timer fires any more. */
    void stop() {
        cancelRnrTimer();
        requester.waitForRnrTimer(false);
        timerActive = false;
    }

    private void cancelRnrTimer() {
        if (rnrTimer != null) {
            rnrTimer.cancel();
            rnrTimer = null;
        }
    }

    // ---- the response path: rxe_completer ----

    /** A response for this QP ({@code rxe_completer}, one packet from its response queue). */
    void onResponse(RocePacket packet) {
        int psn = packet.psn();
        errorStatus = null;
        State state = State.COMPST_CHECK_PSN;
        while (true) {
            switch (state) {
                case COMPST_CHECK_PSN -> state = checkPsn(psn);
                case COMPST_CHECK_ACK -> state = checkAck(packet.opcode());
                case COMPST_READ -> state = doRead(packet, psn);
                case COMPST_ATOMIC -> state = doAtomic(packet, psn);
                case COMPST_WRITE_SEND -> state = writeSend(packet.aethSyndrome(), psn);
                case COMPST_RNR_RETRY -> state = rnrRetry(nakCode);
                case COMPST_ERROR_RETRY -> state = sequenceRetry();
                case COMPST_ERROR -> {
                    if (errorStatus == null) {
                        failHeadWithoutStatus();
                    } else {
                        failHead(errorStatus);
                    }
                    state = State.COMPST_DONE;
                }
                case COMPST_EXIT -> {
                    resetRetryTimer();
                    return;
                }
                case COMPST_DONE -> {
                    resetRetryTimer();
                    if (config.state == QpState.RTS) {
                        requester.run();
                    }
                    return;
                }
            }
        }
    }

    /** {@code check_psn}: a response beyond the last PSN sent, or with nothing outstanding, is dropped. */
    private State checkPsn(int psn) {
        if (sendQueue.isEmpty() || Psn.diff(psn, Psn.add(requester.nextPsn(), -1)) > 0) {
            config.count(Counter.RCVD_UNEXPECTED_RESPONSE);
            return State.COMPST_EXIT;
        }
        return State.COMPST_CHECK_ACK;
    }

    /** {@code check_ack}: by opcode. */
    private static State checkAck(Opcode op) {
        if (op.isReadResponse()) {
            return State.COMPST_READ;
        }
        if (op.hasAtomicAckEth()) {
            return State.COMPST_ATOMIC;
        }
        return State.COMPST_WRITE_SEND;
    }

    /** ACK, RNR NAK or NAK of SENDs and WRITEs, or an atomic's NAK ({@code check_ack}'s AETH part). */
    private State writeSend(int syndrome, int psn) {
        if (Aeth.isAck(syndrome)) {
            acknowledge(psn);
            return State.COMPST_DONE;
        }
        // rxe (check_ack) counts rcvd_seq_err only for a sequence NAK beyond the next PSN it
        // expects an answer for, that is one that acknowledges something new.
        boolean acknowledgesNew = Psn.diff(psn, Psn.add(ackedPsn, 1)) > 0;
        acknowledge(Psn.add(psn, -1));
        if (config.state == QpState.ERR || Psn.diff(psn, ackedPsn) <= 0 || sendQueue.isEmpty()) {
            return State.COMPST_DONE;
        }
        if (Aeth.isRnrNak(syndrome)) {
            nakCode = Aeth.code(syndrome);
            return State.COMPST_RNR_RETRY;
        }
        switch (Aeth.code(syndrome)) {
            case Aeth.NAK_PSN_SEQUENCE_ERROR -> {
                if (acknowledgesNew) {
                    config.count(Counter.RCVD_SEQ_ERR);
                }
                return State.COMPST_ERROR_RETRY;
            }
            case Aeth.NAK_INVALID_REQUEST -> errorStatus = WcStatus.REM_INV_REQ_ERR;
            case Aeth.NAK_REMOTE_ACCESS_ERROR -> errorStatus = WcStatus.REM_ACCESS_ERR;
            case Aeth.NAK_REMOTE_OPERATIONAL_ERROR -> errorStatus = WcStatus.REM_OP_ERR;
            // rxe (check_ack) completes an unknown NAK code as a remote operational error.
            default -> errorStatus = WcStatus.REM_OP_ERR;
        }
        return State.COMPST_ERROR;
    }

    /** A sequence NAK starts a go-back-N retry, unless an RNR wait is already under way. */
    private State sequenceRetry() {
        if (!requester.waitingForRnrTimer()) {
            retry();
        }
        return State.COMPST_DONE;
    }

    /**
     * Everything up to and including {@code psn} is acknowledged ({@code complete_ack} and
     * {@code complete_wqe} for each work request it covers).
     */
    private void acknowledge(int psn) {
        if (Psn.diff(psn, ackedPsn) <= 0) {
            return;
        }
        while (!sendQueue.isEmpty()) {
            SendWqe wqe = sendQueue.at(sendQueue.head());
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
            completeWqes();
            if (config.state == QpState.ERR) {
                return;
            }
        }
        if (Psn.diff(psn, ackedPsn) > 0) {
            ackedPsn = psn;
        }
        progress();
    }

    /**
     * Completes the SEND/WRITE requests a READ response or atomic ACK at {@code psn} implies and
     * returns the work request it answers ({@code check_psn}: a response past the oldest work
     * request completes it).
     */
    private SendWqe implicitAcknowledge(int psn) {
        while (!sendQueue.isEmpty()) {
            SendWqe wqe = sendQueue.at(sendQueue.head());
            if (!wqe.started) {
                return null;
            }
            int last = Psn.add(wqe.firstPsn, wqe.psnCount - 1);
            if (!wqe.readOrAtomic() && Psn.diff(last, psn) < 0) {
                wqe.done = true;
                wqe.status = WcStatus.SUCCESS;
                ackedPsn = last;
                completeWqes();
                if (config.state == QpState.ERR) {
                    return null;
                }
                continue;
            }
            return wqe;
        }
        return null;
    }

    /**
     * {@code check_psn}, {@code check_ack} and {@code do_read} for a READ response: the next
     * response in order is copied into the gather list. A response past a gap is dropped without a
     * retry: the missing PSN is asked for again when the retransmission timer fires, from where
     * the responses stopped ({@code req_retry}). A FIRST, LAST or ONLY response whose AETH is not
     * an ACK, or an opcode that does not continue the message, is an error ({@code COMPST_ERROR}).
     */
    private State doRead(RocePacket packet, int psn) {
        SendWqe wqe = implicitAcknowledge(psn);
        if (wqe == null || wqe.opcode != WrOpcode.RDMA_READ || Psn.diff(psn, wqe.firstPsn) < 0
                || Psn.diff(psn, wqe.firstPsn) >= wqe.psnCount) {
            config.count(Counter.RCVD_UNEXPECTED_RESPONSE);
            return State.COMPST_DONE;
        }
        int gap = Psn.diff(psn, wqe.readPsn);
        if (gap < 0) {
            config.count(Counter.RCVD_UNEXPECTED_RESPONSE);
            return State.COMPST_DONE;
        }
        if (gap > 0) {
            // rxe's check_psn: a READ response beyond the expected PSN is dropped (COMPST_DONE).
            return State.COMPST_DONE;
        }
        int index = Psn.diff(psn, wqe.firstPsn);
        Opcode op = packet.opcode();
        // rxe's check_ack: the opcode continues the message (a re-request's answer continues it
        // with MIDDLE or LAST), and an AETH must carry an ACK; either fault is COMPST_ERROR
        // without a status of its own.
        if (!expectedOpcode(op, index, wqe.psnCount) || (op.hasAeth() && !Aeth.isAck(packet.aethSyndrome()))) {
            return State.COMPST_ERROR;
        }
        int mtu = config.mtu;
        long offset = (long) index * mtu;
        int expected = (int) Math.min(mtu, wqe.length - offset);
        if (packet.payloadLength() != expected) {
            config.count(Counter.RCVD_UNEXPECTED_RESPONSE);
            return State.COMPST_DONE;
        }
        if (expected > 0) {
            if (wqe.sges.lookUp(config.context, config.pd, offset, expected, true) != null) {
                errorStatus = WcStatus.LOC_PROT_ERR; // rxe (do_read): whatever copy_data refuses
                return State.COMPST_ERROR;
            }
            wqe.sges.copy(offset, packet.buffer(), packet.payloadOffset(), expected, true);
        }
        wqe.readPsn = Psn.add(wqe.readPsn, 1);
        ackedPsn = psn;
        if (index == wqe.psnCount - 1) {
            wqe.done = true;
            wqe.status = WcStatus.SUCCESS;
            requester.readOrAtomicDone();
            completeWqes();
        }
        progress();
        return State.COMPST_DONE;
    }

    private static boolean expectedOpcode(Opcode op, int index, int count) {
        return count == 1 ? op.isOnly() : index == 0 ? op.isFirst() : index == count - 1 ? op.isLast() : op.isMiddle();
    }

    /** {@code do_atomic}: the original value goes to the local word; a NAK goes the SEND/WRITE way. */
    private State doAtomic(RocePacket packet, int psn) {
        SendWqe wqe = implicitAcknowledge(psn);
        if (wqe == null || !wqe.readOrAtomic() || wqe.opcode == WrOpcode.RDMA_READ || wqe.firstPsn != psn || wqe.done) {
            config.count(Counter.RCVD_UNEXPECTED_RESPONSE);
            return State.COMPST_DONE;
        }
        if (!Aeth.isAck(packet.aethSyndrome())) {
            // rxe's check_ack: an atomic ACK whose AETH is not an ACK is COMPST_ERROR.
            return State.COMPST_ERROR;
        }
        long original = packet.atomicAckEth().originalData();
        byte[] word = new byte[8];
        for (int i = 0; i < 8; i++) {
            word[i] = (byte) (original >>> (8 * i)); // host (little-endian) order in memory
        }
        if (wqe.sges.lookUp(config.context, config.pd, 0, 8, true) != null) {
            errorStatus = WcStatus.LOC_PROT_ERR; // rxe (do_atomic): whatever copy_data refuses
            return State.COMPST_ERROR;
        }
        wqe.sges.copy(0, word, 0, 8, true);
        wqe.done = true;
        wqe.status = WcStatus.SUCCESS;
        ackedPsn = psn;
        requester.readOrAtomicDone();
        completeWqes();
        progress();
        return State.COMPST_DONE;
    }

    /**
     * {@code COMPST_RNR_RETRY}: counts against rnr_retry (7 is infinite), holds the requester
     * and resends from the oldest unacknowledged PSN when the RNR timer fires
     * ({@code rnr_nak_timer}).
     */
    private State rnrRetry(int timerCode) {
        config.count(Counter.RCVD_RNR_ERR);
        if (requester.waitingForRnrTimer()) {
            return State.COMPST_DONE;
        }
        if (config.rnrRetry != 7) {
            if (rnrLeft == 0) {
                config.count(Counter.RETRY_RNR_EXCEEDED_ERR);
                failHead(WcStatus.RNR_RETRY_EXC_ERR);
                return State.COMPST_DONE;
            }
            rnrLeft--;
        }
        requester.waitForRnrTimer(true);
        rnrTimer = config.loop.schedule(RnrTimer.nanos(timerCode), () -> {
            rnrTimer = null;
            requester.waitForRnrTimer(false);
            if (config.state == QpState.RTS) {
                requester.rewind(Psn.add(ackedPsn, 1));
                timerActive = false;
                startTimer();
                requester.run();
            }
        });
        return State.COMPST_DONE;
    }

    /** {@code COMPST_ERROR_RETRY}: go-back-N from the oldest unacknowledged PSN, counting against retry_cnt. */
    private void retry() {
        if (retryLeft == 0) {
            config.count(Counter.RETRY_EXCEEDED_ERR);
            failHead(WcStatus.RETRY_EXC_ERR);
            return;
        }
        retryLeft--;
        config.count(Counter.COMPLETER_RETRY_ERR);
        requester.rewind(Psn.add(ackedPsn, 1));
        timerActive = false;
        startTimer();
        requester.run();
    }

    /** {@code COMPST_ERROR}: the head work request completes with {@code status}. */
    private void failHead(WcStatus status) {
        if (!sendQueue.isEmpty()) {
            SendWqe wqe = sendQueue.at(sendQueue.head());
            wqe.done = true;
            wqe.status = status;
            completeWqes();
        }
    }

    /**
     * {@code COMPST_ERROR} for a response rxe refuses without giving the work request a status
     * ({@code check_ack} on a READ response or atomic ACK whose AETH is not an ACK): the work
     * request keeps the status it was posted with, {@code IBV_WC_SUCCESS}, so it completes as a
     * success when signaled and silently when not, and the QP then goes to ERR, flushing every
     * work request behind it ({@code do_complete}, then {@code rxe_qp_error}).
     */
    private void failHeadWithoutStatus() {
        if (sendQueue.isEmpty()) {
            return;
        }
        SendWqe wqe = sendQueue.at(sendQueue.head());
        wqe.done = true;
        wqe.status = WcStatus.SUCCESS;
        completeWqes();
        config.enterError();
    }

    /**
     * Completes finished work requests from the head of the send queue, in order
     * ({@code COMPST_COMP_WQE}, {@code do_complete}): a completion when signaled, always for an
     * error, which then moves the QP to ERR.
     */
    void completeWqes() {
        while (!sendQueue.isEmpty()) {
            SendWqe wqe = sendQueue.at(sendQueue.head());
            if (!wqe.done) {
                break;
            }
            if (wqe.readOrAtomic() && wqe.started && wqe.status != WcStatus.SUCCESS) {
                requester.readOrAtomicFailed();
            }
            if (wqe.opcode == WrOpcode.SEND || wqe.opcode == WrOpcode.SEND_WITH_IMM) {
                // rxe (do_complete) counts every SEND work request its completer retires.
                config.count(Counter.RDMA_SENDS);
            }
            // The slot leaves the queue before its completion is seen, as rxe advances the send
            // queue's consumer index before it posts the CQE (an application that posts again for
            // each completion never finds the queue full). A post may fill the slot at once, so
            // what the completion needs is copied first (field by field: nothing is allocated).
            long wrId = wqe.wrId;
            WcOpcode opcode = wqe.opcode.completionOpcode();
            WcStatus status = wqe.status;
            boolean signaled = wqe.signaled;
            int length = (int) wqe.length;
            sendQueue.removeHead();
            if (status == WcStatus.SUCCESS) {
                if (signaled && !config.sendCq.push(wrId, WcStatus.SUCCESS, opcode, 0, length, 0, config.qpn, 0, 0,
                        false)) {
                    config.enterError();
                    return;
                }
            } else {
                config.enterError(config.sendCq, WorkCompletion.error(wrId, status, opcode, config.qpn));
                return;
            }
        }
        requester.retired();
    }

    /** Progress: full retry counters again and a fresh timer ({@code reset_retry_counters}). */
    private void progress() {
        retryLeft = config.retryCount;
        rnrLeft = config.rnrRetry;
        lastGapRetryPsn = -1;
        restartTimer();
    }

    // ---- the retransmission timer: qp->retrans_timer and retransmit_timer ----

    private boolean outstanding() {
        return !sendQueue.isEmpty() && sendQueue.at(sendQueue.head()).started;
    }

    /** Arms the retransmission timer unless it runs (the requester's {@code mod_timer} after a send). */
    void startTimer() {
        if (config.ackTimeoutNanos == 0 || timerActive) {
            return;
        }
        timerActive = true;
        retransmitDeadline = config.loop.nanoTime() + config.ackTimeoutNanos;
        scheduleTimer(config.ackTimeoutNanos);
    }

    /**
     * {@code reset_retry_timer}: every response the completer handles, even one it drops, pushes
     * the retransmission deadline a full timeout ahead while something is outstanding.
     */
    private void resetRetryTimer() {
        if (config.state == QpState.RTS || config.state == QpState.SQD) {
            restartTimer();
        }
    }

    private void restartTimer() {
        if (config.ackTimeoutNanos == 0) {
            return;
        }
        if (!outstanding()) {
            timerActive = false;
            return;
        }
        timerActive = true;
        retransmitDeadline = config.loop.nanoTime() + config.ackTimeoutNanos;
        scheduleTimer(config.ackTimeoutNanos);
    }

    private void scheduleTimer(long delay) {
        if (!timerScheduled) {
            timerScheduled = true;
            config.loop.schedule(delay, this::onTimer);
        }
    }

    /** {@code retransmit_timer}: at the deadline with something outstanding, a retry. */
    private void onTimer() {
        timerScheduled = false;
        if (!timerActive || (config.state != QpState.RTS && config.state != QpState.SQD) || config.closed()) {
            return;
        }
        if (!outstanding()) {
            timerActive = false;
            return;
        }
        long now = config.loop.nanoTime();
        boolean rnrWaiting = requester.waitingForRnrTimer();
        if (rnrWaiting || retransmitDeadline - now > 0) {
            scheduleTimer(rnrWaiting ? config.ackTimeoutNanos : retransmitDeadline - now);
            return;
        }
        // A packet that waited in this host for room in the socket was not lost: its timeout
        // counts from when the socket took it (rxe arms the timer only once a packet is sent).
        SoftTransport transport = config.transport;
        if (transport.blockedSince(retransmitDeadline - config.ackTimeoutNanos)) {
            retransmitDeadline = (transport.blocked() ? now : transport.unblockedAt()) + config.ackTimeoutNanos;
            if (retransmitDeadline - now > 0) {
                scheduleTimer(retransmitDeadline - now);
                return;
            }
        }
        retry();
    }
}
