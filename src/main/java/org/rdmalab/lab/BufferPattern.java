package org.rdmalab.lab;

import java.util.zip.CRC32;

/**
 * The bytes {@code demo --pattern} puts in a buffer, and the CRC32 both sides print of it. Each
 * byte depends on its position and on the message (1 the SEND, 2 what the RDMA READ reads, 3 the
 * RDMA WRITE), through a 32-bit mix with no short period: a packet that never landed, or landed at
 * another offset, leaves bytes that differ from the pattern, and the receiver's CRC32 from the
 * sender's. The C export computes the same with unsigned 32-bit arithmetic.
 */
public final class BufferPattern {

    /** The message numbers: what the server SENDs, what the client's RDMA READ reads, what it WRITEs. */
    public static final int SEND = 1;
    public static final int READ = 2;
    public static final int WRITE = 3;

    private BufferPattern() {
    }

    /** The pattern's byte at {@code position} of message {@code message}. */
    public static byte at(int position, int message) {
        int x = position * 0x9E3779B1 + message * 0x85EBCA77;
        x ^= x >>> 15;
        x *= 0x2C1B3C6D;
        x ^= x >>> 12;
        return (byte) x;
    }

    /**
     * {@code buffer} with its text kept (the bytes up to and including the first NUL, as C's
     * {@code strlen} + 1 counts them; none when the buffer holds no NUL) and every later byte
     * the pattern's for {@code message}.
     */
    public static byte[] fill(byte[] buffer, int message) {
        byte[] filled = buffer.clone();
        int start = 0;
        while (start < filled.length && filled[start] != 0) {
            start++;
        }
        for (int i = start + 1; i < filled.length; i++) {
            filled[i] = at(i, message);
        }
        return filled;
    }

    /** CRC32 (IEEE 802.3, as zlib's crc32) of {@code bytes}. */
    public static long crc32(byte[] bytes) {
        CRC32 crc = new CRC32();
        crc.update(bytes);
        return crc.getValue();
    }

    /** The line both sides print: {@code crc32 of WHAT: 0x%08x over N bytes}. */
    public static String line(String what, byte[] bytes) {
        return String.format("crc32 of %s: 0x%08x over %d bytes", what, crc32(bytes), bytes.length);
    }
}
