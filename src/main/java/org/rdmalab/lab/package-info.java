/**
 * The UI-free lab model: a {@link org.rdmalab.lab.LabSession} is one peer's ordered list of
 * {@link org.rdmalab.lab.Step}s (open device, query port and GID, PD, CQ, MR, QP, TCP, exchange,
 * INIT, RTR, RTS, syncs, posts, polls, buffer, tear down), each with editable
 * {@link org.rdmalab.lab.Parameter}s carrying the seed's defaults, the C code those parameters
 * stand for, and a {@link org.rdmalab.lab.StepResult}. {@link org.rdmalab.lab.Flows} builds the
 * step lists of the seed demo and of ibv_rc_pingpong (whose ping-pong, and its baselines of plain
 * UDP and of RC's datagrams alone, keep every round trip in an HdrHistogram for their medians); {@link org.rdmalab.lab.PeerLinks} gives the
 * control links (seed, pingpong, lab protocol, in-memory). After the steps a session takes
 * user traffic through its {@link org.rdmalab.lab.LabTraffic} ({@link org.rdmalab.lab.TrafficRequest}:
 * any RDMA WRITE/READ, SEND or atomic, receives, polls) and shows what exists through its
 * {@link org.rdmalab.lab.LabResources} (getters for every verbs object, connection data and its
 * {@link org.rdmalab.lab.WireImage}). Sessions emit {@link org.rdmalab.lab.LabEvent}s (verbs calls
 * with arguments and errno, QP states of both sides, completions with the time since their post,
 * buffer changes, remote buffer views) that the CLI prints and the GUI draws. A failed step's result
 * may carry a {@link org.rdmalab.lab.Diagnosis}: the parameter to blame, the errno, why, and a
 * one-click {@link org.rdmalab.lab.Diagnosis.Fix}. What the lab says is a
 * {@link org.rdmalab.text.Phrase} ({@link org.rdmalab.lab.LabPhrase}: a key of
 * {@code phrases.properties} and its arguments): English on the command line, the window's
 * language in the window. {@link org.rdmalab.lab.LabSession#requestState}
 * moves the QP by hand (the state diagram). {@link org.rdmalab.lab.CExport} writes a session as one
 * C program for libibverbs. On a software device the pingpong's receives step first warms the
 * ping-pong's path up on a private twin device ({@code PathWarmUp}), so that a short run does not
 * mostly measure the JIT compiler: the server's before it listens, the client's once connected.
 *
 * <p>Uses only the verbs API and the control package: no JavaFX, no backend. Thread rules: a
 * session is driven by one thread at a time, never the JavaFX thread (steps and traffic block up
 * to their timeouts); listeners run on the driving thread, packet events on the device's transport
 * thread, the peer's QP states and control messages (lab protocol) on the link's reader thread; a
 * warm-up's second QP is driven by a thread of its own that ends with the warm-up.
 */
package org.rdmalab.lab;
