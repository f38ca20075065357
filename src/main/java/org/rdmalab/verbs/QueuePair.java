package org.rdmalab.verbs;

import java.util.List;

/** {@code struct ibv_qp}. */
public interface QueuePair extends AutoCloseable {

    /** The QP number (24 bits). */
    int qpNum();

    /** RC, UC or UD. */
    QpType type();

    /** The state as last known ({@code qp->state}). */
    QpState state();

    /** The protection domain. */
    ProtectionDomain pd();

    /** The send CQ. */
    CompletionQueue sendCq();

    /** The receive CQ. */
    CompletionQueue recvCq();

    /**
     * The capabilities granted at creation, as {@code ibv_create_qp} writes them back into
     * {@code qp_init_attr.cap}: they may exceed the request (rxe rounds queue depths up to
     * {@code 2^k - 1} and grows inline data and SGEs to fill a WQE).
     */
    QpCapabilities capabilities();

    /**
     * {@code ibv_modify_qp}: applies the attributes named by {@code mask}.
     *
     * @throws VerbsException EINVAL with a sentence naming what is missing, not allowed or wrong
     */
    void modify(QpAttributes attributes, int mask) throws VerbsException;

    /** {@code ibv_query_qp}: the current attributes (all of them; {@code mask} is a hint as in C). */
    QpAttributes query(int mask) throws VerbsException;

    /**
     * {@code ibv_post_send}: queues the requests in order. On failure nothing from the failing
     * request on is queued, as with C's {@code bad_wr}.
     */
    void postSend(List<SendWorkRequest> requests) throws VerbsException;

    /**
     * {@code ibv_post_send} of one request (C's {@code wr} with {@code next} NULL): the same checks,
     * exceptions and errno as {@link #postSend(List)} of a one-element list, without the list.
     * The native backend builds it in the QP's own native block without allocating anything, so
     * a loop that reuses its request, as perftest does, allocates nothing to post.
     */
    default void postSend(SendWorkRequest request) throws VerbsException {
        postSend(List.of(request));
    }

    /** {@code ibv_post_recv}. */
    void postRecv(List<ReceiveWorkRequest> requests) throws VerbsException;

    /**
     * {@code ibv_post_recv} of one request: the same checks, exceptions and errno as
     * {@link #postRecv(List)} of a one-element list, without the list.
     */
    default void postRecv(ReceiveWorkRequest request) throws VerbsException {
        postRecv(List.of(request));
    }

    /** {@code ibv_destroy_qp}; idempotent. */
    @Override
    void close();
}
