package org.rdmalab.lab.scenario;

import org.rdmalab.verbs.Gid;

/**
 * What the seed's peers exchange over TCP ({@code cm_con_data_t}); here it is handed over in
 * memory.
 *
 * @param address virtual address of the peer's registered buffer
 * @param rkey that buffer's remote key
 * @param qpNum the peer's QP number
 * @param lid the peer's LID (0 on RoCE)
 * @param gid the peer's GID
 */
public record ConnectionData(long address, int rkey, int qpNum, int lid, Gid gid) {

    /** "addr 0x... rkey 0x... qp_num 0x... lid 0 gid ::ffff:127.0.0.1". */
    @Override
    public String toString() {
        return String.format("addr 0x%x, rkey 0x%x, qp_num 0x%x, lid %d, gid %s", address, rkey, qpNum, lid, gid);
    }
}
