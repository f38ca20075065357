package org.rdmalab.control.lab;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The type of a lab message: an open value class over the 16-bit code on the wire. The known types
 * are constants; {@link #of} also returns a value for any other code, so a message from a newer
 * peer survives decoding and encoding unchanged (as an {@link UnknownMessage}) and can be reported.
 */
public final class MessageType extends OpenCode {

    private static final Map<Integer, MessageType> KNOWN = new LinkedHashMap<>();

    /** First message each way: magic, version, software. */
    public static final MessageType HELLO = known(1, "HELLO");
    /** A side's QP and buffer. */
    public static final MessageType CONNECTION_DATA = known(2, "CONNECTION_DATA");
    /** A step of the teaching flow started, succeeded, failed or was skipped. */
    public static final MessageType STEP_PROGRESS = known(3, "STEP_PROGRESS");
    /** A QP reached a state. */
    public static final MessageType QP_STATE = known(4, "QP_STATE");
    /** A named rendezvous: each side sends it and waits for the peer's. */
    public static final MessageType SYNC = known(5, "SYNC");
    /** Asks for a copy of part of the peer's buffer. */
    public static final MessageType BUFFER_REQUEST = known(6, "BUFFER_REQUEST");
    /** The bytes of a buffer snapshot. */
    public static final MessageType BUFFER_REPLY = known(7, "BUFFER_REPLY");
    /** The sender hit an error: code and text. */
    public static final MessageType ERROR = known(8, "ERROR");
    /** The sender ends the session. */
    public static final MessageType BYE = known(9, "BYE");
    /** A side's facts about its setup, or what it saw during a probe ({@code doctor}). */
    public static final MessageType FACTS = known(10, "FACTS");

    private MessageType(int code, String name) {
        super(code, name, 4);
    }

    private static MessageType known(int code, String name) {
        MessageType type = new MessageType(code, name);
        KNOWN.put(code, type);
        return type;
    }

    /** The type with wire code {@code code} (0..65535): a known constant or an unknown value. */
    public static MessageType of(int code) {
        if (code < 0 || code > 0xffff) {
            throw new IllegalArgumentException("a message type is 16 bits, not " + code);
        }
        MessageType type = KNOWN.get(code);
        return type != null ? type : new MessageType(code, null);
    }

    /** The known types in code order. */
    public static List<MessageType> known() {
        return List.copyOf(Collections.unmodifiableCollection(KNOWN.values()));
    }
}
