package org.rdmalab.ibverbs;

import com.kenai.jffi.MemoryIO;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.Cleaner;
import java.lang.ref.Reference;

/**
 * A block of native memory a hot verb reuses for the structs it passes (a QP's chain of work
 * requests, the {@code ibv_wc} array a CQ's poll fills), so that posting and polling allocate no
 * native memory per call. It starts zeroed and is not cleared between uses: what it holds is its
 * users' rule (a QP's posts write every byte they pass, a CQ's polls leave it zeroed). Its owner
 * may record what it left there ({@link #holding}), so that a later call can hand it over again
 * without writing it ({@link #holds}).
 *
 * <p>The block belongs to one thread, the first to {@link #acquire} it, and only that thread gets
 * it; so a post or poll takes it with a field read and no atomic instruction (a compare-and-set
 * on every call was a tenth of a post + poll pair through the stand-in). Another thread, a
 * request larger than the block, or a call after {@link #close()} gets 0 and allocates its own
 * memory. When the owner has ended, the next thread to ask takes the block over (an ended thread
 * holds nothing, and its writes are visible to whoever sees it ended). Not re-entrant: the owner
 * gives the block back ({@link #release()}) before it asks again.
 *
 * <p>{@link #close()} frees the block at once when called by its owner or when no thread ever
 * owned it; closed by another thread, which cannot know whether the owner is still inside a call,
 * it stops handing the block out and leaves freeing it to the garbage collector, once nothing
 * reaches this object (the owner's call in progress does, up to its {@link #release()}).
 */
final class NativeScratch implements AutoCloseable {

    private static final MemoryIO IO = MemoryIO.getInstance();
    /** One daemon thread frees the blocks closed from a thread other than their owner's. */
    private static final Cleaner CLEANER = Cleaner.create();
    /** The owner of a closed block: never a running thread. */
    private static final Thread CLOSED = new Thread(() -> { }, "rdmalab-scratch-closed");
    private static final VarHandle OWNER;

    static {
        try {
            OWNER = MethodHandles.lookup().findVarHandle(NativeScratch.class, "owner", Thread.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final long address;
    private final long size;
    /** Frees the block once, at an owner's close or when this object becomes unreachable. */
    private final Cleaner.Cleanable freeing;
    /** The thread that uses the block, null before the first, {@link #CLOSED} after close. */
    private volatile Thread owner;
    /** See {@link #holds}: read and written by the owner only. */
    private Object content;

    /** {@code size} bytes, allocated now. */
    NativeScratch(long size) {
        long block = IO.allocateMemory(size, true);
        if (block == 0) {
            throw new OutOfMemoryError("could not allocate " + size + " bytes of native memory");
        }
        this.address = block;
        this.size = size;
        this.freeing = CLEANER.register(this, () -> IO.freeMemory(block));
    }

    /** Bytes in the block. */
    long size() {
        return size;
    }

    /**
     * The block's address, for the calling thread to use until {@link #release()}; or 0 when it is
     * smaller than {@code bytes}, belongs to another thread, or is closed. The block holds what the
     * owner last left there: a caller writes every byte it passes to the provider, or
     * {@link #clear}s them.
     */
    long acquire(long bytes) {
        Thread caller = Thread.currentThread();
        Thread holder = owner;
        if (holder != caller && !takeOver(holder, caller)) {
            return 0;
        }
        return bytes > size ? 0 : address;
    }

    /** The block for {@code caller}, whose first call this is: free, or left by an ended thread. */
    private boolean takeOver(Thread holder, Thread caller) {
        if (holder == CLOSED || holder != null && holder.isAlive()) {
            return false;
        }
        return OWNER.compareAndSet(this, holder, caller);
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
     * True when the block holds what the owner wrote for {@code content} (a work request posted
     * alone, say) as {@link #holding} recorded it, so it may be handed over again without being
     * written; false for null. Only the owner calls it, between {@link #acquire} and
     * {@link #release}.
     */
    boolean holds(Object content) {
        return content != null && this.content == content;
    }

    /**
     * Records what the block now holds for the owner's next {@link #holds}: an object that cannot
     * change, written whole by the owner; null before writing anything else into it.
     */
    void holding(Object content) {
        this.content = content;
    }

    /**
     * Gives the block back after {@link #acquire}: it keeps this object reachable up to here, so
     * that a close from another thread cannot let the block be freed while the call uses it.
     */
    void release() {
        Reference.reachabilityFence(this);
    }

    /** True when {@link #acquire} hands the block to no one any more. */
    boolean closed() {
        return owner == CLOSED;
    }

    /**
     * Stops handing the block out; idempotent. Called by the owner, or with no owner yet, it frees
     * the block now. From another thread it leaves that to the garbage collector (class comment).
     * True when this call freed the block.
     */
    boolean closeNow() {
        Thread caller = Thread.currentThread();
        while (true) {
            Thread holder = owner;
            if (holder == CLOSED) {
                return false;
            }
            if (OWNER.compareAndSet(this, holder, CLOSED)) {
                if (holder == null || holder == caller || !holder.isAlive()) {
                    content = null;
                    freeing.clean();
                    return true;
                }
                return false;
            }
        }
    }

    @Override
    public void close() {
        closeNow();
    }
}
