package org.rdmalab.ladder;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import org.rdmalab.wire.Psn;

/**
 * One side of a QP pair as requester: the PSNs it sent and its messages by first PSN. PSNs are unwrapped to a 64-bit count so that
 * the 24-bit wrap orders nothing wrongly. Memory is bounded: the oldest PSNs and messages are
 * forgotten past {@link #REMEMBERED}.
 *
 * <p>Threads: the ladder's.
 */
final class Flow {

    /** PSNs and messages remembered per flow; a retransmission reaches back far less. */
    static final int REMEMBERED = 1 << 18;

    private boolean started;
    private long highest;
    /** Unwrapped request PSN → ladder index of the first packet that carried it. */
    final Map<Long, Long> sent = new LinkedHashMap<>(256, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Long, Long> eldest) {
            return size() > REMEMBERED;
        }
    };
    final TreeMap<Long, Message> messages = new TreeMap<>();
    Message open;
    /** Ladder index of the latest request packet, or -1. */
    long lastRequestIndex = -1;
    boolean lastRequestWasRetransmission;

    /** {@code psn} as a 64-bit count near the flow's highest PSN. */
    long unwrap(int psn) {
        if (!started) {
            return psn;
        }
        return highest + Psn.diff(psn, (int) (highest & Psn.MASK));
    }

    /** The request PSN {@code unwrapped} was sent. */
    void sentPsn(long unwrapped) {
        if (!started || unwrapped > highest) {
            highest = unwrapped;
            started = true;
        }
    }

    boolean started() {
        return started;
    }

    long highest() {
        return highest;
    }

    /** The message whose PSNs start at or before {@code unwrapped} and come closest, or null. */
    Message messageAt(long unwrapped) {
        Map.Entry<Long, Message> entry = messages.floorEntry(unwrapped);
        return entry == null ? null : entry.getValue();
    }

    void addMessage(Message message) {
        messages.put(message.firstPsnUnwrapped(), message);
        while (messages.size() > REMEMBERED) {
            messages.pollFirstEntry();
        }
    }
}
