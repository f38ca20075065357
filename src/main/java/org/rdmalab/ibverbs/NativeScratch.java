package org.rdmalab.ibverbs;

import com.kenai.jffi.MemoryIO;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A block of native memory a hot verb reuses for the structs it passes (a QP's chain of work
 * requests, the {@code ibv_wc} array a CQ's poll fills), so that posting and polling allocate no
 * native memory per call. One caller holds it at a time: a second caller on another thread, or a
 * request larger than the block, gets 0 from {@link #acquire} and allocates its own memory as
 * before. {@link #close()} frees the block at once, or, while a caller holds it, when that caller
 * releases it, so a verb racing a close never writes into freed memory.
 */
final class NativeScratch implements AutoCloseable {

    private static final MemoryIO IO = MemoryIO.getInstance();
    private static final int FREE = 0;
    private static final int HELD = 1;
    private static final int CLOSING = 2;
    private static final int FREED = 3;

    private final AtomicInteger state = new AtomicInteger(FREE);
    private final long address;
    private final long size;

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
     * The block's address with its first {@code bytes} zeroed, now held by the caller until
     * {@link #release()}; or 0 when it is smaller than {@code bytes}, held by another caller, or closed.
     */
    long acquire(long bytes) {
        if (bytes > size || !state.compareAndSet(FREE, HELD)) {
            return 0;
        }
        IO.setMemory(address, bytes, (byte) 0);
        return address;
    }

    /** Gives the block back (frees it when {@link #close()} came while it was held). */
    void release() {
        if (!state.compareAndSet(HELD, FREE) && state.compareAndSet(CLOSING, FREED)) {
            IO.freeMemory(address);
        }
    }

    /** Frees the block now, or when its holder releases it; idempotent. */
    @Override
    public void close() {
        while (true) {
            int now = state.get();
            if (now == FREE && state.compareAndSet(FREE, FREED)) {
                IO.freeMemory(address);
                return;
            }
            if (now == HELD && state.compareAndSet(HELD, CLOSING)) {
                return;
            }
            if (now == CLOSING || now == FREED) {
                return;
            }
        }
    }
}
