package org.rdmalab.softroce;

import java.nio.ByteBuffer;
import org.rdmalab.wire.AtomicEth;
import org.rdmalab.wire.Opcode;
import org.rdmalab.wire.Psn;
import org.rdmalab.wire.RocePacketEncoder;
import org.rdmalab.verbs.QpState;
import org.rdmalab.verbs.QpType;
import org.rdmalab.verbs.SendFlag;
import org.rdmalab.verbs.WcStatus;
import org.rdmalab.verbs.WrOpcode;

/**
 * The requester of a queue pair: turns posted send work requests into request packets. It
 * corresponds to rxe's {@code rxe_req.c}; each method names the rxe function it stands for.
 *
 * <p>It owns the send side's progress (rxe's {@code qp->req}): the next work request and packet
 * to send ({@code wqe_index}), the next PSN ({@code req.psn}), the READ/atomic requests in flight
 * ({@code rd_atomic}), the RNR wait ({@code wait_for_rnr_timer}) and the packets sent since the
 * last AckReq ({@code noack_pkts}). It reads the {@link Completer}'s acknowledged PSN for its
 * window, as rxe reads {@code qp->comp.psn}, and arms the completer's retransmission timer.
 *
 * <p>Threads: the transport loop only.
 */
final class Requester {

    /** rxe's RXE_MAX_UNACKED_PSNS: the requester waits when its next PSN is further ahead of the acknowledged one. */
    static final int MAX_UNACKED_PSNS = 128;
    /** rxe's RXE_MAX_PKT_PER_ACK: a packet that finds more than this many sent without AckReq asks for an ACK. */
    static final int MAX_PACKETS_PER_ACK = 64;

    private final QpConfig config;
    private final WorkQueue<SendWqe> sendQueue;
    private Completer completer;

    private long sendIndex;
    private int sendPacket;
    private int nextPsn;
    private int rdOutstanding;
    private boolean rnrWaiting;
    private int packetsSinceAckRequest;
    private int gatherOffset;
    /** Why the last {@link #gather} could not read the payload, or null. */
    private WcStatus gatherFailure;

    Requester(QpConfig config, WorkQueue<SendWqe> sendQueue) {
        this.config = config;
        this.sendQueue = sendQueue;
    }

    void connect(Completer completer) {
        this.completer = completer;
    }

    /** {@code sq_psn} applied by {@code ibv_modify_qp}. */
    void setPsn(int sqPsn) {
        nextPsn = sqPsn;
    }

    /** The PSN the next new request will carry ({@code qp->req.psn}). */
    int nextPsn() {
        return nextPsn;
    }

    /** RTR to RTS. */
    void start() {
        packetsSinceAckRequest = 0;
    }

    /** Back to the initial state (reset): nothing in flight. */
    void reset() {
        sendIndex = 0;
        sendPacket = 0;
        rdOutstanding = 0;
        rnrWaiting = false;
    }

    /** The QP went to ERR: the send queue was flushed up to its tail. */
    void flushed() {
        sendIndex = sendQueue.tail();
        rdOutstanding = 0;
        rnrWaiting = false;
    }

    /**
     * Posted work requests reach the send queue ({@code rxe_post_send} then the requester task):
     * every request posted so far is taken in, in posting order, then the requester runs. Requests
     * posted before a reset that has happened since are not there any more: the reset emptied the
     * ring they were in, as rxe's does. This is the loop's half of every post; it is one pre-made
     * task ({@link SoftQueuePair}), and a run finds the requests of later posts too.
     */
    void admitPosted() {
        while (sendQueue.hasPosted()) {
            if (config.closed() && config.state != QpState.ERR) {
                // The QP is being destroyed: its reset, coming next on the loop, drops every work
                // request without a completion, this one too.
                break;
            }
            SendWqe wqe = sendQueue.admit();
            if (config.state == QpState.ERR) {
                // In ERR the queue is empty (everything was flushed): this request is its head.
                config.sendCq.pushError(wqe.wrId, WcStatus.WR_FLUSH_ERR, wqe.opcode.completionOpcode(), config.qpn);
                sendQueue.removeHead();
            }
        }
        run();
    }

    /**
     * Sends what the window, the READ/atomic limit and the state allow ({@code rxe_requester}, with
     * {@code req_next_wqe} and {@code check_init_depth} deciding whether the next work request may
     * start). While the socket has no room ({@link SoftTransport#blocked()}) it produces nothing
     * and waits to be run again, as rxe's requester waits ({@code need_req_skb}) while too many of
     * its packets sit in the kernel's queues.
     */
    void run() {
        if (config.state != QpState.RTS || rnrWaiting) {
            return;
        }
        while (sendIndex < sendQueue.tail()) {
            if (config.transport.blocked()) {
                config.transport.awaitWritable(config.qp);
                return;
            }
            SendWqe wqe = sendQueue.at(sendIndex);
            if (wqe.done) {
                break; // failed locally: it waits for the completer, and nothing after it goes out
            }
            if (!wqe.started) {
                if (wqe.readOrAtomic() && rdOutstanding >= config.maxRdAtomic) {
                    break;
                }
                if (SendFlag.has(wqe.flags, SendFlag.FENCE) && rdOutstanding > 0) {
                    break;
                }
                WcStatus local = resolveLocal(wqe);
                if (local != null) {
                    wqe.done = true;
                    wqe.status = local;
                    completer.completeWqes();
                    return;
                }
                wqe.started = true;
                wqe.firstPsn = nextPsn;
                wqe.psnCount = wqe.opcode == WrOpcode.RDMA_READ || !wqe.readOrAtomic()
                        ? Math.max(1, (int) ((wqe.length + config.mtu - 1) / config.mtu)) : 1;
                wqe.readPsn = wqe.firstPsn;
                nextPsn = Psn.add(nextPsn, wqe.psnCount);
                if (wqe.readOrAtomic()) {
                    rdOutstanding++;
                }
                sendPacket = 0;
            }
            int psn = Psn.add(wqe.firstPsn, sendPacket);
            if (config.type == QpType.RC && Psn.diff(psn, completer.ackedPsn()) > MAX_UNACKED_PSNS) {
                break;
            }
            if (!sendRequest(wqe, sendPacket)) {
                wqe.done = true;
                wqe.status = gatherFailure;
                completer.completeWqes();
                return;
            }
            if (config.type == QpType.RC) {
                completer.startTimer();
            }
            if (wqe.readOrAtomic()) {
                sendIndex++;
                sendPacket = 0;
            } else if (++sendPacket >= wqe.psnCount) {
                sendIndex++;
                sendPacket = 0;
                if (config.type == QpType.UC) {
                    wqe.done = true;
                    wqe.status = WcStatus.SUCCESS;
                    completer.completeWqes();
                    if (config.state != QpState.RTS) {
                        return;
                    }
                }
            }
        }
    }

    /**
     * Checks a work request as it starts: null when it may go, else the local error. A SEND's or
     * WRITE's gather list is not checked here but at each packet, as rxe's {@code copy_data}
     * looks up the lkeys each time it copies ({@link #gather}). A READ's or atomic's scatter list
     * is resolved now; rxe resolves it when the response arrives (see docs/softroce.md).
     */
    private WcStatus resolveLocal(SendWqe wqe) {
        if (wqe.length > SoftRoceProfile.MAX_MESSAGE_SIZE) {
            return WcStatus.LOC_LEN_ERR;
        }
        if (wqe.inline || !wqe.readOrAtomic()) {
            return null;
        }
        if (!wqe.sges.resolveWritable(config.context, config.pd)) {
            return WcStatus.LOC_PROT_ERR;
        }
        return null;
    }

    private Opcode opcode(Opcode rc) {
        return config.type == QpType.UC ? Opcode.of(rc.value() | Opcode.UC_BASE) : rc;
    }

    /**
     * Encodes and sends packet {@code packet} of {@code wqe} ({@code next_opcode},
     * {@code init_req_packet}, {@code finish_packet}, then {@code rxe_xmit_packet}). Returns
     * false, sending nothing, when the payload cannot be read ({@link #gatherFailure} says why).
     */
    private boolean sendRequest(SendWqe wqe, int packet) {
        int psn = Psn.add(wqe.firstPsn, packet);
        int mtu = config.mtu;
        int destQpn = config.destQpn;
        ByteBuffer out = config.transport.packetBuffer();
        switch (wqe.opcode) {
            case RDMA_READ -> {
                // A retry asks again from the first PSN whose response is missing (rxe's req_retry):
                // the rest of the READ, same rkey, address and length moved on by whole MTUs.
                long offset = (long) packet * mtu;
                packetsSinceAckRequest = 0;
                RocePacketEncoder.encodeRequest(out, Opcode.RC_RDMA_READ_REQUEST, destQpn, psn, true, false,
                        wqe.remoteAddress + offset, wqe.rkey, (int) (wqe.length - offset), 0, null, 0, 0);
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
                boolean ackRequest = last || packetsSinceAckRequest++ > MAX_PACKETS_PER_ACK;
                if (ackRequest) {
                    packetsSinceAckRequest = 0;
                }
                int offset = packet * mtu;
                int length = (int) Math.min(mtu, wqe.length - offset);
                byte[] data = gather(wqe, offset, length);
                if (gatherFailure != null) {
                    return false;
                }
                // rxe (init_req_packet): SE only on the last packet of a SEND or a WRITE_WITH_IMM.
                boolean solicited = last && (!write || imm) && SendFlag.has(wqe.flags, SendFlag.SOLICITED);
                // The RETH (on FIRST and ONLY of a WRITE: the opcode says) goes as fields, not a record.
                RocePacketEncoder.encodeRequest(out, opcode(op), destQpn, psn, ackRequest, solicited,
                        wqe.remoteAddress, wqe.rkey, (int) wqe.length, wqe.imm, data, gatherOffset, length);
            }
        }
        config.transmit();
        return true;
    }

    /**
     * The array holding bytes {@code [offset, offset + length)} of the message; sets
     * {@link #gatherOffset}. As rxe's {@code copy_data} does for every packet, first, and
     * retransmitted, it looks up the lkey of each SGE the packet reads: a key that no longer
     * names a region of the QP's PD (deregistered, say) fails the work request with
     * IBV_WC_LOC_QP_OP_ERR ({@code lookup_mr} fails, -EINVAL), a range outside the region with
     * IBV_WC_LOC_PROT_ERR ({@code mr_check_range}, -EFAULT); then {@link #gatherFailure} is set.
     */
    private byte[] gather(SendWqe wqe, int offset, int length) {
        gatherFailure = null;
        if (length == 0) {
            gatherOffset = 0;
            return null;
        }
        if (wqe.inline) {
            gatherOffset = offset;
            return wqe.inlineData;
        }
        gatherFailure = wqe.sges.lookUp(config.context, config.pd, offset, length, false);
        if (gatherFailure != null) {
            return null;
        }
        int start = 0;
        ScatterGather sges = wqe.sges;
        for (int i = 0; i < sges.count; i++) {
            int segment = sges.lengths[i];
            if (offset < start + segment) {
                int within = offset - start;
                if (within + length <= segment) {
                    gatherOffset = sges.offsets[i] + within;
                    return sges.regions[i].memory();
                }
                break;
            }
            start += segment;
        }
        byte[] scratch = config.transport.scratch();
        sges.copy(offset, scratch, 0, length, false);
        gatherOffset = 0;
        return scratch;
    }

    /** Points the sender back at {@code psn} for a go-back-N retry ({@code req_retry}). */
    void rewind(int psn) {
        for (long i = sendQueue.head(); i < sendQueue.tail(); i++) {
            SendWqe wqe = sendQueue.at(i);
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
        sendIndex = sendQueue.tail();
        sendPacket = 0;
    }

    /** The completer retired work requests up to the queue's head: never resend those. */
    void retired() {
        if (sendIndex < sendQueue.head()) {
            sendIndex = sendQueue.head();
            sendPacket = 0;
        }
    }

    /** A READ or atomic left the wire's flight (rxe's completer gives back one {@code rd_atomic}). */
    void readOrAtomicDone() {
        rdOutstanding--;
    }

    /** A READ or atomic ended in error before its response. */
    void readOrAtomicFailed() {
        rdOutstanding = Math.max(0, rdOutstanding - 1);
    }

    /** The completer got an RNR NAK: hold every send until its timer fires ({@code wait_for_rnr_timer}). */
    void waitForRnrTimer(boolean waiting) {
        rnrWaiting = waiting;
    }

    boolean waitingForRnrTimer() {
        return rnrWaiting;
    }
}
