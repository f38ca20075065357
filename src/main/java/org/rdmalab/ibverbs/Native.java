package org.rdmalab.ibverbs;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import jnr.ffi.LibraryLoader;
import jnr.ffi.Runtime;
import org.rdmalab.verbs.Errno;
import org.rdmalab.verbs.VerbsException;

/**
 * One loaded libibverbs (the system's, or a stand-in with the same ABI) with libc's poll and the
 * jnr runtime: the single loader of this package, one instance per library name.
 */
final class Native {

    private static final Map<String, Native> LOADED = new ConcurrentHashMap<>();
    private static volatile Libc libc;

    final LibIbverbs verbs;
    final Runtime runtime;

    private Native(LibIbverbs verbs) {
        this.verbs = verbs;
        this.runtime = Runtime.getRuntime(verbs);
    }

    /** The library called {@code name}, loaded once. */
    static Native load(String name) throws VerbsException {
        Native loaded = LOADED.get(name);
        if (loaded != null) {
            return loaded;
        }
        try {
            LibIbverbs verbs = LibraryLoader.create(LibIbverbs.class).failImmediately().load(name);
            return LOADED.computeIfAbsent(name, key -> new Native(verbs));
        } catch (LinkageError | RuntimeException e) {
            throw new VerbsException("dlopen", Errno.ENOENT.value(), name
                    + " could not be loaded (apt-get install libibverbs1 ibverbs-providers)", e);
        }
    }

    /** libc, for poll(2). */
    static Libc libc() {
        Libc loaded = libc;
        if (loaded == null) {
            synchronized (Native.class) {
                if (libc == null) {
                    libc = LibraryLoader.create(Libc.class).failImmediately().load("c");
                }
                loaded = libc;
            }
        }
        return loaded;
    }

    /** The errno the last call on this thread saved; read it right after the call. */
    int lastError() {
        return runtime.getLastError();
    }

    /**
     * The errno of a failed verb: verbs that return an int return the errno itself (positive),
     * older ones return -1 and set errno ({@code savedErrno}, read right after the call; 0 for a
     * call that did not save it, where -1 then reads as EIO).
     */
    static int errnoOf(int returned, int savedErrno) {
        if (returned > 0) {
            return returned;
        }
        if (returned < -1) {
            return -returned;
        }
        return savedErrno != 0 ? savedErrno : Errno.EIO.value();
    }
}
