package org.rdmalab.baseline;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.DatagramChannel;
import org.rdmalab.verbs.CompletionQueue;

/**
 * The UDP ping-pong that RDMA's is measured against, with no RDMA logic, busy-polled as the CQ is
 * (spin, then yield): {@code demo --protocol pingpong --baseline} runs it after its RDMA ping-pong,
 * and the software device's speed program beside soft0. A message goes out as many datagrams as
 * the RDMA SEND has packets (at most the path MTU of payload each, {@link Datagrams}), and the
 * other side echoes it whole once its last datagram is in.
 * <ul>
 *   <li>{@link Pattern#UDP}, the plain UDP ping-pong: connected sockets, each datagram the payload
 *       behind the {@value Datagrams#HEADER}-byte header, no acknowledgement.</li>
 *   <li>{@link Pattern#RC}, RC's datagrams alone: what ibv_rc_pingpong's turn puts on the wire
 *       with no device behind it. Each datagram is as long as the SEND's packet (BTH, payload,
 *       ICRC: {@value #RC_OVERHEAD} bytes more than the payload), each message is acknowledged by a
 *       {@value #RC_ACK}-byte datagram (an ACK's length), a side sends its next message only once
 *       its last one is acknowledged (ibv_rc_pingpong posts after the SEND's completion), and the
 *       sockets are unconnected, sending with an address, as a RoCE device's must
 *       (docs/performance.md).
 *       A side that takes in its peer's message answers it first and acknowledges it after when
 *       its own last message is acknowledged already, else acknowledges it at once: soft0's order.
 *       This is the floor any RC device on these sockets starts from, so the ratio to it shows
 *       what the device adds.</li>
 * </ul>
 *
 * <p>The client says hello first and repeats it until the server echoes it, so a server whose
 * socket is not bound yet loses nothing that counts; a round trip not answered within
 * {@link #LOSS_NANOS} is counted lost and the next one begins. One thread uses an instance; the
 * caller owns the socket.
 */
public final class PingPong {

    /** Which traffic: its name in what the baselines print and say. */
    public enum Pattern {
        UDP("UDP"),
        RC("RC datagrams");

        /** "UDP", "RC datagrams": what the lines about this pattern begin with. */
        public final String said;

        Pattern(String said) {
            this.said = said;
        }
    }

    /** What a RoCE v2 packet adds to its payload in the UDP datagram: the BTH (12 bytes) and the ICRC (4). */
    public static final int RC_OVERHEAD = 16;
    /** An ACK in the UDP datagram: BTH, AETH (4 bytes) and ICRC. */
    public static final int RC_ACK = 20;
    /** A round trip not answered this long after it began is lost. */
    public static final long LOSS_NANOS = 100_000_000L;
    private static final long HELLO_EVERY_NANOS = 10_000_000L;
    private static final byte DATA = 1;
    private static final byte END = 2;
    // RC's own types, so that a late datagram of the plain run on the same port is not taken for one.
    static final byte RC_DATA = 3;
    static final byte RC_ACK_TYPE = 4;
    private static final byte RC_END = 5;
    /** The client's first message, repeated until answered; the measured ones follow it. */
    private static final int HELLO = 0;

    /**
     * What one side measured: the time of the measured round trips, those lost, each answered
     * round trip's time, the acknowledgements it sent (RC's pattern only), or why it failed.
     */
    public record Run(long nanos, long lost, RoundTrips roundTrips, long acksSent, String failure) {
        static Run failed(String why) {
            return new Run(0, 0, new RoundTrips(), 0, why);
        }
    }

    private final Datagrams datagrams;
    private final Pattern pattern;
    private final int size;
    private final byte data;
    private final byte end;
    private long acksSent;

    /**
     * One side of the ping-pong of {@code size}-byte messages in datagrams of at most
     * {@code payload} bytes of them: the plain UDP pattern on a connected socket ({@code peer}
     * null), RC's datagrams on an unconnected one that sends to {@code peer}. The socket is bound
     * and non-blocking.
     */
    public PingPong(DatagramChannel channel, InetSocketAddress peer, int size, int payload) {
        this.pattern = peer == null ? Pattern.UDP : Pattern.RC;
        this.size = size;
        this.data = peer == null ? DATA : RC_DATA;
        this.end = peer == null ? END : RC_END;
        int overhead = peer == null ? Datagrams.HEADER : RC_OVERHEAD;
        this.datagrams = new Datagrams(channel, peer, payload, overhead,
                Math.max(RC_ACK, overhead + Math.min(size, payload)));
    }

    /** The pattern this side sends. */
    public Pattern pattern() {
        return pattern;
    }

    /** Sends messages 0 (hello, until answered) and 1..iterations, each after the last one's echo. */
    public Run client(int iterations, long timeoutNanos) throws IOException {
        return client(0, iterations, timeoutNanos);
    }

    /**
     * As {@link #client(int, long)} with {@code warmup} round trips first that are neither timed
     * nor recorded (the server then answers {@code warmup + iterations}).
     */
    public Run client(int warmup, int iterations, long timeoutNanos) throws IOException {
        long helloSince = System.nanoTime();
        long helloAt = helloSince - HELLO_EVERY_NANOS;
        for (int idle = 0; ; idle++) {
            long now = System.nanoTime();
            if (now - helloAt >= HELLO_EVERY_NANOS) {
                datagrams.sendMessage(data, HELLO, size);
                helloAt = now;
            }
            if (datagrams.receive() == data && datagrams.last() && datagrams.seq() == HELLO) {
                break;
            }
            if (now - helloSince > timeoutNanos) {
                return Run.failed("the peer's " + pattern.said + " baseline did not answer within "
                        + timeoutNanos / 1_000_000 + " ms (is it running with --baseline, on the same "
                        + "--baseline-port?)");
            }
            CompletionQueue.pauseAfterEmptyPoll(idle);
        }
        Run run = pattern == Pattern.UDP ? plainClient(warmup, iterations) : rcClient(warmup, iterations);
        for (int i = 0; i < 3; i++) {
            datagrams.send(end, true, 0, 0, 0, 0);
        }
        return run;
    }

    private Run plainClient(int warmup, int iterations) throws IOException {
        long lost = 0;
        RoundTrips trips = new RoundTrips();
        long start = System.nanoTime();
        long begun = start;
        for (int seq = 1; seq <= warmup + iterations; seq++) {
            datagrams.sendMessage(DATA, seq, size);
            if (datagrams.awaitLast(DATA, DATA, seq, LOSS_NANOS, () -> { })) {
                long now = System.nanoTime();
                if (seq > warmup) {
                    trips.record(now - begun);
                }
                begun = now;
            } else {
                lost++;
                begun = System.nanoTime();
            }
            if (seq == warmup) {
                start = begun;
            }
        }
        return new Run(System.nanoTime() - start, lost, trips, 0, null);
    }

    /**
     * RC's turn on the client: message {@code seq} ends when its echo is in and it is
     * acknowledged; then the next message goes out, and after it the echo's ACK if that is still
     * owed. An echo that comes before the ACK of its message is acknowledged at once.
     */
    private Run rcClient(int warmup, int iterations) throws IOException {
        int total = warmup + iterations;
        long lost = 0;
        RoundTrips trips = new RoundTrips();
        long start = System.nanoTime();
        long begun = start;
        int seq = 1;
        datagrams.sendMessage(RC_DATA, seq, size);
        boolean echoed = false;
        boolean acked = false;
        int idle = 0;
        while (seq <= total) {
            byte type = datagrams.receive();
            boolean echoNow = type == RC_DATA && datagrams.last() && datagrams.seq() == seq;
            if (echoNow) {
                echoed = true;
                if (!acked) {
                    sendAck(seq); // this side's message is not acknowledged yet: it cannot answer
                }
            } else if (type == RC_ACK_TYPE && datagrams.seq() == seq) {
                acked = true;
            } else if (type == 0) {
                if ((idle++ & 0xff) == 0xff && System.nanoTime() - begun > LOSS_NANOS) {
                    lost++;
                    begun = System.nanoTime();
                    if (seq == warmup) {
                        start = begun;
                    }
                    echoed = false;
                    acked = false;
                    if (++seq <= total) {
                        datagrams.sendMessage(RC_DATA, seq, size);
                    }
                } else {
                    CompletionQueue.pauseAfterEmptyPoll(idle);
                }
                continue;
            } else {
                continue; // another message's or the plain run's datagram, or not a message's last
            }
            idle = 0;
            if (echoed && acked) {
                long now = System.nanoTime();
                if (seq > warmup) {
                    trips.record(now - begun);
                }
                begun = now;
                if (seq == warmup) {
                    start = now;
                }
                boolean owed = echoNow; // the echo came after the ACK, so it is not acknowledged yet
                echoed = false;
                acked = false;
                if (++seq <= total) {
                    datagrams.sendMessage(RC_DATA, seq, size); // the answer first ...
                }
                if (owed) {
                    sendAck(seq - 1); // ... then the ACK
                }
            }
        }
        return new Run(System.nanoTime() - start, lost, trips, acksSent, null);
    }

    /**
     * Echoes each message once its last datagram is in, until the client's END or its last
     * message's echo (and, for RC, that echo's ACK). The time runs from the echo of the hello,
     * which the client's first measured message answers, to the last echo: {@code iterations}
     * round trips, as the client counts them, so that the server's figure also means something
     * for a short run. RC's server echoes a message only once its last echo is acknowledged,
     * and acknowledges each message after its echo, or at once when the echo must wait.
     */
    public Run server(int iterations, long timeoutNanos) throws IOException {
        boolean rc = pattern == Pattern.RC;
        long lastHeard = System.nanoTime();
        long start = 0;
        long end = 0;
        int answered = 0;
        RoundTrips trips = new RoundTrips();
        int unacknowledged = -1; // RC: the echo that waits for its ACK
        long echoedAt = 0;
        int waiting = -1; // RC: the message whose echo waits for that ACK
        for (int idle = 0; ; idle++) {
            byte type = datagrams.receive();
            boolean acknowledged = false; // RC: the last echo's ACK is in now, or given up on
            if (type == 0) {
                long now = System.nanoTime();
                if ((idle & 0xff) == 0xff) {
                    if (unacknowledged >= 0 && now - echoedAt > LOSS_NANOS) {
                        acknowledged = true; // its ACK was lost: go on, as the client does
                    } else if (now - lastHeard > timeoutNanos) {
                        if (answered == 0) {
                            return Run.failed("the peer's " + pattern.said + " baseline sent nothing within "
                                    + timeoutNanos / 1_000_000 + " ms (is it running with --baseline, on the "
                                    + "same --baseline-port?)");
                        }
                        break; // the END was lost: the client is gone
                    }
                }
                if (!acknowledged) {
                    CompletionQueue.pauseAfterEmptyPoll(idle);
                    continue;
                }
            } else {
                idle = 0;
                lastHeard = System.nanoTime();
                if (type == this.end) {
                    break;
                }
                if (type == RC_ACK_TYPE && rc) {
                    if (datagrams.seq() != unacknowledged) {
                        continue;
                    }
                    acknowledged = true;
                }
            }
            if (acknowledged) {
                unacknowledged = -1;
                if (waiting >= 0) {
                    end = echo(waiting, end, trips);
                    answered = Math.max(answered, waiting);
                    unacknowledged = waiting;
                    echoedAt = end;
                    waiting = -1;
                } else if (answered == iterations) {
                    break;
                }
                continue;
            }
            if (type != data || !datagrams.last()) {
                continue;
            }
            int seq = datagrams.seq();
            if (seq == 1 && start == 0) {
                start = end != 0 ? end : lastHeard; // no hello echoed: a client that skipped it
            }
            if (seq == HELLO) {
                datagrams.sendMessage(data, HELLO, size); // not acknowledged: the measured messages begin after it
                if (start == 0) {
                    end = System.nanoTime(); // the last hello's echo, answered by message 1
                }
            } else if (!rc || unacknowledged < 0) {
                end = echo(seq, end, trips);
                answered = Math.max(answered, seq);
                if (rc) {
                    unacknowledged = seq;
                    echoedAt = end;
                    sendAck(seq); // after the answer
                } else if (seq == iterations) {
                    break;
                }
            } else {
                sendAck(seq); // the echo waits for the last one's ACK; this ACK does not
                waiting = seq;
            }
        }
        if (start == 0) {
            return Run.failed("the peer's " + pattern.said + " baseline ended before its first measured "
                    + "message");
        }
        return new Run(end - start, iterations - answered, trips, acksSent, null);
    }

    /** Echoes message {@code seq}; records the round trip since the last echo at {@code last}; returns now. */
    private long echo(int seq, long last, RoundTrips trips) throws IOException {
        datagrams.sendMessage(data, seq, size);
        long now = System.nanoTime();
        if (last != 0) {
            trips.record(now - last); // from one echo to the next
        }
        return now;
    }

    private void sendAck(int seq) throws IOException {
        datagrams.send(RC_ACK_TYPE, true, 0, seq, 0, RC_ACK - RC_OVERHEAD);
        acksSent++;
    }
}
