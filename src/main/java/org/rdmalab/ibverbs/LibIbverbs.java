package org.rdmalab.ibverbs;

import jnr.ffi.Pointer;
import jnr.ffi.annotations.SaveError;
import jnr.ffi.byref.IntByReference;
import jnr.ffi.byref.PointerByReference;
import jnr.ffi.types.size_t;
import jnr.ffi.types.u_int32_t;
import jnr.ffi.types.u_int8_t;

/**
 * The exported libibverbs functions this backend binds (default symbol version IBVERBS_1.1, and
 * {@code _ibv_query_gid_ex} from IBVERBS_1.11). The inline verbs ({@code ibv_post_send},
 * {@code ibv_post_recv}, {@code ibv_poll_cq}, {@code ibv_req_notify_cq}) have no symbol and are
 * called through the context's ops table instead (see {@link OpsTable}).
 * Public only because jnr-ffi generates its implementation in another class loader; only this
 * package calls it, reading errno right after each call.
 */
public interface LibIbverbs {

    /** {@code struct ibv_device **ibv_get_device_list(int *num_devices)}; NULL with errno on failure. */
    @SaveError
    Pointer ibv_get_device_list(IntByReference numDevices);

    /** {@code void ibv_free_device_list(struct ibv_device **list)}. */
    void ibv_free_device_list(Pointer list);

    /** {@code const char *ibv_get_device_name(struct ibv_device *device)}. */
    String ibv_get_device_name(Pointer device);

    /** {@code struct ibv_context *ibv_open_device(struct ibv_device *device)}; NULL with errno. */
    @SaveError
    Pointer ibv_open_device(Pointer device);

    /** {@code int ibv_close_device(struct ibv_context *context)}. */
    @SaveError
    int ibv_close_device(Pointer context);

    /** {@code int ibv_query_device(struct ibv_context *context, struct ibv_device_attr *attr)}. */
    @SaveError
    int ibv_query_device(Pointer context, Pointer attributes);

    /** The exported {@code ibv_query_port}: fills the first 48 bytes of a 52-byte {@code ibv_port_attr}. */
    @SaveError
    int ibv_query_port(Pointer context, @u_int8_t byte port, Pointer attributes);

    /** {@code int _ibv_query_gid_ex(ctx, u32 port, u32 index, struct ibv_gid_entry *entry, u32 flags, size_t entry_size)}. */
    @SaveError
    int _ibv_query_gid_ex(Pointer context, @u_int32_t int port, @u_int32_t int index, Pointer entry,
                          @u_int32_t int flags, @size_t long entrySize);

    /** {@code struct ibv_pd *ibv_alloc_pd(struct ibv_context *context)}; NULL with errno. */
    @SaveError
    Pointer ibv_alloc_pd(Pointer context);

    /** {@code int ibv_dealloc_pd(struct ibv_pd *pd)}. */
    @SaveError
    int ibv_dealloc_pd(Pointer pd);

    /** The exported {@code ibv_reg_mr(pd, addr, length, int access)}; NULL with errno. */
    @SaveError
    Pointer ibv_reg_mr(Pointer pd, Pointer address, @size_t long length, int access);

    /** {@code int ibv_dereg_mr(struct ibv_mr *mr)}. */
    @SaveError
    int ibv_dereg_mr(Pointer mr);

    /** {@code struct ibv_comp_channel *ibv_create_comp_channel(struct ibv_context *context)}; NULL with errno. */
    @SaveError
    Pointer ibv_create_comp_channel(Pointer context);

    /** {@code int ibv_destroy_comp_channel(struct ibv_comp_channel *channel)}. */
    @SaveError
    int ibv_destroy_comp_channel(Pointer channel);

    /** {@code struct ibv_cq *ibv_create_cq(ctx, int cqe, void *cq_context, channel, int comp_vector)}; NULL with errno. */
    @SaveError
    Pointer ibv_create_cq(Pointer context, int cqe, Pointer cqContext, Pointer channel, int compVector);

    /** {@code int ibv_destroy_cq(struct ibv_cq *cq)}. */
    @SaveError
    int ibv_destroy_cq(Pointer cq);

    /** {@code int ibv_get_cq_event(channel, struct ibv_cq **cq, void **cq_context)}: blocks until an event. */
    @SaveError
    int ibv_get_cq_event(Pointer channel, PointerByReference cq, PointerByReference cqContext);

    /** {@code void ibv_ack_cq_events(struct ibv_cq *cq, unsigned int nevents)}. */
    void ibv_ack_cq_events(Pointer cq, int count);

    /** {@code struct ibv_qp *ibv_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr)}; NULL with errno. */
    @SaveError
    Pointer ibv_create_qp(Pointer pd, Pointer initAttributes);

    /** {@code int ibv_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask)}. */
    @SaveError
    int ibv_modify_qp(Pointer qp, Pointer attributes, int mask);

    /** {@code int ibv_query_qp(qp, struct ibv_qp_attr *attr, int attr_mask, struct ibv_qp_init_attr *init_attr)}. */
    @SaveError
    int ibv_query_qp(Pointer qp, Pointer attributes, int mask, Pointer initAttributes);

    /** {@code int ibv_destroy_qp(struct ibv_qp *qp)}. */
    @SaveError
    int ibv_destroy_qp(Pointer qp);
}
