package org.rdmalab.control.lab;

import java.nio.ByteBuffer;
import java.util.Objects;
import org.rdmalab.control.ConnectionData;
import org.rdmalab.verbs.QpState;

/**
 * One of the sender's QPs reached a state. Body, 5 bytes: qpn (u32, 24 bits used), state (u8,
 * ibv_qp_state value).
 *
 * @param qpn which QP
 * @param state its new state
 */
public record QpStateMessage(int qpn, QpState state) implements LabMessage {

    /** Validates the fields. */
    public QpStateMessage {
        if (qpn < 0 || qpn > ConnectionData.MAX_24_BIT) {
            throw new IllegalArgumentException("QP number 0x" + Integer.toHexString(qpn) + " does not fit in 24 bits");
        }
        Objects.requireNonNull(state, "state");
    }

    @Override
    public MessageType type() {
        return MessageType.QP_STATE;
    }

    @Override
    public int bodyLength() {
        return 5;
    }

    @Override
    public void serializeBody(ByteBuffer buffer) {
        buffer.putInt(qpn).put((byte) state.value());
    }

    static QpStateMessage parseBody(ByteBuffer buffer) throws Body.Malformed {
        int qpn = buffer.getInt();
        int state = buffer.get() & 0xff;
        try {
            return new QpStateMessage(qpn, QpState.of(state));
        } catch (IllegalArgumentException e) {
            throw new Body.Malformed(e.getMessage());
        }
    }
}
