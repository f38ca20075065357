package org.rdmalab.control.lab;

import java.nio.ByteBuffer;

/**
 * One message of RDMA Lab's protocol. On the wire a message is a frame payload: its type's 16-bit
 * code, then its body ({@link LabCodec}). Each message knows its body's length and how to write it;
 * {@link LabCodec#decode} parses.
 */
public sealed interface LabMessage permits Hello, ConnectionDataMessage, StepProgress, QpStateMessage, Sync,
        BufferRequest, BufferReply, ErrorMessage, Bye, Facts, UnknownMessage {

    /** The message's type. */
    MessageType type();

    /** The body's length in bytes (the frame payload is 2 bytes longer). */
    int bodyLength();

    /** Writes the body at the buffer's position, big-endian. */
    void serializeBody(ByteBuffer buffer);
}
