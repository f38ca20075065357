package org.rdmalab.ladder;

/**
 * Two connected QPs, seen from the wire: a host and a QP number on each side. RC packets name only
 * their destination QP, so a side's QP number is known once a packet was sent to it; until then it
 * is -1. Side A is the side that sent the first packet seen.
 *
 * <p>Threads: the ladder's.
 */
public final class QpPair {

    private final int index;
    final String hostA;
    final String hostB;
    int qpA;
    int qpB;
    final Flow fromA = new Flow();
    final Flow fromB = new Flow();
    long lastActive;

    QpPair(int index, String hostA, int qpA, String hostB, int qpB) {
        this.index = index;
        this.hostA = hostA;
        this.qpA = qpA;
        this.hostB = hostB;
        this.qpB = qpB;
    }

    /** 1 for the first pair seen, 2 for the next... */
    public int index() {
        return index;
    }

    /** Side A's host (IP address). */
    public String hostA() {
        return hostA;
    }

    /** Side B's host. */
    public String hostB() {
        return hostB;
    }

    /** Side A's QP number, or -1 while no packet was sent to it. */
    public int qpA() {
        return qpA;
    }

    /** Side B's QP number, or -1. */
    public int qpB() {
        return qpB;
    }

    /** "10.0.0.1 QP 0x11 ↔ 10.0.0.2 QP 0x12". */
    @Override
    public String toString() {
        return hostA + " QP " + qp(qpA) + " \u2194 " + hostB + " QP " + qp(qpB);
    }

    private static String qp(int qp) {
        return qp < 0 ? "?" : "0x" + Integer.toHexString(qp);
    }
}
