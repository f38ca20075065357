package org.rdmalab.wire;

import java.util.HexFormat;

/** Hex helpers for byte-exact tests. */
final class Bytes {

    private Bytes() {
    }

    /** Parses hex with any whitespace in between: {@code "0a 90 ff ff"}. */
    static byte[] hex(String text) {
        return HexFormat.of().parseHex(text.replaceAll("\\s+", ""));
    }

    /** Lower-case hex with a space between bytes. */
    static String hex(byte[] bytes, int offset, int length) {
        return HexFormat.ofDelimiter(" ").formatHex(bytes, offset, offset + length);
    }
}
