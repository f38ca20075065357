package org.rdmalab.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.rdmalab.capture.CaptureInspector;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code pcap}: tools for packet captures; {@code pcap inspect FILE} lists RoCEv2 packets and checks ICRCs. */
@Command(name = "pcap", mixinStandardHelpOptions = true,
        description = "Packet capture tools.",
        subcommands = PcapCommand.Inspect.class)
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
}
