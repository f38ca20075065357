package org.rdmalab.control.lab;

import java.nio.ByteBuffer;

/**
 * The sender starts nothing more: it still answers buffer requests until the peer says bye too (or
 * closes), then closes the connection. Empty body.
 */
public record Bye() implements LabMessage {

    @Override
    public MessageType type() {
        return MessageType.BYE;
    }

    @Override
    public int bodyLength() {
        return 0;
    }

    @Override
    public void serializeBody(ByteBuffer buffer) {
        // No body.
    }
}
