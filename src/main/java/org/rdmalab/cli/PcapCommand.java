package org.rdmalab.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.rdmalab.capture.CaptureInspector;
import org.rdmalab.ladder.CaptureLadder;
import org.rdmalab.ladder.LadderText;
import org.rdmalab.text.Json;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code pcap}: tools for packet captures; {@code pcap inspect FILE} lists RoCEv2 packets and checks
 * ICRCs, {@code pcap ladder FILE} prints them as a ladder.
 */
@Command(name = "pcap", mixinStandardHelpOptions = true,
        description = "Packet capture tools.",
        subcommands = {PcapCommand.Inspect.class, PcapCommand.LadderCommand.class})
final class PcapCommand {

    /** {@code pcap inspect FILE}. */
    @Command(name = "inspect", mixinStandardHelpOptions = true,
            description = {
                "Lists the RoCEv2 packets (UDP port 4791) of a pcap or pcapng file, one line each, and verifies",
                "each ICRC against the IP and UDP headers in the file.",
                "Exit 0 when every ICRC is ok, 1 when one is bad, a packet is malformed or the file cannot be read."
            })
    static final class Inspect implements Callable<Integer> {

        @Spec
        CommandSpec spec;

        @Parameters(paramLabel = "FILE", description = "Capture file (pcap or pcapng, as tcpdump, dumpcap or Wireshark write).")
        Path file;

        @Override
        public Integer call() throws IOException {
            PrintWriter out = spec.commandLine().getOut();
            CaptureInspector.Result result = CaptureInspector.inspect(file, out::println);
            out.println(result.totalLine());
            out.flush();
            return result.allOk() ? 0 : 1;
        }
    }

    /** {@code pcap ladder FILE [--json]}. */
    @Command(name = "ladder", mixinStandardHelpOptions = true,
            description = {
                "Prints a pcap or pcapng file's RoCEv2 packets as a ladder: one line per packet (time, the two hosts",
                "and the direction, opcode, PSN, the AETH of an ACK or NAK, its message, and the retransmission,",
                "duplicate and ICRC marks), then a summary (messages, retransmitted packets, NAKs by code).",
                "The messages are inferred from the opcodes and PSNs. Exit 0, or 2 when the file cannot be read."
            })
    static final class LadderCommand implements Callable<Integer> {

        @Spec
        CommandSpec spec;

        @Parameters(paramLabel = "FILE", description = "Capture file (pcap or pcapng, as tcpdump, dumpcap or Wireshark write).")
        Path file;

        @Option(names = "--json", description = "One JSON object per packet (an array): time, src, dst, opcode, qpn, psn, "
                + "icrc_ok, retransmission, message, and aeth {syndrome, msn} for an ACK or NAK.")
        boolean json;

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            PrintWriter err = spec.commandLine().getErr();
            CaptureLadder.Result result;
            try {
                result = CaptureLadder.read(file);
            } catch (IOException e) {
                err.println("rdma-lab: " + e.getMessage());
                err.flush();
                return 2;
            }
            if (json) {
                out.println(Json.write(LadderText.json(result.ladder())));
            } else {
                LadderText.lines(result.ladder()).forEach(out::println);
                if (result.truncated() > 0) {
                    out.println("left out: " + result.truncated() + " packets the capture cut short");
                }
            }
            out.flush();
            if (result.error() != null) {
                err.println("rdma-lab: " + result.error());
                err.flush();
                return 2;
            }
            return 0;
        }
    }
}
