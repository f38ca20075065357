package org.rdmalab.ibverbs;

import jnr.ffi.Pointer;
import jnr.ffi.annotations.SaveError;
import jnr.ffi.types.u_int64_t;

/**
 * The one libc function this backend needs: {@code poll(2)}, to wait on a completion channel's fd
 * with a timeout before {@code ibv_get_cq_event} (which would block without one).
 * Public only because jnr-ffi generates its implementation in another class loader.
 */
public interface Libc {

    /** {@code int poll(struct pollfd *fds, nfds_t nfds, int timeout_ms)}; -1 with errno. */
    @SaveError
    int poll(Pointer fds, @u_int64_t long count, int timeoutMillis);
}
