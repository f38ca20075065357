package org.rdmalab.wire;

/**
 * A datagram that is not a well-formed RoCEv2 packet: too short for its headers, unknown opcode,
 * unsupported transport version, pad count larger than the payload. The message is one sentence
 * fit for a log line or the inspector's output.
 */
public final class MalformedPacketException extends Exception {

    private static final long serialVersionUID = 1L;

    /** A malformed packet, with {@code message} saying why. */
    public MalformedPacketException(String message) {
        super(message);
    }
}
