package org.rdmalab.softroce;

import org.rdmalab.verbs.AccessFlag;
import org.rdmalab.verbs.ReceiveWorkRequest;

/**
 * A slot of the receive queue's ring and the receive posted into it (rxe's {@code struct
 * rxe_recv_wqe}), its scatter list resolved once on first use. Like the send queue's slots
 * ({@link SendWqe}), the slots are made with the QP and reused: a post fills a free one on the
 * caller's thread, and the slot is free again once its completion is made ({@link ReceiveQueue}).
 */
final class RecvWqe {
    long wrId;
    long capacity;
    /** The scatter list: {@link #sgeCount} entries of these arrays (sized for the QP's max_recv_sge). */
    int sgeCount;
    final long[] sgeAddresses;
    final int[] sgeLkeys;
    final int[] lengths;
    final SoftMemoryRegion[] regions;
    final int[] offsets;
    /** Whether {@link #resolve} ran for this receive, and what it found. */
    private boolean resolved;
    private boolean valid;

    RecvWqe(int maxSge) {
        int sges = Math.max(1, maxSge);
        sgeAddresses = new long[sges];
        sgeLkeys = new int[sges];
        lengths = new int[sges];
        regions = new SoftMemoryRegion[sges];
        offsets = new int[sges];
    }

    /** Fills the slot with a posted receive (caller's thread, under the QP's post lock, the slot free). */
    void fill(ReceiveWorkRequest request, long capacity) {
        this.wrId = request.wrId();
        this.capacity = capacity;
        this.sgeCount = ScatterGather.fill(request.sgList(), sgeAddresses, sgeLkeys, lengths, regions);
        this.resolved = false;
        this.valid = false;
    }

    /** Lets go of the regions the receive pointed at (the slot is free again; loop only). */
    void release() {
        for (int i = 0; i < sgeCount; i++) {
            regions[i] = null;
        }
    }

    /** Checks the scatter list once: lkeys of this PD with LOCAL_WRITE, ranges inside. */
    boolean resolve(SoftRoceContext context, SoftProtectionDomain pd) {
        if (resolved) {
            return valid;
        }
        resolved = true;
        valid = true;
        for (int i = 0; i < sgeCount; i++) {
            int length = lengths[i];
            if (length == 0) {
                continue;
            }
            SoftMemoryRegion region = context.regionByKey(sgeLkeys[i]);
            if (region == null || region.softPd() != pd || !region.allows(AccessFlag.LOCAL_WRITE)
                    || !region.contains(sgeAddresses[i], Integer.toUnsignedLong(length))) {
                valid = false;
                return false;
            }
            regions[i] = region;
            offsets[i] = region.offsetOf(sgeAddresses[i]);
        }
        return true;
    }
}
