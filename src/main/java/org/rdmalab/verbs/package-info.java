/**
 * The one vocabulary of RDMA Lab: the verbs object model (Device, Context, ProtectionDomain,
 * MemoryRegion, CompletionQueue, CompletionChannel, QueuePair), work requests and completions,
 * enums and flags whose numeric values equal verbs.h, {@link org.rdmalab.verbs.VerbsException}
 * with the C verb and errno, and the QP state table as data ({@link org.rdmalab.verbs.QpTransitions}).
 *
 * <p>No JavaFX, no native code, no backend. Thread rules: value types are immutable except
 * {@link org.rdmalab.verbs.QpAttributes} (a mutable bag like C's struct, confined to its caller);
 * verbs objects may be called from any thread unless a backend documents otherwise, and none of
 * them may be called from the JavaFX thread when it can block.
 */
package org.rdmalab.verbs;
