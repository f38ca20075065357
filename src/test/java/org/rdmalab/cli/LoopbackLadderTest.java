package org.rdmalab.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.rdmalab.capture.PcapReader;
import org.rdmalab.testing.Ports;
import org.rdmalab.wire.Aeth;
import org.rdmalab.wire.RocePacket;

/** {@code loopback --ladder}: the scenario's packets as a ladder, checked against the capture they came from. */
@Timeout(120)
class LoopbackLadderTest {

    private record Result(int exitCode, String out, String err) {
    }

    private static Result execute(String... args) {
        CliRunner.Result result = CliRunner.run(args);
        return new Result(result.exitCode(), result.out(), result.err());
    }

    @Test
    void aBadRkeyShowsItsNakOnTheLadder() {
        int port = Ports.freeUdpPort();
        Result result = execute("loopback", "--scenario", "bad-rkey", "--ladder", "--udp-port", Integer.toString(port));
        assertEquals(0, result.exitCode(), result.out() + result.err());
        String out = result.out();
        int ladder = out.indexOf("\nladder:\n");
        assertTrue(ladder > 0, out);
        String lines = out.substring(ladder);
        assertTrue(lines.matches("(?s).*127\\.0\\.0\\.2 -> 127\\.0\\.0\\.1  RC_RDMA_WRITE_ONLY psn \\d+ qp 0x[0-9a-f]+ AckReq.*"),
                lines);
        assertTrue(lines.matches("(?s).*127\\.0\\.0\\.2 <- 127\\.0\\.0\\.1  RC_ACKNOWLEDGE psn \\d+ qp 0x[0-9a-f]+"
                + " NAK remote access error msn \\d+  msg 1\n.*"), lines);
        assertTrue(lines.contains("\nNAKs: 1 (NAK remote access error: 1)\n"), lines);
        assertTrue(lines.contains("\nretransmitted packets: 0, duplicates: 0,"), lines);
    }

    @Test
    void softwareOnly() {
        Result result = execute("loopback", "--device", "rxe0", "--ladder");
        assertEquals(2, result.exitCode());
        assertTrue(result.err().contains("--ladder only work on soft0"), result.err());
    }

    /**
     * A bulk WRITE and READ under 5 % loss, captured: the ladder's retransmissions and NAKs agree
     * with a count taken here from the capture (request PSNs repeated per source and destination QP,
     * READ requests asking again inside an earlier READ's range; AETH NAK syndromes), and every ICRC
     * of the saved capture checks out in {@code pcap inspect}.
     */
    @Test
    void underLossTheCountsAgreeWithTheCapture(@TempDir Path dir) throws Exception {
        int port = Ports.freeUdpPort();
        Path pcap = dir.resolve("bulk.pcap");
        Result result = execute("loopback", "--scenario", "bulk", "--size", "128K", "--mtu", "1024", "--fault",
                "drop=0.05,seed=11", "--ladder", "--pcap", pcap.toString(), "--udp-port", Integer.toString(port));
        assertEquals(0, result.exitCode(), result.out() + result.err());
        Matcher retransmitted = Pattern.compile("\nretransmitted packets: (\\d+), ").matcher(result.out());
        assertTrue(retransmitted.find(), result.out());
        Matcher naks = Pattern.compile("\nNAKs: (\\d+)").matcher(result.out());
        assertTrue(naks.find(), result.out());

        int repeats = 0;
        int nakCount = 0;
        Map<String, Set<Integer>> sent = new HashMap<>();
        Map<String, List<long[]>> reads = new HashMap<>(); // flow → {psn, va, length, rkey}
        try (PcapReader reader = PcapReader.open(pcap).udpPort(port)) {
            for (PcapReader.Datagram datagram = reader.next(); datagram != null; datagram = reader.next()) {
                RocePacket packet = RocePacket.decode(datagram.frame(), datagram.payloadOffset(), datagram.payloadLength());
                if (packet.opcode().isAcknowledge() && !Aeth.isAck(packet.aethSyndrome())) {
                    nakCount++;
                }
                if (!packet.opcode().isRequest()) {
                    continue;
                }
                String flow = datagram.source() + ">" + datagram.destination() + "/" + packet.destQp();
                boolean again = !sent.computeIfAbsent(flow, key -> new HashSet<>()).add(packet.psn());
                if (!again && packet.opcode().isReadRequest()) {
                    for (long[] read : reads.getOrDefault(flow, List.of())) {
                        long va = packet.reth().virtualAddress();
                        if (read[3] == packet.reth().rkey() && va > read[1] && va < read[1] + read[2]
                                && packet.psn() > read[0]) {
                            again = true;
                            break;
                        }
                    }
                }
                if (packet.opcode().isReadRequest() && !again) {
                    reads.computeIfAbsent(flow, key -> new ArrayList<>()).add(new long[] {packet.psn(),
                            packet.reth().virtualAddress(), packet.reth().dmaLengthUnsigned(), packet.reth().rkey()});
                }
                if (again) {
                    repeats++;
                }
            }
        }
        assertTrue(repeats > 0, "5 % loss over 256 packets made the requester send again");
        assertTrue(nakCount > 0, "and the responder saw a gap");
        assertEquals(repeats, Integer.parseInt(retransmitted.group(1)), result.out());
        assertEquals(nakCount, Integer.parseInt(naks.group(1)), result.out());

        Result inspect = execute("pcap", "inspect", pcap.toString());
        assertTrue(inspect.out().contains(" 0 ICRC bad, 0 malformed"), inspect.out());
    }
}
