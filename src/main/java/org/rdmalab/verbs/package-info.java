/**
 * The one vocabulary of RDMA Lab: the verbs object model (Device, Context, ProtectionDomain,
 * MemoryRegion, CompletionQueue, CompletionChannel, QueuePair), work requests and completions,
 * enums and flags whose numeric values equal verbs.h, {@link org.rdmalab.verbs.VerbsException}
 * with the C verb and errno, the QP state table as data ({@link org.rdmalab.verbs.QpTransitions}),
 * and the one RC connect path every caller brings its QPs up through ({@link org.rdmalab.verbs.RcPath}:
 * create, RESET → INIT → RTR → RTS with each transition's attributes and mask).
 *
 * <p>Hot loops have a path without a list or a record per call: {@code QueuePair.postSend} of one
 * reused {@link org.rdmalab.verbs.SendWorkRequest} (no list), and
 * {@code CompletionQueue.poll(CompletionBuffer)} into a {@link org.rdmalab.verbs.CompletionBuffer}
 * the caller keeps, as C polls into its own {@code ibv_wc} array; on the native backend it
 * allocates nothing at all. The list-shaped calls stay for chains and for code that keeps its
 * completions.
 *
 * <p>What a device may offer beyond the verbs, found with {@code instanceof} on its context:
 * {@link org.rdmalab.verbs.PacketObservable} (its packets as {@link org.rdmalab.verbs.PacketEvent}s,
 * with their bytes and the injected faults that hit them) and {@link org.rdmalab.verbs.FaultControl}
 * (its faults, changed while it runs: {@link org.rdmalab.verbs.FaultSettings} and
 * {@link org.rdmalab.verbs.OneShotFault}); soft0 offers both.
 *
 * <p>No JavaFX, no native code, no backend. Thread rules: value types are immutable except
 * {@link org.rdmalab.verbs.QpAttributes} (a mutable bag like C's struct, confined to its caller)
 * and {@link org.rdmalab.verbs.CompletionBuffer} (refilled by each poll, confined to the thread
 * that polls into it);
 * verbs objects may be called from any thread unless a backend documents otherwise, and none of
 * them may be called from the JavaFX thread when it can block.
 */
package org.rdmalab.verbs;
