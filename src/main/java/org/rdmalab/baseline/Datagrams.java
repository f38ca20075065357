package org.rdmalab.baseline;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.PortUnreachableException;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import org.rdmalab.verbs.CompletionQueue;

/**
 * One side's non-blocking UDP socket as the baselines use it: a message of {@code size} bytes goes
 * out as ceil(size / payload) datagrams of at most {@code payload} bytes (the path MTU, as a RoCE
 * packet carries), each behind a {@value #HEADER}-byte header (type, flags, index of the datagram in
 * its message, message number, message size; RoCE's BTH is also 12 bytes). Which types there are
 * and what answers what is the caller's protocol ({@link PingPong}, {@code bench}'s baseline).
 *
 * <p>Sends and reads are busy-polled as a CQ is ({@link CompletionQueue#pauseAfterEmptyPoll});
 * the buffers are direct and reused, so the steady state allocates nothing. A socket that is
 * connected sends with {@code write}; an unconnected one sends to its peer's address, as a RoCE
 * device's socket must. One thread uses an instance; closing it closes the socket.
 */
public final class Datagrams implements AutoCloseable {

    /** type (1), flags (1), index of the datagram in its message (u16), message number (s32), size (s32). */
    public static final int HEADER = 12;
    private static final byte LAST = 1;

    /** What an empty wait checks every 256 empty polls (a stop asked for), as it may throw. */
    @FunctionalInterface
    public interface Check<X extends Exception> {
        void check() throws X;
    }

    private final DatagramChannel channel;
    /** Where an unconnected socket sends; null for a connected one. */
    private final InetSocketAddress peer;
    private final int payload;
    private final int overhead;
    private final ByteBuffer out;
    private final ByteBuffer in;
    private byte inType;
    private boolean inLast;
    private int inSeq;
    private int inSize;

    /**
     * @param channel a bound, non-blocking socket, connected when {@code peer} is null
     * @param peer where an unconnected socket sends, or null
     * @param payload bytes of message data per datagram (the path MTU)
     * @param overhead bytes a datagram carries beyond its share of the message, at least {@link #HEADER}
     * @param capacity the longest datagram sent or read
     */
    public Datagrams(DatagramChannel channel, InetSocketAddress peer, int payload, int overhead, int capacity) {
        if (overhead < HEADER || capacity < overhead) {
            throw new IllegalArgumentException("a datagram holds its " + HEADER + "-byte header");
        }
        this.channel = channel;
        this.peer = peer;
        this.payload = payload;
        this.overhead = overhead;
        this.out = ByteBuffer.allocateDirect(capacity);
        this.in = ByteBuffer.allocateDirect(capacity);
    }

    /** Datagrams a message of {@code size} bytes needs. */
    public static int count(int size, int payload) {
        return Math.max(1, (size + payload - 1) / payload);
    }

    /** Datagrams a message of {@code size} bytes needs on this socket. */
    public int count(int size) {
        return count(size, payload);
    }

    /** Sends message {@code seq} of {@code size} bytes as {@link #count(int)} datagrams of type {@code type}. */
    public void sendMessage(byte type, int seq, int size) throws IOException {
        int count = count(size);
        for (int index = 0; index < count; index++) {
            send(type, index == count - 1, index, seq, size, Math.min(payload, size - index * payload));
        }
    }

    /** Sends one datagram: the header and {@code length} bytes beyond the overhead (none when negative). */
    public void send(byte type, boolean last, int index, int seq, int size, int length) throws IOException {
        out.clear();
        out.put(type).put(last ? LAST : 0).putShort((short) index).putInt(seq).putInt(size);
        out.limit(overhead + Math.max(0, length)).position(0);
        for (int idle = 0; ; idle++) {
            try {
                if ((peer == null ? channel.write(out) : channel.send(out, peer)) > 0) {
                    return;
                }
            } catch (PortUnreachableException e) {
                continue; // an earlier datagram found no socket (ICMP); this one goes now
            }
            CompletionQueue.pauseAfterEmptyPoll(idle); // the send buffer is full: it drains in microseconds
        }
    }

    /** Reads one datagram if one is there: its type (its header is then {@link #last()}, ...), or 0. */
    public byte receive() throws IOException {
        in.clear();
        int read;
        try {
            read = peer == null ? channel.read(in) : channel.receive(in) == null ? 0 : in.position();
        } catch (PortUnreachableException e) {
            return 0; // the peer's socket is not bound yet or closed already (ICMP)
        }
        if (read < HEADER) {
            return 0;
        }
        inType = in.get(0);
        inLast = (in.get(1) & LAST) != 0;
        inSeq = in.getInt(4);
        inSize = in.getInt(8);
        return inType;
    }

    /**
     * Waits for the last datagram of message {@code seq} of type {@code type} or {@code orType}
     * (the answer of a ping-pong's turn): true when it came, false when nothing came for
     * {@code lossNanos} (checked, with {@code check}, every 256 empty polls).
     */
    public <X extends Exception> boolean awaitLast(byte type, byte orType, int seq, long lossNanos, Check<X> check)
            throws IOException, X {
        long since = System.nanoTime();
        int idle = 0;
        while (true) {
            byte read = receive();
            if ((read == type || read == orType) && inLast && inSeq == seq) {
                return true;
            }
            if (read == 0) {
                CompletionQueue.pauseAfterEmptyPoll(idle++);
                if ((idle & 0xff) == 0xff) {
                    check.check();
                    if (System.nanoTime() - since > lossNanos) {
                        return false;
                    }
                }
            }
        }
    }

    /** The last datagram read was its message's last. */
    public boolean last() {
        return inLast;
    }

    /** The message number of the last datagram read. */
    public int seq() {
        return inSeq;
    }

    /** The message size the last datagram read carried. */
    public int size() {
        return inSize;
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
