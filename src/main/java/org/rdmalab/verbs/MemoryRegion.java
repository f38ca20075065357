package org.rdmalab.verbs;

import java.util.Objects;

/**
 * {@code struct ibv_mr} together with the memory it registers. The memory stays referenced by the
 * region until {@link #close()} ({@code ibv_dereg_mr}).
 *
 * <p>Reads and writes here are the CPU's view of the buffer: the device may change the bytes at
 * any time (an RDMA WRITE from the peer), just as with real memory.
 */
public interface MemoryRegion extends AutoCloseable {

    /** The protection domain. */
    ProtectionDomain pd();

    /** The virtual address of byte 0 ({@code mr->addr}). */
    long address();

    /** Registered length in bytes. */
    int length();

    /** Local key. */
    int lkey();

    /** Remote key (what the peer puts in its RETH). */
    int rkey();

    /** {@link AccessFlag} bits given at registration. */
    int accessFlags();

    /** Copies {@code length} bytes at {@code offset} out of the buffer. */
    byte[] read(int offset, int length);

    /**
     * Copies {@code length} bytes at {@code offset} into {@code into} from {@code intoOffset}, without
     * allocating: what a loop that looks at what arrived in its buffer again and again calls, with an
     * array it keeps, as C reads its buffer in place. Both backends copy straight from the memory.
     *
     * @throws IllegalArgumentException when {@code [offset, offset + length)} is outside the region
     * @throws IndexOutOfBoundsException when {@code [intoOffset, intoOffset + length)} is outside {@code into}
     */
    default void read(int offset, byte[] into, int intoOffset, int length) {
        Objects.checkFromIndexSize(intoOffset, length, into.length);
        System.arraycopy(read(offset, length), 0, into, intoOffset, length);
    }

    /**
     * The byte at {@code offset}, without allocating: what a loop that polls the last byte of a
     * buffer for a peer's RDMA WRITE calls (ib_write_lat's pattern).
     */
    default byte readByte(int offset) {
        return read(offset, 1)[0];
    }

    /** Copies {@code data} into the buffer at {@code offset}. */
    void write(int offset, byte[] data);

    /**
     * Stores one byte at {@code offset}, as a latency loop sets the last byte of the message it
     * posts next (ib_write_lat's pattern). The backends store it directly, without the native
     * array copy (a JNI call on the native backend) or the array that {@link #write} takes.
     *
     * @throws IllegalArgumentException when {@code offset} is outside the region
     */
    default void writeByte(int offset, byte value) {
        write(offset, new byte[] {value});
    }

    /** An SGE covering {@code length} bytes at {@code offset} of this region. */
    default ScatterGatherElement sge(int offset, int length) {
        if (offset < 0 || length < 0 || (long) offset + length > length()) {
            throw new IllegalArgumentException("range " + offset + "+" + length + " is outside the "
                    + length() + "-byte region");
        }
        return new ScatterGatherElement(address() + offset, length, lkey());
    }

    /** An SGE covering the whole region. */
    default ScatterGatherElement sge() {
        return sge(0, length());
    }

    /** {@code ibv_dereg_mr}; idempotent. */
    @Override
    void close();
}
