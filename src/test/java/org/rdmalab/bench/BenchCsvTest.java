package org.rdmalab.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Save CSV's text: perftest's columns in MB/sec or Gb/sec, the ratio, and {@code --verbose}'s figures per row. */
class BenchCsvTest {

    @Test
    void csvInGbitsNamesItsColumns() {
        BenchRow rdma = new BenchRow(BenchRow.Path.RDMA, 65536, BandwidthStats.ofTotals(65536, 1000, 1_000_000_000L),
                null, null, 0);
        BenchSettings settings = BenchSettings.defaults(BenchTest.WRITE, BenchMode.BW).withReportGbits(true);
        BenchInfo info = new BenchInfo(settings, "soft0", "software", null, null, 0, 0, 0, null, null,
                "in process");
        String csv = BenchCsv.text(new BenchReport(info, List.of(rdma), false));
        assertEquals("""
                path,bytes,iterations,bw_peak_gb_per_sec,bw_average_gb_per_sec,msg_rate_mpps,lost_messages,ratio,\
                allocated_bytes_per_message,gc_count,gc_ms
                rdma,65536,1000,0.00,0.52,0.001000,0,,,,
                """, csv);
    }

    @Test
    void csvHasPerftestsBandwidthColumnsAndTheRatioOnTheRdmaRow() {
        BenchRow rdma = new BenchRow(BenchRow.Path.RDMA, 65536, BandwidthStats.ofTotals(65536, 1000, 1_000_000_000L),
                null, null, 0);
        BenchRow udp = new BenchRow(BenchRow.Path.BASELINE, 65536, BandwidthStats.ofTotals(65536, 2000,
                1_000_000_000L), null, null, 3);
        String csv = BenchCsv.text(new BenchReport(null, List.of(rdma, udp), false));
        assertEquals("""
                path,bytes,iterations,bw_peak_mb_per_sec,bw_average_mb_per_sec,msg_rate_mpps,lost_messages,ratio,\
                allocated_bytes_per_message,gc_count,gc_ms
                rdma,65536,1000,0.00,62.50,0.001000,0,0.5000,,,
                baseline,65536,2000,0.00,125.00,0.002000,3,,,,
                """, csv);
    }

    /**
     * Save CSV has what Save JSON (bench --json --verbose) has per row: the allocation and GC
     * figures, and a column for each device counter that moved in some row; a cell is empty where the
     * row has no such figure.
     */
    @Test
    void csvHasTheVerboseFiguresAsColumnsEmptyWhereARowHasNone() {
        java.util.Map<String, Long> small = new java.util.LinkedHashMap<>();
        small.put("sent_pkts", 1000L);
        small.put("rcvd_pkts", 12L);
        java.util.Map<String, Long> large = new java.util.LinkedHashMap<>();
        large.put("sent_pkts", 16_000L);
        large.put("retry_exceeded_err", 1L);
        BenchRow rdmaSmall = new BenchRow(BenchRow.Path.RDMA, 4096, BandwidthStats.ofTotals(4096, 1000,
                1_000_000_000L), null, new ResourceMeter.Usage(25_600, 1000, 2, 7, small), 0);
        BenchRow udpSmall = new BenchRow(BenchRow.Path.BASELINE, 4096, BandwidthStats.ofTotals(4096, 1000,
                1_000_000_000L), null, new ResourceMeter.Usage(-1, 1000, 0, 0), 0);
        BenchRow rdmaLarge = new BenchRow(BenchRow.Path.RDMA, 65536, BandwidthStats.ofTotals(65536, 1000,
                1_000_000_000L), null, new ResourceMeter.Usage(0, 1000, 0, 0, large), 0);
        BenchRow unmeasured = new BenchRow(BenchRow.Path.BASELINE, 65536, BandwidthStats.ofTotals(65536, 1000,
                1_000_000_000L), null, null, 0);
        BenchReport report = new BenchReport(null, List.of(rdmaSmall, udpSmall, rdmaLarge, unmeasured), false);
        String[] lines = BenchCsv.text(report).split("\n");
        assertEquals(5, lines.length, () -> String.join("\n", lines));
        List<String> head = List.of(lines[0].split(",", -1));
        assertEquals(List.of("lost_messages", "ratio", "allocated_bytes_per_message", "gc_count", "gc_ms",
                "device_counter_sent_pkts", "device_counter_rcvd_pkts", "device_counter_retry_exceeded_err"),
                head.subList(head.indexOf("lost_messages"), head.size()), "the counters in the order they first moved");
        List<List<String>> verbose = new java.util.ArrayList<>();
        for (int i = 1; i < lines.length; i++) {
            List<String> cells = List.of(lines[i].split(",", -1));
            assertEquals(head.size(), cells.size(), lines[i]);
            verbose.add(cells.subList(head.indexOf("allocated_bytes_per_message"), head.size()));
        }
        assertEquals(List.of("25.6", "2", "7", "1000", "12", ""), verbose.get(0), "4 KiB RDMA: 25600 B over 1000");
        assertEquals(List.of("", "0", "0", "", "", ""), verbose.get(1), "the baseline: allocation unknown, no device");
        assertEquals(List.of("0.0", "0", "0", "16000", "", "1"), verbose.get(2), "64 KiB RDMA: a retry");
        assertEquals(List.of("", "", "", "", "", ""), verbose.get(3), "a row without --verbose's figures");
    }

    @Test
    void aCsvHeadWithACommaOrQuoteIsQuoted() {
        assertEquals("sent_pkts", BenchCsv.field("sent_pkts"));
        assertEquals("\"a,b\"", BenchCsv.field("a,b"));
        assertEquals("\"say \"\"hi\"\"\"", BenchCsv.field("say \"hi\""));
    }
}
