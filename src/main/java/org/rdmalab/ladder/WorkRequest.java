package org.rdmalab.ladder;

/**
 * A send-queue work request posted in a live lab, as the ladder ties it to its packets and its
 * completion.
 *
 * <p>Threads: the ladder's.
 */
public final class WorkRequest {

    /** Where it stands, as the wire and the CQ show it. */
    public enum State {
        /** Posted; no packet of it seen yet. */
        POSTED("posted"),
        /** Some of its packets went out; no reply covers them yet. */
        IN_FLIGHT("in flight"),
        /** Its last PSN was acknowledged (or its READ / atomic answered). */
        ACKNOWLEDGED("acknowledged"),
        /** Its completion arrived. */
        COMPLETED("completed"),
        /** Its completion arrived with IBV_WC_WR_FLUSH_ERR: the QP was in error and never sent it. */
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

    private final String side;
    private final String host;
    private final int qpn;
    private final long wrId;
    private final String opcode;
    private final long length;
    private final long postedNanos;
    State state = State.POSTED;
    Message message;
    String status;
    long completionIndex = -1;

    WorkRequest(String side, String host, int qpn, long wrId, String opcode, long length, long postedNanos) {
        this.side = side;
        this.host = host;
        this.qpn = qpn;
        this.wrId = wrId;
        this.opcode = opcode;
        this.length = length;
        this.postedNanos = postedNanos;
    }

    /** The lab side that posted it ("server", "client"). */
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

    /** verbs.h's name: IBV_WR_RDMA_WRITE, ... */
    public String opcode() {
        return opcode;
    }

    /** Bytes it moves. */
    public long length() {
        return length;
    }

    public long postedNanos() {
        return postedNanos;
    }

    public State state() {
        return state;
    }

    /** The message that carried it, or null before its first packet. */
    public Message message() {
        return message;
    }

    /** "PSN 5..8", "PSN 5", or "" before its first packet. */
    public String psnRange() {
        if (message == null) {
            return "";
        }
        return message.firstPsn() == message.lastPsn() ? "PSN " + message.firstPsn()
                : "PSN " + message.firstPsn() + ".." + message.lastPsn();
    }

    /** Its completion's status (IBV_WC_SUCCESS, ...), or null before it. */
    public String status() {
        return status;
    }

    /** The completion's number in the ladder's completion list, or -1 before it. */
    public long completionIndex() {
        return completionIndex;
    }
}
