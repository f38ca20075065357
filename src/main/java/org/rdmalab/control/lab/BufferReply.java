package org.rdmalab.control.lab;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * A snapshot of part of the sender's buffer. Body: offset (u64), then the bytes up to the end of
 * the frame.
 *
 * @param offset where in the buffer the bytes start
 * @param bytes the bytes (copied in and out)
 */
public record BufferReply(long offset, byte[] bytes) implements LabMessage {

    /** Validates and copies. */
    public BufferReply {
        if (offset < 0) {
            throw new IllegalArgumentException("buffer offset " + offset + " must not be negative");
        }
        bytes = bytes.clone();
    }

    /** A copy of the bytes. */
    @Override
    public byte[] bytes() {
        return bytes.clone();
    }

    @Override
    public MessageType type() {
        return MessageType.BUFFER_REPLY;
    }

    @Override
    public int bodyLength() {
        return 8 + bytes.length;
    }

    @Override
    public void serializeBody(ByteBuffer buffer) {
        buffer.putLong(offset).put(bytes);
    }

    static BufferReply parseBody(ByteBuffer buffer) throws Body.Malformed {
        long offset = buffer.getLong();
        if (offset < 0) {
            throw new Body.Malformed("offset " + Long.toUnsignedString(offset) + " is too large");
        }
        byte[] bytes = new byte[buffer.remaining()];
        buffer.get(bytes);
        return new BufferReply(offset, bytes);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof BufferReply reply && reply.offset == offset && Arrays.equals(reply.bytes, bytes);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(offset) * 31 + Arrays.hashCode(bytes);
    }

    @Override
    public String toString() {
        String hex = HexFormat.of().formatHex(bytes, 0, Math.min(bytes.length, 32));
        return "BufferReply[offset=" + offset + ", " + bytes.length + " bytes: " + hex
                + (bytes.length > 32 ? "..." : "") + "]";
    }
}
