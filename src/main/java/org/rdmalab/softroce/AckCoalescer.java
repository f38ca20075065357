package org.rdmalab.softroce;

import java.nio.ByteBuffer;

/**
 * Plain ACKs that a busy-polling caller's turn made, held back and coalesced (on the loop only).
 *
 * <p>An RC responder may acknowledge several requests with one ACK: an ACK's PSN and MSN are
 * cumulative, so a newer ACK of the same QP stands for every older one (IBA 9.7.5.1.1,
 * "coalesced acknowledgements"). Linux rxe does not coalesce: it sends one ACK for every packet
 * that asks for one. soft0 does so only while a caller busy-polls the device, where an ACK's
 * {@code sendto} would otherwise sit between the caller's answer and its next poll, and decides per
 * peer QP how long an ACK may wait:
 * <ul>
 *   <li>A peer that <em>pipelines</em> (it sent another request while the ACK of its last one was
 *       still held here: it did not wait for that ACK) gets one ACK per {@link #HOLD_NANOS} at most:
 *       newer ACKs replace the held one, which leaves once it is that old.</li>
 *   <li>A peer that <em>waits</em> for its ACKs (the held ACK grew old and no request came
 *       meanwhile, as ibv_rc_pingpong waits for its send completion) gets each ACK right after this
 *       side's next packet (most often its answer) or at the poller's next turn.</li>
 *   <li>A peer not seen yet, and one peer ACK of every {@link #PROBE_EVERY} of a waiting peer, is held
 *       as for a pipelining one, to learn whether it pipelines (now or again).</li>
 * </ul>
 * Everything held leaves at a turn that is not a busy poller's (the loop thread's, or a caller that
 * does not busy-poll; the loop thread takes one at least every 8 ms while callers poll), when a QP
 * is destroyed, and before any other responder output (a NAK, a READ or atomic response), so the
 * responder's packets leave in PSN order. A peer that waits for an ACK is at most
 * {@link #HOLD_NANOS} late once per
 * {@link #PROBE_EVERY} ACKs. The responder does not know the peer's retransmission timeout: a peer
 * QP whose {@code timeout} is 3 or less (4.096 µs × 2^3 ≈ 33 µs, below {@link #HOLD_NANOS}) may
 * retransmit a request whose ACK is held, which is then answered as a duplicate, and one whose
 * {@code timeout} is 11 or less (8.4 ms) may when the poller stops right after the ACK was held (it
 * then waits for the loop thread); perftest and ibv_rc_pingpong use 14 (67 ms).
 */
final class AckCoalescer {

    /** Where released ACKs go: the transport's send (counts, capture, socket). */
    interface Sink {
        void send(int destinationIp, int ttl, byte[] datagram, int length);
    }

    /** How long a pipelining peer's ACK may wait for newer ones to replace it. */
    static final long HOLD_NANOS = 50_000;
    /**
     * A peer is taken to wait for its ACKs after this many long-held ACKs in a row grew old with no
     * request of it (one may be a hiccup of a pipelining peer: a page fault, a GC, a lost core).
     */
    static final int MISSES = 2;
    /** A waiting peer's ACKs are held long once in this many at first, to see whether it pipelines. */
    static final int FIRST_PROBE = 16;
    /** ... and once in this many at most, the interval doubling after each probe it waited through. */
    static final int PROBE_EVERY = 1024;
    /** At most this many QPs' ACKs are held; one more is sent at once. */
    static final int LIMIT = 32;
    /** Peers remembered (ip, QPN); the oldest is forgotten first. */
    static final int PEERS = 64;

    private static final byte UNKNOWN = 0;
    private static final byte WAITS = 1;
    private static final byte PIPELINES = 2;
    /** An ACK is a BTH (12 bytes), an AETH (4) and the ICRC (4). */
    private static final int ACK_LENGTH = 20;

    private final Sink sink;

    private final int[] peerIp = new int[PEERS];
    private final int[] peerQpn = new int[PEERS];
    private final byte[] peerState = new byte[PEERS];
    private final int[] peerSinceProbe = new int[PEERS];
    /** A waiting peer's ACKs between two probes: doubles after each probe the peer waited through. */
    private final int[] peerProbeEvery = new int[PEERS];
    /** Long-held ACKs in a row that grew old with no request of the peer. */
    private final int[] peerMisses = new int[PEERS];
    private int peerCount;
    private int peerNext;

    private final byte[][] datagram = new byte[LIMIT][ACK_LENGTH];
    private final int[] length = new int[LIMIT];
    private final int[] ip = new int[LIMIT];
    private final int[] ttl = new int[LIMIT];
    private final int[] peer = new int[LIMIT];
    private final long[] heldAt = new long[LIMIT];
    private final boolean[] longHold = new boolean[LIMIT];
    /** A request of the peer arrived while this ACK was held. */
    private final boolean[] renewed = new boolean[LIMIT];
    private int count;

    AckCoalescer(Sink sink) {
        this.sink = sink;
    }

    /** ACKs held now. */
    int held() {
        return count;
    }

    /** What this side has learnt of a peer QP: "pipelines", "waits" or "unknown". */
    String peerState(int destinationIp, int qpn) {
        int p = findPeer(destinationIp, qpn);
        if (p < 0 || peerState[p] == UNKNOWN) {
            return "unknown";
        }
        return peerState[p] == PIPELINES ? "pipelines" : "waits";
    }

    /**
     * Holds the plain ACK of {@code length} bytes at the start of {@code packet}, or replaces the one
     * held for the same peer QP.
     *
     * @return false when it must be sent now (too many QPs' ACKs held already)
     */
    boolean hold(ByteBuffer packet, int packetLength, int destinationIp, int hopLimit, long now) {
        if (packetLength != ACK_LENGTH) {
            return false;
        }
        int qpn = packet.getInt(4) & 0xffffff;
        int p = findPeer(destinationIp, qpn);
        if (p >= 0) {
            int i = heldFor(p);
            if (i >= 0) {
                packet.get(0, datagram[i], 0, packetLength);
                length[i] = packetLength;
                ttl[i] = hopLimit;
                return true;
            }
        }
        if (count == LIMIT) {
            return false;
        }
        if (p < 0) {
            p = addPeer(destinationIp, qpn);
        }
        boolean probe;
        if (peerState[p] == WAITS) {
            probe = ++peerSinceProbe[p] >= peerProbeEvery[p];
            if (probe) {
                peerSinceProbe[p] = 0;
            }
        } else {
            probe = true;
        }
        int i = count++;
        packet.get(0, datagram[i], 0, packetLength);
        length[i] = packetLength;
        ip[i] = destinationIp;
        ttl[i] = hopLimit;
        peer[i] = p;
        heldAt[i] = now;
        longHold[i] = probe;
        renewed[i] = false;
        return true;
    }

    /**
     * A request of the peer QP {@code qpn} at {@code sourceIp} arrived: if its ACK is held here, the
     * peer did not wait for it.
     */
    void requestArrived(int sourceIp, int qpn) {
        if (count == 0) {
            return;
        }
        int p = findPeer(sourceIp, qpn);
        if (p < 0) {
            return;
        }
        int i = heldFor(p);
        if (i >= 0) {
            renewed[i] = true;
            peerState[p] = PIPELINES;
            peerMisses[p] = 0;
        }
    }

    /** This side sent a packet: the ACKs of waiting peers follow it, and those held long enough. */
    void afterTransmit(long now) {
        if (count > 0) {
            release(false, now);
        }
    }

    /** Responder output other than a plain ACK is about to leave: everything held goes first. */
    void beforeResponderOutput() {
        if (count > 0) {
            release(true, 0);
        }
    }

    /**
     * A turn of the loop begins. A busy poller's turn releases what it would after a packet; any
     * other turn releases everything.
     */
    void onTurn(boolean busyPoller, long now) {
        if (count > 0) {
            release(!busyPoller, now);
        }
    }

    /** Forgets everything held without sending it (the transport closes). */
    void discard() {
        count = 0;
    }

    /** Sends everything held, in order, and forgets it. */
    void releaseAll() {
        if (count > 0) {
            release(true, 0);
        }
    }

    private void release(boolean all, long now) {
        int kept = 0;
        int total = count;
        count = 0;
        for (int i = 0; i < total; i++) {
            boolean aged = now - heldAt[i] >= HOLD_NANOS;
            if (all || !longHold[i] || aged) {
                int p = peer[i];
                if (longHold[i] && aged && !all && peerIp[p] == ip[i]) {
                    if (renewed[i]) {
                        peerMisses[p] = 0;
                    } else if (++peerMisses[p] >= MISSES) {
                        // Twice held a whole HOLD_NANOS and the peer sent nothing: it waits for its ACKs.
                        if (peerState[p] == WAITS) {
                            peerProbeEvery[p] = Math.min(PROBE_EVERY, peerProbeEvery[p] * 2);
                        } else {
                            peerProbeEvery[p] = FIRST_PROBE;
                        }
                        peerState[p] = WAITS;
                        peerSinceProbe[p] = 0;
                        peerMisses[p] = 0;
                    }
                }
                sink.send(ip[i], ttl[i], datagram[i], length[i]);
            } else {
                if (kept != i) {
                    move(i, kept);
                }
                kept++;
            }
        }
        // A sink that sent nothing new keeps this consistent: entries kept are at [0, kept).
        count = kept;
    }

    private void move(int from, int to) {
        byte[] bytes = datagram[to];
        datagram[to] = datagram[from];
        datagram[from] = bytes;
        length[to] = length[from];
        ip[to] = ip[from];
        ttl[to] = ttl[from];
        peer[to] = peer[from];
        heldAt[to] = heldAt[from];
        longHold[to] = longHold[from];
        renewed[to] = renewed[from];
    }

    private int heldFor(int p) {
        for (int i = 0; i < count; i++) {
            if (peer[i] == p) {
                return i;
            }
        }
        return -1;
    }

    private int findPeer(int destinationIp, int qpn) {
        for (int p = 0; p < peerCount; p++) {
            if (peerIp[p] == destinationIp && peerQpn[p] == qpn) {
                return p;
            }
        }
        return -1;
    }

    private int addPeer(int destinationIp, int qpn) {
        int p;
        if (peerCount < PEERS) {
            p = peerCount++;
        } else {
            p = peerNext;
            peerNext = (peerNext + 1) % PEERS;
            if (heldFor(p) >= 0) {
                // Still in use by a held ACK: release everything rather than mix two peers.
                releaseAll();
            }
        }
        peerIp[p] = destinationIp;
        peerQpn[p] = qpn;
        peerState[p] = UNKNOWN;
        peerSinceProbe[p] = 0;
        peerProbeEvery[p] = FIRST_PROBE;
        peerMisses[p] = 0;
        return p;
    }
}
