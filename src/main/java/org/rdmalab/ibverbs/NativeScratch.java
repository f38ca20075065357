package org.rdmalab.ibverbs;

import com.kenai.jffi.MemoryIO;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Logger;

/**
 * A block of native memory a hot verb reuses for the structs it passes (a QP's chain of work
 * requests, the {@code ibv_wc} array a CQ's poll fills), so that posting and polling allocate no
 * native memory per call. It starts zeroed and is not cleared between holders: what it holds is
 * its users' rule (a QP's posts write every byte they pass, a CQ's polls leave it zeroed). A
 * holder may record what it left there ({@link #holding}), so that the next one can hand it over
 * again without writing it ({@link #holds}). One caller holds it at a time: a second caller on
 * another thread, or a request larger than the block, gets 0 from {@link #acquire} and allocates
 * its own memory as before. Taking the block is one compare-and-set, giving it back a plain
 * release store. {@link #close()} frees it once no caller holds it (it waits up to
 * {@link #CLOSE_WAIT_NANOS} for a verb in progress, then leaves the block unfreed rather than free
 * memory in use).
 */
final class NativeScratch implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(NativeScratch.class.getName());
    private static final MemoryIO IO = MemoryIO.getInstance();
    private static final int FREE = 0;
    private static final int HELD = 1;
    private static final int FREED = 2;
    /** How long {@link #close()} waits for a holder: far more than any post or poll takes. */
    static final long CLOSE_WAIT_NANOS = 1_000_000_000L;

    private final AtomicInteger state = new AtomicInteger(FREE);
    private final long address;
    private final long size;
    /** See {@link #holds}: read and written by the holder only, so taking and giving back the block order it. */
    private Object content;

    /** {@code size} bytes, allocated now. */
    NativeScratch(long size) {
        this.address = IO.allocateMemory(size, true);
        if (address == 0) {
            throw new OutOfMemoryError("could not allocate " + size + " bytes of native memory");
        }
        this.size = size;
    }

    /** Bytes in the block. */
    long size() {
        return size;
    }

    /**
     * The block's address, now held by the caller until {@link #release()}; or 0 when it is smaller
     * than {@code bytes}, held by another caller, or closed. The block holds what its last holder
     * left: a caller writes every byte it passes to the provider, or {@link #clear}s them.
     */
    long acquire(long bytes) {
        if (bytes > size || !state.compareAndSet(FREE, HELD)) {
            return 0;
        }
        return address;
    }

    /**
     * Zeroes {@code bytes} at {@code start} with 8-byte stores: for the few dozen bytes of a post
     * or a poll this costs less than {@code setMemory}, which enters the VM on every call.
     */
    static void clear(long start, long bytes) {
        // An int-counted loop: C2 unrolls it, where a long-counted one stays a loop of single stores.
        int longs = (int) (bytes >>> 3);
        for (int i = 0; i < longs; i++) {
            IO.putLong(start + ((long) i << 3), 0L);
        }
        for (long at = start + ((long) longs << 3); at < start + bytes; at++) {
            IO.putByte(at, (byte) 0);
        }
    }

    /**
     * True when the block holds what the holder's caller wrote for {@code content} (a work request
     * posted alone, say) as {@link #holding} recorded it, so it may be handed over again without
     * being written; false for null. Only the holder calls it.
     */
    boolean holds(Object content) {
        return content != null && this.content == content;
    }

    /**
     * Records what the block now holds for the next holder's {@link #holds}: an object that
     * cannot change, written whole by this holder; null before writing anything else into it.
     * Only the holder calls it.
     */
    void holding(Object content) {
        this.content = content;
    }

    /** Gives the block back. */
    void release() {
        state.setRelease(FREE);
    }

    /**
     * Frees the block, waiting for a holder to give it back; idempotent. False when a holder kept
     * it past {@link #CLOSE_WAIT_NANOS} and it was left allocated.
     */
    boolean closeWaiting() {
        long deadline = System.nanoTime() + CLOSE_WAIT_NANOS;
        while (true) {
            int now = state.get();
            if (now == FREED) {
                return true;
            }
            if (now == FREE && state.compareAndSet(FREE, FREED)) {
                IO.freeMemory(address);
                content = null;
                return true;
            }
            if (System.nanoTime() - deadline > 0) {
                return false;
            }
            Thread.onSpinWait();
        }
    }

    @Override
    public void close() {
        if (!closeWaiting()) {
            LOG.warning("a post or poll held its " + size + "-byte native block for over "
                    + CLOSE_WAIT_NANOS / 1_000_000 + " ms while its queue was destroyed; the block is left allocated");
        }
    }
}
