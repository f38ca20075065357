package org.rdmalab.ibverbs;

import com.kenai.jffi.MemoryIO;
import jnr.ffi.Pointer;
import jnr.ffi.Runtime;

/**
 * Zeroed native memory with an owner: structs passed to a verb (freed by try-with-resources) and
 * the buffers memory regions register (freed after {@code ibv_dereg_mr}). Nothing is left to the
 * garbage collector; {@link #close()} is idempotent.
 */
final class NativeMemory implements AutoCloseable {

    private static final MemoryIO IO = MemoryIO.getInstance();

    private final long address;
    private final long size;
    private final Pointer pointer;
    private boolean freed;

    private NativeMemory(Runtime runtime, long address, long size) {
        this.address = address;
        this.size = size;
        this.pointer = Pointer.wrap(runtime, address, size);
    }

    /** {@code calloc(1, size)}: at least one byte, zeroed. */
    static NativeMemory allocate(Runtime runtime, long size) {
        long bytes = Math.max(size, 1);
        long address = IO.allocateMemory(bytes, true);
        if (address == 0) {
            throw new OutOfMemoryError("could not allocate " + bytes + " bytes of native memory");
        }
        return new NativeMemory(runtime, address, bytes);
    }

    /** The memory as a jnr pointer. */
    Pointer pointer() {
        return pointer;
    }

    /** The address of byte 0. */
    long address() {
        return address;
    }

    /** Bytes allocated. */
    long size() {
        return size;
    }

    /**
     * Copies {@code count} bytes at {@code offset} into {@code data} from {@code dataOffset}, or throws
     * once the memory is freed: a window reads a registered buffer from its own thread while a reset
     * may free it on another.
     */
    synchronized void get(long offset, byte[] data, int dataOffset, int count) {
        checkLive();
        pointer.get(offset, data, dataOffset, count);
    }

    /** The byte at {@code offset}, or throws once the memory is freed. */
    synchronized byte getByte(long offset) {
        checkLive();
        return pointer.getByte(offset);
    }

    /** Copies {@code data} in at {@code offset}, or throws once the memory is freed. */
    synchronized void put(long offset, byte[] data) {
        checkLive();
        pointer.put(offset, data, 0, data.length);
    }

    /** Stores one byte at {@code offset} (no JNI call, as {@link #put} makes), or throws once the memory is freed. */
    synchronized void putByte(long offset, byte value) {
        checkLive();
        pointer.putByte(offset, value);
    }

    private void checkLive() {
        if (freed) {
            throw new IllegalStateException("the buffer was freed (its memory region was deregistered)");
        }
    }

    @Override
    public synchronized void close() {
        if (!freed) {
            freed = true;
            IO.freeMemory(address);
        }
    }
}
