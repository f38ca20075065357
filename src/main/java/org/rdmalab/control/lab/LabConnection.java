package org.rdmalab.control.lab;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Objects;
import java.util.Optional;
import org.rdmalab.control.ConnectionData;
import org.rdmalab.control.ControlChannel;
import org.rdmalab.control.ControlException;
import org.rdmalab.control.ControlText;

/**
 * One RDMA Lab to RDMA Lab session over a control channel: the hello handshake, then messages in
 * frames ({@link FrameCodec}, {@link LabCodec}).
 *
 * <p>The waiting methods ({@link #exchange}, {@link #sync}, {@link #readPeerBuffer}, {@link #finish})
 * read until the message they wait for arrives. What arrives in between is handled on the way: the
 * peer's buffer requests are answered from the {@link BufferSource}, step progress, QP states and
 * unknown message types go to the {@link Listener}, an {@link ErrorMessage} ends the wait with a
 * {@link ControlException}, and so does a {@link Bye}, except while waiting for a buffer snapshot
 * (a side that said bye still answers requests until the peer says bye too). Each read waits at most the channel's read timeout, so a
 * silent peer is reported; a peer that keeps reporting progress keeps the wait alive.
 *
 * <p>Threads: one thread reads (the waiting methods and {@link #receive}); any thread may
 * {@link #send}, sends are serialized. The listener and the buffer source run on the reading thread.
 *
 * <p>The connection owns its channel: {@link #open} closes it when the handshake fails, and
 * {@link #close} says bye (if not yet said) and closes it.
 */
public final class LabConnection implements AutoCloseable {

    /** The protocol version this code speaks. */
    public static final int VERSION = 1;

    /** The largest first frame accepted: a hello is small, so a peer speaking another protocol is caught at once. */
    public static final int HELLO_MAX_PAYLOAD = 1024;

    private static final int MAX_SOFTWARE_CHARS = 200;

    /** Receives the messages that arrive while this side waits for something else. Must not block. */
    @FunctionalInterface
    public interface Listener {
        /** Called on the reading thread with a progress, QP state, unknown or stray message. */
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
    private final Object writeLock = new Object();
    private volatile Listener listener = message -> { };
    private volatile BufferSource bufferSource;
    private volatile boolean byeSent;
    private volatile boolean peerSaidBye;
    /** Syncs that arrived while this side waited for a buffer snapshot; the next sync() takes them first. */
    private final java.util.ArrayDeque<Sync> earlySyncs = new java.util.ArrayDeque<>();

    private LabConnection(ControlChannel channel, Hello peerHello, int maxPayload) {
        this.channel = channel;
        this.peerHello = peerHello;
        this.maxPayload = maxPayload;
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
        Objects.requireNonNull(channel, "channel");
        if (maxPayload < HELLO_MAX_PAYLOAD) {
            throw new IllegalArgumentException("the frame limit must be at least " + HELLO_MAX_PAYLOAD + " bytes");
        }
        String name = software.length() > MAX_SOFTWARE_CHARS ? software.substring(0, MAX_SOFTWARE_CHARS) : software;
        try {
            FrameCodec.write(channel, LabCodec.encode(new Hello(VERSION, name)), "the hello");
            byte[] payload = FrameCodec.read(channel, HELLO_MAX_PAYLOAD);
            return new LabConnection(channel, checkHello(payload, channel.peer()), maxPayload);
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

    /** Reads the next message, whatever it is (unknown types included). */
    public LabMessage receive() throws ControlException {
        LabMessage message = LabCodec.decode(FrameCodec.read(channel, maxPayload));
        if (message instanceof Bye) {
            peerSaidBye = true;
        }
        return message;
    }

    /** Sends this side's connection data and waits for the peer's. */
    public ConnectionData exchange(ConnectionData local) throws ControlException {
        send(new ConnectionDataMessage(local));
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
        while (!peerSaidBye) {
            Optional<byte[]> payload = FrameCodec.readIfOpen(channel, maxPayload);
            if (payload.isEmpty()) {
                return;
            }
            LabMessage message = LabCodec.decode(payload.get());
            if (message instanceof Bye) {
                peerSaidBye = true;
            } else {
                handleAside(message, "the peer's bye", false);
            }
        }
    }

    private LabMessage await(MessageType expected, String what) throws ControlException {
        while (true) {
            LabMessage message = receive();
            if (message.type().equals(expected)) {
                return message;
            }
            handleAside(message, what, expected.equals(MessageType.BUFFER_REPLY));
        }
    }

    private void handleAside(LabMessage message, String what, boolean answersStillCome) throws ControlException {
        if (message instanceof BufferRequest request) {
            answer(request);
        } else if (message instanceof ErrorMessage error) {
            throw new ControlException(ControlException.Reason.PEER_ERROR, "peer " + channel.peer() + " reported: "
                    + error.text() + " (error " + error.code() + ")");
        } else if (message instanceof Bye) {
            if (answersStillCome) {
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
            listener.onMessage(message);
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

    /** Says bye if not yet said (ignoring a peer that is already gone) and closes the channel. Idempotent. */
    @Override
    public void close() {
        try {
            if (!byeSent && !channel.isClosed()) {
                send(new Bye());
            }
        } catch (ControlException e) {
            // The peer is gone already; closing is all that is left.
        } finally {
            channel.close();
        }
    }
}
