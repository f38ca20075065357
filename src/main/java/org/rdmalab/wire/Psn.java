package org.rdmalab.wire;

/**
 * 24-bit packet sequence number arithmetic (IBTA Vol. 1 §9.7.1; rocev2.md "Packet on the wire":
 * compare PSNs as signed 24-bit differences). Stateless.
 */
public final class Psn {

    /** The 24 bits of a PSN (also of a QPN and an MSN). */
    public static final int MASK = 0xFFFFFF;

    private Psn() {
    }

    /** {@code psn + n} modulo 2^24; {@code n} may be negative. */
    public static int add(int psn, int n) {
        return (psn + n) & MASK;
    }

    /** The PSN after {@code psn}. */
    public static int next(int psn) {
        return (psn + 1) & MASK;
    }

    /** {@code a - b} as a signed 24-bit value (-2^23 .. 2^23-1). */
    public static int diff(int a, int b) {
        return ((a - b) << 8) >> 8;
    }

    /** {@code a} comes before {@code b} in 24-bit sequence order. */
    public static boolean before(int a, int b) {
        return diff(a, b) < 0;
    }

    /** Checks that {@code psn} fits in 24 bits. */
    public static int check(int psn) {
        if ((psn & ~MASK) != 0) {
            throw new IllegalArgumentException("PSN " + psn + " is outside 24 bits");
        }
        return psn;
    }
}
