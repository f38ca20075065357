package org.rdmalab.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
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
        int tcp = Ports.freeTcpPort();
        int udp = Ports.freeUdpPort();
        BenchRun server = engine.start(settings, new Topology.Server("127.0.0.1", tcp, udp, 0, Duration.ofSeconds(60))
                .withExchange(Topology.Exchange.PERFTEST), BenchListener.NONE);
        BenchRun client = engine.start(settings, new Topology.Client("127.0.0.2", "127.0.0.1", tcp, udp, 0,
                Duration.ofSeconds(60)).withExchange(Topology.Exchange.PERFTEST), BenchListener.NONE);
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

    @Test
    void everyTestWithIterationsAndNoBaselineTalksToPerftest() {
        for (BenchTest test : BenchTest.values()) {
            PerftestSide.check(BenchSettings.defaults(test, BenchMode.BW));
        }
        BenchSettings write = BenchSettings.defaults(BenchTest.WRITE, BenchMode.LAT);
        assertThrows(IllegalArgumentException.class, () -> PerftestSide.check(write.withDuration(5)));
        assertThrows(IllegalArgumentException.class, () -> PerftestSide.check(write.withBaseline(true)));
        PerftestSide.check(write);
    }
}
