package org.rdmalab.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rdmalab.control.ConnectionData;
import org.rdmalab.testing.Ports;
import org.rdmalab.verbs.spi.Backends;

/**
 * Two RDMA Lab sides speaking perftest's exchange to each other over TCP, on two software devices
 * (127.0.0.1 and 127.0.0.2): each plays the perftest program the other expects. The exchange itself
 * is checked byte for byte in {@code control.perftest}, and against real ib_write_bw / ib_write_lat
 * on rxe in the VM tests ({@code bench_perftest_peer}).
 */
@Timeout(120)
class PerftestPeerTest {

    private static final Duration WAIT = Duration.ofSeconds(90);

    private final BenchEngine engine = new BenchEngine(Backends.installed());

    private BenchRun[] pair(BenchSettings settings) {
        return pair(settings, BenchListener.NONE, BenchListener.NONE);
    }

    private BenchRun[] pair(BenchSettings settings, BenchListener serverListener, BenchListener clientListener) {
        int tcp = Ports.freeTcpPort();
        int udp = Ports.freeUdpPort();
        BenchRun server = engine.start(settings, new Topology.Server("127.0.0.1", tcp, udp, 0, Duration.ofSeconds(60))
                .withExchange(Topology.Exchange.PERFTEST), serverListener);
        BenchRun client = engine.start(settings, new Topology.Client("127.0.0.2", "127.0.0.1", tcp, udp, 0,
                Duration.ofSeconds(60)).withExchange(Topology.Exchange.PERFTEST), clientListener);
        return new BenchRun[] {server, client};
    }

    @Test
    void aBandwidthServerPrintsTheRowItsClientReported() throws Exception {
        BenchSettings settings = BenchSettings.defaults(BenchTest.WRITE, BenchMode.BW).withSizes(List.of(65536))
                .withIterations(300);
        BenchRun[] runs = pair(settings);
        BenchReport measured = runs[1].await(WAIT);
        BenchReport served = runs[0].await(WAIT);
        BandwidthStats theirs = measured.rows().get(0).bandwidth();
        BandwidthStats shown = served.rows().get(0).bandwidth();
        assertEquals(65536, shown.bytes());
        assertEquals(theirs.iterations(), shown.iterations());
        assertEquals(theirs.average(false), shown.average(false), 1e-9 * theirs.average(false));
        assertEquals(theirs.peak(false), shown.peak(false), 1e-9 * theirs.peak(false));
        assertEquals(theirs.messageRateMpps(), shown.messageRateMpps(), 1e-12);
        assertEquals("Ethernet", served.info().exchange());
    }

    @Test
    void bothLatencySidesMeasureEverySizeWithTheSameIterations() throws Exception {
        BenchSettings settings = BenchSettings.defaults(BenchTest.WRITE, BenchMode.LAT).withSizes(List.of(2, 4096))
                .withIterations(600);
        BenchRun[] runs = pair(settings);
        BenchReport measured = runs[1].await(WAIT);
        BenchReport served = runs[0].await(WAIT);
        for (BenchReport report : List.of(measured, served)) {
            assertEquals(List.of(2, 4096), report.rows().stream().map(row -> row.latency().bytes()).toList());
            for (BenchRow row : report.rows()) {
                assertEquals(600, row.latency().iterations());
                assertTrue(row.latency().typicalMicros() > 0);
            }
        }
    }

    @Test
    void aReadBandwidthServerPrintsItsClientsRowAndAReadLatencyServerWaitsForItsClient() throws Exception {
        BenchRun[] bw = pair(BenchSettings.defaults(BenchTest.READ, BenchMode.BW).withSizes(List.of(8192))
                .withIterations(300));
        BenchReport measured = bw[1].await(WAIT);
        BenchReport served = bw[0].await(WAIT);
        assertEquals(measured.rows().get(0).bandwidth().iterations(), served.rows().get(0).bandwidth().iterations());

        BenchRun[] lat = pair(BenchSettings.defaults(BenchTest.READ, BenchMode.LAT).withSizes(List.of(2, 64))
                .withIterations(300));
        BenchReport timed = lat[1].await(WAIT);
        BenchReport waited = lat[0].await(WAIT);
        assertEquals(List.of(2, 64), timed.rows().stream().map(row -> row.latency().bytes()).toList());
        assertTrue(waited.rows().isEmpty(), "ib_read_lat's server measures nothing");
        assertEquals(timed.info().local().psn(), waited.info().remote().psn(), "the server got the client's keys");
    }

    /** ib_atomic_bw's server prints its client's row; ib_atomic_lat's waits for its client. */
    @Test
    void atomicSidesFollowTheReadSteps() throws Exception {
        BenchRun[] bw = pair(BenchSettings.defaults(BenchTest.ATOMIC, BenchMode.BW).withIterations(500));
        BenchReport measured = bw[1].await(WAIT);
        BenchReport served = bw[0].await(WAIT);
        assertEquals(measured.rows().get(0).bandwidth().iterations(), served.rows().get(0).bandwidth().iterations());
        assertEquals(BenchTest.ATOMIC_SIZE, served.rows().get(0).bytes());
        BenchRun[] lat = pair(BenchSettings.defaults(BenchTest.ATOMIC, BenchMode.LAT).withIterations(300));
        assertEquals(1, lat[1].await(WAIT).rows().size());
        assertTrue(lat[0].await(WAIT).rows().isEmpty(), "ib_atomic_lat's server measures nothing");
    }

    /**
     * ib_send_*: exactly -n SENDs per size, no warm-up and no stop SEND (a perftest server counts
     * them), receives posted per size and none left over for the next; both sides measure.
     */
    @Test
    void sendSidesCountEveryMessageOfEverySizeAndBothMeasure() throws Exception {
        for (BenchMode mode : BenchMode.values()) {
            // One packet per message: a retransmitted window stays small on a loaded machine (with
            // perftest's 67 ms ACK timeout, 4 KiB messages once ran out of retry_cnt under load).
            BenchRun[] runs = pair(BenchSettings.defaults(BenchTest.SEND, mode).withSizes(List.of(64, 1024))
                    .withIterations(700));
            BenchReport measured = runs[1].await(WAIT);
            BenchReport served = runs[0].await(WAIT);
            for (BenchReport report : List.of(measured, served)) {
                assertEquals(List.of(64, 1024), report.rows().stream().map(BenchRow::bytes).toList(), mode.name());
                for (BenchRow row : report.rows()) {
                    long iterations = mode == BenchMode.BW ? row.bandwidth().iterations() : row.latency().iterations();
                    assertEquals(700, iterations, mode.name());
                }
            }
        }
    }

    @Test
    void aClientSpeakingRdmaLabsProtocolToAPerftestServerEndsWithAClearMessage() throws Exception {
        int tcp = Ports.freeTcpPort();
        int udp = Ports.freeUdpPort();
        BenchSettings settings = BenchSettings.defaults(BenchTest.WRITE, BenchMode.BW).withIterations(100);
        BenchRun server = engine.start(settings, new Topology.Server("127.0.0.1", tcp, udp, 0, Duration.ofSeconds(60))
                .withExchange(Topology.Exchange.PERFTEST), BenchListener.NONE);
        BenchRun client = engine.start(settings, new Topology.Client("127.0.0.2", "127.0.0.1", tcp, udp, 0,
                Duration.ofSeconds(60)), BenchListener.NONE);
        BenchException failure = assertThrows(BenchException.class, () -> server.await(WAIT));
        assertTrue(failure.getMessage().contains("is the peer perftest"), failure.getMessage());
        assertThrows(BenchException.class, () -> client.await(WAIT));
    }

    /**
     * {@code -q 3}: the keys go once per QP (twice, and QP 0's as barriers), each QP sends its
     * {@code -n}, and the row counts them all (perftest's {@code #iterations} is -n × -q); a WRITE
     * server prints its client's row, a SEND server counts every QP's SENDs.
     */
    @Test
    void severalQpsEachRunTheirIterationsAndTheRowCountsThemAll() throws Exception {
        for (BenchTest test : List.of(BenchTest.WRITE, BenchTest.SEND)) {
            BenchRun[] runs = pair(BenchSettings.defaults(test, BenchMode.BW).withSizes(List.of(1024))
                    .withIterations(400).withQps(3));
            BenchReport measured = runs[1].await(WAIT);
            BenchReport served = runs[0].await(WAIT);
            assertEquals(1200, measured.rows().get(0).bandwidth().iterations(), test.name());
            assertEquals(1200, served.rows().get(0).bandwidth().iterations(), test.name());
            long sent = measured.rows().get(0).usage().counters().getOrDefault("rdma_sends", 0L);
            if (test == BenchTest.SEND) {
                assertTrue(sent >= 1200, measured.rows().get(0).usage().counters().toString());
            }
            // Each QP announces a landing slot of its own, as perftest's do: no two overlap.
            for (BenchReport report : List.of(measured, served)) {
                List<Long> addresses = report.info().locals().stream().map(ConnectionData::addr).sorted().toList();
                for (int i = 1; i < addresses.size(); i++) {
                    assertTrue(addresses.get(i) - addresses.get(i - 1) >= 1024, addresses.toString());
                }
                assertEquals(3, addresses.size(), test.name());
            }
            assertEquals(measured.info().locals().stream().map(ConnectionData::addr).toList(),
                    served.info().remotes().stream().map(ConnectionData::addr).toList(), "the server saw each slot");
        }
    }

    /**
     * {@code -b}: both sides measure after a barrier and swap their rows, and each prints both
     * directions summed with its own #iterations (WRITE, and SEND with two QPs, where the server
     * starts once the client's first SEND arrived).
     */
    @Test
    void bothWaysEachSidePrintsBothDirectionsSummed() throws Exception {
        for (BenchSettings settings : List.of(
                BenchSettings.defaults(BenchTest.WRITE, BenchMode.BW).withSizes(List.of(4096)).withIterations(500)
                        .withBidirectional(true),
                BenchSettings.defaults(BenchTest.SEND, BenchMode.BW).withSizes(List.of(1024)).withIterations(300)
                        .withBidirectional(true).withQps(2))) {
            BenchRun[] runs = pair(settings);
            BenchReport measured = runs[1].await(WAIT);
            BenchReport served = runs[0].await(WAIT);
            BandwidthStats client = measured.rows().get(0).bandwidth();
            BandwidthStats server = served.rows().get(0).bandwidth();
            long iterations = (long) settings.iterations() * settings.qps();
            assertEquals(iterations, client.iterations(), settings.test().name());
            assertEquals(iterations, server.iterations(), settings.test().name());
            assertEquals(client.averageBytesPerSecond(), server.averageBytesPerSecond(),
                    1e-6 * client.averageBytesPerSecond(), "both print the same sum: " + settings.test());
            // Each side's device sent its own stream (a one-way server would send a few ACKs only).
            for (BenchReport report : List.of(measured, served)) {
                java.util.Map<String, Long> counters = report.rows().get(0).usage().counters();
                assertTrue(counters.getOrDefault("sent_pkts", 0L) >= iterations, counters.toString());
            }
        }
    }

    /**
     * {@code --run_infinitely} WRITE: the client prints a row each interval (no peak, as perftest's)
     * and the one-sided server waits; when the client is stopped its connection closes, and the
     * server ends as a served run, without rows.
     */
    @Test
    void anEndlessWriteClientPrintsIntervalsAndItsStopEndsTheWaitingServer() throws Exception {
        RecordingListener served = new RecordingListener();
        RecordingListener measured = new RecordingListener();
        BenchRun[] runs = pair(BenchSettings.defaults(BenchTest.WRITE, BenchMode.BW).withSizes(List.of(4096))
                .withRunInfinitely(true, 1).withQps(2), served, measured);
        RecordingListener.awaitRows(measured, 2);
        runs[1].stop();
        BenchReport client = runs[1].await(WAIT);
        BenchReport server = runs[0].await(WAIT);
        assertTrue(client.stopped());
        for (BenchRow row : client.rows()) {
            assertTrue(row.bandwidth().iterations() > 0, row.toString());
            assertEquals(0, row.bandwidth().peakBytesPerSecond(), row.toString());
        }
        assertFalse(server.stopped(), "the client's end is the server's normal end");
        assertTrue(server.rows().isEmpty());
        assertTrue(served.notes.contains("the client ended the run (it closed the connection)"), served.notes.toString());
    }

    /**
     * {@code --run_infinitely} SEND: both sides print a row each interval (the server what arrived);
     * the client's stop ends the server as stopped too, once its interval is over.
     */
    @Test
    void anEndlessSendServerPrintsWhatArrivedUntilTheClientStops() throws Exception {
        RecordingListener served = new RecordingListener();
        RecordingListener measured = new RecordingListener();
        BenchRun[] runs = pair(BenchSettings.defaults(BenchTest.SEND, BenchMode.BW).withSizes(List.of(1024))
                .withRunInfinitely(true, 1), served, measured);
        RecordingListener.awaitRows(served, 2);
        runs[1].stop();
        BenchReport client = runs[1].await(WAIT);
        BenchReport server = runs[0].await(WAIT);
        assertTrue(client.stopped());
        assertTrue(server.stopped());
        assertTrue(server.rows().size() >= 2);
        assertTrue(server.rows().get(0).bandwidth().iterations() > 0, server.rows().get(0).toString());
        assertTrue(served.notes.stream().anyMatch(note -> note.startsWith("the perftest client ended the run after")),
                served.notes.toString());
    }

    /**
     * {@code -b --run_infinitely} WRITE: both sides send and print their own rate doubled (perftest's
     * {@code run_inf_bi_factor}); when one stops, the other's WRITEs fail and, its peer's
     * connection being closed, it ends as stopped.
     */
    @Test
    void endlessBothWaysSidesPrintTheirOwnRateDoubledAndEndWithTheirPeer() throws Exception {
        RecordingListener served = new RecordingListener();
        RecordingListener measured = new RecordingListener();
        BenchRun[] runs = pair(BenchSettings.defaults(BenchTest.WRITE, BenchMode.BW).withSizes(List.of(4096))
                .withRunInfinitely(true, 1).withBidirectional(true), served, measured);
        RecordingListener.awaitRows(served, 2);
        RecordingListener.awaitRows(measured, 2);
        runs[1].stop();
        BenchReport client = runs[1].await(WAIT);
        BenchReport server = runs[0].await(WAIT);
        assertTrue(client.stopped());
        assertTrue(server.stopped(), "the peer's end ends this side as stopped");
        for (BenchReport report : List.of(client, server)) {
            BenchRow row = report.rows().get(0);
            BandwidthStats stats = row.bandwidth();
            double own = (double) stats.bytes() * stats.iterations() / (stats.elapsedNanos() / 1e9);
            assertEquals(2 * own, stats.averageBytesPerSecond(), 0.01 * own, row.toString());
        }
        assertTrue(served.notes.stream().anyMatch(note -> note.startsWith("the perftest peer ended the run after")),
                served.notes.toString());
    }

    @Test
    void everyTestWithIterationsAndNoBaselineTalksToPerftest() {
        for (BenchTest test : BenchTest.values()) {
            PerftestSide.check(BenchSettings.defaults(test, BenchMode.BW));
        }
        BenchSettings write = BenchSettings.defaults(BenchTest.WRITE, BenchMode.LAT);
        assertThrows(IllegalArgumentException.class, () -> PerftestSide.check(write.withDuration(5)));
        assertThrows(IllegalArgumentException.class, () -> PerftestSide.check(write.withBaseline(true)));
        PerftestSide.check(write);
        BenchSettings send = BenchSettings.defaults(BenchTest.SEND, BenchMode.BW).withSizes(List.of(64));
        PerftestSide.check(send.withQps(4).withBidirectional(true));
        PerftestSide.check(send.withRunInfinitely(true, 5));
        assertThrows(IllegalArgumentException.class,
                () -> PerftestSide.check(send.withRunInfinitely(true, 5).withBidirectional(true)));
    }
}
