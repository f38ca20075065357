package org.rdmalab.verbs;

import java.util.ArrayList;
import java.util.List;

/**
 * {@code struct ibv_context}: an opened device. Closing it closes everything created from it,
 * children first (QP, MR, CQ, PD, completion channel).
 */
public interface Context extends AutoCloseable {

    /** The device this context was opened on. */
    Device device();

    /** {@code ibv_query_device}. */
    DeviceAttributes queryDevice() throws VerbsException;

    /** {@code ibv_query_port}. */
    PortAttributes queryPort(int port) throws VerbsException;

    /** {@code ibv_query_gid_ex}: one GID table entry; EINVAL outside the table, ENODATA for an empty slot. */
    GidEntry queryGidEntry(int port, int index) throws VerbsException;

    /** {@code ibv_query_gid}. */
    default Gid queryGid(int port, int index) throws VerbsException {
        return queryGidEntry(port, index).gid();
    }

    /** The populated entries of the port's GID table, as {@code ibv_devinfo -v} lists them. */
    default List<GidEntry> gidTable(int port) throws VerbsException {
        List<GidEntry> entries = new ArrayList<>();
        int length = queryPort(port).gidTableLength();
        for (int index = 0; index < length; index++) {
            try {
                GidEntry entry = queryGidEntry(port, index);
                if (!entry.gid().isZero()) {
                    entries.add(entry);
                }
            } catch (VerbsException e) {
                if (e.errno() != Errno.ENODATA) {
                    throw e;
                }
            }
        }
        return entries;
    }

    /**
     * The port's hardware counters by rxe's names ({@code sent_pkts}, {@code rcvd_pkts},
     * {@code duplicate_request}, {@code out_of_seq_request}, {@code rcvd_rnr_err},
     * {@code send_rnr_err}, {@code rcvd_seq_err}, {@code retry_exceeded_err},
     * {@code retry_rnr_exceeded_err}, ...), as Linux shows them under
     * {@code /sys/class/infiniband/<dev>/ports/1/hw_counters}. Empty when the device has none.
     */
    default java.util.Map<String, Long> queryCounters() throws VerbsException {
        return java.util.Map.of();
    }

    /** {@code ibv_alloc_pd}. */
    ProtectionDomain allocatePd() throws VerbsException;

    /** {@code ibv_create_comp_channel}. */
    CompletionChannel createCompletionChannel() throws VerbsException;

    /** {@code ibv_create_cq}: a CQ of at least {@code cqe} entries, optionally bound to a channel (may be null). */
    CompletionQueue createCq(int cqe, CompletionChannel channel, int compVector) throws VerbsException;

    /** {@code ibv_close_device}; idempotent, closes children first. */
    @Override
    void close();
}
