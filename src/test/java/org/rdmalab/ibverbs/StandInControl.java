package org.rdmalab.ibverbs;

/**
 * The stand-in's own test hooks: how many objects it has created and not yet destroyed, and how
 * its poll_cq writes error completions.
 */
public interface StandInControl {

    /** {@code int standin_live_objects(void)}. */
    int standin_live_objects();

    /**
     * {@code void standin_sparse_errors(int on)}: with 1, poll_cq writes only an error completion's
     * wr_id, status, vendor_err and qp_num, and leaves the rest of the caller's entry as it was.
     */
    void standin_sparse_errors(int on);
}
