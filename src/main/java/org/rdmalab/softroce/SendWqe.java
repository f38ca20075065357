package org.rdmalab.softroce;

import java.util.List;
import org.rdmalab.verbs.ScatterGatherElement;
import org.rdmalab.verbs.SendWorkRequest;
import org.rdmalab.verbs.WcStatus;
import org.rdmalab.verbs.WrOpcode;

/**
 * A posted send work request and its progress (rxe's {@code struct rxe_send_wqe}): where it
 * starts in the PSN space, how many PSNs it takes, how far a READ got. Loop only after posting.
 */
final class SendWqe {
    final long wrId;
    final WrOpcode opcode;
    final int flags;
    final boolean signaled;
    final int imm;
    final long remoteAddress;
    final int rkey;
    final long compareAdd;
    final long swap;
    final List<ScatterGatherElement> sges;
    final byte[] inline;
    final long length;
    /** {@link QpConfig#generation} when it was posted. */
    final int generation;
    SoftMemoryRegion[] regions;
    int[] offsets;
    int[] lengths;
    boolean started;
    boolean done;
    WcStatus status;
    int firstPsn;
    int psnCount;
    int readPsn;

    SendWqe(SendWorkRequest request, boolean signaled, byte[] inline, long length, int generation) {
        this.wrId = request.wrId();
        this.opcode = request.opcode();
        this.flags = request.sendFlags();
        this.signaled = signaled;
        this.imm = request.immData();
        this.remoteAddress = request.remoteAddress();
        this.rkey = request.rkey();
        this.compareAdd = request.compareAdd();
        this.swap = request.swap();
        this.sges = request.sgList();
        this.inline = inline;
        this.length = length;
        this.generation = generation;
    }

    /**
     * Looks up, as rxe's {@code copy_data} does each time it copies, the lkey of every SGE that
     * bytes {@code [offset, offset + length)} of the message lie in, and points {@link #regions}
     * at what they name now. Returns null, or the status rxe's requester gives a failure:
     * IBV_WC_LOC_QP_OP_ERR when a key names no region of {@code pd} (unknown, deregistered,
     * another PD) or, with {@code localWrite}, one without LOCAL_WRITE ({@code lookup_mr},
     * -EINVAL); IBV_WC_LOC_PROT_ERR when the bytes lie outside the region ({@code mr_check_range},
     * -EFAULT). Needs {@link #lengths}; loop only.
     */
    WcStatus lookUp(SoftRoceContext context, SoftProtectionDomain pd, long offset, int length, boolean localWrite) {
        long start = 0;
        long end = offset + length;
        for (int i = 0; i < lengths.length && start < end; i++) {
            int segment = lengths[i];
            long segmentEnd = start + segment;
            if (segment > 0 && offset < segmentEnd) {
                ScatterGatherElement sge = sges.get(i);
                SoftMemoryRegion region = context.regionByKey(sge.lkey());
                if (region == null || region.softPd() != pd
                        || (localWrite && !region.allows(org.rdmalab.verbs.AccessFlag.LOCAL_WRITE))) {
                    return WcStatus.LOC_QP_OP_ERR;
                }
                long from = Math.max(offset, start) - start;
                long to = Math.min(end, segmentEnd) - start;
                if (!region.contains(sge.address() + from, to - from)) {
                    return WcStatus.LOC_PROT_ERR;
                }
                regions[i] = region;
                offsets[i] = region.offsetOf(sge.address());
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
