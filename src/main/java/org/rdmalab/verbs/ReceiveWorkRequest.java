package org.rdmalab.verbs;

import java.util.List;

/**
 * {@code struct ibv_recv_wr}: where an incoming SEND may land.
 *
 * @param wrId the caller's id, returned in the completion
 * @param sgList scatter list
 */
public record ReceiveWorkRequest(long wrId, List<ScatterGatherElement> sgList) {

    public ReceiveWorkRequest {
        sgList = List.copyOf(sgList);
    }

    /** A receive into one SGE. */
    public static ReceiveWorkRequest of(long wrId, ScatterGatherElement sge) {
        return new ReceiveWorkRequest(wrId, List.of(sge));
    }

    /** Total bytes the scatter list can hold. */
    public long totalLength() {
        // By index: an iterator is an object per call on a post's path, which allocates nothing else.
        long total = 0;
        for (int i = 0; i < sgList.size(); i++) {
            total += Integer.toUnsignedLong(sgList.get(i).length());
        }
        return total;
    }
}
