package org.rdmalab.control;

import java.util.Objects;

/**
 * A TCP control exchange failed. The message is one line that says what happened and what to do,
 * ready to show to a user as it is; the cause (if any) is for the log only.
 */
public class ControlException extends Exception {

    private static final long serialVersionUID = 1L;

    /** What kind of failure this is, so callers can react without parsing the message. */
    public enum Reason {
        /** The local TCP port is taken by another program. */
        PORT_IN_USE,
        /** An IP address is malformed, unknown, or not one of this machine's. */
        BAD_ADDRESS,
        /** Nothing listened at the server's address until the deadline. */
        REFUSED,
        /** The peer did not connect, answer or finish within the timeout. */
        TIMEOUT,
        /** The peer closed the connection (or said bye) in the middle of an exchange. */
        PEER_CLOSED,
        /** The peer sent bytes that do not follow the protocol. */
        PROTOCOL,
        /** The peer speaks another version of RDMA Lab's protocol. */
        VERSION_MISMATCH,
        /** The peer reported an error of its own. */
        PEER_ERROR,
        /** Any other socket failure. */
        IO,
        /** The waiting thread was interrupted. */
        INTERRUPTED
    }

    private final Reason reason;

    /** A failure of kind {@code reason} with a one-line {@code message}. */
    public ControlException(Reason reason, String message) {
        this(reason, message, null);
    }

    /** As above, keeping the underlying exception for the log. */
    public ControlException(Reason reason, String message, Throwable cause) {
        super(oneLine(message), cause);
        this.reason = Objects.requireNonNull(reason, "reason");
    }

    private static String oneLine(String message) {
        return Objects.requireNonNull(message, "message").replace('\n', ' ').replace('\r', ' ');
    }

    /** The kind of failure. */
    public Reason reason() {
        return reason;
    }
}
