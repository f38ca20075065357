package org.rdmalab.lab;

import java.time.Instant;
import org.rdmalab.verbs.Errno;
import org.rdmalab.verbs.PacketEvent;
import org.rdmalab.verbs.QpState;
import org.rdmalab.verbs.VerbsException;
import org.rdmalab.verbs.WorkCompletion;
import org.rdmalab.verbs.WrOpcode;

/**
 * Something that happened in a lab session. The CLI prints these, the GUI draws them, tests assert
 * on them. Events are delivered on the thread that runs the session (packets: the device's
 * transport thread), so listeners hand them on and return quickly.
 */
public sealed interface LabEvent {

    /** Which side of the connection an event belongs to. */
    enum Side { LOCAL, PEER }

    /**
     * A verbs call returned: one line of the verbs log.
     *
     * @param verb the C verb ({@code ibv_reg_mr})
     * @param arguments its arguments as C would name them, in one line
     *     ({@code pd 0x1, addr 0x7f.., length 11, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE}); may be empty
     * @param result what it created or returned, or the error, in one line
     * @param ok false when it failed
     * @param errno the errno it failed with; null when it succeeded
     */
    record VerbCall(String verb, String arguments, String result, boolean ok, Errno errno) implements LabEvent {

        /** Checks that a failure has an errno and a success none. */
        public VerbCall {
            java.util.Objects.requireNonNull(verb, "verb");
            arguments = arguments == null ? "" : arguments;
            result = result == null ? "" : result;
            if (ok != (errno == null)) {
                throw new IllegalArgumentException(ok ? "a successful call has no errno" : "a failed call needs an errno");
            }
        }

        /** A call without recorded arguments (a failure gets {@link Errno#UNKNOWN}). */
        public VerbCall(String verb, String result, boolean ok) {
            this(verb, "", result, ok, ok ? null : Errno.UNKNOWN);
        }

        /** A successful call. */
        public static VerbCall ok(String verb, String arguments, String result) {
            return new VerbCall(verb, arguments, result, true, null);
        }

        /** A failed call: the exception's message is the result, its errno the errno. */
        public static VerbCall failed(String verb, String arguments, VerbsException failure) {
            return new VerbCall(verb, arguments, failure.getMessage(), false, failure.errno());
        }

        /**
         * The call as one copyable line: {@code ibv_alloc_pd(ctx) = pd handle 1}, or for a failure
         * {@code ibv_modify_qp(qp 0x11, ...) = -1: ibv_modify_qp failed: EINVAL (22, Invalid argument): ...}.
         */
        public String line() {
            String call = verb + "(" + arguments + ")";
            if (ok) {
                return call + (result.isEmpty() ? "" : " = " + result);
            }
            return call + " = -1: " + (result.isEmpty() ? "errno " + errno.name() + " (" + errno.text() + ")" : result);
        }
    }

    /**
     * {@code ibv_post_send} of one send work request returned 0, so the request is on the send queue
     * (the verbs log has the call itself). Views tie it to its packets and its completion.
     *
     * @param qpNum the QP it was posted to
     * @param wrId its wr_id
     * @param opcode its opcode
     * @param length bytes of its scatter/gather list
     * @param signaled IBV_SEND_SIGNALED: it completes on success too (or the QP was created with sq_sig_all)
     */
    record SendPosted(int qpNum, long wrId, WrOpcode opcode, long length, boolean signaled) implements LabEvent {

        /** Requires the opcode. */
        public SendPosted {
            java.util.Objects.requireNonNull(opcode, "opcode");
        }
    }

    /**
     * A QP changed state.
     *
     * @param side the local QP or the peer's
     * @param qpNum its number
     * @param from previous state
     * @param to new state
     */
    record QpStateChange(Side side, int qpNum, QpState from, QpState to) implements LabEvent {
    }

    /**
     * A modify asked for by hand ({@link LabSession#requestState}) was refused; the QP stays in
     * {@code from}.
     *
     * @param side the local QP or the peer's
     * @param qpNum its number
     * @param from the state it stays in
     * @param to the state that was asked for
     * @param errno what {@code ibv_modify_qp} returned (EINVAL)
     * @param reason the kernel table's explanation ("RESET → RTS is not a transition ...", "missing: ...")
     */
    record TransitionRefused(Side side, int qpNum, QpState from, QpState to, Errno errno, String reason)
            implements LabEvent {
    }

    /**
     * A work completion was polled.
     *
     * @param completion the completion
     * @param elapsedNanos time from the matching post (same wr_id on the same queue, the oldest
     *     still open) to the poll that returned it; -1 when the post is unknown
     * @param at when it was polled (wall clock)
     */
    record Completion(WorkCompletion completion, long elapsedNanos, Instant at) implements LabEvent {

        /** Requires the completion and the time. */
        public Completion {
            java.util.Objects.requireNonNull(completion, "completion");
            java.util.Objects.requireNonNull(at, "at");
        }

        /** A completion whose post is unknown, polled now. */
        public Completion(WorkCompletion completion) {
            this(completion, -1, Instant.now());
        }
    }

    /**
     * This side's buffer changed through the session (a write before a post, the result of an
     * RDMA READ or atomic, a received SEND), so a view can highlight the bytes.
     *
     * @param side whose buffer (the session's own: {@link Side#LOCAL})
     * @param offset first changed byte
     * @param length how many bytes
     * @param how what changed them, e.g. "local write before IBV_WR_RDMA_WRITE", "RDMA READ result"
     */
    record BufferChanged(Side side, long offset, long length, String how) implements LabEvent {
    }

    /**
     * A view of the peer's buffer arrived.
     *
     * @param bytes the bytes (a copy)
     * @param offset where they start in the peer's buffer
     * @param source where they came from: "RDMA READ" or "peer snapshot (lab protocol)"
     * @param at when they arrived
     */
    record RemoteBuffer(byte[] bytes, long offset, String source, Instant at) implements LabEvent {

        /** Copies the bytes. */
        public RemoteBuffer {
            bytes = bytes.clone();
        }

        @Override
        public byte[] bytes() {
            return bytes.clone();
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof RemoteBuffer that && java.util.Arrays.equals(bytes, that.bytes)
                    && offset == that.offset && source.equals(that.source) && at.equals(that.at);
        }

        @Override
        public int hashCode() {
            return java.util.Objects.hash(java.util.Arrays.hashCode(bytes), offset, source, at);
        }

        @Override
        public String toString() {
            return "RemoteBuffer[" + bytes.length + " bytes at " + offset + ", " + source + ", " + at + "]";
        }
    }

    /**
     * The device sent, received or dropped a packet (software device only).
     *
     * @param packet the packet
     */
    record Packet(PacketEvent packet) implements LabEvent {
    }

    /**
     * A client's connection to its server was refused {@code refusals} times in {@code waited}: the
     * server is not up yet, and the client tries again until {@code limit}. {@code serverCommand}
     * is what starts the server on the other machine.
     */
    record PeerWaiting(String where, int refusals, java.time.Duration waited, java.time.Duration limit,
            String serverCommand) implements LabEvent {
    }

    /**
     * A control-plane message crossed the TCP connection.
     *
     * @param sent true when sent, false when received
     * @param protocol seed, pingpong or lab
     * @param description what it carried, in one line
     * @param length bytes on the wire
     */
    record ControlMessage(boolean sent, String protocol, String description, int length) implements LabEvent {
    }

    /**
     * Both peers passed a synchronisation point.
     *
     * @param name the sync's name ("Q", "R", "W" in the seed)
     */
    record Sync(String name) implements LabEvent {
    }

    /**
     * A step finished (successfully or not).
     *
     * @param step the step
     * @param result its result
     */
    record StepFinished(Step step, StepResult result) implements LabEvent {
    }

    /**
     * A line of program output, as the C program would print it.
     *
     * @param text the line
     */
    record Output(String text) implements LabEvent {
    }
}
