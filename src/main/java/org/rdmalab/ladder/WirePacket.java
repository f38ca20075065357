package org.rdmalab.ladder;

import java.util.List;
import java.util.Objects;

/**
 * One packet as something saw it, before the ladder links it to the others: a capture's frame, or
 * a software device's report of a packet it sent, received or dropped.
 *
 * @param timeNanos when, in nanoseconds (a capture's epoch time or a device's clock; only
 *     differences matter)
 * @param source sender as "ip:port" ("[v6]:port" for IPv6)
 * @param destination receiver as "ip:port"
 * @param bytes the UDP payload, BTH to ICRC; not modified by the ladder
 * @param seen how it was seen
 * @param icrcOk whether the ICRC matches the packet (false for a corrupted one)
 * @param dropReason why a device dropped it ({@link Seen#DROPPED}), else null
 * @param faults the injected faults that hit it ("drop", "dup", "corrupt: bit 3 of byte 40 flipped"),
 *     empty for most packets
 */
public record WirePacket(long timeNanos, String source, String destination, byte[] bytes, Seen seen, boolean icrcOk,
                         String dropReason, List<String> faults) {

    /** How a packet was seen. */
    public enum Seen {
        /** On the wire, by a capture: it went from source to destination. */
        CAPTURED,
        /** By the device that sent it. */
        SENT,
        /** By the device that received and accepted it. */
        RECEIVED,
        /** By a device that dropped it: on its way out (an injected fault, a full socket) or on arrival. */
        DROPPED
    }

    public WirePacket {
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(destination, "destination");
        Objects.requireNonNull(bytes, "bytes");
        Objects.requireNonNull(seen, "seen");
        faults = faults == null ? List.of() : List.copyOf(faults);
    }

    /** A packet a capture holds. */
    public static WirePacket captured(long timeNanos, String source, String destination, byte[] bytes, boolean icrcOk) {
        return new WirePacket(timeNanos, source, destination, bytes, Seen.CAPTURED, icrcOk, null, List.of());
    }

    /** The host part of an "ip:port" endpoint. */
    static String host(String endpoint) {
        int colon = endpoint.lastIndexOf(':');
        return colon < 0 ? endpoint : endpoint.substring(0, colon);
    }
}
