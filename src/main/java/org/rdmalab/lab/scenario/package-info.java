/**
 * Loopback scenarios: lessons on two lab sessions in one process, a server and a client, each on
 * its own device. A {@link org.rdmalab.lab.scenario.Scenario} is the steps of the two sessions (the
 * lab's own steps, the ones the window runs, built from each side's
 * {@link org.rdmalab.lab.scenario.PeerSetup}), the traffic it posts once both QPs are up (through
 * each session's {@link org.rdmalab.lab.LabTraffic} and QP requests), and the checks on its outcome.
 * {@link org.rdmalab.lab.scenario.Scenarios} lists them; {@link org.rdmalab.lab.scenario.ScenarioTexts}
 * says what each is and teaches (one resource for the command line, the docs and the window);
 * {@link org.rdmalab.lab.scenario.ScenarioSessions} builds a scenario's sessions and runs their
 * steps; {@link org.rdmalab.lab.scenario.LoopbackLab} runs a whole scenario for {@code loopback} and
 * releases every verbs object on every path. What happens is reported as
 * {@link org.rdmalab.lab.scenario.ScenarioEvent}s ({@link org.rdmalab.lab.scenario.ScenarioSide}
 * turns each session's events into them) to a {@link org.rdmalab.lab.scenario.ScenarioListener};
 * {@link org.rdmalab.lab.scenario.ScenarioPrinter} turns them into the text the CLI prints.
 *
 * <p>Calls no verb itself: devices are reached through {@code lab} only ({@code ScenarioLayerTest}).
 * Threads: {@code loopback} runs a scenario entirely on the caller's thread (both sessions in turn,
 * the connection data handed over in memory); every wait for a completion has a timeout. Events
 * are delivered on the thread that drives the session, packets on the device's thread.
 */
package org.rdmalab.lab.scenario;
