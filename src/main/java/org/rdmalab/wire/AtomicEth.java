package org.rdmalab.wire;

import java.nio.ByteBuffer;

/**
 * Atomic Extended Transport Header, 28 bytes (IBTA Vol. 1 §9.3.4; rocev2.md "RC opcodes"): virtual
 * address (8), R_Key (4), swap-or-add (8), compare (8). COMPARE_SWAP carries the swap value in the
 * first 8-byte field and the compare value in the second; FETCH_ADD carries the add value in the
 * first and ignores the second.
 *
 * @param virtualAddress remote virtual address (8-byte aligned)
 * @param rkey remote key
 * @param swapOrAdd swap value (COMPARE_SWAP) or add value (FETCH_ADD)
 * @param compare compare value (COMPARE_SWAP)
 */
public record AtomicEth(long virtualAddress, int rkey, long swapOrAdd, long compare) {

    /** Bytes on the wire. */
    public static final int LENGTH = 28;

    /** Reads 28 bytes at the buffer's position and advances it. */
    public static AtomicEth read(ByteBuffer in) {
        return new AtomicEth(in.getLong(), in.getInt(), in.getLong(), in.getLong());
    }

    /** Writes 28 bytes at the buffer's position and advances it. */
    public void write(ByteBuffer out) {
        out.putLong(virtualAddress);
        out.putInt(rkey);
        out.putLong(swapOrAdd);
        out.putLong(compare);
    }

    /** {@code AtomicETH va 0x... rkey 0x... swap/add 0x... compare 0x...}. */
    @Override
    public String toString() {
        return String.format("AtomicETH va 0x%016x rkey 0x%08x swap/add 0x%016x compare 0x%016x",
                virtualAddress, rkey, swapOrAdd, compare);
    }
}
