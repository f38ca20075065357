package org.rdmalab.control.lab;

import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * The sender hit an error and tells the peer why. Body: code (u16), text (string, one line).
 *
 * @param code one of the constants here, or another number from a newer peer
 * @param text what happened, as the sender's user saw it
 */
public record ErrorMessage(int code, String text) implements LabMessage {

    /** The peer broke the protocol. */
    public static final int PROTOCOL = 1;
    /** A step of the sender's flow failed. */
    public static final int STEP_FAILED = 2;
    /** A buffer request could not be answered (no buffer yet, or out of range). */
    public static final int BUFFER_UNAVAILABLE = 3;
    /** The sender's user stopped the session. */
    public static final int ABORTED = 4;

    /** Validates the fields. */
    public ErrorMessage {
        if (code < 0 || code > 0xffff) {
            throw new IllegalArgumentException("an error code is 16 bits, not " + code);
        }
        Body.utf8(Objects.requireNonNull(text, "text"), "text");
    }

    @Override
    public MessageType type() {
        return MessageType.ERROR;
    }

    @Override
    public int bodyLength() {
        return 2 + Body.stringLength(text);
    }

    @Override
    public void serializeBody(ByteBuffer buffer) {
        buffer.putShort((short) code);
        Body.putString(buffer, text);
    }

    static ErrorMessage parseBody(ByteBuffer buffer) throws Body.Malformed {
        int code = buffer.getShort() & 0xffff;
        return new ErrorMessage(code, Body.getString(buffer));
    }
}
