package org.rdmalab.control.lab;

import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * The first message each way. Body: magic {@code "RLAB"} (4 bytes), version (u16), software (string).
 * Magic and version come first in every version of the protocol, so any two versions can tell each
 * other apart.
 *
 * @param version the protocol version the sender speaks
 * @param software free text naming the sender, e.g. {@code "RDMA Lab 0.1.0"}
 */
public record Hello(int version, String software) implements LabMessage {

    /** {@code "RLAB"} in ASCII. */
    public static final int MAGIC = 0x524c4142;

    /** Magic and version: the bytes every hello starts with. */
    static final int FIXED_LENGTH = 6;

    /** Validates the fields. */
    public Hello {
        if (version < 0 || version > 0xffff) {
            throw new IllegalArgumentException("a protocol version is 16 bits, not " + version);
        }
        Body.utf8(Objects.requireNonNull(software, "software"), "software");
    }

    @Override
    public MessageType type() {
        return MessageType.HELLO;
    }

    @Override
    public int bodyLength() {
        return FIXED_LENGTH + Body.stringLength(software);
    }

    @Override
    public void serializeBody(ByteBuffer buffer) {
        buffer.putInt(MAGIC).putShort((short) version);
        Body.putString(buffer, software);
    }

    static Hello parseBody(ByteBuffer buffer) throws Body.Malformed {
        int magic = buffer.getInt();
        if (magic != MAGIC) {
            throw new Body.Malformed(String.format("magic 0x%08x is not \"RLAB\"", magic));
        }
        return new Hello(buffer.getShort() & 0xffff, Body.getString(buffer));
    }
}
