package org.rdmalab.control.lab;

import java.nio.ByteBuffer;

/**
 * Asks the peer for a copy of part of its registered buffer. Body, 12 bytes: offset (u64), length
 * (u32). The peer answers with a {@link BufferReply} or an {@link ErrorMessage}.
 *
 * @param offset where in the buffer to start
 * @param length how many bytes
 */
public record BufferRequest(long offset, int length) implements LabMessage {

    /** Validates the fields. */
    public BufferRequest {
        if (offset < 0 || length < 0) {
            throw new IllegalArgumentException("buffer offset " + offset + " and length " + length
                    + " must not be negative");
        }
    }

    @Override
    public MessageType type() {
        return MessageType.BUFFER_REQUEST;
    }

    @Override
    public int bodyLength() {
        return 12;
    }

    @Override
    public void serializeBody(ByteBuffer buffer) {
        buffer.putLong(offset).putInt(length);
    }

    static BufferRequest parseBody(ByteBuffer buffer) throws Body.Malformed {
        long offset = buffer.getLong();
        int length = buffer.getInt();
        if (offset < 0 || length < 0) {
            throw new Body.Malformed("offset " + Long.toUnsignedString(offset) + " or length "
                    + Integer.toUnsignedString(length) + " is too large");
        }
        return new BufferRequest(offset, length);
    }
}
