package org.rdmalab.wire;

import java.nio.ByteBuffer;

/**
 * Atomic Acknowledge Extended Transport Header, 8 bytes (IBTA Vol. 1 §9.3.6; rocev2.md "RC
 * opcodes"): the value the remote 8 bytes held before the atomic operation.
 *
 * @param originalData the original remote data
 */
public record AtomicAckEth(long originalData) {

    /** Bytes on the wire. */
    public static final int LENGTH = 8;

    /** Reads 8 bytes at the buffer's position and advances it. */
    public static AtomicAckEth read(ByteBuffer in) {
        return new AtomicAckEth(in.getLong());
    }

    /** Writes 8 bytes at the buffer's position and advances it. */
    public void write(ByteBuffer out) {
        out.putLong(originalData);
    }

    /** {@code AtomicAckETH orig 0x...}. */
    @Override
    public String toString() {
        return String.format("AtomicAckETH orig 0x%016x", originalData);
    }
}
