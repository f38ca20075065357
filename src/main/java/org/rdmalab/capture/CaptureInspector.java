package org.rdmalab.capture;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.rdmalab.wire.Icrc;
import org.rdmalab.wire.MalformedPacketException;
import org.rdmalab.wire.RocePacket;

/**
 * Lists the RoCEv2 packets of a capture, one line each, and checks every ICRC against the IP and
 * UDP headers in the file (rocev2.md "ICRC"):
 *
 * <pre>
 * 1 10.0.0.1:49152 -> 10.0.0.2:4791 RC_SEND_ONLY qp 0x000011 psn 0 ackreq payload 5 ICRC ok
 * 2 10.0.0.2:49152 -> 10.0.0.1:4791 RC_ACKNOWLEDGE qp 0x000012 psn 0 AETH ACK msn 1 ICRC bad (got 0x12345678, want 0x9abcdef0)
 * 3 10.0.0.1:49152 -> 10.0.0.2:4791 malformed: unknown opcode 0x15
 * 3 RoCEv2 packets: 1 ICRC ok, 1 ICRC bad, 1 malformed
 * </pre>
 *
 * The first number is the frame number, as Wireshark shows it. Stateless and thread-safe.
 */
public final class CaptureInspector {

    /**
     * What an inspection found.
     *
     * @param packets RoCEv2 datagrams (UDP port 4791)
     * @param icrcOk packets whose ICRC verified
     * @param icrcBad packets whose ICRC did not
     * @param malformed packets that did not decode, or were cut short in the file
     * @param otherFrames frames that were not RoCEv2
     * @param error a problem that stopped reading part way (a truncated file), or null
     */
    public record Result(long packets, long icrcOk, long icrcBad, long malformed, long otherFrames, String error) {

        /** Every packet decoded and verified, and the whole file was read. */
        public boolean allOk() {
            return icrcBad == 0 && malformed == 0 && error == null;
        }

        /** {@code 3 RoCEv2 packets: 1 ICRC ok, 1 ICRC bad, 1 malformed}. */
        public String totalLine() {
            String line = packets + " RoCEv2 packet" + (packets == 1 ? "" : "s") + ": " + icrcOk + " ICRC ok, "
                    + icrcBad + " ICRC bad, " + malformed + " malformed";
            if (otherFrames > 0) {
                line += " (" + otherFrames + " other frame" + (otherFrames == 1 ? "" : "s") + " skipped)";
            }
            return line;
        }
    }

    private CaptureInspector() {
    }

    /** The lines for every packet followed by the total line. */
    public static List<String> inspect(Path path) throws IOException {
        List<String> lines = new ArrayList<>();
        Result result = inspect(path, lines::add);
        lines.add(result.totalLine());
        return lines;
    }

    /**
     * Streams one line per RoCEv2 packet to {@code out} (not the total line; see
     * {@link Result#totalLine()}). A file that ends inside a frame gives a final line
     * {@code error: ...} and {@link Result#error()}.
     *
     * @throws IOException when the file cannot be opened or is not a classic pcap file
     */
    public static Result inspect(Path path, Consumer<String> out) throws IOException {
        return inspect(path, org.rdmalab.wire.UdpPorts.ROCE_V2, out);
    }

    /**
     * As {@link #inspect(Path, Consumer)}, taking the datagrams to UDP port {@code udpPort} as RoCE v2
     * (a capture of software devices on another port than 4791).
     */
    public static Result inspect(Path path, int udpPort, Consumer<String> out) throws IOException {
        long packets = 0;
        long ok = 0;
        long bad = 0;
        long malformed = 0;
        String error = null;
        try (PcapReader reader = PcapReader.open(path).udpPort(udpPort)) {
            while (true) {
                PcapReader.Datagram datagram;
                try {
                    datagram = reader.next();
                } catch (IOException e) {
                    error = e.getMessage();
                    out.accept("error: " + error);
                    break;
                }
                if (datagram == null) {
                    break;
                }
                packets++;
                String prefix = datagram.frameNumber() + " " + datagram.source() + " -> " + datagram.destination()
                        + " ";
                if (!datagram.complete()) {
                    malformed++;
                    out.accept(prefix + "truncated in the capture: " + datagram.capturedPayloadLength() + " of "
                            + datagram.payloadLength() + " bytes, ICRC not checked");
                    continue;
                }
                byte[] frame = datagram.frame();
                RocePacket packet;
                try {
                    packet = RocePacket.decode(frame, datagram.payloadOffset(), datagram.payloadLength());
                } catch (MalformedPacketException e) {
                    malformed++;
                    out.accept(prefix + "malformed: " + e.getMessage());
                    continue;
                }
                int want = Icrc.compute(frame, datagram.ipOffset(), datagram.ipHeaderLength(), frame,
                        datagram.udpOffset(), frame, datagram.payloadOffset(), packet.lengthWithoutIcrc());
                if (want == packet.icrc()) {
                    ok++;
                    out.accept(prefix + packet.summary() + " ICRC ok");
                } else {
                    bad++;
                    out.accept(prefix + packet.summary()
                            + String.format(" ICRC bad (got 0x%08x, want 0x%08x)", packet.icrc(), want));
                }
            }
            return new Result(packets, ok, bad, malformed, reader.skipped(), error);
        }
    }
}
