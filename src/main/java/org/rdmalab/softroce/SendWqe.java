package org.rdmalab.softroce;

import org.rdmalab.verbs.AccessFlag;
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
 * {@link SendQueue}); after the post it belongs to the loop.
 */
final class SendWqe {
    long wrId;
    WrOpcode opcode;
    int flags;
    boolean signaled;
    int imm;
    long remoteAddress;
    int rkey;
    long compareAdd;
    long swap;
    /** The gather list: {@link #sgeCount} entries of these arrays (sized for the QP's max_send_sge). */
    int sgeCount;
    final long[] sgeAddresses;
    final int[] sgeLkeys;
    /** Each SGE's length; with {@link #regions} and {@link #offsets} what {@link ScatterGather} copies. */
    final int[] lengths;
    final SoftMemoryRegion[] regions;
    final int[] offsets;
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
        int sges = Math.max(1, maxSge);
        sgeAddresses = new long[sges];
        sgeLkeys = new int[sges];
        lengths = new int[sges];
        regions = new SoftMemoryRegion[sges];
        offsets = new int[sges];
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
        this.sgeCount = ScatterGather.fill(request.sgList(), sgeAddresses, sgeLkeys, lengths, regions);
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
    void release() {
        for (int i = 0; i < sgeCount; i++) {
            regions[i] = null;
        }
    }

    /**
     * Looks up, as rxe's {@code copy_data} does each time it copies, the lkey of every SGE that
     * bytes {@code [offset, offset + length)} of the message lie in, and points {@link #regions}
     * at what they name now. Returns null, or the status rxe's requester gives a failure:
     * IBV_WC_LOC_QP_OP_ERR when a key names no region of {@code pd} (unknown, deregistered,
     * another PD) or, with {@code localWrite}, one without LOCAL_WRITE ({@code lookup_mr},
     * -EINVAL); IBV_WC_LOC_PROT_ERR when the bytes lie outside the region ({@code mr_check_range},
     * -EFAULT). Loop only.
     */
    WcStatus lookUp(SoftRoceContext context, SoftProtectionDomain pd, long offset, int length, boolean localWrite) {
        long start = 0;
        long end = offset + length;
        for (int i = 0; i < sgeCount && start < end; i++) {
            int segment = lengths[i];
            long segmentEnd = start + segment;
            if (segment > 0 && offset < segmentEnd) {
                SoftMemoryRegion region = context.regionByKey(sgeLkeys[i]);
                if (region == null || region.softPd() != pd
                        || (localWrite && !region.allows(AccessFlag.LOCAL_WRITE))) {
                    return WcStatus.LOC_QP_OP_ERR;
                }
                long from = Math.max(offset, start) - start;
                long to = Math.min(end, segmentEnd) - start;
                if (!region.contains(sgeAddresses[i] + from, to - from)) {
                    return WcStatus.LOC_PROT_ERR;
                }
                regions[i] = region;
                offsets[i] = region.offsetOf(sgeAddresses[i]);
            }
            start = segmentEnd;
        }
        return null;
    }

    boolean readOrAtomic() {
        return opcode == WrOpcode.RDMA_READ || opcode == WrOpcode.ATOMIC_CMP_AND_SWP
                || opcode == WrOpcode.ATOMIC_FETCH_AND_ADD;
    }
}
