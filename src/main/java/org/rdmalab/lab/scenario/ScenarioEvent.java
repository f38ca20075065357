package org.rdmalab.lab.scenario;

import java.util.Map;
import org.rdmalab.verbs.WorkCompletion;

/** Something a scenario did or saw, in the order it happened. */
public sealed interface ScenarioEvent {

    /**
     * A verb was called (or a lab action such as the in-memory exchange happened).
     *
     * @param role the peer, or null for the lab itself
     * @param verb the C verb ({@code ibv_reg_mr}) or the action ("exchange")
     * @param detail what it created or did: handles, keys, QPN, PSN, GID
     */
    record Step(PeerRole role, String verb, String detail) implements ScenarioEvent {
    }

    /**
     * A verb failed with an errno.
     *
     * @param role the peer
     * @param verb the C verb
     * @param message the errno line ({@code ibv_modify_qp failed: EINVAL (22, Invalid argument): ...})
     */
    record VerbFailed(PeerRole role, String verb, String message) implements ScenarioEvent {
    }

    /**
     * A work completion polled from a CQ.
     *
     * @param role whose CQ
     * @param completion the completion as the device returned it
     * @param elapsedNanos time from the post (or the start of polling) to the completion
     */
    record Completion(PeerRole role, WorkCompletion completion, long elapsedNanos) implements ScenarioEvent {
    }

    /**
     * The CPU's view of part of a peer's registered buffer.
     *
     * @param role whose buffer
     * @param label what it shows ("after the client's RDMA WRITE")
     * @param bytes the bytes
     */
    record Buffer(PeerRole role, String label, byte[] bytes) implements ScenarioEvent {
    }

    /** An explanation addressed to the student. */
    record Note(String text) implements ScenarioEvent {
    }

    /**
     * One expectation of the scenario, checked against what the device did.
     *
     * @param passed true when the device did what was expected
     * @param text what was checked and what was seen
     */
    record Check(boolean passed, String text) implements ScenarioEvent {
    }

    /**
     * A packet the device sent, received or dropped; reported from the device's own thread.
     *
     * @param role whose device
     * @param packet the device's summary
     */
    record Packet(PeerRole role, org.rdmalab.verbs.PacketEvent packet) implements ScenarioEvent {
    }

    /**
     * A device's hardware counters at the end of the run.
     *
     * @param role whose device
     * @param counters name → value in the device's order
     */
    record Counters(PeerRole role, Map<String, Long> counters) implements ScenarioEvent {
    }
}
