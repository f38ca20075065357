package org.rdmalab.lab;

import java.time.Duration;
import java.util.Optional;
import org.rdmalab.control.ConnectionData;
import org.rdmalab.control.ControlException;
import org.rdmalab.verbs.QpState;

/**
 * The control plane as a session sees it: connect to the peer, swap connection data, pass
 * synchronisation points. Implementations speak the seed's, ibv_rc_pingpong's or RDMA Lab's own
 * format over TCP, or pass objects in memory for the loopback lab. Every wait has a timeout; an
 * expired timeout or a peer that misbehaves is a {@link ControlException} with a one-line message.
 */
public interface PeerLink extends AutoCloseable {

    /** "seed", "pingpong", "lab" or "memory". */
    String protocol();

    /** Server: accept one client; client: connect to the server. */
    void connect() throws ControlException;

    /** Sends the local connection data. */
    void send(ConnectionData local) throws ControlException;

    /** Receives the peer's connection data. */
    ConnectionData receive() throws ControlException;

    /** Sends the local connection data and returns the peer's (both write first, as the seed does). */
    default ConnectionData exchange(ConnectionData local) throws ControlException {
        send(local);
        return receive();
    }

    /**
     * The shortest this side waits for its peer in any one blocking call (a connect, a read): what
     * a side may spend on work of its own while the peer waits for it, at most. Empty where the
     * link does not wait.
     */
    default Optional<Duration> shortestWait() {
        return Optional.empty();
    }

    /** Waits until the peer reaches the same sync point. */
    void sync(String name) throws ControlException;

    /** Where the link reports control messages and the peer's QP states; the session attaches itself. */
    default void attach(java.util.function.Consumer<LabEvent> sink) {
        // Links that report nothing ignore it.
    }

    /** Tells the peer the local QP's state, where the protocol can carry it (lab protocol). */
    default void publishQpState(int qpNum, QpState state) throws ControlException {
        // Protocols without such a message simply do not tell.
    }

    /** Tells the peer a step finished, where the protocol can carry it (lab protocol). */
    default void publishStep(int index, String title, boolean ok, String detail) throws ControlException {
        // Protocols without such a message simply do not tell.
    }

    /**
     * Lets the peer read this side's buffer over TCP (lab protocol): {@code source} returns
     * {@code length} bytes at {@code offset}.
     */
    default void serveBuffer(java.util.function.BiFunction<Long, Integer, byte[]> source) {
        // Protocols without snapshots serve nothing.
    }

    /**
     * A snapshot of the peer's buffer over TCP (lab protocol only; the seed's way is an RDMA READ).
     *
     * @throws ControlException when the protocol cannot carry one
     */
    default byte[] readPeerBuffer(long offset, int length) throws ControlException {
        throw new ControlException(ControlException.Reason.PROTOCOL, "the " + protocol()
                + " protocol cannot carry a buffer snapshot; use --protocol lab, or an RDMA READ");
    }

    /** Closes the connection; idempotent. */
    @Override
    void close();
}
