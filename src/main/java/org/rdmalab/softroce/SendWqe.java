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
    SoftMemoryRegion[] regions;
    int[] offsets;
    int[] lengths;
    boolean started;
    boolean done;
    WcStatus status;
    int firstPsn;
    int psnCount;
    int readPsn;

    SendWqe(SendWorkRequest request, boolean signaled, byte[] inline, long length) {
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
    }

    boolean readOrAtomic() {
        return opcode == WrOpcode.RDMA_READ || opcode == WrOpcode.ATOMIC_CMP_AND_SWP
                || opcode == WrOpcode.ATOMIC_FETCH_AND_ADD;
    }
}
