package org.rdmalab.ibverbs;

import com.kenai.jffi.MemoryIO;
import jnr.ffi.Pointer;

/**
 * The offsets and widths of the C struct fields this backend reads and writes, as data: one
 * constant per field, named after its struct and member in {@code <infiniband/verbs.h>} (and
 * {@code <poll.h>} for {@code struct pollfd}). The test suite compiles a probe against the
 * installed header and fails when any offset or width here differs from the compiler's.
 * Offsets are those of Linux x86-64 with rdma-core's ABI; nested members are written with C's
 * designator syntax ({@code ops.post_send}, {@code wr.rdma.rkey}).
 */
enum StructField {
    CONTEXT_DEVICE("ibv_context", "device", 0, 8),
    CONTEXT_OPS_POLL_CQ("ibv_context", "ops.poll_cq", 96, 8),
    CONTEXT_OPS_REQ_NOTIFY_CQ("ibv_context", "ops.req_notify_cq", 104, 8),
    CONTEXT_OPS_POST_SEND("ibv_context", "ops.post_send", 208, 8),
    CONTEXT_OPS_POST_RECV("ibv_context", "ops.post_recv", 216, 8),
    CONTEXT_NUM_COMP_VECTORS("ibv_context", "num_comp_vectors", 272, 4),

    PD_CONTEXT("ibv_pd", "context", 0, 8),
    PD_HANDLE("ibv_pd", "handle", 8, 4),

    MR_ADDR("ibv_mr", "addr", 16, 8),
    MR_LENGTH("ibv_mr", "length", 24, 8),
    MR_HANDLE("ibv_mr", "handle", 32, 4),
    MR_LKEY("ibv_mr", "lkey", 36, 4),
    MR_RKEY("ibv_mr", "rkey", 40, 4),

    COMP_CHANNEL_FD("ibv_comp_channel", "fd", 8, 4),

    CQ_CONTEXT("ibv_cq", "context", 0, 8),
    CQ_HANDLE("ibv_cq", "handle", 24, 4),
    CQ_CQE("ibv_cq", "cqe", 28, 4),

    QP_CONTEXT("ibv_qp", "context", 0, 8),
    QP_HANDLE("ibv_qp", "handle", 48, 4),
    QP_QP_NUM("ibv_qp", "qp_num", 52, 4),
    QP_STATE("ibv_qp", "state", 56, 4),
    QP_QP_TYPE("ibv_qp", "qp_type", 60, 4),

    GID_ENTRY_GID("ibv_gid_entry", "gid", 0, 16),
    GID_ENTRY_GID_INDEX("ibv_gid_entry", "gid_index", 16, 4),
    GID_ENTRY_PORT_NUM("ibv_gid_entry", "port_num", 20, 4),
    GID_ENTRY_GID_TYPE("ibv_gid_entry", "gid_type", 24, 4),
    GID_ENTRY_NDEV_IFINDEX("ibv_gid_entry", "ndev_ifindex", 28, 4),

    SGE_ADDR("ibv_sge", "addr", 0, 8),
    SGE_LENGTH("ibv_sge", "length", 8, 4),
    SGE_LKEY("ibv_sge", "lkey", 12, 4),

    SEND_WR_WR_ID("ibv_send_wr", "wr_id", 0, 8),
    SEND_WR_NEXT("ibv_send_wr", "next", 8, 8),
    SEND_WR_SG_LIST("ibv_send_wr", "sg_list", 16, 8),
    SEND_WR_NUM_SGE("ibv_send_wr", "num_sge", 24, 4),
    SEND_WR_OPCODE("ibv_send_wr", "opcode", 28, 4),
    SEND_WR_SEND_FLAGS("ibv_send_wr", "send_flags", 32, 4),
    SEND_WR_IMM_DATA("ibv_send_wr", "imm_data", 36, 4),
    SEND_WR_RDMA_REMOTE_ADDR("ibv_send_wr", "wr.rdma.remote_addr", 40, 8),
    SEND_WR_RDMA_RKEY("ibv_send_wr", "wr.rdma.rkey", 48, 4),
    SEND_WR_ATOMIC_REMOTE_ADDR("ibv_send_wr", "wr.atomic.remote_addr", 40, 8),
    SEND_WR_ATOMIC_COMPARE_ADD("ibv_send_wr", "wr.atomic.compare_add", 48, 8),
    SEND_WR_ATOMIC_SWAP("ibv_send_wr", "wr.atomic.swap", 56, 8),
    SEND_WR_ATOMIC_RKEY("ibv_send_wr", "wr.atomic.rkey", 64, 4),

    RECV_WR_WR_ID("ibv_recv_wr", "wr_id", 0, 8),
    RECV_WR_NEXT("ibv_recv_wr", "next", 8, 8),
    RECV_WR_SG_LIST("ibv_recv_wr", "sg_list", 16, 8),
    RECV_WR_NUM_SGE("ibv_recv_wr", "num_sge", 24, 4),

    WC_WR_ID("ibv_wc", "wr_id", 0, 8),
    WC_STATUS("ibv_wc", "status", 8, 4),
    WC_OPCODE("ibv_wc", "opcode", 12, 4),
    WC_VENDOR_ERR("ibv_wc", "vendor_err", 16, 4),
    WC_BYTE_LEN("ibv_wc", "byte_len", 20, 4),
    WC_IMM_DATA("ibv_wc", "imm_data", 24, 4),
    WC_QP_NUM("ibv_wc", "qp_num", 28, 4),
    WC_SRC_QP("ibv_wc", "src_qp", 32, 4),
    WC_WC_FLAGS("ibv_wc", "wc_flags", 36, 4),

    GLOBAL_ROUTE_DGID("ibv_global_route", "dgid", 0, 16),
    GLOBAL_ROUTE_FLOW_LABEL("ibv_global_route", "flow_label", 16, 4),
    GLOBAL_ROUTE_SGID_INDEX("ibv_global_route", "sgid_index", 20, 1),
    GLOBAL_ROUTE_HOP_LIMIT("ibv_global_route", "hop_limit", 21, 1),
    GLOBAL_ROUTE_TRAFFIC_CLASS("ibv_global_route", "traffic_class", 22, 1),

    AH_ATTR_GRH("ibv_ah_attr", "grh", 0, 24),
    AH_ATTR_DLID("ibv_ah_attr", "dlid", 24, 2),
    AH_ATTR_SL("ibv_ah_attr", "sl", 26, 1),
    AH_ATTR_SRC_PATH_BITS("ibv_ah_attr", "src_path_bits", 27, 1),
    AH_ATTR_STATIC_RATE("ibv_ah_attr", "static_rate", 28, 1),
    AH_ATTR_IS_GLOBAL("ibv_ah_attr", "is_global", 29, 1),
    AH_ATTR_PORT_NUM("ibv_ah_attr", "port_num", 30, 1),

    QP_CAP_MAX_SEND_WR("ibv_qp_cap", "max_send_wr", 0, 4),
    QP_CAP_MAX_RECV_WR("ibv_qp_cap", "max_recv_wr", 4, 4),
    QP_CAP_MAX_SEND_SGE("ibv_qp_cap", "max_send_sge", 8, 4),
    QP_CAP_MAX_RECV_SGE("ibv_qp_cap", "max_recv_sge", 12, 4),
    QP_CAP_MAX_INLINE_DATA("ibv_qp_cap", "max_inline_data", 16, 4),

    QP_INIT_ATTR_QP_CONTEXT("ibv_qp_init_attr", "qp_context", 0, 8),
    QP_INIT_ATTR_SEND_CQ("ibv_qp_init_attr", "send_cq", 8, 8),
    QP_INIT_ATTR_RECV_CQ("ibv_qp_init_attr", "recv_cq", 16, 8),
    QP_INIT_ATTR_SRQ("ibv_qp_init_attr", "srq", 24, 8),
    QP_INIT_ATTR_CAP("ibv_qp_init_attr", "cap", 32, 20),
    QP_INIT_ATTR_QP_TYPE("ibv_qp_init_attr", "qp_type", 52, 4),
    QP_INIT_ATTR_SQ_SIG_ALL("ibv_qp_init_attr", "sq_sig_all", 56, 4),

    QP_ATTR_QP_STATE("ibv_qp_attr", "qp_state", 0, 4),
    QP_ATTR_CUR_QP_STATE("ibv_qp_attr", "cur_qp_state", 4, 4),
    QP_ATTR_PATH_MTU("ibv_qp_attr", "path_mtu", 8, 4),
    QP_ATTR_PATH_MIG_STATE("ibv_qp_attr", "path_mig_state", 12, 4),
    QP_ATTR_QKEY("ibv_qp_attr", "qkey", 16, 4),
    QP_ATTR_RQ_PSN("ibv_qp_attr", "rq_psn", 20, 4),
    QP_ATTR_SQ_PSN("ibv_qp_attr", "sq_psn", 24, 4),
    QP_ATTR_DEST_QP_NUM("ibv_qp_attr", "dest_qp_num", 28, 4),
    QP_ATTR_QP_ACCESS_FLAGS("ibv_qp_attr", "qp_access_flags", 32, 4),
    QP_ATTR_CAP("ibv_qp_attr", "cap", 36, 20),
    QP_ATTR_AH_ATTR("ibv_qp_attr", "ah_attr", 56, 32),
    QP_ATTR_PKEY_INDEX("ibv_qp_attr", "pkey_index", 120, 2),
    QP_ATTR_EN_SQD_ASYNC_NOTIFY("ibv_qp_attr", "en_sqd_async_notify", 124, 1),
    QP_ATTR_MAX_RD_ATOMIC("ibv_qp_attr", "max_rd_atomic", 126, 1),
    QP_ATTR_MAX_DEST_RD_ATOMIC("ibv_qp_attr", "max_dest_rd_atomic", 127, 1),
    QP_ATTR_MIN_RNR_TIMER("ibv_qp_attr", "min_rnr_timer", 128, 1),
    QP_ATTR_PORT_NUM("ibv_qp_attr", "port_num", 129, 1),
    QP_ATTR_TIMEOUT("ibv_qp_attr", "timeout", 130, 1),
    QP_ATTR_RETRY_CNT("ibv_qp_attr", "retry_cnt", 131, 1),
    QP_ATTR_RNR_RETRY("ibv_qp_attr", "rnr_retry", 132, 1),

    PORT_ATTR_STATE("ibv_port_attr", "state", 0, 4),
    PORT_ATTR_MAX_MTU("ibv_port_attr", "max_mtu", 4, 4),
    PORT_ATTR_ACTIVE_MTU("ibv_port_attr", "active_mtu", 8, 4),
    PORT_ATTR_GID_TBL_LEN("ibv_port_attr", "gid_tbl_len", 12, 4),
    PORT_ATTR_PORT_CAP_FLAGS("ibv_port_attr", "port_cap_flags", 16, 4),
    PORT_ATTR_MAX_MSG_SZ("ibv_port_attr", "max_msg_sz", 20, 4),
    PORT_ATTR_PKEY_TBL_LEN("ibv_port_attr", "pkey_tbl_len", 32, 2),
    PORT_ATTR_LID("ibv_port_attr", "lid", 34, 2),
    PORT_ATTR_SM_LID("ibv_port_attr", "sm_lid", 36, 2),
    PORT_ATTR_ACTIVE_WIDTH("ibv_port_attr", "active_width", 43, 1),
    PORT_ATTR_ACTIVE_SPEED("ibv_port_attr", "active_speed", 44, 1),
    PORT_ATTR_PHYS_STATE("ibv_port_attr", "phys_state", 45, 1),
    PORT_ATTR_LINK_LAYER("ibv_port_attr", "link_layer", 46, 1),

    DEVICE_ATTR_FW_VER("ibv_device_attr", "fw_ver", 0, 64),
    DEVICE_ATTR_NODE_GUID("ibv_device_attr", "node_guid", 64, 8),
    DEVICE_ATTR_SYS_IMAGE_GUID("ibv_device_attr", "sys_image_guid", 72, 8),
    DEVICE_ATTR_MAX_MR_SIZE("ibv_device_attr", "max_mr_size", 80, 8),
    DEVICE_ATTR_VENDOR_ID("ibv_device_attr", "vendor_id", 96, 4),
    DEVICE_ATTR_VENDOR_PART_ID("ibv_device_attr", "vendor_part_id", 100, 4),
    DEVICE_ATTR_HW_VER("ibv_device_attr", "hw_ver", 104, 4),
    DEVICE_ATTR_MAX_QP("ibv_device_attr", "max_qp", 108, 4),
    DEVICE_ATTR_MAX_QP_WR("ibv_device_attr", "max_qp_wr", 112, 4),
    DEVICE_ATTR_MAX_SGE("ibv_device_attr", "max_sge", 120, 4),
    DEVICE_ATTR_MAX_CQ("ibv_device_attr", "max_cq", 128, 4),
    DEVICE_ATTR_MAX_CQE("ibv_device_attr", "max_cqe", 132, 4),
    DEVICE_ATTR_MAX_MR("ibv_device_attr", "max_mr", 136, 4),
    DEVICE_ATTR_MAX_PD("ibv_device_attr", "max_pd", 140, 4),
    DEVICE_ATTR_MAX_QP_RD_ATOM("ibv_device_attr", "max_qp_rd_atom", 144, 4),
    DEVICE_ATTR_MAX_QP_INIT_RD_ATOM("ibv_device_attr", "max_qp_init_rd_atom", 156, 4),
    DEVICE_ATTR_ATOMIC_CAP("ibv_device_attr", "atomic_cap", 164, 4),
    DEVICE_ATTR_PHYS_PORT_CNT("ibv_device_attr", "phys_port_cnt", 227, 1),

    POLLFD_FD("pollfd", "fd", 0, 4),
    POLLFD_EVENTS("pollfd", "events", 4, 2),
    POLLFD_REVENTS("pollfd", "revents", 6, 2);

    private static final MemoryIO IO = MemoryIO.getInstance();

    /** The C struct's tag ({@code ibv_qp_attr}). */
    final String struct;
    /** The member as C's offsetof designator names it. */
    final String member;
    /** Byte offset from the start of the struct. */
    final int offset;
    /** Width of the member in bytes. */
    final int width;

    StructField(String struct, String member, int offset, int width) {
        this.struct = struct;
        this.member = member;
        this.offset = offset;
        this.width = width;
    }

    /** Reads an unsigned integer field of width 1, 2 or 4 (a 4-byte field keeps its bits in an int). */
    int getInt(Pointer base) {
        return switch (width) {
            case 1 -> base.getByte(offset) & 0xff;
            case 2 -> base.getShort(offset) & 0xffff;
            case 4 -> base.getInt(offset);
            default -> throw new IllegalStateException(this + " is " + width + " bytes wide, not an int");
        };
    }

    /** Reads an 8-byte field. */
    long getLong(Pointer base) {
        if (width != 8) {
            throw new IllegalStateException(this + " is " + width + " bytes wide, not a long");
        }
        return base.getLong(offset);
    }

    /** Writes an integer field of width 1, 2, 4 or 8, keeping the low bits that fit. */
    void put(Pointer base, long value) {
        switch (width) {
            case 1 -> base.putByte(offset, (byte) value);
            case 2 -> base.putShort(offset, (short) value);
            case 4 -> base.putInt(offset, (int) value);
            case 8 -> base.putLong(offset, value);
            default -> throw new IllegalStateException(this + " is " + width + " bytes wide, not a number");
        }
    }

    /**
     * Writes an integer field of width 1, 2, 4 or 8 of the struct at native address {@code base}
     * (no bounds check: for the hot verbs, on memory this package allocated for the struct).
     */
    void putAt(long base, long value) {
        switch (width) {
            case 1 -> IO.putByte(base + offset, (byte) value);
            case 2 -> IO.putShort(base + offset, (short) value);
            case 4 -> IO.putInt(base + offset, (int) value);
            case 8 -> IO.putLong(base + offset, value);
            default -> throw new IllegalStateException(this + " is " + width + " bytes wide, not a number");
        }
    }

    /** Reads an unsigned integer field of width 1, 2 or 4 of the struct at native address {@code base}. */
    int getIntAt(long base) {
        return switch (width) {
            case 1 -> IO.getByte(base + offset) & 0xff;
            case 2 -> IO.getShort(base + offset) & 0xffff;
            case 4 -> IO.getInt(base + offset);
            default -> throw new IllegalStateException(this + " is " + width + " bytes wide, not an int");
        };
    }

    /** Reads an 8-byte field of the struct at native address {@code base}. */
    long getLongAt(long base) {
        if (width != 8) {
            throw new IllegalStateException(this + " is " + width + " bytes wide, not a long");
        }
        return IO.getLong(base + offset);
    }

    /** Reads a pointer field (null for NULL). */
    Pointer getPointer(Pointer base) {
        return base.getPointer(offset);
    }

    /** The address of the nested struct this field is, inside {@code base}. */
    Pointer slice(Pointer base) {
        return base.slice(offset, width);
    }
}
