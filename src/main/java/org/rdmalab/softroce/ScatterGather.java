package org.rdmalab.softroce;

import java.util.List;
import org.rdmalab.verbs.ScatterGatherElement;

/** Copies between a message's bytes and the memory a resolved scatter/gather list names (rxe's {@code copy_data}). */
final class ScatterGather {

    private ScatterGather() {
    }

    /**
     * Copies a posted request's gather or scatter list into a reused slot's arrays and clears the
     * regions it resolved before; returns the number of entries.
     */
    static int fill(List<ScatterGatherElement> sges, long[] addresses, int[] lkeys, int[] lengths,
                    SoftMemoryRegion[] regions) {
        int count = sges.size();
        for (int i = 0; i < count; i++) {
            ScatterGatherElement sge = sges.get(i);
            addresses[i] = sge.address();
            lkeys[i] = sge.lkey();
            lengths[i] = sge.length();
            regions[i] = null;
        }
        return count;
    }

    /**
     * Copies between a message's byte range and an array: into the SGEs when {@code toSges}. The
     * list is the first {@code count} entries of the arrays (a reused work request slot's arrays
     * are sized for the QP's most SGEs).
     */
    static void copy(SoftMemoryRegion[] regions, int[] offsets, int[] lengths, int count, long messageOffset,
                     byte[] array, int arrayOffset, int length, boolean toSges) {
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
