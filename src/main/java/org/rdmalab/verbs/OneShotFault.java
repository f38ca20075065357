package org.rdmalab.verbs;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * A fault for one packet, for teaching: "drop the next packet", "drop the next ACK" or "corrupt
 * the next packet" going one way, so that a demonstration happens the same way every time. Armed
 * on one device or on several ({@link FaultControl#arm}), it fires on the first packet that
 * matches on any of them and never again; it can be cancelled while it waits.
 *
 * <p>Which way a packet goes follows from its opcode: requests (SEND, RDMA WRITE, RDMA READ
 * request, atomics) go from requester to responder; ACKs and NAKs, RDMA READ responses and atomic
 * ACKs come back. An ACK is an ACKNOWLEDGE or an ATOMIC ACKNOWLEDGE packet (an ACK or a NAK).
 *
 * <p>Thread-safe: the devices' transport threads claim it, any thread arms or cancels it.
 */
public final class OneShotFault {

    /** What it does. */
    public enum Kind {
        /** Drops the next packet going the chosen way. */
        DROP_NEXT_PACKET(FaultKind.DROP),
        /** Drops the next ACK or NAK (always from responder to requester). */
        DROP_NEXT_ACK(FaultKind.DROP),
        /** Flips one bit of the next packet going the chosen way: the receiver's ICRC check drops it. */
        CORRUPT_NEXT_PACKET(FaultKind.CORRUPT);

        private final FaultKind fault;

        Kind(FaultKind fault) {
            this.fault = fault;
        }

        /** What it does to the packet it hits. */
        public FaultKind fault() {
            return fault;
        }
    }

    /** Which way the packet it hits goes. */
    public enum Way {
        /** Requests: SEND, RDMA WRITE, RDMA READ request, atomics. */
        REQUESTER_TO_RESPONDER,
        /** Responses: ACK / NAK, RDMA READ response, atomic ACK. */
        RESPONDER_TO_REQUESTER
    }

    private static final int WAITING = 0;
    private static final int FIRED = 1;
    private static final int CANCELLED = 2;

    private final Kind kind;
    private final Way way;
    private final AtomicInteger state = new AtomicInteger(WAITING);

    private OneShotFault(Kind kind, Way way) {
        this.kind = kind;
        this.way = way;
    }

    /**
     * A one-shot fault of {@code kind} for the next packet going {@code way}; an ACK always comes
     * back, so {@link Kind#DROP_NEXT_ACK} ignores {@code way}.
     */
    public static OneShotFault of(Kind kind, Way way) {
        return new OneShotFault(kind, kind == Kind.DROP_NEXT_ACK ? Way.RESPONDER_TO_REQUESTER : way);
    }

    public Kind kind() {
        return kind;
    }

    public Way way() {
        return way;
    }

    /**
     * Whether a packet of this kind is one it waits for.
     *
     * @param request the packet is a request (requester to responder)
     * @param acknowledge the packet is an ACKNOWLEDGE or ATOMIC ACKNOWLEDGE
     */
    public boolean matches(boolean request, boolean acknowledge) {
        if (kind == Kind.DROP_NEXT_ACK) {
            return acknowledge;
        }
        return request == (way == Way.REQUESTER_TO_RESPONDER);
    }

    /** Fires it: true for exactly one caller, and only while it waits. */
    public boolean claim() {
        return state.compareAndSet(WAITING, FIRED);
    }

    /** Takes it back while it waits; true if it had not fired. */
    public boolean cancel() {
        return state.compareAndSet(WAITING, CANCELLED);
    }

    /** True until it fires or is cancelled. */
    public boolean waiting() {
        return state.get() == WAITING;
    }

    /** True once it fired. */
    public boolean fired() {
        return state.get() == FIRED;
    }

    @Override
    public String toString() {
        return kind.name().toLowerCase(java.util.Locale.ROOT) + " " + way.name().toLowerCase(java.util.Locale.ROOT)
                + (fired() ? " (fired)" : waiting() ? " (armed)" : " (cancelled)");
    }
}
