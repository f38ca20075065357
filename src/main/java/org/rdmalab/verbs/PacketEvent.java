package org.rdmalab.verbs;

import java.util.List;
import java.util.Objects;

/**
 * One packet a device sent, received or dropped, summarised for display. Only devices that see
 * their own packets (the software device) report them; see {@link PacketObservable}.
 *
 * @param timestampNanos when, on the device's clock
 * @param direction sent, received or dropped
 * @param source sender as "ip:port"
 * @param destination receiver as "ip:port"
 * @param opcode BTH opcode name ("RC_RDMA_WRITE_ONLY")
 * @param destQp BTH destination QP
 * @param psn BTH PSN
 * @param ackRequest BTH AckReq bit
 * @param length UDP payload length in bytes
 * @param detail extension headers and, for drops, the reason ("RETH va 0x... rkey 0x... len 11")
 * @param faults the injected faults that hit this packet on its way out of the sending device (see
 *     {@link FaultControl}), in the order they fired; empty for most packets. A drop is reported on
 *     the DROPPED event of the lost packet; a duplicate on the SENT event of the copy; a reorder,
 *     a corruption or a delay on the SENT event of the packet held back, altered or delayed.
 * @param bytes the UDP payload as it went on the wire or arrived (BTH to ICRC; a corrupted packet
 *     with its flipped bit), or null when the device did not keep it. Never modified: do not
 *     modify it either.
 */
public record PacketEvent(long timestampNanos, Direction direction, String source, String destination,
                          String opcode, int destQp, int psn, boolean ackRequest, int length, String detail,
                          List<Fault> faults, byte[] bytes) {

    /** Which way the packet went. */
    public enum Direction { SENT, RECEIVED, DROPPED }

    /**
     * One injected fault that hit a packet.
     *
     * @param kind what it did
     * @param oneShot true for a one-shot fault ({@link OneShotFault}), false for a random draw
     *     ({@link FaultSettings})
     * @param detail what exactly, in a few words ("bit 3 of byte 40 flipped", "2ms"), or empty
     */
    public record Fault(FaultKind kind, boolean oneShot, String detail) {
        public Fault {
            Objects.requireNonNull(kind, "kind");
            detail = detail == null ? "" : detail;
        }

        /** "drop", "corrupt (one-shot): bit 3 of byte 40 flipped". */
        @Override
        public String toString() {
            return kind.specKey() + (oneShot ? " (one-shot)" : "") + (detail.isEmpty() ? "" : ": " + detail);
        }
    }

    public PacketEvent {
        faults = faults == null ? List.of() : List.copyOf(faults);
    }

    /** An event without faults and without the packet's bytes. */
    public PacketEvent(long timestampNanos, Direction direction, String source, String destination, String opcode,
                       int destQp, int psn, boolean ackRequest, int length, String detail) {
        this(timestampNanos, direction, source, destination, opcode, destQp, psn, ackRequest, length, detail, List.of(),
                null);
    }

    /** True when an injected fault hit this packet. */
    public boolean faulted() {
        return !faults.isEmpty();
    }
}
