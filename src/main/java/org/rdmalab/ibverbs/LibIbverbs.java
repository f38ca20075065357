package org.rdmalab.ibverbs;

import jnr.ffi.Pointer;
import jnr.ffi.annotations.SaveError;
import jnr.ffi.byref.IntByReference;

/**
 * The exported libibverbs functions this backend binds (default symbol version IBVERBS_1.1).
 * Public only because jnr-ffi generates its implementation in another class loader; only {@link NativeProvider} calls it, reading errno right after each call.
 */
public interface LibIbverbs {

    /** {@code struct ibv_device **ibv_get_device_list(int *num_devices)}; NULL with errno on failure. */
    @SaveError
    Pointer ibv_get_device_list(IntByReference numDevices);

    /** {@code void ibv_free_device_list(struct ibv_device **list)}. */
    void ibv_free_device_list(Pointer list);

    /** {@code const char *ibv_get_device_name(struct ibv_device *device)}. */
    String ibv_get_device_name(Pointer device);
}
