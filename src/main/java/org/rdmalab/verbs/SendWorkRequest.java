package org.rdmalab.verbs;

import java.util.List;
import java.util.Objects;

/**
 * {@code struct ibv_send_wr}: one request on the send queue.
 *
 * @param wrId the caller's id, returned in the completion
 * @param sgList gather list (for READ and atomics: where the result lands)
 * @param opcode what to do
 * @param sendFlags {@link SendFlag} bits
 * @param immData immediate data (host order here; big-endian on the wire)
 * @param remoteAddress {@code wr.rdma.remote_addr} or {@code wr.atomic.remote_addr}
 * @param rkey {@code wr.rdma.rkey} or {@code wr.atomic.rkey}
 * @param compareAdd {@code wr.atomic.compare_add}
 * @param swap {@code wr.atomic.swap}
 */
public record SendWorkRequest(long wrId, List<ScatterGatherElement> sgList, WrOpcode opcode, int sendFlags,
                              int immData, long remoteAddress, int rkey, long compareAdd, long swap) {

    public SendWorkRequest {
        sgList = List.copyOf(sgList);
        Objects.requireNonNull(opcode, "opcode");
    }

    /** Total bytes of the gather list. */
    public long totalLength() {
        // By index: an iterator is an object per call on a post's path, which allocates nothing else.
        long total = 0;
        for (int i = 0; i < sgList.size(); i++) {
            total += Integer.toUnsignedLong(sgList.get(i).length());
        }
        return total;
    }

    /** True when this WR asks for a completion (or the QP signals all). */
    public boolean signaled() {
        return SendFlag.has(sendFlags, SendFlag.SIGNALED);
    }

    /** RDMA WRITE of {@code local} to {@code remoteAddress}/{@code rkey}. */
    public static SendWorkRequest write(long wrId, ScatterGatherElement local, long remoteAddress, int rkey, int flags) {
        return new SendWorkRequest(wrId, List.of(local), WrOpcode.RDMA_WRITE, flags, 0, remoteAddress, rkey, 0, 0);
    }

    /** RDMA WRITE WITH IMMEDIATE. */
    public static SendWorkRequest writeWithImm(long wrId, ScatterGatherElement local, long remoteAddress, int rkey,
                                               int immData, int flags) {
        return new SendWorkRequest(wrId, List.of(local), WrOpcode.RDMA_WRITE_WITH_IMM, flags, immData,
                remoteAddress, rkey, 0, 0);
    }

    /** RDMA READ of the remote range into {@code local}. */
    public static SendWorkRequest read(long wrId, ScatterGatherElement local, long remoteAddress, int rkey, int flags) {
        return new SendWorkRequest(wrId, List.of(local), WrOpcode.RDMA_READ, flags, 0, remoteAddress, rkey, 0, 0);
    }

    /** SEND of {@code local}. */
    public static SendWorkRequest send(long wrId, ScatterGatherElement local, int flags) {
        return new SendWorkRequest(wrId, List.of(local), WrOpcode.SEND, flags, 0, 0, 0, 0, 0);
    }

    /** SEND WITH IMMEDIATE. */
    public static SendWorkRequest sendWithImm(long wrId, ScatterGatherElement local, int immData, int flags) {
        return new SendWorkRequest(wrId, List.of(local), WrOpcode.SEND_WITH_IMM, flags, immData, 0, 0, 0, 0);
    }

    /** ATOMIC FETCH AND ADD of {@code add} at the remote 8-byte word; the old value lands in {@code local}. */
    public static SendWorkRequest fetchAdd(long wrId, ScatterGatherElement local, long remoteAddress, int rkey,
                                           long add, int flags) {
        return new SendWorkRequest(wrId, List.of(local), WrOpcode.ATOMIC_FETCH_AND_ADD, flags, 0, remoteAddress,
                rkey, add, 0);
    }

    /** ATOMIC COMPARE AND SWAP; the old value lands in {@code local}. */
    public static SendWorkRequest compareSwap(long wrId, ScatterGatherElement local, long remoteAddress, int rkey,
                                              long compare, long swap, int flags) {
        return new SendWorkRequest(wrId, List.of(local), WrOpcode.ATOMIC_CMP_AND_SWP, flags, 0, remoteAddress,
                rkey, compare, swap);
    }
}
