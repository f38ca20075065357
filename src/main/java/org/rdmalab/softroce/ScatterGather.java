package org.rdmalab.softroce;

import java.util.List;
import org.rdmalab.verbs.AccessFlag;
import org.rdmalab.verbs.ScatterGatherElement;
import org.rdmalab.verbs.WcStatus;

/**
 * A work request slot's scatter or gather list ({@link SendWqe}, {@link RecvWqe}): the posted SGEs
 * as arrays sized for the QP's most SGEs, of which the first {@link #count} are in use, the
 * regions their lkeys resolved to, and the copies between a message's bytes and that memory (rxe's
 * {@code copy_data}). Filled on the posting thread while the slot is free, used on the loop after.
 */
final class ScatterGather {

    /** Entries in use. */
    int count;
    final long[] addresses;
    final int[] lkeys;
    final int[] lengths;
    /** The region each entry's lkey resolved to (null until resolved), and the entry's offset in it. */
    final SoftMemoryRegion[] regions;
    final int[] offsets;

    ScatterGather(int maxSge) {
        int sges = Math.max(1, maxSge);
        addresses = new long[sges];
        lkeys = new int[sges];
        lengths = new int[sges];
        regions = new SoftMemoryRegion[sges];
        offsets = new int[sges];
    }

    /** Copies a posted request's list in; the regions resolved for the slot's last request are cleared. */
    void fill(List<ScatterGatherElement> sges) {
        int size = sges.size();
        for (int i = 0; i < size; i++) {
            ScatterGatherElement sge = sges.get(i);
            addresses[i] = sge.address();
            lkeys[i] = sge.lkey();
            lengths[i] = sge.length();
            regions[i] = null;
        }
        count = size;
    }

    /** Lets go of the regions the list pointed at (the slot is free again; loop only). */
    void release() {
        for (int i = 0; i < count; i++) {
            regions[i] = null;
        }
    }

    /**
     * Resolves every non-empty entry at once: its lkey must name a region of {@code pd} that
     * allows LOCAL_WRITE and holds the entry's whole range (a receive's scatter list, a READ's or
     * an atomic's). False at the first entry that does not.
     */
    boolean resolveWritable(SoftRoceContext context, SoftProtectionDomain pd) {
        for (int i = 0; i < count; i++) {
            int length = lengths[i];
            if (length == 0) {
                continue;
            }
            SoftMemoryRegion region = context.regionByKey(lkeys[i]);
            if (region == null || region.softPd() != pd || !region.allows(AccessFlag.LOCAL_WRITE)
                    || !region.contains(addresses[i], Integer.toUnsignedLong(length))) {
                return false;
            }
            regions[i] = region;
            offsets[i] = region.offsetOf(addresses[i]);
        }
        return true;
    }

    /**
     * Looks up, as rxe's {@code copy_data} does each time it copies, the lkey of every entry that
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
        for (int i = 0; i < count && start < end; i++) {
            int segment = lengths[i];
            long segmentEnd = start + segment;
            if (segment > 0 && offset < segmentEnd) {
                SoftMemoryRegion region = context.regionByKey(lkeys[i]);
                if (region == null || region.softPd() != pd
                        || (localWrite && !region.allows(AccessFlag.LOCAL_WRITE))) {
                    return WcStatus.LOC_QP_OP_ERR;
                }
                long from = Math.max(offset, start) - start;
                long to = Math.min(end, segmentEnd) - start;
                if (!region.contains(addresses[i] + from, to - from)) {
                    return WcStatus.LOC_PROT_ERR;
                }
                regions[i] = region;
                offsets[i] = region.offsetOf(addresses[i]);
            }
            start = segmentEnd;
        }
        return null;
    }

    /**
     * Copies between the message's bytes from {@code messageOffset} and an array: into the
     * entries' memory when {@code toSges}. The entries the bytes lie in must be resolved.
     */
    void copy(long messageOffset, byte[] array, int arrayOffset, int length, boolean toSges) {
        long start = 0;
        int remaining = length;
        for (int i = 0; i < count && remaining > 0; i++) {
            long segmentEnd = start + lengths[i];
            if (messageOffset < segmentEnd) {
                int within = (int) (messageOffset - start);
                int chunk = Math.min(remaining, lengths[i] - within);
                if (toSges) {
                    System.arraycopy(array, arrayOffset, regions[i].memory(), offsets[i] + within, chunk);
                } else {
                    System.arraycopy(regions[i].memory(), offsets[i] + within, array, arrayOffset, chunk);
                }
                arrayOffset += chunk;
                messageOffset += chunk;
                remaining -= chunk;
            }
            start = segmentEnd;
        }
    }
}
