package org.rdmalab.ibverbs;

/**
 * The sizes of the C structs this backend allocates, checked against the installed header by the
 * same probe as {@link StructField}.
 */
enum StructSize {
    DEVICE_ATTR("ibv_device_attr", 232),
    /** The full 52 bytes; the exported {@code ibv_query_port} fills only the first 48 (zero the rest). */
    PORT_ATTR("ibv_port_attr", 52),
    GID_ENTRY("ibv_gid_entry", 32),
    SGE("ibv_sge", 16),
    SEND_WR("ibv_send_wr", 128),
    RECV_WR("ibv_recv_wr", 32),
    WC("ibv_wc", 48),
    QP_INIT_ATTR("ibv_qp_init_attr", 64),
    QP_ATTR("ibv_qp_attr", 144),
    POLLFD("pollfd", 8);

    /** The C struct's tag. */
    final String struct;
    /** {@code sizeof(struct ...)}. */
    final int size;

    StructSize(String struct, int size) {
        this.struct = struct;
        this.size = size;
    }
}
