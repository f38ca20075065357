/**
 * Loopback scenarios: two RDMA devices in one process, a server peer and a client peer, driven
 * step by step through the seed demo's flow (open device, query port, pick a GID, PD, MR, CQ, RC
 * QP, exchange connection data, RESET → INIT → RTR → RTS, post, poll, tear down) and through a set
 * of error cases that show the completion statuses a C verbs program would see.
 *
 * <p>{@link org.rdmalab.lab.scenario.Scenario} is one case; {@link org.rdmalab.lab.scenario.Scenarios}
 * lists them; {@link org.rdmalab.lab.scenario.LoopbackLab} opens the devices, runs a scenario and
 * releases every verbs object on every path. What happens is reported as
 * {@link org.rdmalab.lab.scenario.ScenarioEvent}s to a {@link org.rdmalab.lab.scenario.ScenarioListener};
 * {@link org.rdmalab.lab.scenario.ScenarioPrinter} turns them into the text the CLI prints.
 *
 * <p>Uses only the verbs API ({@code org.rdmalab.verbs} and its SPI); no UI, no backend internals.
 * Threads: a scenario runs entirely on the caller's thread (both peers, one after the other, as
 * the connection data is exchanged in memory); every wait for a completion has a timeout. Events
 * are delivered on the caller's thread.
 */
package org.rdmalab.lab.scenario;
