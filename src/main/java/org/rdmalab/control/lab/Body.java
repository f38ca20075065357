package org.rdmalab.control.lab;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/** Field helpers for message bodies: strings are a u16 byte count followed by UTF-8. */
final class Body {

    /** The largest string, in UTF-8 bytes. */
    static final int MAX_STRING = 0xffff;

    private Body() {
    }

    static byte[] utf8(String text, String field) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        if (bytes.length > MAX_STRING) {
            throw new IllegalArgumentException(field + " is " + bytes.length + " bytes of UTF-8; the limit is "
                    + MAX_STRING);
        }
        return bytes;
    }

    static int stringLength(String text) {
        return 2 + text.getBytes(StandardCharsets.UTF_8).length;
    }

    static void putString(ByteBuffer buffer, String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        buffer.putShort((short) bytes.length).put(bytes);
    }

    /** Reads a string; a count beyond the body or bytes that are not UTF-8 are malformed input. */
    static String getString(ByteBuffer buffer) throws Malformed {
        int length = buffer.getShort() & 0xffff;
        if (length > buffer.remaining()) {
            throw new Malformed("a string of " + length + " bytes runs past the end");
        }
        byte[] bytes = new byte[length];
        buffer.get(bytes);
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            throw new Malformed("a string is not valid UTF-8");
        }
    }

    /** A body that does not follow its type's layout; the codec turns it into a ControlException. */
    static final class Malformed extends Exception {
        private static final long serialVersionUID = 1L;

        Malformed(String message) {
            super(message, null, false, false);
        }
    }
}
