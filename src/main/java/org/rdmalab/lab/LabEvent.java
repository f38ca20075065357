package org.rdmalab.lab;

import org.rdmalab.verbs.Errno;
import org.rdmalab.verbs.PacketEvent;
import org.rdmalab.verbs.QpState;
import org.rdmalab.verbs.WorkCompletion;

/**
 * Something that happened in a lab session. The CLI prints these, the GUI draws them, tests assert
 * on them. Events are delivered on the thread that runs the session (packets: the device's
 * transport thread), so listeners hand them on and return quickly.
 */
public sealed interface LabEvent {

    /** Which side of the connection an event belongs to. */
    enum Side { LOCAL, PEER }

    /**
     * A verbs call returned.
     *
     * @param verb the C verb ({@code ibv_reg_mr})
     * @param result what it created or the error, in one line
     * @param ok false when it failed
     */
    record VerbCall(String verb, String result, boolean ok) implements LabEvent {
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
     */
    record Completion(WorkCompletion completion) implements LabEvent {
    }

    /**
     * The device sent, received or dropped a packet (software device only).
     *
     * @param packet the packet
     */
    record Packet(PacketEvent packet) implements LabEvent {
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
