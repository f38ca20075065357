package org.rdmalab.verbs;

import java.time.Duration;

/** {@code struct ibv_comp_channel}: where armed CQs report that a completion arrived. */
public interface CompletionChannel extends AutoCloseable {

    /**
     * {@code ibv_get_cq_event}: waits for the next event, at most {@code timeout}.
     *
     * @throws VerbsException ETIMEDOUT when nothing arrived in time
     */
    CompletionQueue getEvent(Duration timeout) throws VerbsException;

    /** {@code ibv_destroy_comp_channel}; idempotent. */
    @Override
    void close();
}
