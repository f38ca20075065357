package org.rdmalab.softroce;

import org.rdmalab.verbs.SendWorkRequest;
import org.rdmalab.verbs.WcStatus;
import org.rdmalab.verbs.WrOpcode;

/**
 * A slot of the send queue's ring and the work request posted into it (rxe's {@code struct
 * rxe_send_wqe}): the request's fields, copied at the post, and its progress: where it starts in
 * the PSN space, how many PSNs it takes, how far a READ got.
 *
 * <p>The slots are made with the QP and reused, as rxe's send queue is a ring of WQEs in memory
 * shared with the application: a post fills the slot at the ring's producer index, so posting and
 * completing allocate nothing (issue 8). A slot is written by a posting thread only while it is
 * free (its earlier request completed, its completion made, and the loop done with it; see
 * {@link WorkQueue}); after the post it belongs to the loop.
 */
final class SendWqe implements WorkQueue.Slot {
    long wrId;
    WrOpcode opcode;
    int flags;
    boolean signaled;
    int imm;
    long remoteAddress;
    int rkey;
    long compareAdd;
    long swap;
    /** The gather list (a READ's or atomic's scatter list), sized for the QP's max_send_sge. */
    final ScatterGather sges;
    /** The inline data when {@link #inline} (the array is kept for the slot's next inline post). */
    byte[] inlineData;
    boolean inline;
    long length;
    boolean started;
    boolean done;
    WcStatus status;
    int firstPsn;
    int psnCount;
    int readPsn;

    SendWqe(int maxSge) {
        sges = new ScatterGather(maxSge);
    }

    /**
     * Fills the slot with a posted request (caller's thread, under the QP's post lock, the slot
     * free); the progress starts afresh. The inline data, when there is any, is copied after this.
     */
    void fill(SendWorkRequest request, boolean signaled, long length) {
        this.wrId = request.wrId();
        this.opcode = request.opcode();
        this.flags = request.sendFlags();
        this.signaled = signaled;
        this.imm = request.immData();
        this.remoteAddress = request.remoteAddress();
        this.rkey = request.rkey();
        this.compareAdd = request.compareAdd();
        this.swap = request.swap();
        sges.fill(request.sgList());
        this.inline = false;
        this.length = length;
        this.started = false;
        this.done = false;
        this.status = null;
        this.firstPsn = 0;
        this.psnCount = 0;
        this.readPsn = 0;
    }

    /** The array to copy {@code length} bytes of inline data into (kept for the slot's next one); marks it inline. */
    byte[] inlineBuffer(int length) {
        if (inlineData == null || inlineData.length < length) {
            inlineData = new byte[Math.max(length, SoftRoceProfile.MAX_INLINE_DATA)];
        }
        inline = true;
        return inlineData;
    }

    /** Lets go of the regions a request pointed at (the slot is free again; loop only). */
    @Override
    public void release() {
        sges.release();
    }

    boolean readOrAtomic() {
        return opcode == WrOpcode.RDMA_READ || opcode == WrOpcode.ATOMIC_CMP_AND_SWP
                || opcode == WrOpcode.ATOMIC_FETCH_AND_ADD;
    }
}
