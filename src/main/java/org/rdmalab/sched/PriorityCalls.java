package org.rdmalab.sched;

import jnr.ffi.annotations.SaveError;

/**
 * The libc call {@link ThreadNice} needs to lower one thread's scheduling priority. Public only
 * because jnr-ffi generates its implementation in another class loader.
 */
public interface PriorityCalls {

    /**
     * {@code int setpriority(int which, id_t who, int prio)}; -1 with errno. On Linux,
     * {@code PRIO_PROCESS} with a thread id sets that one thread's nice value.
     */
    @SaveError
    int setpriority(int which, int who, int prio);
}
