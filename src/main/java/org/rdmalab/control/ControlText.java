package org.rdmalab.control;

import java.math.BigDecimal;
import java.time.Duration;

/** Small helpers that turn wire bytes and durations into the words of error messages. */
public final class ControlText {

    /** How many bytes {@link #quote} shows before it cuts the text short. */
    public static final int QUOTE_LIMIT = 64;

    private ControlText() {
    }

    /**
     * Bytes as a double-quoted string: printable ASCII as itself, NUL as {@code \0}, anything else as
     * {@code \xNN}; longer input is cut after {@link #QUOTE_LIMIT} bytes with a count of the rest.
     */
    public static String quote(byte[] bytes) {
        StringBuilder text = new StringBuilder("\"");
        int shown = Math.min(bytes.length, QUOTE_LIMIT);
        for (int i = 0; i < shown; i++) {
            int b = bytes[i] & 0xff;
            if (b == 0) {
                text.append("\\0");
            } else if (b == '"' || b == '\\') {
                text.append('\\').append((char) b);
            } else if (b >= 0x20 && b < 0x7f) {
                text.append((char) b);
            } else {
                text.append(String.format("\\x%02x", b));
            }
        }
        text.append('"');
        if (bytes.length > shown) {
            text.append(" (and ").append(bytes.length - shown).append(" more bytes)");
        }
        return text.toString();
    }

    /** {@code 10 s}, {@code 1.5 s}, {@code 250 ms}. */
    public static String duration(Duration duration) {
        long millis = duration.toMillis();
        if (millis < 1000) {
            return millis + " ms";
        }
        return BigDecimal.valueOf(millis, 3).stripTrailingZeros().toPlainString() + " s";
    }
}
