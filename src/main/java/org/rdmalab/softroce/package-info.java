/**
 * The software RoCE v2 device {@code soft0}: a pure-Java RDMA device implementing the verbs API
 * with RC (and UC) transport over real UDP datagrams carrying real RoCEv2 headers
 * ({@link org.rdmalab.wire}), behaving like Linux rxe packet for packet and error for
 * error. See {@code docs/softroce.md} for the architecture and the differences from rxe.
 *
 * <p>What lives here: the provider and device ({@link org.rdmalab.softroce.SoftRoceProvider},
 * {@link org.rdmalab.softroce.SoftRoceDevice}), the verbs objects (context, PD, MR, CQ, completion
 * channel, QP), the transport in rxe's shape ({@code SoftQueuePair} the caller side as
 * {@code rxe_verbs.c} / {@code rxe_qp.c}, with its checks apart in {@code QpAttributeChecks};
 * {@code Requester}, {@code Completer} and {@code Responder} as {@code rxe_req.c},
 * {@code rxe_comp.c} and {@code rxe_resp.c}, the responder in parts along that file's seams
 * ({@code ResponderExecution}, {@code ResponderResources}, {@code ResponderReplies}, sharing
 * {@code ResponderInfo}); packet I/O in
 * {@code SoftTransport}), the {@link org.rdmalab.softroce.FaultInjector} and {@code FaultyLink}
 * (random and one-shot faults, changed while the device runs through the context's
 * {@link org.rdmalab.verbs.FaultControl}; each fault that fires is on its packet's
 * {@link org.rdmalab.verbs.PacketEvent}), the capture tap and the port
 * {@link org.rdmalab.softroce.Counter}s. The fabrics packets travel on (real UDP, or a
 * simulated network with a virtual clock for tests), the event loop and the socket setup that lets
 * kernel rxe take soft0's packets live in {@link org.rdmalab.softroce.net}; the headers in
 * {@link org.rdmalab.wire}; captures in {@link org.rdmalab.capture}.
 *
 * <p>Threads: each opened device context owns one event loop with a transport thread (named like
 * {@code soft0@127.0.0.1 transport}), started with its first QP. Every QP's protocol state,
 * timers and the socket belong to whichever thread is on the loop: the transport thread, or a
 * caller that found the loop free and took a turn itself (a post sends its packets from the
 * posting thread; an empty {@code ibv_poll_cq} reads the socket on the polling thread). Verbs
 * calls validate on the caller's thread, then run the work or hand it over (post, modify), or read
 * thread-safe state (CQs, counters). Packet listeners run on whichever thread is on the loop. In a
 * {@link org.rdmalab.softroce.net.SimulatedNetwork} everything runs on the one thread that drives the
 * network. A post fills a reused slot of the QP's send or receive ring on the caller's thread,
 * under the QP's post lock; a slot is the loop's from then until its completion is in the CQ.
 *
 * <p>Allocation: in steady state (one-request posts of reused requests, {@code poll} into a
 * {@link org.rdmalab.verbs.CompletionBuffer}) nothing is allocated per message: work queues and
 * CQs are rings of reused slots and fields, headers are written and read as fields, and a post
 * hands the loop a task made once. See {@code docs/softroce.md}, "Allocation in steady state".
 */
package org.rdmalab.softroce;
