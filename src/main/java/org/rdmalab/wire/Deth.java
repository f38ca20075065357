package org.rdmalab.wire;

import java.nio.ByteBuffer;

/**
 * Datagram Extended Transport Header, 8 bytes (IBTA Vol. 1 §9.3.2): Q_Key (4), reserved (1), source
 * QP (3). Carried by UD packets; decoded so that captures from real NICs (connection management on
 * QP1) can be inspected.
 *
 * @param qkey queue key
 * @param srcQp source QP number (24 bits)
 */
public record Deth(int qkey, int srcQp) {

    /** Bytes on the wire. */
    public static final int LENGTH = 8;

    /** Checks the source QP's range. */
    public Deth {
        if ((srcQp & ~Psn.MASK) != 0) {
            throw new IllegalArgumentException("DETH source QP " + srcQp + " is outside 24 bits");
        }
    }

    /** Reads 8 bytes at the buffer's position and advances it (the reserved byte is ignored). */
    public static Deth read(ByteBuffer in) {
        int qkey = in.getInt();
        return new Deth(qkey, in.getInt() & Psn.MASK);
    }

    /** Writes 8 bytes at the buffer's position and advances it (the reserved byte as 0). */
    public void write(ByteBuffer out) {
        out.putInt(qkey);
        out.putInt(srcQp);
    }

    /** {@code DETH qkey 0x80010000 srcqp 0x000001}. */
    @Override
    public String toString() {
        return String.format("DETH qkey 0x%08x srcqp 0x%06x", qkey, srcQp);
    }
}
