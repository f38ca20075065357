package org.rdmalab.ladder;

import org.rdmalab.wire.Opcode;

/**
 * One message of a QP: a SEND, WRITE, READ or atomic, its packets FIRST … LAST or ONLY (a READ's
 * request and its responses). From a capture the ladder infers it from the opcodes and PSNs; live,
 * it is tied to the work request that made it.
 *
 * <p>Threads: the ladder's.
 */
public final class Message {

    private final int index;
    private final QpPair pair;
    private final boolean fromA;
    private final Opcode firstOpcode;
    private final long firstPsn;
    long lastPsn;
    int packets;
    boolean complete;
    long firstIndex;
    long lastIndex;
    /** The ladder index of the ACK, NAK or last response that answered it, or -1. */
    long answerIndex = -1;
    int answerSyndrome = -1;
    WorkRequest workRequest;

    Message(int index, QpPair pair, boolean fromA, Opcode firstOpcode, long firstPsn, long firstIndex) {
        this.index = index;
        this.pair = pair;
        this.fromA = fromA;
        this.firstOpcode = firstOpcode;
        this.firstPsn = firstPsn;
        this.lastPsn = firstPsn;
        this.firstIndex = firstIndex;
        this.lastIndex = firstIndex;
    }

    /** 1 for the first message seen, 2 for the next... */
    public int index() {
        return index;
    }

    /** The QP pair it travels in. */
    public QpPair pair() {
        return pair;
    }

    /** True when side A of its pair is the requester. */
    public boolean fromA() {
        return fromA;
    }

    /** The opcode of its first packet (RC_RDMA_WRITE_FIRST, RC_RDMA_READ_REQUEST, ...). */
    public Opcode firstOpcode() {
        return firstOpcode;
    }

    /** "SEND", "WRITE", "READ", "ATOMIC" or the opcode's name. */
    public String operation() {
        if (firstOpcode.isSend()) {
            return "SEND";
        }
        if (firstOpcode.isWrite()) {
            return "WRITE";
        }
        if (firstOpcode.isReadRequest()) {
            return "READ";
        }
        if (firstOpcode.isAtomic()) {
            return "ATOMIC";
        }
        return firstOpcode.name();
    }

    /** Its first PSN (24 bits). */
    public int firstPsn() {
        return (int) (firstPsn & 0xFFFFFF);
    }

    /** Its last PSN seen so far (24 bits; a READ's last response). */
    public int lastPsn() {
        return (int) (lastPsn & 0xFFFFFF);
    }

    long firstPsnUnwrapped() {
        return firstPsn;
    }

    /** Packets that carried it, retransmissions included. */
    public int packets() {
        return packets;
    }

    /** True once its last packet (LAST, ONLY, or a READ's last response) was seen. */
    public boolean complete() {
        return complete;
    }

    /** Ladder index of its first packet. */
    public long firstIndex() {
        return firstIndex;
    }

    /** Ladder index of its latest packet. */
    public long lastIndex() {
        return lastIndex;
    }

    /** Ladder index of the ACK, NAK or response that answered it, or -1. */
    public long answerIndex() {
        return answerIndex;
    }

    /** The answering AETH's syndrome, or -1. */
    public int answerSyndrome() {
        return answerSyndrome;
    }

    /** The work request that made it (live traffic), or null when inferred from the wire. */
    public WorkRequest workRequest() {
        return workRequest == null || workRequest.number() == 0 ? null : workRequest;
    }

    /** True when it was inferred from opcodes and PSNs rather than tied to a work request. */
    public boolean inferred() {
        return workRequest() == null;
    }
}
