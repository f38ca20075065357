package org.rdmalab.ladder;

import java.util.List;
import org.rdmalab.wire.Opcode;
import org.rdmalab.wire.Reth;

/**
 * One packet on the ladder: an arrow from one QP of a pair to the other, with what the ladder
 * learnt of it (its message, whether it repeats an earlier packet, the wait before it).
 *
 * <p>Threads: the ladder's. An arrow changes after it was added only when its arrival is seen
 * (live traffic: the receiving device reports it after the sending one).
 */
public final class Arrow {

    final long index;
    final long timeNanos;
    long arrivalNanos = -1;
    final String source;
    final String destination;
    final QpPair pair;
    final boolean fromA;
    final Opcode opcode;
    final int qpn;
    final int psn;
    final boolean ackRequest;
    final int payloadLength;
    final Reth reth;
    final int aethSyndrome;
    final int aethMsn;
    final byte[] bytes;
    final boolean icrcOk;
    /** Seen on the wire by a capture, not reported by the device that sent it. */
    final boolean captured;
    boolean dropped;
    String dropReason;
    final List<String> faults;
    Message message;
    long repeats = -1;
    boolean duplicate;
    boolean reordered;
    Gap gap;

    Arrow(long index, WirePacket packet, QpPair pair, boolean fromA, Opcode opcode, int qpn, int psn, boolean ackRequest,
          int payloadLength, Reth reth, int aethSyndrome, int aethMsn) {
        this.index = index;
        this.timeNanos = packet.timeNanos();
        this.source = packet.source();
        this.destination = packet.destination();
        this.pair = pair;
        this.fromA = fromA;
        this.opcode = opcode;
        this.qpn = qpn;
        this.psn = psn;
        this.ackRequest = ackRequest;
        this.payloadLength = payloadLength;
        this.reth = reth;
        this.aethSyndrome = aethSyndrome;
        this.aethMsn = aethMsn;
        this.bytes = packet.bytes();
        this.icrcOk = packet.icrcOk();
        this.faults = packet.faults();
        this.captured = packet.seen() == WirePacket.Seen.CAPTURED;
    }

    /** The sending device made this packet as a copy of another (a {@code dup} fault). */
    boolean injectedDuplicate() {
        return faults.stream().anyMatch(fault -> fault.startsWith("dup"));
    }

    /** Its place in the ladder: 1 for the first packet, counting on when old ones are forgotten. */
    public long index() {
        return index;
    }

    /** When it was sent (or captured). */
    public long timeNanos() {
        return timeNanos;
    }

    /** When the receiving device accepted it, or -1 (a capture, a drop, or not yet). */
    public long arrivalNanos() {
        return arrivalNanos;
    }

    /** "ip:port". */
    public String source() {
        return source;
    }

    /** "ip:port". */
    public String destination() {
        return destination;
    }

    public QpPair pair() {
        return pair;
    }

    /** True when it goes from side A of its pair to side B. */
    public boolean fromA() {
        return fromA;
    }

    public Opcode opcode() {
        return opcode;
    }

    /** The BTH destination QP. */
    public int qpn() {
        return qpn;
    }

    public int psn() {
        return psn;
    }

    public boolean ackRequest() {
        return ackRequest;
    }

    /** Payload bytes (without pad and ICRC). */
    public int payloadLength() {
        return payloadLength;
    }

    /** The RETH, or null. */
    public Reth reth() {
        return reth;
    }

    /** True for ACKNOWLEDGE and ATOMIC_ACKNOWLEDGE, and READ responses that carry an AETH. */
    public boolean hasAeth() {
        return aethSyndrome >= 0;
    }

    /** The AETH syndrome, or -1 without an AETH. */
    public int aethSyndrome() {
        return aethSyndrome;
    }

    /** The AETH MSN, or -1 without an AETH. */
    public int aethMsn() {
        return aethMsn;
    }

    /** True for an ACKNOWLEDGE or ATOMIC_ACKNOWLEDGE that is a NAK or RNR NAK. */
    public boolean isNak() {
        return opcode.isAcknowledge() && hasAeth() && Syndrome.isNak(aethSyndrome);
    }

    /** The UDP payload, BTH to ICRC (do not modify). */
    public byte[] bytes() {
        return bytes;
    }

    public boolean icrcOk() {
        return icrcOk;
    }

    /** True when a device dropped it (an injected fault on its way out, or a check on arrival). */
    public boolean dropped() {
        return dropped;
    }

    /** Why it was dropped ("fault injector: dropped", "ICRC mismatch"...), or null. */
    public String dropReason() {
        return dropReason;
    }

    /** The injected faults that hit it. */
    public List<String> faults() {
        return faults;
    }

    /** Its message, or null (a packet of no RC message, or one the ladder forgot). */
    public Message message() {
        return message;
    }

    /** True when it is a request that repeats a PSN its QP already sent (an ACK or NAK never is). */
    public boolean retransmission() {
        return repeats >= 0 && !duplicate;
    }

    /** The ladder index of the packet it repeats, or -1. */
    public long repeats() {
        return repeats;
    }

    /** True when it is a copy the network made (an injected duplicate, or an identical packet right after its original). */
    public boolean duplicate() {
        return duplicate;
    }

    /** True when a request arrived after a higher PSN of its QP without repeating one. */
    public boolean reordered() {
        return reordered;
    }

    /** The wait before this retransmission, or null. */
    public Gap gap() {
        return gap;
    }

    /** True for a request (requester to responder), false for a response, ACK or NAK. */
    public boolean request() {
        return opcode.isRequest();
    }
}
