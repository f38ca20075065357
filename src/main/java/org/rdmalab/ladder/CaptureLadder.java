package org.rdmalab.ladder;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import org.rdmalab.capture.PcapReader;
import org.rdmalab.wire.Icrc;
import org.rdmalab.wire.MalformedPacketException;
import org.rdmalab.wire.RocePacket;

/**
 * A capture read into a ladder: every RoCE v2 packet of a pcap or pcapng file (tcpdump, dumpcap,
 * Wireshark or RDMA Lab's own; Ethernet, raw IP or Linux cooked), each ICRC checked against the IP
 * and UDP headers in the file. The ladder keeps every packet; its messages are inferred.
 */
public final class CaptureLadder {

    /**
     * What was read.
     *
     * @param ladder the packets as a ladder
     * @param truncated packets the capture cut short (left out: their ICRC cannot be checked)
     * @param error why reading stopped before the end of the file (a frame cut off), or null
     */
    public record Result(Ladder ladder, long truncated, String error) {
    }

    private CaptureLadder() {
    }

    /**
     * Reads {@code path}.
     *
     * @throws IOException when it cannot be opened or is not a pcap or pcapng file
     */
    public static Result read(Path path) throws IOException {
        return read(path, org.rdmalab.wire.UdpPorts.ROCE_V2);
    }

    /**
     * Reads {@code path}, taking the datagrams to UDP port {@code udpPort} as RoCE v2.
     *
     * @throws IOException when it cannot be opened or is not a pcap or pcapng file
     */
    public static Result read(Path path, int udpPort) throws IOException {
        Ladder ladder = Ladder.unbounded();
        long truncated = 0;
        String error = null;
        RocePacket decoder = RocePacket.reusable();
        try (PcapReader reader = PcapReader.open(path).udpPort(udpPort)) {
            while (true) {
                PcapReader.Datagram datagram;
                try {
                    datagram = reader.next();
                } catch (IOException e) {
                    error = e.getMessage();
                    break;
                }
                if (datagram == null) {
                    break;
                }
                if (!datagram.complete()) {
                    truncated++;
                    continue;
                }
                byte[] frame = datagram.frame();
                boolean icrcOk;
                try {
                    RocePacket packet = decoder.decodeFrom(frame, datagram.payloadOffset(), datagram.payloadLength());
                    int want = Icrc.compute(frame, datagram.ipOffset(), datagram.ipHeaderLength(), frame,
                            datagram.udpOffset(), frame, datagram.payloadOffset(), packet.lengthWithoutIcrc());
                    icrcOk = want == packet.icrc();
                } catch (MalformedPacketException e) {
                    icrcOk = false;
                }
                byte[] payload = Arrays.copyOfRange(frame, datagram.payloadOffset(),
                        datagram.payloadOffset() + datagram.payloadLength());
                ladder.add(WirePacket.captured(datagram.timestampNanos(), datagram.source(), datagram.destination(),
                        payload, icrcOk));
            }
        }
        return new Result(ladder, truncated, error);
    }
}
