package org.rdmalab.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.rdmalab.control.ConnectionData;
import org.rdmalab.verbs.Gid;
import org.rdmalab.verbs.LinkLayer;
import org.rdmalab.verbs.Mtu;
import org.rdmalab.verbs.QpType;

/** perftest's table heads, rows under their columns, the header block, ratio lines and JSON keys. */
class BenchFormatTest {

    private static final BenchSettings BW = BenchSettings.defaults(BenchTest.WRITE, BenchMode.BW);
    private static final BenchSettings LAT = BenchSettings.defaults(BenchTest.WRITE, BenchMode.LAT);

    private static BenchRow bwRow(BenchRow.Path path, int bytes, double averageBytesPerSecond) {
        return new BenchRow(path, bytes, new BandwidthStats(bytes, 5000, 2 * averageBytesPerSecond,
                averageBytesPerSecond, averageBytesPerSecond / bytes, 1_000_000), null, null, 0);
    }

    private static BenchRow latRow(BenchRow.Path path, long... micros) {
        long[] nanos = new long[micros.length];
        for (int i = 0; i < micros.length; i++) {
            nanos[i] = micros[i] * 1000;
        }
        return new BenchRow(path, 8, null, LatencyStats.of(8, micros.length, nanos, micros.length, 2), null, 0);
    }

    private static BenchInfo info(BenchSettings settings) {
        Gid server = Gid.parse("::ffff:127.0.0.1");
        Gid client = Gid.parse("::ffff:127.0.0.2");
        ConnectionData local = new ConnectionData(QpType.RC, 0x11, 0x123456, 0, client, 0x7f0000001000L, 0x13c, 4096,
                Mtu.MTU_1024);
        ConnectionData remote = new ConnectionData(QpType.RC, 0x12, 0xabcdef, 0, server, 0x7f0000002000L, 0x13d, 4096,
                Mtu.MTU_1024);
        return new BenchInfo(settings, "soft0", "software", LinkLayer.ETHERNET, Mtu.MTU_1024, 3, 0, 16, local, remote,
                "in process");
    }

    /** With -q, perftest prints an address line and a GID line per QP: this side's QPs, then the peer's. */
    @Test
    void theHeaderListsEveryQpOfBothSides() {
        BenchInfo one = info(BW.withQps(2));
        ConnectionData second = new ConnectionData(QpType.RC, 0x13, 0x000001, 0, one.local().gid(), 0x7f0000001000L,
                0x13c, 4096, Mtu.MTU_1024);
        ConnectionData peerSecond = new ConnectionData(QpType.RC, 0x14, 0x000002, 0, one.remote().gid(),
                0x7f0000002000L, 0x13d, 4096, Mtu.MTU_1024);
        BenchInfo two = new BenchInfo(one.settings(), "soft0", "software", LinkLayer.ETHERNET, Mtu.MTU_1024, 3, 0, 16,
                "Ethernet", List.of(one.local(), second), List.of(one.remote(), peerSecond));
        List<String> addresses = BenchFormat.header(two).stream().filter(line -> line.contains(" address: ")).toList();
        assertEquals(4, addresses.size(), addresses.toString());
        assertTrue(addresses.get(0).startsWith(" local address: LID 0000 QPN 0x0011"), addresses.toString());
        assertTrue(addresses.get(1).startsWith(" local address: LID 0000 QPN 0x0013"), addresses.toString());
        assertTrue(addresses.get(2).startsWith(" remote address: LID 0000 QPN 0x0012"), addresses.toString());
        assertTrue(addresses.get(3).startsWith(" remote address: LID 0000 QPN 0x0014"), addresses.toString());
        assertEquals(second, two.locals().get(1));
        assertEquals(one.local(), two.local(), "the first QP's is the header's and the JSON's");
    }

    @Test
    void tableHeadsAreThoseOfPerftest() {
        assertEquals(" #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]",
                BenchFormat.tableHead(BW));
        assertEquals(" #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]",
                BenchFormat.tableHead(BW.withReportGbits(true)));
        assertEquals(" #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]"
                + "    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec]", BenchFormat.tableHead(LAT));
    }

    @Test
    void eachBandwidthFigureStartsUnderItsColumn() {
        String head = BenchFormat.tableHead(BW);
        String row = BenchFormat.row(bwRow(BenchRow.Path.RDMA, 65536, 100 * BandwidthStats.MEBIBYTE), false);
        assertColumns(head, row, List.of("#bytes", "#iterations", "BW peak", "BW average", "MsgRate"));
        assertTrue(row.startsWith(" 65536      5000           200.00             100.00               0.001600"), row);
    }

    @Test
    void eachLatencyFigureStartsUnderItsColumn() {
        String head = BenchFormat.tableHead(LAT);
        String row = BenchFormat.row(latRow(BenchRow.Path.RDMA, 10, 20, 30, 40, 50), false);
        assertColumns(head, row, List.of("#bytes", "#iterations", "t_min", "t_max", "t_typical", "t_avg", "t_stdev",
                "99%", "99.9%"));
        String[] values = row.trim().split("\\s+");
        assertEquals(List.of("8", "5", "5.00", "20.00", "10.00", "10.00", "4.08", "20.00", "20.00"), List.of(values));
    }

    /** -a ends at 8388608 bytes: seven digits still leave a space before the iterations, as perftest's format does. */
    @Test
    void theLargestLatencySizeStaysApartFromItsIterations() {
        long[] nanos = {10_000, 20_000, 30_000, 40_000, 50_000};
        BenchRow row = new BenchRow(BenchRow.Path.RDMA, BenchSettings.MAX_SIZE, null,
                LatencyStats.of(BenchSettings.MAX_SIZE, 1000, nanos, nanos.length, 2), null, 0);
        assertEquals(List.of("8388608", "1000"),
                List.of(BenchFormat.row(row, false).trim().split("\\s+")).subList(0, 2));
    }

    @Test
    void columnsAndCellsAreTheTableSplitOnePerFigure() {
        for (BenchSettings settings : List.of(BW, BW.withReportGbits(true), LAT)) {
            List<String> columns = BenchFormat.columns(settings);
            String head = BenchFormat.tableHead(settings);
            assertEquals(head.replace(" ", ""), String.join("", columns).replace(" ", ""), head);
            int from = 0;
            for (String column : columns) {
                int at = head.indexOf(column, from);
                assertTrue(at >= from, () -> column + " in " + head);
                from = at + column.length();
            }
        }
        assertEquals("BW average[Gb/sec]", BenchFormat.columns(BW.withReportGbits(true)).get(3));
        for (BenchRow row : List.of(bwRow(BenchRow.Path.RDMA, 65536, 100 * BandwidthStats.MEBIBYTE),
                latRow(BenchRow.Path.BASELINE, 10, 20, 30, 40, 50))) {
            for (boolean gbits : new boolean[] {false, true}) {
                List<String> cells = BenchFormat.cells(row, gbits);
                assertEquals(List.of(BenchFormat.row(row, gbits).trim().split("\\s+")), cells);
            }
        }
        assertEquals(5, BenchFormat.cells(bwRow(BenchRow.Path.RDMA, 2, 1), false).size());
        assertEquals(9, BenchFormat.cells(latRow(BenchRow.Path.RDMA, 1, 2, 3), false).size());
    }

    private static void assertColumns(String head, String row, List<String> labels) {
        for (String label : labels) {
            int column = head.indexOf(label);
            assertTrue(column >= 0, label);
            assertTrue(row.charAt(column) != ' ' && row.charAt(column - 1) == ' ',
                    "a figure starts under '" + label + "' at column " + column + ":\n" + head + "\n" + row);
        }
    }

    @Test
    void headerNamesTheTestTheDeviceAndBothSidesAsPerftestDoes() {
        List<String> header = BenchFormat.header(info(BW));
        assertTrue(header.contains("                    RDMA_Write BW Test"), String.join("\n", header));
        assertTrue(header.stream().anyMatch(line -> line.contains("Device         : soft0")));
        assertTrue(header.contains(" TX depth        : 128"));
        assertTrue(header.contains(" Mtu             : 1024[B]"));
        assertTrue(header.contains(" Link type       : Ethernet"));
        assertTrue(header.contains(" GID index       : 3"));
        assertTrue(header.contains(" local address: LID 0000 QPN 0x0011 PSN 0x123456 RKey 0x0000013c"
                + " VAddr 0x00007f0000001000"), String.join("\n", header));
        assertTrue(header.contains(" GID: 00:00:00:00:00:00:00:00:00:00:255:255:127:00:00:02"));
        assertTrue(header.contains(" remote address: LID 0000 QPN 0x0012 PSN 0xabcdef RKey 0x0000013d"
                + " VAddr 0x00007f0000002000"));
        List<String> read = BenchFormat.header(info(BenchSettings.defaults(BenchTest.READ, BenchMode.LAT)));
        assertTrue(read.contains("                    RDMA_Read Latency Test"));
        assertTrue(read.contains(" Outstand reads  : 16"), String.join("\n", read));
    }

    @Test
    void theRatioIsSoftwareOverBaseline() {
        BenchReport report = new BenchReport(info(BW), List.of(bwRow(BenchRow.Path.RDMA, 65536, 100),
                bwRow(BenchRow.Path.BASELINE, 65536, 400)), false);
        assertEquals(List.of("ratio: 0.25"), BenchFormat.ratioLines(report));
        BenchReport latency = new BenchReport(info(LAT), List.of(latRow(BenchRow.Path.RDMA, 30, 30, 30, 90, 90),
                latRow(BenchRow.Path.BASELINE, 10, 10, 10, 90, 90)), false);
        assertEquals(List.of("ratio: 3.00"), BenchFormat.ratioLines(latency));
        BenchReport sweep = new BenchReport(info(BW), List.of(bwRow(BenchRow.Path.RDMA, 2, 1),
                bwRow(BenchRow.Path.BASELINE, 2, 2), bwRow(BenchRow.Path.RDMA, 4, 3), bwRow(BenchRow.Path.BASELINE, 4, 4)),
                false);
        assertEquals(List.of("ratio: 0.50 (2 bytes)", "ratio: 0.75 (4 bytes)"), BenchFormat.ratioLines(sweep));
        assertEquals(List.of(), BenchFormat.ratioLines(new BenchReport(info(BW),
                List.of(bwRow(BenchRow.Path.RDMA, 65536, 100)), false)));
    }

    @Test
    void jsonUsesPerftestKeys() {
        BenchReport report = new BenchReport(info(BW), List.of(bwRow(BenchRow.Path.RDMA, 65536, 100),
                bwRow(BenchRow.Path.BASELINE, 65536, 400)), false);
        Map<String, Object> json = BenchJson.of(report, false);
        Map<?, ?> testInfo = (Map<?, ?>) json.get("test_info");
        assertEquals("RDMA_Write_BW_Test", testInfo.get("test"));
        assertEquals("soft0", testInfo.get("Device"));
        assertEquals(128, testInfo.get("TX_depth"));
        assertEquals(1024, testInfo.get("Mtu"));
        Map<?, ?> results = (Map<?, ?>) json.get("results");
        assertEquals(List.of("MsgSize", "n_iterations", "BW_peak", "BW_average", "MsgRate"),
                List.copyOf(results.keySet()));
        assertEquals(65536, results.get("MsgSize"));
        assertEquals(0.25, json.get("ratio"));
        Map<?, ?> baseline = (Map<?, ?>) json.get("baseline");
        assertTrue(baseline.containsKey("BW_average"));

        BenchReport latency = new BenchReport(info(LAT), List.of(latRow(BenchRow.Path.RDMA, 10, 20, 30, 40, 50)),
                false);
        Map<?, ?> lat = (Map<?, ?>) BenchJson.of(latency, false).get("results");
        assertEquals(List.of("MsgSize", "n_iterations", "t_min", "t_max", "t_typical", "t_avg", "t_stdev",
                "percentile_99", "percentile_99.9"), List.copyOf(lat.keySet()));
        assertEquals(10.0, lat.get("t_typical"));
    }

    @Test
    void theHeaderSaysCqModerationForBandwidthInlineDataForOneWayAndTheDurationOfATimedRun() {
        List<String> bw = BenchFormat.header(info(BW));
        assertTrue(bw.contains(" CQ Moderation   : 100"), String.join("\n", bw));
        assertTrue(bw.contains(" Max inline data : 0[B]"), String.join("\n", bw));
        assertTrue(bw.stream().noneMatch(line -> line.startsWith(" Outstand reads")));
        assertTrue(bw.stream().noneMatch(line -> line.startsWith(" Duration")));
        List<String> lat = BenchFormat.header(info(LAT));
        assertTrue(lat.stream().noneMatch(line -> line.startsWith(" CQ Moderation")), String.join("\n", lat));
        List<String> timed = BenchFormat.header(info(BW.withDuration(5)));
        assertTrue(timed.contains(" Duration        : 5[sec]"), String.join("\n", timed));
    }

    @Test
    void theBaselineTitleNamesTheSamePatternAsTheTest() {
        String lead = " baseline: plain UDP datagrams (java.nio DatagramChannel), 1024-byte payloads, the same ";
        assertEquals(lead + "RDMA_Write window of 128 messages, one ack per message pattern, no RDMA logic",
                BenchFormat.baselineTitle(BW, 1024));
        assertEquals(lead + "RDMA_Read window of 256 requests, each answered with the data (2 QPs x 128), both ways"
                + " at once pattern, no RDMA logic", BenchFormat.baselineTitle(BenchSettings.defaults(BenchTest.READ,
                BenchMode.BW).withQps(2).withBidirectional(true), 1024));
        assertEquals(lead + "RDMA_Write ping-pong pattern, no RDMA logic", BenchFormat.baselineTitle(LAT, 1024));
        assertEquals(lead + "RDMA_Read request/response pattern, no RDMA logic", BenchFormat.baselineTitle(
                BenchSettings.defaults(BenchTest.READ, BenchMode.LAT), 1024));
    }

    @Test
    void aSweepWithASizeThatHasNoBaselineGivesTheOthersTheirSize() {
        BenchReport sweep = new BenchReport(info(BW), List.of(bwRow(BenchRow.Path.RDMA, 2, 1),
                bwRow(BenchRow.Path.BASELINE, 2, 2), bwRow(BenchRow.Path.RDMA, 4, 3), bwRow(BenchRow.Path.RDMA, 8, 3),
                bwRow(BenchRow.Path.BASELINE, 8, 4)), false);
        assertEquals(List.of("ratio: 0.50 (2 bytes)", "ratio: 0.75 (8 bytes)"), BenchFormat.ratioLines(sweep));
    }

    private static BenchRow withUsage(BenchRow.Path path, int bytes, ResourceMeter.Usage usage) {
        return new BenchRow(path, bytes, new BandwidthStats(bytes, 100, 2, 1, 1, 1_000), null, usage, 0);
    }

    @Test
    void verboseUsageSaysTheAllocationPerMessageAndTheGcs() {
        assertEquals(" rdma 65536 bytes: allocated 12.5 bytes/message (1250 bytes over 100 messages), 2 GCs (5 ms)",
                BenchFormat.usage(withUsage(BenchRow.Path.RDMA, 65536, new ResourceMeter.Usage(1250, 100, 2, 5))));
        assertEquals(" baseline 8 bytes: allocated 0.0 bytes/message (0 bytes over 100 messages), 0 GCs (0 ms)",
                BenchFormat.usage(withUsage(BenchRow.Path.BASELINE, 8, new ResourceMeter.Usage(0, 100, 0, 0))));
        assertEquals(" rdma 8 bytes: allocation unknown, 1 GCs (3 ms)",
                BenchFormat.usage(withUsage(BenchRow.Path.RDMA, 8, new ResourceMeter.Usage(-1, 100, 1, 3))));
        assertEquals("", BenchFormat.usage(withUsage(BenchRow.Path.RDMA, 8, null)));
    }

    @Test
    void verboseCountersListWhatMovedInOrderWithTheirSign() {
        java.util.LinkedHashMap<String, Long> moved = new java.util.LinkedHashMap<>();
        moved.put("sent_pkts", 160128L);
        moved.put("rcvd_pkts", 10128L);
        moved.put("completer_retry_err", 1L);
        assertEquals(" rdma 65536 bytes: this side's device counters moved: sent_pkts +160128, rcvd_pkts +10128,"
                + " completer_retry_err +1", BenchFormat.counters(withUsage(BenchRow.Path.RDMA, 65536,
                new ResourceMeter.Usage(0, 1, 0, 0, moved))));
        assertEquals("", BenchFormat.counters(withUsage(BenchRow.Path.RDMA, 8, new ResourceMeter.Usage(0, 1, 0, 0))));
        assertEquals("", BenchFormat.counters(withUsage(BenchRow.Path.RDMA, 8, null)));
    }
}
