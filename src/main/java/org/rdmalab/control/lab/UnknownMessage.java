package org.rdmalab.control.lab;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Objects;

/**
 * A message of a type this version does not know (from a newer peer): kept with its body as it
 * arrived, so it can be reported and re-encoded byte for byte.
 *
 * @param type the unknown type
 * @param body the body bytes (copied in and out)
 */
public record UnknownMessage(MessageType type, byte[] body) implements LabMessage {

    /** Validates and copies. */
    public UnknownMessage {
        Objects.requireNonNull(type, "type");
        if (type.isKnown()) {
            throw new IllegalArgumentException(type + " is a known type; use its own message class");
        }
        body = body.clone();
    }

    /** A copy of the body. */
    @Override
    public byte[] body() {
        return body.clone();
    }

    @Override
    public int bodyLength() {
        return body.length;
    }

    @Override
    public void serializeBody(ByteBuffer buffer) {
        buffer.put(body);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof UnknownMessage message && message.type.equals(type)
                && Arrays.equals(message.body, body);
    }

    @Override
    public int hashCode() {
        return type.hashCode() * 31 + Arrays.hashCode(body);
    }

    @Override
    public String toString() {
        return "UnknownMessage[" + type + ", " + body.length + " bytes]";
    }
}
