package org.rdmalab.wire;

import java.nio.ByteBuffer;

/**
 * RDMA Extended Transport Header, 16 bytes (IBTA Vol. 1 §9.3.3; rocev2.md "RC opcodes"): virtual
 * address (8), R_Key (4), DMA length (4). Carried by RDMA_WRITE_FIRST, RDMA_WRITE_ONLY(_WITH_IMMEDIATE)
 * and RDMA_READ_REQUEST.
 *
 * @param virtualAddress remote virtual address
 * @param rkey remote key
 * @param dmaLength length of the whole message in bytes, an unsigned 32-bit value
 */
public record Reth(long virtualAddress, int rkey, int dmaLength) {

    /** Bytes on the wire. */
    public static final int LENGTH = 16;

    /** Reads 16 bytes at the buffer's position and advances it. */
    public static Reth read(ByteBuffer in) {
        return new Reth(in.getLong(), in.getInt(), in.getInt());
    }

    /** Writes 16 bytes at the buffer's position and advances it. */
    public void write(ByteBuffer out) {
        put(out, virtualAddress, rkey, dmaLength);
    }

    /** Writes a RETH of these fields, as {@link #write} does, without the record (the data path's form). */
    public static void put(ByteBuffer out, long virtualAddress, int rkey, int dmaLength) {
        out.putLong(virtualAddress);
        out.putInt(rkey);
        out.putInt(dmaLength);
    }

    /** The DMA length as an unsigned value. */
    public long dmaLengthUnsigned() {
        return Integer.toUnsignedLong(dmaLength);
    }

    /** {@code RETH va 0x00007f1234567890 rkey 0x00001234 len 11}. */
    @Override
    public String toString() {
        return String.format("RETH va 0x%016x rkey 0x%08x len %d", virtualAddress, rkey, dmaLengthUnsigned());
    }
}
