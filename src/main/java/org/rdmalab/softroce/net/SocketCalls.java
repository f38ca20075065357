package org.rdmalab.softroce.net;

import jnr.ffi.annotations.In;
import jnr.ffi.annotations.Out;
import jnr.ffi.annotations.SaveError;

/**
 * The libc socket calls {@link WireSocket} needs to set an IP option the JDK does not offer.
 * Public only because jnr-ffi generates its implementation in another class loader.
 */
public interface SocketCalls {

    /** {@code int getsockname(int fd, struct sockaddr *addr, socklen_t *len)}; -1 with errno. */
    @SaveError
    int getsockname(int fd, @Out byte[] address, @In @Out int[] length);

    /** {@code int getsockopt(int fd, int level, int name, void *value, socklen_t *len)}; -1 with errno. */
    @SaveError
    int getsockopt(int fd, int level, int name, @Out int[] value, @In @Out int[] length);

    /** {@code int setsockopt(int fd, int level, int name, const void *value, socklen_t len)}; -1 with errno. */
    @SaveError
    int setsockopt(int fd, int level, int name, @In int[] value, int length);
}
