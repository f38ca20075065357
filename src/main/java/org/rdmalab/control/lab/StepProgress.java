package org.rdmalab.control.lab;

import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * A step of the sender's teaching flow changed status. Body: step id (u16), status (u8), name
 * (string), detail (string: the errno explanation of a failure, or empty).
 *
 * @param stepId the step's position or id in the sender's flow
 * @param stepName the step's name, e.g. {@code "INIT -> RTR"}
 * @param status how it went
 * @param detail more words, or an empty string
 */
public record StepProgress(int stepId, String stepName, StepStatus status, String detail) implements LabMessage {

    /** Validates the fields. */
    public StepProgress {
        if (stepId < 0 || stepId > 0xffff) {
            throw new IllegalArgumentException("a step id is 16 bits, not " + stepId);
        }
        Objects.requireNonNull(status, "status");
        Body.utf8(Objects.requireNonNull(stepName, "stepName"), "stepName");
        Body.utf8(Objects.requireNonNull(detail, "detail"), "detail");
    }

    @Override
    public MessageType type() {
        return MessageType.STEP_PROGRESS;
    }

    @Override
    public int bodyLength() {
        return 3 + Body.stringLength(stepName) + Body.stringLength(detail);
    }

    @Override
    public void serializeBody(ByteBuffer buffer) {
        buffer.putShort((short) stepId).put((byte) status.code());
        Body.putString(buffer, stepName);
        Body.putString(buffer, detail);
    }

    static StepProgress parseBody(ByteBuffer buffer) throws Body.Malformed {
        int id = buffer.getShort() & 0xffff;
        StepStatus status = StepStatus.of(buffer.get() & 0xff);
        String name = Body.getString(buffer);
        return new StepProgress(id, name, status, Body.getString(buffer));
    }
}
