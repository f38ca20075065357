package org.rdmalab.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.rdmalab.testing.Ports;
import picocli.CommandLine;

/**
 * The {@code bench} command: usage errors in one line with exit 2, and short smoke runs on two
 * software devices that print perftest's columns with positive figures (never a speed).
 */
@Timeout(120)
class BenchCommandTest {

    private record Result(int exitCode, String out, String err) {
    }

    private static Result execute(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine commandLine = Main.commandLine();
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(err, true));
        int code = commandLine.execute(args);
        return new Result(code, out.toString(), err.toString());
    }

    private static String[] withPorts(String... args) {
        List<String> all = new java.util.ArrayList<>(List.of(args));
        all.addAll(List.of("--udp-port", String.valueOf(Ports.freeUdpPort()), "--baseline-port",
                String.valueOf(Ports.freeUdpPort())));
        return all.toArray(String[]::new);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "write|say what to measure: --bw (bandwidth) or --lat (latency)",
        "write --bw --lat|give --bw or --lat, not both",
        "copy --bw|unknown test 'copy'; choose one of send, write, read, atomic",
        "write --bw -s 0|-s 0: the message size must be 1..8388608 bytes",
        "write --bw -s 16M|-s 16M: the message size must be 1..8388608 bytes",
        "write --bw -s big|-s 'big' is not a byte count",
        "atomic --bw -s 16|-s 16: atomic operations move 8 bytes",
        "write --bw -a -s 8|give -a or -s, not both",
        "write --bw -n 2|-n 2: iterations must be 5..10000000",
        "write --bw -n 10 -D 5|give one of them",
        "write --bw -m 1000|-m 1000 is not one of 256, 512, 1024, 2048, 4096",
        "write --bw -t 0|-t 0: the TX depth must be 1..16384",
        "write --bw --loopback 10.0.0.1|--loopback runs both sides here",
        "write --bw 10.0.0.300|'10.0.0.300' is not an IPv4 address",
        "write --bw -p 70000|-p 70000 is outside 1..65535",
        "write --bw --perftest --loopback|--perftest talks to a perftest program over TCP; drop --loopback",
        "write --lat --perftest --baseline 127.0.0.1|--baseline needs RDMA Lab on both sides",
        "write --lat --run_infinitely|--run_infinitely is for bandwidth tests (--bw)",
        "write --bw --run_infinitely -a|--run_infinitely runs one size until stopped; give -s N, not -a",
        "write --bw --run_infinitely -n 100|drop -n (-D sets how often a row is printed)",
        "write --bw --run_infinitely --baseline|drop --baseline",
        "send --bw --run_infinitely -b --perftest 127.0.0.1|ib_send_bw does not run -b with --run_infinitely",
        "write --bw -D 3 --perftest 127.0.0.1|--perftest runs -n iterations (-D is only --run_infinitely's",
        "write --lat -b|-b is for bandwidth tests (--bw)",
        "write --lat -q 2|-q is for bandwidth tests (--bw)",
        "write --bw -q 0|-q 0: the number of QPs must be 1..64",
    })
    void badInputIsOneLineAndExitTwo(String args, String message) {
        Result result = execute(("bench " + args).split(" "));
        assertEquals(2, result.exitCode(), result.err());
        assertEquals(1, result.err().lines().count(), result.err());
        assertTrue(result.err().contains(message), result.err());
        assertFalse(result.err().contains("\tat "), "no stack trace");
    }

    @Test
    void anUnknownDeviceSaysWhichExist() {
        Result result = execute(withPorts("bench", "write", "--bw", "--loopback", "-d", "nosuch0", "-n", "10"));
        assertEquals(1, result.exitCode(), result.err());
        assertEquals(1, result.err().lines().count(), result.err());
        assertTrue(result.err().contains("no device named 'nosuch0'"), result.err());
    }

    @Test
    void writeBandwidthWithBaselinePrintsBothTablesAndTheRatio() {
        Result result = execute(withPorts("bench", "write", "--bw", "--loopback", "-s", "4096", "-n", "200",
                "--baseline"));
        assertEquals(0, result.exitCode(), result.err());
        List<String> lines = result.out().lines().toList();
        assertTrue(lines.contains("                    RDMA_Write BW Test"), result.out());
        String head = " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]";
        assertEquals(2, lines.stream().filter(head::equals).count(), "an RDMA table and a baseline table:\n"
                + result.out());
        List<String[]> rows = lines.stream().filter(line -> line.startsWith(" 4096 "))
                .map(line -> line.trim().split("\\s+")).toList();
        assertEquals(2, rows.size(), result.out());
        for (String[] row : rows) {
            assertEquals("200", row[1]);
            assertTrue(Double.parseDouble(row[2]) > 0 && Double.parseDouble(row[3]) > 0
                    && Double.parseDouble(row[4]) > 0, String.join(" ", row));
        }
        assertTrue(lines.stream().anyMatch(line -> line.startsWith(" baseline: plain UDP datagrams")), result.out());
        String ratio = lines.stream().filter(line -> line.startsWith("ratio: ")).findFirst().orElseThrow();
        // The ratio is the RDMA average over the baseline's, both as printed (two decimals each).
        double rdmaAverage = Double.parseDouble(rows.get(0)[3]);
        double udpAverage = Double.parseDouble(rows.get(1)[3]);
        assertEquals(rdmaAverage / udpAverage, Double.parseDouble(ratio.substring("ratio: ".length())),
                0.006 + 0.01 * rdmaAverage / udpAverage, ratio);
    }

    @Test
    void writeLatencyPrintsPerftestsLatencyColumns() {
        Result result = execute(withPorts("bench", "write", "--lat", "--loopback", "-s", "8", "-n", "200"));
        assertEquals(0, result.exitCode(), result.err());
        assertTrue(result.out().contains(" #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]"
                + "    t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec]"), result.out());
        String[] row = result.out().lines().filter(line -> line.startsWith(" 8 ")).findFirst().orElseThrow()
                .trim().split("\\s+");
        assertEquals(9, row.length);
        assertEquals("200", row[1]);
        for (int i = 2; i < row.length; i++) {
            assertTrue(Double.parseDouble(row[i]) > 0, String.join(" ", row));
        }
        assertFalse(result.out().contains("ratio:"), "no baseline asked for");
    }

    @Test
    void jsonUsesPerftestKeys() {
        Result result = execute(withPorts("bench", "read", "--bw", "--loopback", "-s", "1024", "-n", "100",
                "--json"));
        assertEquals(0, result.exitCode(), result.err());
        for (String key : List.of("\"test_info\"", "\"test\": \"RDMA_Read_BW_Test\"", "\"results\"",
                "\"MsgSize\": 1024", "\"n_iterations\": 100", "\"BW_peak\"", "\"BW_average\"", "\"MsgRate\"")) {
            assertTrue(result.out().contains(key), key + "\n" + result.out());
        }
        assertTrue(result.out().trim().startsWith("{") && result.out().trim().endsWith("}"), "JSON only");
    }
}
