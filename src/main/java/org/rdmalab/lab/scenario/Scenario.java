package org.rdmalab.lab.scenario;

import org.rdmalab.verbs.VerbsException;

/**
 * One lesson of the loopback lab: the steps of two lab sessions (the same steps the window runs,
 * built from each side's {@link PeerSetup}), the traffic it posts once both QPs are up, and the
 * checks on its outcome. {@link LoopbackLab} runs it for {@code loopback}; the window's gallery
 * shows its sessions in the lab's columns and runs the same traffic and checks.
 */
public interface Scenario {

    /** The name given to {@code --scenario} ({@code seed}, {@code bad-rkey}). */
    String name();

    /** One line saying what happens and what the student should see (English; {@link ScenarioTexts}). */
    default String description() {
        return ScenarioTexts.english().line(name());
    }

    /** How each side is built: its steps are the lab's, given these values. */
    Plan plan(LoopbackSettings settings);

    /**
     * Posts the scenario's traffic on the two sides, whose steps all ran, and checks what the
     * devices did.
     *
     * @return whether the device did what the case teaches, and why not
     * @throws VerbsException a verb failed where the case did not expect it
     */
    ScenarioResult traffic(ScenarioRun run) throws VerbsException;

    /**
     * The two sides' setups.
     *
     * @param server the passive side
     * @param client the active side; null for a lesson on the server's QP alone, which stops at
     *     its QP in RESET (no exchange, no transitions)
     */
    record Plan(PeerSetup server, PeerSetup client) {

        /** Both sides connected, each with its own setup. */
        public static Plan connected(PeerSetup server, PeerSetup client) {
            return new Plan(java.util.Objects.requireNonNull(server), java.util.Objects.requireNonNull(client));
        }

        /** The server alone, up to its QP in RESET. */
        public static Plan serverAlone(PeerSetup server) {
            return new Plan(java.util.Objects.requireNonNull(server), null);
        }

        /** True when both sides connect. */
        public boolean connects() {
            return client != null;
        }
    }
}
