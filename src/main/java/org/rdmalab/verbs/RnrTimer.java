package org.rdmalab.verbs;

/** The RNR NAK timer codes of the InfiniBand specification (table 45), in nanoseconds. */
public final class RnrTimer {

    private static final long[] TENS_OF_MICROS = {
        65536, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768,
        1024, 1536, 2048, 3072, 4096, 6144, 8192, 12288, 16384, 24576, 32768, 49152,
    };

    private RnrTimer() {
    }

    /** The delay code {@code code} (0..31) stands for, in nanoseconds (code 0 = 655.36 ms). */
    public static long nanos(int code) {
        if (code < 0 || code > 31) {
            throw new IllegalArgumentException("RNR timer code " + code + " is outside 0..31");
        }
        return TENS_OF_MICROS[code] * 10_000L;
    }

    /** The local ACK timeout {@code 4.096 µs × 2^t} in nanoseconds; 0 when t is 0 (no timer). */
    public static long ackTimeoutNanos(int timeout) {
        if (timeout < 0 || timeout > 31) {
            throw new IllegalArgumentException("timeout " + timeout + " is outside 0..31");
        }
        return timeout == 0 ? 0 : 4096L << timeout;
    }
}
