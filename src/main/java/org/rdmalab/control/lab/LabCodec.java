package org.rdmalab.control.lab;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Map;
import org.rdmalab.control.ControlException;
import org.rdmalab.control.ControlText;

/**
 * The message layer of RDMA Lab's protocol: a frame's payload is the message type's 16-bit code
 * followed by the body. Known types decode to their records, bodies checked to the byte (too short,
 * bytes left over, bad values: each is a clear error); unknown types decode to
 * {@link UnknownMessage} and re-encode unchanged.
 *
 * <pre>
 * payload := type (u16, big-endian) body
 * </pre>
 */
public final class LabCodec {

    /** Bytes of the type code. */
    public static final int TYPE_LENGTH = 2;

    private LabCodec() {
    }

    /** The frame payload of {@code message}: type code and body. */
    public static byte[] encode(LabMessage message) {
        ByteBuffer buffer = ByteBuffer.allocate(TYPE_LENGTH + message.bodyLength());
        buffer.putShort((short) message.type().code());
        message.serializeBody(buffer);
        if (buffer.hasRemaining()) {
            throw new IllegalStateException(message.type() + " wrote " + buffer.position() + " of "
                    + buffer.capacity() + " bytes");
        }
        return buffer.array();
    }

    /** A whole frame (length header and payload) for {@code message}. */
    public static byte[] frame(LabMessage message) {
        return FrameCodec.frame(encode(message));
    }

    /** Decodes one frame payload. */
    public static LabMessage decode(byte[] payload) throws ControlException {
        if (payload.length < TYPE_LENGTH) {
            throw new ControlException(ControlException.Reason.PROTOCOL, "a frame of " + payload.length
                    + " bytes is too short to hold a message type: " + ControlText.quote(payload));
        }
        ByteBuffer buffer = ByteBuffer.wrap(payload);
        MessageType type = MessageType.of(buffer.getShort() & 0xffff);
        try {
            LabMessage message = parseBody(type, buffer);
            if (buffer.hasRemaining()) {
                throw new Body.Malformed(buffer.remaining() + " bytes are left over after the fields");
            }
            return message;
        } catch (BufferUnderflowException e) {
            throw malformed(type, payload, "it ends too early", e);
        } catch (Body.Malformed e) {
            throw malformed(type, payload, e.getMessage(), e);
        }
    }

    private static ControlException malformed(MessageType type, byte[] payload, String why, Exception cause) {
        return new ControlException(ControlException.Reason.PROTOCOL, "malformed " + type + " message of "
                + (payload.length - TYPE_LENGTH) + " bytes: " + why + "; body " + ControlText.quote(
                        Arrays.copyOfRange(payload, TYPE_LENGTH, payload.length)), cause);
    }

    private static LabMessage parseBody(MessageType type, ByteBuffer buffer) throws Body.Malformed {
        if (!type.isKnown()) {
            byte[] body = new byte[buffer.remaining()];
            buffer.get(body);
            return new UnknownMessage(type, body);
        }
        Parser parser = PARSERS.get(type);
        if (parser == null) {
            throw new AssertionError("known type without a parser: " + type);
        }
        return parser.parse(buffer);
    }

    /** Parses one type's body. */
    private interface Parser {
        LabMessage parse(ByteBuffer buffer) throws Body.Malformed;
    }

    private static final Map<MessageType, Parser> PARSERS = Map.of(
            MessageType.HELLO, Hello::parseBody,
            MessageType.CONNECTION_DATA, ConnectionDataMessage::parseBody,
            MessageType.STEP_PROGRESS, StepProgress::parseBody,
            MessageType.QP_STATE, QpStateMessage::parseBody,
            MessageType.SYNC, Sync::parseBody,
            MessageType.BUFFER_REQUEST, BufferRequest::parseBody,
            MessageType.BUFFER_REPLY, BufferReply::parseBody,
            MessageType.ERROR, ErrorMessage::parseBody,
            MessageType.BYE, buffer -> new Bye(),
            MessageType.FACTS, Facts::parseBody);
}
