package org.rdmalab.softroce;

import static org.rdmalab.softroce.ResponderInfo.IN_SEND;
import static org.rdmalab.softroce.ResponderInfo.IN_WRITE;
import static org.rdmalab.softroce.ResponderInfo.NONE;

import org.rdmalab.verbs.AccessFlag;
import org.rdmalab.verbs.WcFlag;
import org.rdmalab.verbs.WcOpcode;
import org.rdmalab.verbs.WcStatus;
import org.rdmalab.wire.Aeth;
import org.rdmalab.wire.AtomicEth;
import org.rdmalab.wire.Opcode;
import org.rdmalab.wire.Psn;
import org.rdmalab.wire.RocePacket;

/**
 * The responder's execution of a request that passed its checks ({@link Responder}): a SEND's
 * payload into its receive ({@code send_data_in}), a WRITE's into the RETH's region
 * ({@code write_data_in}, with {@code check_rkey}'s length and pad rules), a receive's completion
 * ({@code do_complete}), a READ saved and answered ({@code read_reply}) and an atomic executed once,
 * saved and answered ({@code atomic_reply}).
 *
 * <p>Threads: the transport loop only.
 */
final class ResponderExecution {

    private final QpConfig config;
    private final ResponderInfo info;
    private final WorkQueue<RecvWqe> receiveQueue;
    private final ResponderResources resources;
    private final ResponderReplies replies;

    ResponderExecution(QpConfig config, ResponderInfo info, WorkQueue<RecvWqe> receiveQueue,
                       ResponderResources resources, ResponderReplies replies) {
        this.config = config;
        this.info = info;
        this.receiveQueue = receiveQueue;
        this.resources = resources;
        this.replies = replies;
    }

    /** {@code check_rkey}: the region an rkey names, if it is this PD's, allows {@code right} and holds the range. */
    static SoftMemoryRegion checkRkey(QpConfig config, int rkey, long address, long length, AccessFlag right) {
        SoftMemoryRegion region = config.context.regionByKey(rkey);
        if (region == null || region.softPd() != config.pd || !region.allows(right) || !region.contains(address, length)) {
            return null;
        }
        return region;
    }

    /** {@code send_data_in}: the payload goes into the receive; its last packet completes it. */
    boolean sendDataIn(RocePacket packet, int psn, boolean uc) {
        Opcode op = packet.opcode();
        RecvWqe recv = info.currentRecv;
        int payload = packet.payloadLength();
        // rxe (send_data_in, copy_data) finds both faults while it copies into the receive and
        // calls each a malformed receive (RESPST_ERR_MALFORMED_WQE, class A): the receive
        // completes with IBV_WC_LOC_QP_OP_ERR and the NAK is a remote operational error.
        if ((long) info.recvOffset + payload > recv.capacity || !recv.resolve(config.context, config.pd)) {
            replies.responderError(psn, Aeth.NAK_REMOTE_OPERATIONAL_ERROR, WcStatus.LOC_QP_OP_ERR, uc);
            return false;
        }
        if (payload > 0) {
            recv.sges.copy(info.recvOffset, packet.buffer(), packet.payloadOffset(), payload, true);
        }
        info.recvOffset += payload;
        if (op.isLast() || op.isOnly()) {
            boolean imm = packet.hasImmDt();
            doComplete(recv.wrId, WcOpcode.RECV, info.recvOffset, imm ? packet.immDt() : 0,
                    imm ? WcFlag.WITH_IMM.value() : 0, packet.solicitedEvent());
        } else {
            info.inProgress = IN_SEND;
        }
        return true;
    }

    /**
     * {@code do_complete}: the receive completes (its completion given field by field, so that it
     * allocates nothing) and the message sequence number advances.
     */
    private void doComplete(long wrId, WcOpcode opcode, int byteLength, int immData, int wcFlags, boolean solicited) {
        info.inProgress = NONE;
        info.msn = Psn.add(info.msn, 1);
        // rxe (do_complete) counts rdma_recvs for each receive that completes successfully.
        config.count(Counter.RDMA_RECVS);
        // The slot is free before the completion is seen, as rxe advances the queue's consumer
        // index before it posts the CQE: an application that reposts for each completion it polls
        // never finds the queue full. Nothing reads the slot after this (wrId is a copy).
        info.currentRecv = null;
        receiveQueue.removeHead();
        boolean stored = config.recvCq.push(wrId, WcStatus.SUCCESS, opcode, 0, byteLength, immData, config.qpn,
                config.destQpn, wcFlags, solicited);
        if (!stored) {
            config.enterError();
        }
    }

    /** {@code write_data_in}: the payload goes to the RETH's region; WRITE_WITH_IMM's last packet completes a receive. */
    boolean writeDataIn(RocePacket packet, int psn, boolean uc) {
        Opcode op = packet.opcode();
        int payload = packet.payloadLength();
        boolean ends = op.isLast() || op.isOnly();
        if (op.isFirst() || op.isOnly()) {
            long address = packet.rethVirtualAddress();
            long length = packet.rethDmaLength();
            SoftMemoryRegion region = null;
            if (length > 0) {
                region = checkRkey(config, packet.rethRkey(), address, length, AccessFlag.REMOTE_WRITE);
                if (region == null) {
                    // rxe (check_rkey, RESPST_ERR_RKEY_VIOLATION): a WRITE_WITH_IMM's receive, taken
                    // before the rkey is checked, completes with the same status.
                    replies.responderError(psn, Aeth.NAK_REMOTE_ACCESS_ERROR, WcStatus.REM_ACCESS_ERR, uc);
                    return false;
                }
            }
            info.writeRegion = region;
            info.writeAddress = address;
            info.writeRemaining = length;
            info.writeLength = length;
        }
        if (!writeLengthFits(packet, payload, ends)) {
            replies.responderError(psn, Aeth.NAK_INVALID_REQUEST, WcStatus.REM_INV_REQ_ERR, uc);
            return false;
        }
        if (payload > 0) {
            System.arraycopy(packet.buffer(), packet.payloadOffset(), info.writeRegion.memory(),
                    info.writeRegion.offsetOf(info.writeAddress), payload);
        }
        info.writeAddress += payload;
        info.writeRemaining -= payload;
        if (ends) {
            info.writeRegion = null;
            if (op.hasImmDt()) {
                doComplete(info.currentRecv.wrId, WcOpcode.RECV_RDMA_WITH_IMM, (int) info.writeLength, packet.immDt(),
                        WcFlag.WITH_IMM.value(), packet.solicitedEvent());
            } else {
                info.inProgress = NONE;
                info.msn = Psn.add(info.msn, 1);
            }
        } else {
            info.inProgress = IN_WRITE;
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
        if (info.writeLength == 0) {
            return payload == 0;
        }
        int pad = packet.padCount();
        if (info.writeRemaining > config.mtu) {
            return payload == config.mtu && pad == 0 && !ends;
        }
        return payload == info.writeRemaining && pad == ((int) -info.writeRemaining & 3);
    }

    /** {@code read_reply}: saves the READ as a resource, reserves its PSNs and sends the responses. */
    Responder.State readReply(RocePacket packet, int psn, boolean uc) {
        int rkey = packet.rethRkey();
        long address = packet.rethVirtualAddress();
        long length = packet.rethDmaLength();
        SoftMemoryRegion region = null;
        if (length > 0) {
            region = checkRkey(config, rkey, address, length, AccessFlag.REMOTE_READ);
            if (region == null) {
                replies.responderError(psn, Aeth.NAK_REMOTE_ACCESS_ERROR, null, uc);
                return Responder.State.RESPST_DONE;
            }
        }
        int count = Math.max(1, (int) ((length + config.mtu - 1) / config.mtu));
        resources.saveResource(true, psn, count, 0, rkey, address, length);
        info.expectedPsn = Psn.add(info.expectedPsn, count);
        info.msn = Psn.add(info.msn, 1);
        replies.sendReadResponses(psn, true, region, address, length);
        return Responder.State.RESPST_DONE;
    }

    /** {@code atomic_reply}: executes the atomic once, saves its original value and answers it. */
    Responder.State atomicReply(RocePacket packet, int psn, boolean uc) {
        AtomicEth eth = packet.atomicEth();
        if ((eth.virtualAddress() & 7) != 0) {
            replies.responderError(psn, Aeth.NAK_INVALID_REQUEST, null, uc);
            return Responder.State.RESPST_DONE;
        }
        SoftMemoryRegion region = checkRkey(config, eth.rkey(), eth.virtualAddress(), 8, AccessFlag.REMOTE_ATOMIC);
        if (region == null) {
            replies.responderError(psn, Aeth.NAK_REMOTE_ACCESS_ERROR, null, uc);
            return Responder.State.RESPST_DONE;
        }
        long original = packet.opcode() == Opcode.RC_COMPARE_SWAP
                ? region.compareSwap(eth.virtualAddress(), eth.compare(), eth.swapOrAdd())
                : region.fetchAdd(eth.virtualAddress(), eth.swapOrAdd());
        resources.saveResource(false, psn, 1, original, eth.rkey(), eth.virtualAddress(), 8);
        info.expectedPsn = Psn.add(info.expectedPsn, 1);
        info.msn = Psn.add(info.msn, 1);
        replies.sendAtomicAcknowledge(psn, original);
        return Responder.State.RESPST_DONE;
    }
}
