/**
 * The native backend over the real {@code libibverbs.so.1} through jnr-ffi. Today it lists the
 * devices libibverbs sees and reports its errors (no library, ENOSYS on a kernel without RDMA);
 * opening native devices is not implemented yet. Calls are made on the caller's thread and read
 * errno right after the call. Never imported by the software backend, and never imports it.
 */
package org.rdmalab.ibverbs;
