package org.rdmalab.softroce;

import org.rdmalab.verbs.ReceiveWorkRequest;

/**
 * A slot of the receive queue's ring and the receive posted into it (rxe's {@code struct
 * rxe_recv_wqe}), its scatter list resolved once on first use. Like the send queue's slots
 * ({@link SendWqe}), the slots are made with the QP and reused: a post fills a free one on the
 * caller's thread, and the slot is free again once its completion is made ({@link WorkQueue}).
 */
final class RecvWqe implements WorkQueue.Slot {
    long wrId;
    long capacity;
    /** The scatter list, sized for the QP's max_recv_sge. */
    final ScatterGather sges;
    /** Whether {@link #resolve} ran for this receive, and what it found. */
    private boolean resolved;
    private boolean valid;

    RecvWqe(int maxSge) {
        sges = new ScatterGather(maxSge);
    }

    /** Fills the slot with a posted receive (caller's thread, under the QP's post lock, the slot free). */
    void fill(ReceiveWorkRequest request, long capacity) {
        this.wrId = request.wrId();
        this.capacity = capacity;
        sges.fill(request.sgList());
        this.resolved = false;
        this.valid = false;
    }

    /** Lets go of the regions the receive pointed at (the slot is free again; loop only). */
    @Override
    public void release() {
        sges.release();
    }

    /** Checks the scatter list once: lkeys of this PD with LOCAL_WRITE, ranges inside. */
    boolean resolve(SoftRoceContext context, SoftProtectionDomain pd) {
        if (!resolved) {
            resolved = true;
            valid = sges.resolveWritable(context, pd);
        }
        return valid;
    }
}
