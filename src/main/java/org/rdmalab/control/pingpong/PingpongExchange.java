package org.rdmalab.control.pingpong;

import java.util.Arrays;
import java.util.Objects;
import org.rdmalab.control.ConnectionData;
import org.rdmalab.control.ControlChannel;
import org.rdmalab.control.ControlException;
import org.rdmalab.control.ControlText;

/**
 * ibv_rc_pingpong's exchange over one TCP connection (default port {@link PingpongMessage#PORT}).
 *
 * <p>The sequence: the client sends its 52 bytes; the server reads them, moves its QP to RTR and
 * RTS, then replies with its own 52 bytes; the client reads them and sends {@code "done\0"} (5 bytes)
 * and closes; then the client moves its QP to RTR and RTS. The server's steps are separate methods
 * ({@link #receive}, {@link #send}, {@link #awaitDone}) so a caller can modify its QP in between, as
 * the C server does; {@link #asClient} and {@link #asServer} run a whole side.
 *
 * <p>Not thread-safe; the channel is owned by the caller, who closes it.
 */
public final class PingpongExchange {

    private static final byte[] DONE = {'d', 'o', 'n', 'e', 0};

    private static final String MESSAGE = "the LID:QPN:PSN:GID message";
    private static final String DONE_MESSAGE = "the \"done\" message";

    private final ControlChannel channel;

    /** An exchange over {@code channel}. */
    public PingpongExchange(ControlChannel channel) {
        this.channel = Objects.requireNonNull(channel, "channel");
    }

    /** The channel underneath. */
    public ControlChannel channel() {
        return channel;
    }

    /** Client side: sends {@code local}, reads the server's message, sends "done"; returns the server's data. */
    public ConnectionData asClient(ConnectionData local) throws ControlException {
        send(local);
        ConnectionData server = receive();
        sendDone();
        return server;
    }

    /**
     * Server side without a pause: reads the client's message, replies with {@code local}, waits for
     * "done"; returns the client's data. A server that must reach RTS before replying uses the
     * three steps itself.
     */
    public ConnectionData asServer(ConnectionData local) throws ControlException {
        ConnectionData client = receive();
        send(local);
        awaitDone();
        return client;
    }

    /** Sends {@code local}'s LID, QPN, PSN and GID as the 52-byte text, in one write. */
    public void send(ConnectionData local) throws ControlException {
        channel.write(PingpongMessage.from(local).serialize(), MESSAGE);
    }

    /** Reads the peer's 52 bytes and maps them to the common form (see {@link PingpongMessage#toConnectionData}). */
    public ConnectionData receive() throws ControlException {
        return receiveMessage().toConnectionData();
    }

    /** Reads the peer's 52 bytes as they are. */
    public PingpongMessage receiveMessage() throws ControlException {
        return PingpongMessage.parse(channel.read(PingpongMessage.LENGTH, MESSAGE));
    }

    /** The client's last message: the text "done" and its NUL (a copy). */
    public static byte[] doneBytes() {
        return DONE.clone();
    }

    /** Client: sends "done\0". */
    public void sendDone() throws ControlException {
        channel.write(DONE.clone(), DONE_MESSAGE);
    }

    /** Server: waits for "done\0"; anything else is an error quoting what arrived. */
    public void awaitDone() throws ControlException {
        byte[] bytes = channel.read(DONE.length, DONE_MESSAGE);
        if (!Arrays.equals(bytes, DONE)) {
            throw new ControlException(ControlException.Reason.PROTOCOL, "expected \"done\\0\" from "
                    + channel.peer() + ", got " + ControlText.quote(bytes));
        }
    }
}
