/**
 * The native backend over the real {@code libibverbs.so.1} through jnr-ffi: it lists devices,
 * opens them and implements the verbs API (query device/port/GID, PD, MR over native memory it
 * owns, CQ, completion channel, QP create/modify/query/destroy, posting and polling; UD sends, which need an
 * address handle, are refused with EOPNOTSUPP). The inline verbs
 * (post_send, post_recv, poll_cq, req_notify_cq) are called through the context's ops table with
 * jffi; a post builds its work requests, and a poll receives its {@code ibv_wc} entries, in a
 * native block the QP or CQ keeps ({@code NativeScratch}, one per queue, used by the first thread
 * that posts or polls and taken with no atomic instruction), so posting one request and polling
 * into a {@link org.rdmalab.verbs.CompletionBuffer} allocate nothing, Java or native; another
 * thread's post or poll uses memory of its own. A request
 * posted alone again (the same object) is handed over as the QP's block still holds it, and a
 * CQ's block is kept zeroed between polls. Struct offsets live in {@code StructField} and are
 * checked against the installed header by the tests. Errors (no library, ENOSYS on a kernel without RDMA, a failed
 * verb) are {@link org.rdmalab.verbs.VerbsException}s with the errno the verb returned, or read
 * right after the call where the verb reports failure through errno.
 *
 * <p>Threads: verbs run on the caller's thread; libibverbs and its providers are thread-safe, so
 * one thread may poll a CQ while another posts. {@code getEvent} waits at most its timeout in
 * {@code poll(2)}. Never imported by the software backend, and never imports it.
 */
package org.rdmalab.ibverbs;
