package org.rdmalab.control.lab;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.rdmalab.control.ConnectionData;
import org.rdmalab.control.ControlChannel;
import org.rdmalab.control.ControlException;
import org.rdmalab.control.ControlText;

/**
 * One RDMA Lab to RDMA Lab session over a control channel: the hello handshake, then messages in
 * frames ({@link FrameCodec}, {@link LabCodec}).
 *
 * <p>After the hello a background reader thread ({@link #startReader()}, started at the latest by
 * the first waiting method) reads every frame as it arrives, whether or not this side waits for
 * something: the peer's buffer requests are answered at once from the {@link BufferSource}; step
 * progress, QP states and unknown message types go to the {@link Listener} at once (so the peer's
 * QP state reaches this side while it is idle); everything else (connection data, syncs, buffer
 * replies, errors, bye) is queued for the waiting methods ({@link #exchange}, {@link #sync},
 * {@link #readPeerBuffer}, {@link #receiveConnectionData}, {@link #finish}). A waiting method
 * takes from that queue: an {@link ErrorMessage} ends the wait with a {@link ControlException},
 * and so does a {@link Bye}, except while waiting for a buffer snapshot (a side that said bye
 * still answers requests until the peer says bye too); a stray buffer reply goes to the listener.
 * A wait ends after the channel's read timeout without a frame from the peer, so a silent peer is
 * reported; a peer that keeps sending (progress, states) keeps the wait alive.
 *
 * <p>Threads: the reader thread ({@value #READER_THREAD_PREFIX} + the peer, a daemon) is the only
 * one that reads the channel; the listener and the buffer source run on it and must not block.
 * One thread at a time calls the waiting methods; any thread may {@link #send}, sends are
 * serialized. {@link #close} stops the reader and waits for it (at most {@link #READER_JOIN}).
 *
 * <p>The connection owns its channel: {@link #open} closes it when the handshake fails, and
 * {@link #close} says bye (if not yet said) and closes it.
 */
public final class LabConnection implements AutoCloseable {

    /** The protocol version this code speaks. */
    public static final int VERSION = 1;

    /** The largest first frame accepted: a hello is small, so a peer speaking another protocol is caught at once. */
    public static final int HELLO_MAX_PAYLOAD = 1024;

    /** The name of every reader thread starts with this, then the peer ({@code 127.0.0.1:12025}). */
    public static final String READER_THREAD_PREFIX = "rdmalab-lab-reader ";

    /** How long {@link #close} waits for the reader thread to end. */
    public static final Duration READER_JOIN = Duration.ofSeconds(2);

    private static final int MAX_SOFTWARE_CHARS = 200;

    private static final Logger LOG = Logger.getLogger(LabConnection.class.getName());

    /** Receives the peer's progress, QP states and other messages no waiting method takes. Must not block. */
    @FunctionalInterface
    public interface Listener {
        /** Called on the reader thread with a progress, QP state, unknown or stray message. */
        void onMessage(LabMessage message);
    }

    /** Answers the peer's buffer requests. */
    @FunctionalInterface
    public interface BufferSource {
        /**
         * A copy of {@code length} bytes at {@code offset} of this side's buffer (fewer at its end).
         *
         * @throws IllegalArgumentException when the range is outside the buffer (the message goes to the peer)
         */
        byte[] read(long offset, int length);
    }

    private final ControlChannel channel;
    private final Hello peerHello;
    private final int maxPayload;
    /** Nanoseconds, as {@link System#nanoTime()}: the waits' deadlines are taken from it. */
    private final LongSupplier clock;
    /** How long {@link #close} waits for the reader ({@link #READER_JOIN}). */
    private final Duration readerJoin;
    private final Object writeLock = new Object();
    private volatile Listener listener = message -> { };
    private volatile BufferSource bufferSource;
    private volatile boolean byeSent;
    /** A waiting method took the peer's bye from the queue. */
    private boolean peerByeTaken;
    /** Syncs that arrived while this side waited for a buffer snapshot; the next sync() takes them first. */
    private final ArrayDeque<Sync> earlySyncs = new ArrayDeque<>();
    /** What the reader hands to the waiting methods, in arrival order. */
    private final BlockingQueue<Incoming> inbox = new LinkedBlockingQueue<>();
    private final Object readerLock = new Object();
    private Thread reader;
    private volatile boolean closing;
    /** Set once the reader has ended: the peer closed (END) or reading failed; later waits see it. */
    private volatile Incoming ended;
    /** When the last frame arrived (on {@link #clock}); the connection's start before the first. */
    private volatile long lastFrameNanos;

    /**
     * One item for the waiting methods: a message, a failure, or the end of the stream (both null).
     *
     * @param message what arrived, or null
     * @param failure why reading failed, or null
     */
    private record Incoming(LabMessage message, ControlException failure) {
        static final Incoming END = new Incoming(null, null);
    }

    private LabConnection(ControlChannel channel, Hello peerHello, int maxPayload, LongSupplier clock,
            Duration readerJoin) {
        this.channel = channel;
        this.peerHello = peerHello;
        this.maxPayload = maxPayload;
        this.clock = clock;
        this.readerJoin = readerJoin;
        this.lastFrameNanos = clock.getAsLong();
    }

    /** {@link #open(ControlChannel, String, int)} with a payload limit of {@link FrameCodec#DEFAULT_MAX_PAYLOAD}. */
    public static LabConnection open(ControlChannel channel, String software) throws ControlException {
        return open(channel, software, FrameCodec.DEFAULT_MAX_PAYLOAD);
    }

    /**
     * Says hello and checks the peer's: both sides send theirs first, then read the other's within
     * the read timeout. A peer with another magic or version is refused.
     *
     * @param software names this side in the peer's log, e.g. {@code "RDMA Lab 0.1.0"}
     * @param maxPayload the largest frame payload this side accepts (at least 1024)
     */
    public static LabConnection open(ControlChannel channel, String software, int maxPayload)
            throws ControlException {
        return open(channel, software, maxPayload, System::nanoTime, READER_JOIN);
    }

    /**
     * {@link #open(ControlChannel, String, int)} with the clock (nanoseconds) the waits' deadlines
     * are taken from and how long {@link #close} waits for the reader: a test drives them.
     */
    static LabConnection open(ControlChannel channel, String software, int maxPayload, LongSupplier clock,
            Duration readerJoin) throws ControlException {
        Objects.requireNonNull(channel, "channel");
        if (maxPayload < HELLO_MAX_PAYLOAD) {
            throw new IllegalArgumentException("the frame limit must be at least " + HELLO_MAX_PAYLOAD + " bytes");
        }
        String name = software.length() > MAX_SOFTWARE_CHARS ? software.substring(0, MAX_SOFTWARE_CHARS) : software;
        try {
            FrameCodec.write(channel, LabCodec.encode(new Hello(VERSION, name)), "the hello");
            byte[] payload = FrameCodec.read(channel, HELLO_MAX_PAYLOAD);
            return new LabConnection(channel, checkHello(payload, channel.peer()), maxPayload, clock, readerJoin);
        } catch (ControlException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    /**
     * Checks that a first frame's payload is a hello of this version: magic first, then version,
     * then the rest of the body.
     */
    static Hello checkHello(byte[] payload, String peer) throws ControlException {
        int fixed = LabCodec.TYPE_LENGTH + Hello.FIXED_LENGTH;
        ByteBuffer buffer = ByteBuffer.wrap(payload);
        if (payload.length < fixed || (buffer.getShort() & 0xffff) != MessageType.HELLO.code()
                || buffer.getInt() != Hello.MAGIC) {
            throw new ControlException(ControlException.Reason.PROTOCOL, "peer " + peer
                    + " did not start with an RDMA Lab hello (it sent " + ControlText.quote(payload)
                    + "); is it running RDMA Lab with --protocol lab?");
        }
        int version = buffer.getShort() & 0xffff;
        if (version != VERSION) {
            throw new ControlException(ControlException.Reason.VERSION_MISMATCH, "peer " + peer
                    + " speaks RDMA Lab protocol version " + version + ", this side speaks version " + VERSION
                    + "; run the same RDMA Lab release on both machines");
        }
        return (Hello) LabCodec.decode(payload);
    }

    /** The peer's hello (its version and software). */
    public Hello peerHello() {
        return peerHello;
    }

    /** The channel underneath (for its peer name and read timeout). */
    public ControlChannel channel() {
        return channel;
    }

    /** Sets who hears the messages that arrive while this side waits for another; returns this. */
    public LabConnection onMessage(Listener value) {
        this.listener = Objects.requireNonNull(value, "listener");
        return this;
    }

    /** Sets what answers the peer's buffer requests (none: they are answered with an error); returns this. */
    public LabConnection serveBuffer(BufferSource value) {
        this.bufferSource = value;
        return this;
    }

    /** Sends one message in one write. Any thread. */
    public void send(LabMessage message) throws ControlException {
        byte[] payload = LabCodec.encode(message);
        if (payload.length > maxPayload) {
            throw new IllegalArgumentException(message.type() + " message of " + payload.length
                    + " bytes exceeds the frame limit of " + maxPayload);
        }
        synchronized (writeLock) {
            FrameCodec.write(channel, payload, "a " + message.type() + " message");
            if (message instanceof Bye) {
                byeSent = true;
            }
        }
    }

    /**
     * Starts the background reader if it is not running yet; returns this. Set the listener and the
     * buffer source first: messages that arrive before are handled with what is set. Idempotent.
     */
    public LabConnection startReader() {
        synchronized (readerLock) {
            if (reader == null && !closing) {
                reader = new Thread(this::readLoop, READER_THREAD_PREFIX + channel.peer());
                reader.setDaemon(true);
                reader.start();
            }
        }
        return this;
    }

    /** True while the background reader runs. */
    public boolean readerRunning() {
        synchronized (readerLock) {
            return reader != null && reader.isAlive();
        }
    }

    private void readLoop() {
        try {
            while (!closing) {
                Optional<byte[]> payload = FrameCodec.readNextIfOpen(channel, maxPayload);
                if (payload.isEmpty()) {
                    end(Incoming.END);
                    return;
                }
                lastFrameNanos = clock.getAsLong();
                LabMessage message;
                try {
                    message = LabCodec.decode(payload.get());
                } catch (ControlException e) {
                    // The framing is intact: report the malformed message to the waiting side, read on.
                    inbox.add(new Incoming(null, e));
                    continue;
                }
                dispatch(message);
            }
            // Closed between two frames (close() from the listener, or just after a frame came):
            // a wait that is still on sees the end at once, as when close() ends a read.
            end(Incoming.END);
        } catch (ControlException e) {
            end(closing ? Incoming.END : new Incoming(null, e));
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "the reader for " + channel.peer() + " stopped", e);
            end(new Incoming(null, new ControlException(ControlException.Reason.PROTOCOL, "reading from peer "
                    + channel.peer() + " failed: " + e)));
        }
    }

    private void end(Incoming why) {
        ended = why;
        inbox.add(why);
    }

    private void dispatch(LabMessage message) throws ControlException {
        if (message instanceof BufferRequest request) {
            answer(request);
        } else if (message instanceof QpStateMessage || message instanceof StepProgress
                || message instanceof UnknownMessage) {
            tell(message);
        } else {
            inbox.add(new Incoming(message, null));
        }
    }

    private void tell(LabMessage message) {
        try {
            listener.onMessage(message);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "the listener of " + channel.peer() + " failed on " + message, e);
        }
    }

    /**
     * The next message the reader queued (connection data, sync, buffer reply, error, bye, or a
     * hello out of turn); QP states, progress and unknown types go to the listener instead, buffer
     * requests are answered. Waits at most the read timeout; starts the reader.
     */
    public LabMessage receive() throws ControlException {
        startReader();
        return next("a message");
    }

    private LabMessage next(String what) throws ControlException {
        Duration timeout = channel.readTimeout();
        long start = clock.getAsLong();
        while (true) {
            Incoming item = inbox.poll();
            if (item == null && ended != null) {
                item = ended;
            }
            if (item == null) {
                long deadline = Math.max(start - lastFrameNanos, 0) + lastFrameNanos + timeout.toNanos();
                long remaining = deadline - clock.getAsLong();
                if (remaining <= 0) {
                    // The same words as a timed-out read of the channel, which this wait replaces.
                    throw new ControlException(ControlException.Reason.TIMEOUT, "no answer from " + channel.peer()
                            + " within " + ControlText.duration(timeout) + " (waiting for a frame header)"
                            + "; is the peer still running?");
                }
                try {
                    item = inbox.poll(remaining, TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new ControlException(ControlException.Reason.INTERRUPTED, "stopped while waiting for "
                            + what + " from " + channel.peer(), e);
                }
                if (item == null) {
                    continue;
                }
            }
            if (item.failure() != null) {
                throw item.failure();
            }
            if (item.message() == null) {
                throw new ControlException(ControlException.Reason.PEER_CLOSED, "peer " + channel.peer()
                        + " closed the connection after 0 of " + FrameCodec.HEADER_LENGTH
                        + " bytes of the frame header (while this side waited for " + what + ")");
            }
            return item.message();
        }
    }

    /** Sends this side's connection data and waits for the peer's. */
    public ConnectionData exchange(ConnectionData local) throws ControlException {
        send(new ConnectionDataMessage(local));
        return receiveConnectionData();
    }

    /** Waits for the peer's connection data (without sending this side's). */
    public ConnectionData receiveConnectionData() throws ControlException {
        return ((ConnectionDataMessage) await(MessageType.CONNECTION_DATA, "the peer's connection data")).data();
    }

    /** Sends this side's facts and waits for the peer's ({@code doctor}'s comparison). */
    public Facts exchangeFacts(Facts local) throws ControlException {
        send(local);
        return awaitFacts("the peer's facts");
    }

    /** Waits for the peer's next facts message; {@code what} names it in a timeout's message. */
    public Facts awaitFacts(String what) throws ControlException {
        return (Facts) await(MessageType.FACTS, what);
    }

    /** Sends sync {@code name} and waits for the peer's sync of the same name. */
    public void sync(String name) throws ControlException {
        send(new Sync(name));
        Sync early = earlySyncs.poll();
        Sync peer = early != null ? early : (Sync) await(MessageType.SYNC, "sync '" + name + "'");
        if (!peer.name().equals(name)) {
            throw new ControlException(ControlException.Reason.PROTOCOL, "this side is at sync '" + name
                    + "' but peer " + channel.peer() + " is at sync '" + peer.name()
                    + "'; both sides must run the same scenario");
        }
    }

    /** Asks for {@code length} bytes at {@code offset} of the peer's buffer and waits for them. */
    public byte[] readPeerBuffer(long offset, int length) throws ControlException {
        int limit = maxPayload - LabCodec.TYPE_LENGTH - 8;
        if (length > limit) {
            throw new IllegalArgumentException("a buffer snapshot holds at most " + limit + " bytes, not " + length);
        }
        send(new BufferRequest(offset, length));
        BufferReply reply = (BufferReply) await(MessageType.BUFFER_REPLY, "a snapshot of the peer's buffer");
        if (reply.offset() != offset) {
            throw new ControlException(ControlException.Reason.PROTOCOL, "asked peer " + channel.peer()
                    + " for its buffer at offset " + offset + " but got offset " + reply.offset());
        }
        return reply.bytes();
    }

    /**
     * Ends the session politely: says bye (if not yet said), then keeps answering the peer until it
     * says bye too or closes the connection.
     */
    public void finish() throws ControlException {
        if (!byeSent) {
            send(new Bye());
        }
        startReader();
        while (!peerByeTaken) {
            LabMessage message;
            try {
                message = next("the peer's bye");
            } catch (ControlException e) {
                if (ended == Incoming.END && inbox.isEmpty()) {
                    return;
                }
                throw e;
            }
            if (message instanceof Bye) {
                peerByeTaken = true;
            } else {
                handleAside(message, "the peer's bye", false);
            }
        }
    }

    private LabMessage await(MessageType expected, String what) throws ControlException {
        startReader();
        while (true) {
            LabMessage message = next(what);
            if (message.type().equals(expected)) {
                return message;
            }
            handleAside(message, what, expected.equals(MessageType.BUFFER_REPLY));
        }
    }

    private void handleAside(LabMessage message, String what, boolean answersStillCome) throws ControlException {
        if (message instanceof ErrorMessage error) {
            throw new ControlException(ControlException.Reason.PEER_ERROR, "peer " + channel.peer() + " reported: "
                    + error.text() + " (error " + error.code() + ")");
        } else if (message instanceof Bye) {
            if (answersStillCome) {
                peerByeTaken = true;
                return;
            }
            throw new ControlException(ControlException.Reason.PEER_CLOSED, "peer " + channel.peer()
                    + " ended the session while this side waited for " + what);
        } else if (message instanceof Sync sync && answersStillCome) {
            // The peer went on to a sync while our snapshot request was on its way: keep it for sync().
            earlySyncs.add(sync);
        } else if (message instanceof Hello || message instanceof Sync || message instanceof ConnectionDataMessage) {
            throw new ControlException(ControlException.Reason.PROTOCOL, "peer " + channel.peer() + " sent "
                    + describe(message) + " while this side waited for " + what
                    + "; both sides must run the same scenario");
        } else {
            tell(message);
        }
    }

    private static String describe(LabMessage message) {
        if (message instanceof Sync sync) {
            return "sync '" + sync.name() + "'";
        }
        if (message instanceof ConnectionDataMessage) {
            return "its connection data";
        }
        return "a " + message.type() + " message";
    }

    private void answer(BufferRequest request) throws ControlException {
        BufferSource source = bufferSource;
        if (source == null) {
            send(new ErrorMessage(ErrorMessage.BUFFER_UNAVAILABLE, "no buffer is registered on this side yet"));
            return;
        }
        int length = Math.min(request.length(), maxPayload - LabCodec.TYPE_LENGTH - 8);
        byte[] bytes;
        try {
            bytes = source.read(request.offset(), length);
        } catch (IllegalArgumentException | IndexOutOfBoundsException e) {
            send(new ErrorMessage(ErrorMessage.BUFFER_UNAVAILABLE, String.valueOf(e.getMessage())));
            return;
        }
        send(new BufferReply(request.offset(), bytes.length > length ? Arrays.copyOf(bytes, length) : bytes));
    }

    /**
     * Says bye if not yet said (ignoring a peer that is already gone), closes the channel and waits
     * (at most {@link #READER_JOIN}) for the reader thread to end. Idempotent.
     */
    @Override
    public void close() {
        try {
            if (!byeSent && !channel.isClosed()) {
                send(new Bye());
            }
        } catch (ControlException e) {
            // The peer is gone already; closing is all that is left.
        } finally {
            Thread running;
            synchronized (readerLock) {
                closing = true;
                running = reader;
            }
            channel.close();
            if (running != null && running != Thread.currentThread()) {
                try {
                    running.join(readerJoin.toMillis());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                if (running.isAlive()) {
                    LOG.warning(running.getName() + " did not end within " + readerJoin.toMillis() + " ms");
                }
            }
        }
    }
}
