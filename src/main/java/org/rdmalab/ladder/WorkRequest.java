package org.rdmalab.ladder;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.rdmalab.verbs.WrOpcode;

/**
 * A send-queue work request posted in a live lab, as {@link WorkRequestTracker} ties it to its
 * message, its packets (requests, retransmissions, responses, ACKs and NAKs) and its completion.
 *
 * <p>Threads: the tracker's.
 */
public final class WorkRequest {

    /** Where it stands, as the wire and the CQ show it; it only moves forward. */
    public enum State {
        /** Posted ({@code ibv_post_send} returned 0); no packet of it seen yet. */
        POSTED("posted"),
        /** Its first packet went out; no ACK or response covers its last PSN yet. */
        IN_FLIGHT("in flight"),
        /**
         * The responder acknowledged its last PSN: an ACK (or a later one, coalesced) for a SEND or
         * WRITE, the last response of a READ, the ATOMIC_ACKNOWLEDGE of an atomic.
         */
        ACKNOWLEDGED("acknowledged"),
        /** Its completion was polled, with IBV_WC_SUCCESS or an error status ({@link #status()}). */
        COMPLETED("completed"),
        /**
         * Its completion was polled with IBV_WC_WR_FLUSH_ERR: the QP went to the error state before
         * the request was done, so the device flushed it.
         */
        FLUSHED("flushed");

        private final String words;

        State(String words) {
            this.words = words;
        }

        /** "posted", "in flight", ... */
        public String words() {
            return words;
        }
    }

    /** A retransmission of one of its PSNs, with why the requester sent it again. */
    public record Resent(int psn, long index, Gap gap) {
    }

    private final long number;
    private final String side;
    private final String host;
    private final int qpn;
    private final long wrId;
    private final WrOpcode opcode;
    private final long length;
    private final boolean signaled;
    State state = State.POSTED;
    Message message;
    String status;
    long[] packets = new long[4];
    int packetCount;
    long packetsForgotten;
    final List<Resent> resent = new ArrayList<>();
    /** Retransmissions past {@link #RESENT_KEPT}, counted only. */
    long resentForgotten;

    /**
     * Retransmissions a request keeps, its first ones: enough to show a student which PSNs went
     * out again and why, and bounded where a long READ under loss resends millions.
     */
    public static final int RESENT_KEPT = 1024;

    WorkRequest(long number, String side, String host, int qpn, long wrId, WrOpcode opcode, long length,
                boolean signaled) {
        this.number = number;
        this.side = side;
        this.host = host;
        this.qpn = qpn;
        this.wrId = wrId;
        this.opcode = opcode;
        this.length = length;
        this.signaled = signaled;
    }

    /** 1 for the first request the tracker was told of, 2 for the next... */
    public long number() {
        return number;
    }

    /** The lab side that posted it ("server", "client", "local"). */
    public String side() {
        return side;
    }

    /** The requester's host (IP address). */
    public String host() {
        return host;
    }

    /** The QP it was posted to. */
    public int qpn() {
        return qpn;
    }

    public long wrId() {
        return wrId;
    }

    public WrOpcode opcode() {
        return opcode;
    }

    /** Bytes it moves (the sum of its scatter/gather list). */
    public long length() {
        return length;
    }

    /** True when it asked for a completion on success (IBV_SEND_SIGNALED). */
    public boolean signaled() {
        return signaled;
    }

    public State state() {
        return state;
    }

    /** The message that carried it, or null before its first packet. */
    public Message message() {
        return message;
    }

    /**
     * "5", "5..8", "16777215..2" across the 24-bit wrap, or "" before its first packet; a READ's
     * range runs to its last response PSN.
     */
    public String psnRange() {
        if (message == null) {
            return "";
        }
        return message.firstPsn() == message.lastPsn() ? Integer.toString(message.firstPsn())
                : message.firstPsn() + ".." + message.lastPsn();
    }

    /** Its completion's status as verbs.h names it (IBV_WC_SUCCESS, ...), or null before it. */
    public String status() {
        return status;
    }

    /** True once a completion came with another status than IBV_WC_SUCCESS (a flush included). */
    public boolean failed() {
        return status != null && !"IBV_WC_SUCCESS".equals(status);
    }

    /**
     * Ladder indices of its packets, oldest first: its requests and their retransmissions, a READ's
     * responses, and the ACKs and NAKs that answered it (the newest {@link WorkRequestTracker}'s
     * limit of them).
     */
    public long[] packets() {
        return Arrays.copyOf(packets, packetCount);
    }

    /** True when the packet with ladder index {@code index} is one of {@link #packets()}. */
    public boolean hasPacket(long index) {
        return packetCount > 0 && index >= packets[0] && index <= packets[packetCount - 1]
                && Arrays.binarySearch(packets, 0, packetCount, index) >= 0;
    }

    /** Its packets seen, including those let go to bound memory. */
    public long packetsSeen() {
        return packetCount + packetsForgotten;
    }

    /**
     * Its PSNs sent again, in the order they went out, each with the wait before it (or null within a
     * burst): the first {@link #RESENT_KEPT}.
     */
    public List<Resent> resent() {
        return List.copyOf(resent);
    }

    /** Its retransmissions after the first {@link #RESENT_KEPT}, which are counted but not kept. */
    public long resentForgotten() {
        return resentForgotten;
    }

    void addResent(Resent again) {
        if (resent.size() < RESENT_KEPT) {
            resent.add(again);
        } else {
            resentForgotten++;
        }
    }

    void addPacket(long index, int limit) {
        if (packetCount > 0 && packets[packetCount - 1] >= index) {
            if (hasPacket(index)) {
                return;
            }
            // A coalesced ACK seen before a later packet of this request: keep the list in order.
            int at = -Arrays.binarySearch(packets, 0, packetCount, index) - 1;
            grow();
            System.arraycopy(packets, at, packets, at + 1, packetCount - at);
            packets[at] = index;
            packetCount++;
            trim(limit);
            return;
        }
        grow();
        packets[packetCount++] = index;
        trim(limit);
    }

    private void grow() {
        if (packetCount == packets.length) {
            packets = Arrays.copyOf(packets, packets.length * 2);
        }
    }

    private void trim(int limit) {
        if (packetCount > limit) {
            int drop = packetCount - limit / 2;
            System.arraycopy(packets, drop, packets, 0, packetCount - drop);
            packetCount -= drop;
            packetsForgotten += drop;
        }
    }

    /** Moves to {@code next} unless it stands there or further already. */
    void advance(State next) {
        if (next.ordinal() > state.ordinal()) {
            state = next;
        }
    }

    @Override
    public String toString() {
        return side + " wr_id " + Long.toUnsignedString(wrId) + " " + opcode.cName() + " " + length + " B"
                + (message == null ? "" : " PSN " + psnRange()) + " " + state.words()
                + (status == null ? "" : " " + status);
    }
}
