package org.rdmalab.control.lab;

import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * A named rendezvous: both sides send it and wait for the peer's with the same name. Body: name
 * (string).
 *
 * @param name e.g. {@code "rts"} or {@code "written"}
 */
public record Sync(String name) implements LabMessage {

    /** Validates the name. */
    public Sync {
        Body.utf8(Objects.requireNonNull(name, "name"), "name");
    }

    @Override
    public MessageType type() {
        return MessageType.SYNC;
    }

    @Override
    public int bodyLength() {
        return Body.stringLength(name);
    }

    @Override
    public void serializeBody(ByteBuffer buffer) {
        Body.putString(buffer, name);
    }

    static Sync parseBody(ByteBuffer buffer) throws Body.Malformed {
        return new Sync(Body.getString(buffer));
    }
}
