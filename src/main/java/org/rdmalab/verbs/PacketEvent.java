package org.rdmalab.verbs;

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
 */
public record PacketEvent(long timestampNanos, Direction direction, String source, String destination,
                          String opcode, int destQp, int psn, boolean ackRequest, int length, String detail) {

    /** Which way the packet went. */
    public enum Direction { SENT, RECEIVED, DROPPED }
}
