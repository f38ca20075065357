package org.rdmalab.ladder;

import org.rdmalab.verbs.RnrTimer;
import org.rdmalab.wire.Aeth;

/**
 * What an AETH says, in the words of the IBA (Vol. 1, 9.7.5.1.1, table 44): an ACK with its MSN and
 * credit count, an RNR NAK with its timer, or a NAK with its code. The values are
 * {@link Aeth}'s.
 */
public final class Syndrome {

    private Syndrome() {
    }

    /** "ACK", "RNR NAK", "NAK PSN sequence error", "NAK remote access error", ... */
    public static String kind(int syndrome) {
        if (Aeth.isAck(syndrome)) {
            return "ACK";
        }
        if (Aeth.isRnrNak(syndrome)) {
            return "RNR NAK";
        }
        if ((syndrome & 0x60) == 0x60) {
            return "NAK " + Aeth.nakName(Aeth.code(syndrome));
        }
        return String.format("reserved syndrome 0x%02x", syndrome);
    }

    /** True for any NAK, RNR NAK included. */
    public static boolean isNak(int syndrome) {
        return !Aeth.isAck(syndrome) && ((syndrome & 0x60) == 0x20 || (syndrome & 0x60) == 0x60);
    }

    /** The RNR NAK timer of code {@code timerCode} (0..31) in milliseconds (IBA table 45; 0 is the longest). */
    public static double rnrTimerMillis(int timerCode) {
        return RnrTimer.nanos(timerCode & 0x1f) / 1e6;
    }

    /**
     * The AETH in a few words: "ACK msn 3", "RNR NAK timer 14 (1.28 ms) msn 3",
     * "NAK remote access error msn 3".
     */
    public static String describe(int syndrome, int msn) {
        if (Aeth.isRnrNak(syndrome)) {
            int code = Aeth.code(syndrome);
            return "RNR NAK timer " + code + " (" + trim(rnrTimerMillis(code)) + " ms) msn " + msn;
        }
        return kind(syndrome) + " msn " + msn;
    }

    private static String trim(double value) {
        String text = String.format(java.util.Locale.ROOT, "%.2f", value);
        return text.endsWith(".00") ? text.substring(0, text.length() - 3)
                : text.endsWith("0") ? text.substring(0, text.length() - 1) : text;
    }
}
