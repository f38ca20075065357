package org.rdmalab.softroce;

import java.util.List;
import org.rdmalab.verbs.AccessFlag;
import org.rdmalab.verbs.ReceiveWorkRequest;
import org.rdmalab.verbs.ScatterGatherElement;

/** A posted receive (rxe's {@code struct rxe_recv_wqe}), its scatter list resolved once on first use. */
final class RecvWqe {
    final long wrId;
    final List<ScatterGatherElement> sges;
    final long capacity;
    /** {@link QpConfig#generation} when it was posted. */
    final int generation;
    SoftMemoryRegion[] regions;
    int[] offsets;
    int[] lengths;
    private Boolean valid;

    RecvWqe(ReceiveWorkRequest request, int generation) {
        this.generation = generation;
        this.wrId = request.wrId();
        this.sges = request.sgList();
        this.capacity = request.totalLength();
    }

    /** Checks the scatter list once: lkeys of this PD with LOCAL_WRITE, ranges inside. */
    boolean resolve(SoftRoceContext context, SoftProtectionDomain pd) {
        if (valid != null) {
            return valid;
        }
        int count = sges.size();
        regions = new SoftMemoryRegion[count];
        offsets = new int[count];
        lengths = new int[count];
        valid = true;
        for (int i = 0; i < count; i++) {
            ScatterGatherElement sge = sges.get(i);
            lengths[i] = sge.length();
            if (sge.length() == 0) {
                continue;
            }
            SoftMemoryRegion region = context.regionByKey(sge.lkey());
            if (region == null || region.softPd() != pd || !region.allows(AccessFlag.LOCAL_WRITE)
                    || !region.contains(sge.address(), Integer.toUnsignedLong(sge.length()))) {
                valid = false;
                return false;
            }
            regions[i] = region;
            offsets[i] = region.offsetOf(sge.address());
        }
        return true;
    }
}
