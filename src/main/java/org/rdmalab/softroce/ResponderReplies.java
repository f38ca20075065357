package org.rdmalab.softroce;

import static org.rdmalab.softroce.ResponderInfo.NONE;

import java.nio.ByteBuffer;
import org.rdmalab.verbs.QpState;
import org.rdmalab.verbs.WcOpcode;
import org.rdmalab.verbs.WcStatus;
import org.rdmalab.verbs.WorkCompletion;
import org.rdmalab.wire.Aeth;
import org.rdmalab.wire.AtomicAckEth;
import org.rdmalab.wire.Opcode;
import org.rdmalab.wire.Psn;
import org.rdmalab.wire.RocePacketEncoder;

/**
 * What the responder sends: ACKs, NAKs and RNR NAKs ({@code send_ack}), atomic ACKs
 * ({@code send_atomic_ack}), and a READ's responses, a few at a time as the loop and the socket
 * allow (rxe's {@code read_reply}, one response per pass); and the error that ends a request the
 * responder cannot execute ({@code do_class_ac_error}: the receive in use completes, the QP goes to
 * ERR, the NAK leaves last). Every packet carries the current MSN of the {@link ResponderInfo}.
 *
 * <p>Threads: the transport loop only.
 */
final class ResponderReplies {

    /**
     * At most this many READ responses leave in one turn of the loop; then the loop receives and
     * runs other work before the next ones, as rxe's responder sends one response per pass of its
     * state machine and its task yields after a bounded number of passes.
     */
    static final int READ_RESPONSES_PER_TURN = 64;

    private final QpConfig config;
    private final ResponderInfo info;
    private final WorkQueue<RecvWqe> receiveQueue;
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

    ResponderReplies(QpConfig config, ResponderInfo info, WorkQueue<RecvWqe> receiveQueue) {
        this.config = config;
        this.info = info;
        this.receiveQueue = receiveQueue;
    }

    /**
     * The READ responses, one per MTU chunk from {@code firstPsn} on ({@code read_reply}, one
     * response per pass): the first ones now, the rest in later turns of the loop, and none while
     * the socket has no room (the transport resumes the reply then). Requests that arrive
     * meanwhile wait for the reply to end ({@link #replying()}), as rxe's do in its request queue.
     * {@code fromStart}: the answer starts the message (FIRST or ONLY, rxe's
     * {@code rdatm_res_state_new}); otherwise it continues one whose start was answered before
     * (MIDDLE … LAST, {@code rdatm_res_state_replay}).
     */
    void sendReadResponses(int firstPsn, boolean fromStart, SoftMemoryRegion region, long address,
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
            RocePacketEncoder.encodeResponse(out, op, config.destQpn, psn, Aeth.ACK_SYNDROME, info.msn,
                    chunk == 0 ? null : replyRegion.memory(),
                    chunk == 0 ? 0 : replyRegion.offsetOf(replyAddress + (long) i * mtu), chunk);
            replyNext++;
            config.transmit();
        }
        stopReadReply();
    }

    /** The READ reply ends: done, stopped by a reset or flush, or its region gone. */
    void stopReadReply() {
        replying = false;
        replyRegion = null;
    }

    /** {@code send_atomic_ack}. */
    void sendAtomicAcknowledge(int psn, long original) {
        ByteBuffer out = config.transport.packetBuffer();
        RocePacketEncoder.encode(out, Opcode.RC_ATOMIC_ACKNOWLEDGE, config.destQpn, psn, false, false, null,
                Aeth.ack(info.msn), null, new AtomicAckEth(original), 0, null, 0, 0);
        config.transmit();
    }

    /**
     * {@code send_ack}: an ACKNOWLEDGE whose AETH carries {@code syndrome} (ACK, NAK or RNR NAK) and
     * the current MSN; written from the two fields, so an ACK builds no header object.
     */
    void sendAcknowledge(int syndrome, int psn) {
        ByteBuffer out = config.transport.packetBuffer();
        RocePacketEncoder.encodeResponse(out, Opcode.RC_ACKNOWLEDGE, config.destQpn, psn, syndrome, info.msn, null, 0,
                0);
        config.transmit();
    }

    /**
     * A request the responder cannot execute ({@code do_class_ac_error} and the error states):
     * complete the receive in use with {@code recvStatus} (when there is one), move the QP to ERR
     * and NAK with {@code code}. On UC the packet is silently dropped and the message abandoned
     * ({@code do_class_d1e_error}).
     */
    void responderError(int psn, int code, WcStatus recvStatus, boolean uc) {
        if (uc) {
            info.inProgress = NONE;
            info.ucDropping = true;
            return;
        }
        WorkCompletion cause = null;
        if (info.currentRecv != null && recvStatus != null) {
            RecvWqe recv = info.currentRecv;
            cause = WorkCompletion.error(recv.wrId, recvStatus, WcOpcode.RECV, config.qpn);
            info.currentRecv = null;
            receiveQueue.removeHead();
        }
        config.enterError(config.recvCq, cause);
        // The NAK leaves last: once the requester sees its error, this QP is already in ERR.
        sendAcknowledge(Aeth.nakSyndrome(code), psn);
    }
}
