/**
 * {@code doctor}: checks an RDMA setup and says what is wrong and how to fix it.
 * {@link org.rdmalab.doctor.LocalChecks} makes the checks one machine can make alone (libibverbs
 * and the provider of each device, kernel modules, device nodes, memlock, port, netdev and MTU,
 * GID table, firewall; the machine around the devices is its {@code HostChecks}); it reads files under a {@link org.rdmalab.doctor.Host}'s root and runs
 * tools through its {@link org.rdmalab.doctor.CommandRunner}, so tests give it fake sysfs trees.
 * {@link org.rdmalab.doctor.PeerDoctor} swaps {@link org.rdmalab.doctor.SideFacts} with a peer over
 * RDMA Lab's protocol, compares them and runs the active probe (RC QP to RTS, RDMA WRITEs each way),
 * classifying each failure with both sides' views. {@link org.rdmalab.doctor.LabChecks} judges a value
 * only the window's setup has (its gid_idx) against what the local checks found. Every result is a
 * {@link org.rdmalab.doctor.Check}:
 * passed, failed with a one-line fix, or skipped. Its finding and fix are
 * {@link org.rdmalab.text.Phrase}s of this package's bundles ({@code local*.properties},
 * {@code peer*.properties}): English on the command line, the window's language in the window.
 *
 * <p>It uses the verbs API, {@code verbs.spi} and {@code control}; never a backend, JavaFX or the
 * command line. Threads: everything runs on the caller's thread; every wait (TCP, completions, tools)
 * has a timeout, and devices, QPs and connections are released on every path.
 */
package org.rdmalab.doctor;
