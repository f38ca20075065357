package org.rdmalab.wire;

import java.nio.ByteBuffer;

/**
 * Immediate Data extended header, 4 bytes (IBTA Vol. 1 §9.3.7): a plain 32-bit value, kept as an
 * {@code int}; this class only holds its length and codec. It follows the other extension headers
 * in the *_WITH_IMMEDIATE opcodes.
 */
public final class ImmDt {

    /** Bytes on the wire. */
    public static final int LENGTH = 4;

    private ImmDt() {
    }

    /** Reads 4 bytes (big-endian) at the buffer's position and advances it. */
    public static int read(ByteBuffer in) {
        return in.getInt();
    }

    /** Writes 4 bytes (big-endian) at the buffer's position and advances it. */
    public static void write(ByteBuffer out, int immDt) {
        out.putInt(immDt);
    }
}
