package org.rdmalab.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.rdmalab.testing.Ports;
import org.rdmalab.verbs.spi.Backends;

/**
 * The engine as a GUI uses it: start a run, hear its header, samples and rows, stop it; and the
 * server / client pair over TCP. Two software devices on 127.0.0.1 and 127.0.0.2; figures are only
 * checked to be positive, never for speed.
 */
@Timeout(120)
class BenchEngineTest {

    private static final Duration WAIT = Duration.ofSeconds(90);

    /** Records what the run reports. */
    private static Topology.Loopback loopback() {
        return new Topology.Loopback("127.0.0.1", "127.0.0.2", Ports.freeUdpPort(), Ports.freeUdpPort());
    }

    /** The ratio is the RDMA row's headline over the baseline's, not the other way round. */
    private static void assertRatio(BenchReport report, int bytes) {
        BenchRow rdma = report.rows().stream().filter(r -> r.path() == BenchRow.Path.RDMA && r.bytes() == bytes)
                .findFirst().orElseThrow();
        BenchRow udp = report.rows().stream().filter(r -> r.path() == BenchRow.Path.BASELINE && r.bytes() == bytes)
                .findFirst().orElseThrow();
        assertTrue(rdma.headline() != udp.headline(), "two different measurements: " + report.rows());
        assertEquals(rdma.headline() / udp.headline(), report.ratio(bytes).orElseThrow(), 1e-9);
    }

    @Test
    void aLoopbackRunReportsTheRdmaRowThenTheBaselineRowAndTheirRatio() throws Exception {
        RecordingListener recorder = new RecordingListener();
        BenchSettings settings = BenchSettings.defaults(BenchTest.WRITE, BenchMode.BW).withSizes(List.of(4096))
                .withIterations(200).withBaseline(true);
        BenchReport report = new BenchEngine(Backends.installed()).start(settings, loopback(), recorder).await(WAIT);
        assertFalse(report.stopped());
        assertEquals(1, recorder.started.get());
        assertEquals(List.of(BenchRow.Path.RDMA, BenchRow.Path.BASELINE),
                recorder.rows.stream().map(BenchRow::path).toList());
        for (BenchRow row : report.rows()) {
            assertEquals(4096, row.bytes());
            assertEquals(200, row.bandwidth().iterations());
            assertTrue(row.bandwidth().averageBytesPerSecond() > 0, row.toString());
            assertTrue(row.bandwidth().peakBytesPerSecond() >= row.bandwidth().averageBytesPerSecond() * 0.999,
                    "the peak is never below the average: " + row);
            assertNotNull(row.usage());
        }
        assertRatio(report, 4096);
        assertEquals("soft0", report.info().deviceName());
        // The device's counters over the measured part: 200 one-packet WRITEs (MTU 1024 is soft0's
        // active MTU here, 4096 bytes are four packets each) left this side, and their ACKs came back;
        // a retransmission would add to sent_pkts. The baseline has no device.
        java.util.Map<String, Long> counters = report.rows().get(0).usage().counters();
        assertTrue(counters.getOrDefault("sent_pkts", 0L) >= 200 * 4, counters.toString());
        assertTrue(counters.getOrDefault("rcvd_pkts", 0L) > 0, counters.toString());
        assertTrue(report.rows().get(1).usage().counters().isEmpty());
        assertTrue(BenchFormat.counters(report.rows().get(0)).startsWith(" rdma 4096 bytes: this side's device counters moved: sent_pkts +"),
                BenchFormat.counters(report.rows().get(0)));
        assertEquals("", BenchFormat.counters(report.rows().get(1)));
    }

    /**
     * {@code -q 3 --baseline}: the baseline's window carries all three QPs' messages over its one
     * socket pair (3 × -t in flight, 3 × -n in all), as the device's three QPs share its socket;
     * both rows count every QP's messages in {@code #iterations}, as perftest's does (-n × -q).
     */
    @Test
    void severalQpsHaveABaselineOfAllTheirMessagesOverOneSocketPair() throws Exception {
        BenchSettings settings = BenchSettings.defaults(BenchTest.WRITE, BenchMode.BW).withSizes(List.of(4096))
                .withIterations(200).withQps(3).withBaseline(true);
        BenchReport report = new BenchEngine(Backends.installed()).start(settings, loopback(), BenchListener.NONE)
                .await(WAIT);
        assertEquals(List.of(BenchRow.Path.RDMA, BenchRow.Path.BASELINE),
                report.rows().stream().map(BenchRow::path).toList());
        for (BenchRow row : report.rows()) {
            BandwidthStats stats = row.bandwidth();
            assertEquals(600, stats.iterations(), "#iterations is -n x -q: " + row);
            double moved = stats.messagesPerSecond() * stats.elapsedNanos() / 1e9;
            assertEquals(600, moved, 6, "every QP's messages were measured: " + row);
        }
        assertRatio(report, 4096);
    }

    @Test
    void aLatencyRunMeasuresEveryIterationAfterTheWarmup() throws Exception {
        BenchSettings settings = BenchSettings.defaults(BenchTest.SEND, BenchMode.LAT).withIterations(100);
        BenchReport report = new BenchEngine(Backends.installed()).start(settings, loopback(), BenchListener.NONE)
                .await(WAIT);
        LatencyStats stats = report.rows().get(0).latency();
        assertEquals(100, stats.iterations());
        assertEquals(100, stats.sortedMicros().length);
        assertTrue(stats.minMicros() > 0 && stats.minMicros() <= stats.typicalMicros()
                && stats.typicalMicros() <= stats.maxMicros(), stats.toString());
    }

    @Test
    void stopEndsARunWithinSecondsAndReleasesItsSockets() throws Exception {
        RecordingListener recorder = new RecordingListener();
        Topology.Loopback topology = loopback();
        BenchSettings settings = BenchSettings.defaults(BenchTest.WRITE, BenchMode.BW).withSizes(List.of(4096))
                .withDuration(120).withTxDepth(16);
        BenchRun run = new BenchEngine(Backends.installed()).start(settings, topology, recorder);
        assertTrue(recorder.firstSample.await(60, TimeUnit.SECONDS), "a live sample within a minute");
        LiveSample sample = recorder.samples.get(0);
        assertEquals(BenchRow.Path.RDMA, sample.path());
        assertTrue(sample.recentBytesPerSecond() > 0, sample.toString());
        run.stop();
        BenchReport report = run.await(Duration.ofSeconds(30));
        assertTrue(report.stopped());
        assertTrue(Ports.portReleased(topology.udpPort()), "both devices closed their sockets");
    }

    /**
     * A backend whose device list blocks, as a verb in the kernel may, until the run's thread is
     * interrupted; then it fails with EINTR, so the engine meets a VerbsException (ENODEV from find).
     */
    private static final class BlockingBackend implements org.rdmalab.verbs.spi.VerbsProvider {
        final CountDownLatch entered = new CountDownLatch(1);

        @Override
        public String name() {
            return "blocking";
        }

        @Override
        public List<org.rdmalab.verbs.Device> devices(org.rdmalab.verbs.spi.DeviceOptions options)
                throws org.rdmalab.verbs.VerbsException {
            entered.countDown();
            try {
                new CountDownLatch(1).await(WAIT.toSeconds(), TimeUnit.SECONDS);
                return List.of();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new org.rdmalab.verbs.VerbsException("ibv_get_device_list", org.rdmalab.verbs.Errno.EINTR,
                        "interrupted");
            }
        }
    }

    @Test
    void aVerbsErrorWhileTheRunIsBeingStoppedEndsAsStoppedAndWithoutAStopAsTheFailure() throws Exception {
        BenchSettings settings = BenchSettings.defaults(BenchTest.WRITE, BenchMode.BW).withSizes(List.of(4096));
        BlockingBackend blocking = new BlockingBackend();
        BenchRun stopped = new BenchEngine(new Backends(List.of(blocking))).start(settings, loopback(),
                new RecordingListener());
        assertTrue(blocking.entered.await(30, TimeUnit.SECONDS), "the run asked for its devices");
        stopped.stop();
        BenchReport report = stopped.await(Duration.ofSeconds(30));
        assertTrue(report.stopped(), "a stopped report, not 'no device named soft0'");
        assertEquals(List.of(), report.rows());

        BenchRun failed = new BenchEngine(new Backends(List.of())).start(settings, loopback(), new RecordingListener());
        BenchException failure = assertThrows(BenchException.class, () -> failed.await(Duration.ofSeconds(30)));
        assertTrue(failure.getMessage().contains("no device named 'soft0'"), failure.getMessage());
    }

    @Test
    void aServerAndAClientMeasureOverTcpWithTheBaseline() throws Exception {
        int tcp = Ports.freeTcpPort();
        int udp = Ports.freeUdpPort();
        int baseline = Ports.freeUdpPort();
        BenchSettings settings = BenchSettings.defaults(BenchTest.WRITE, BenchMode.LAT).withSizes(List.of(8))
                .withIterations(100).withBaseline(true);
        BenchEngine engine = new BenchEngine(Backends.installed());
        BenchRun server = engine.start(settings, new Topology.Server("127.0.0.1", tcp, udp, baseline,
                Duration.ofSeconds(60)), BenchListener.NONE);
        RecordingListener recorder = new RecordingListener();
        BenchRun client = engine.start(settings, new Topology.Client("127.0.0.2", "127.0.0.1", tcp, udp, baseline,
                Duration.ofSeconds(60)), recorder);
        BenchReport measured = client.await(WAIT);
        BenchReport served = server.await(WAIT);
        assertEquals(List.of(BenchRow.Path.RDMA, BenchRow.Path.BASELINE),
                measured.rows().stream().map(BenchRow::path).toList());
        assertEquals("Ethernet", measured.info().exchange());
        assertRatio(measured, 8);
        assertTrue(served.rows().isEmpty(), "the client measures, the server answers");
        assertEquals(1, recorder.started.get());
    }

    /**
     * {@code --run_infinitely} in one process: a SEND stream reports a row per interval until it
     * is stopped, and ends as stopped with those rows.
     */
    @Test
    void runningUntilStoppedReportsARowEveryIntervalUntilTheStop() throws Exception {
        BenchSettings settings = BenchSettings.defaults(BenchTest.SEND, BenchMode.BW).withSizes(List.of(1024))
                .withRunInfinitely(true, 1);
        RecordingListener recorder = new RecordingListener();
        BenchRun run = new BenchEngine(Backends.installed()).start(settings, loopback(), recorder);
        RecordingListener.awaitRows(recorder, 2);
        run.stop();
        BenchReport report = run.await(WAIT);
        assertTrue(report.stopped());
        assertTrue(report.rows().size() >= 2, report.rows().toString());
        for (BenchRow row : report.rows()) {
            assertEquals(1024, row.bytes());
            assertTrue(row.bandwidth().iterations() > 0 && row.bandwidth().averageBytesPerSecond() > 0, row.toString());
            // One interval of about a second each (its end waits for the last signaled completion).
            assertTrue(row.bandwidth().elapsedNanos() > 900_000_000L && row.bandwidth().elapsedNanos() < 5_000_000_000L,
                    row.toString());
        }
    }

    /** A server (reporting to {@code served}) and its client over TCP, started: {server, client}. */
    private static BenchRun[] endlessOverTcp(BenchSettings settings, RecordingListener served) {
        int tcp = Ports.freeTcpPort();
        int udp = Ports.freeUdpPort();
        BenchEngine engine = new BenchEngine(Backends.installed());
        BenchRun server = engine.start(settings, new Topology.Server("127.0.0.1", tcp, udp, 0,
                Duration.ofSeconds(60)), served);
        BenchRun client = engine.start(settings, new Topology.Client("127.0.0.2", "127.0.0.1", tcp, udp, 0,
                Duration.ofSeconds(60)), BenchListener.NONE);
        return new BenchRun[] {server, client};
    }

    /**
     * {@code --run_infinitely} between two processes' worth of sides: the server prints each of the
     * client's rows, and when the client is stopped (its connection closes) the server ends as
     * stopped too, with the rows it had, not as a failure.
     */
    @Test
    void aServerRunningUntilStoppedEndsWhenItsClientIsStopped() throws Exception {
        RecordingListener served = new RecordingListener();
        BenchRun[] runs = endlessOverTcp(BenchSettings.defaults(BenchTest.WRITE, BenchMode.BW).withSizes(List.of(4096))
                .withRunInfinitely(true, 1), served);
        BenchRun server = runs[0];
        BenchRun client = runs[1];
        RecordingListener.awaitRows(served, 2);
        client.stop();
        BenchReport clientReport = client.await(WAIT);
        BenchReport serverReport = server.await(WAIT);
        assertTrue(clientReport.stopped());
        assertTrue(serverReport.stopped(), "the client's stop ends the server as stopped");
        assertTrue(serverReport.rows().size() >= 2);
        for (int i = 0; i < serverReport.rows().size(); i++) {
            assertEquals(clientReport.rows().get(i).bandwidth(), serverReport.rows().get(i).bandwidth(),
                    "the server shows the client's interval " + i);
        }
        assertTrue(served.notes.stream().anyMatch(note -> note.startsWith("the other side ended the run after")),
                served.notes.toString());
    }

    /**
     * {@code -b --run_infinitely} over TCP: both sides print their own rate doubled (perftest's
     * {@code run_inf_bi_factor}), and when the client is stopped in the middle of an interval the
     * server's WRITEs go unanswered; with the client's connection closed that is the client's end,
     * and the server ends as stopped, not as a failure.
     */
    @Test
    void aBothWaysServerRunningUntilStoppedEndsWhenItsClientIsStopped() throws Exception {
        RecordingListener served = new RecordingListener();
        BenchRun[] runs = endlessOverTcp(BenchSettings.defaults(BenchTest.WRITE, BenchMode.BW).withSizes(List.of(4096))
                .withRunInfinitely(true, 1).withBidirectional(true), served);
        BenchRun server = runs[0];
        BenchRun client = runs[1];
        RecordingListener.awaitSampleAfterRow(served, 2); // inside the third interval
        client.stop();
        assertTrue(client.await(WAIT).stopped());
        BenchReport serverReport = server.await(WAIT);
        assertTrue(serverReport.stopped(), "the client's stop ends the server as stopped: " + served.notes);
        BandwidthStats row = serverReport.rows().get(0).bandwidth();
        double own = (double) row.bytes() * row.iterations() / (row.elapsedNanos() / 1e9);
        assertEquals(2 * own, row.averageBytesPerSecond(), 0.01 * own, "its own rate doubled: " + row);
        assertTrue(served.notes.stream().anyMatch(note -> note.startsWith("the other side ended the run after")),
                served.notes.toString());
    }

    /**
     * {@code -b} over TCP, on one QP and with {@code -q 2}: both sides send SENDs at once (each
     * side's device sends its own stream, not only ACKs), and each prints the same row, both
     * directions summed as perftest's duplex report.
     */
    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    void bothSidesSendWithMinusBAndPrintBothDirectionsSummed(int qps) throws Exception {
        BenchSettings settings = BenchSettings.defaults(BenchTest.SEND, BenchMode.BW).withSizes(List.of(4096))
                .withIterations(2000 / qps).withBidirectional(true).withQps(qps);
        Reports reports = overTcp(settings, BenchListener.NONE);
        BenchReport measured = reports.client();
        BenchReport answered = reports.server();
        assertEquals(1, measured.rows().size());
        assertEquals(1, answered.rows().size());
        BandwidthStats clientRow = measured.rows().get(0).bandwidth();
        BandwidthStats serverRow = answered.rows().get(0).bandwidth();
        assertEquals(clientRow.averageBytesPerSecond(), serverRow.averageBytesPerSecond(), 1e-6,
                "both sides print the same sum");
        assertEquals(2000, clientRow.iterations(), "-n x -q, this side's");
        for (BenchReport report : List.of(measured, answered)) {
            // Over each side's measured part its device sent its 2000 SENDs, on every QP (without -b
            // the server sends none). How much of the peer's stream arrives meanwhile varies: the
            // sides start together, but on two busy cores one may run ahead.
            java.util.Map<String, Long> counters = report.rows().get(0).usage().counters();
            assertTrue(counters.getOrDefault("rdma_sends", 0L) >= 2000, "each side sent its stream: " + counters);
        }
    }

    /**
     * {@code -b --baseline} over TCP: the baseline runs both ways at once too, and each side prints
     * an RDMA row and a baseline row, each both directions summed, the same on both sides.
     */
    @Test
    void minusBHasABaselineBothWaysSummedOnBothSides() throws Exception {
        BenchSettings settings = BenchSettings.defaults(BenchTest.WRITE, BenchMode.BW).withSizes(List.of(4096))
                .withIterations(500).withBidirectional(true).withBaseline(true);
        Reports reports = overTcp(settings, BenchListener.NONE);
        BenchReport measured = reports.client();
        BenchReport answered = reports.server();
        for (BenchReport report : List.of(measured, answered)) {
            assertEquals(List.of(BenchRow.Path.RDMA, BenchRow.Path.BASELINE),
                    report.rows().stream().map(BenchRow::path).toList());
            BenchRow udpRow = report.rows().get(1);
            assertEquals(500, udpRow.bandwidth().iterations(), "this side's iterations");
            assertEquals(0, udpRow.lostMessages(), udpRow.toString());
            assertRatio(report, 4096);
        }
        assertEquals(measured.rows().get(1).bandwidth().averageBytesPerSecond(),
                answered.rows().get(1).bandwidth().averageBytesPerSecond(), 1e-6, "both sides print the same sum");
    }

    /**
     * {@code -q 3} over TCP with SENDs: each QP sends its own {@code -n}, the server keeps receives
     * posted on every QP and ends the size once each QP's "STOP" arrived, and both print the row,
     * whose {@code #iterations} is -n × -q as perftest's.
     */
    @Test
    void threeQpsEachSendTheirIterationsAndTheServerTakesThemAll() throws Exception {
        BenchSettings settings = BenchSettings.defaults(BenchTest.SEND, BenchMode.BW).withSizes(List.of(1024))
                .withIterations(1000).withQps(3);
        Reports reports = overTcp(settings, BenchListener.NONE);
        BenchReport measured = reports.client();
        BenchReport answered = reports.server();
        BandwidthStats row = measured.rows().get(0).bandwidth();
        assertEquals(3000, row.iterations(), "#iterations is -n x -q");
        assertEquals(row, answered.rows().get(0).bandwidth(), "the server shows the client's row");
        // Over the measured part the client's device sent every QP's 1000 SENDs.
        long sends = measured.rows().get(0).usage().counters().getOrDefault("rdma_sends", 0L);
        assertTrue(sends >= 3 * 1000, measured.rows().get(0).usage().counters().toString());
        assertTrue(BenchFormat.header(measured.info()).contains(" Number of qps   : 3\t\tTransport type : IB"));
    }

    /** What a server and its client reported. */
    private record Reports(BenchReport server, BenchReport client) {
    }

    /** Runs {@code settings} as a server on 127.0.0.1 and a client on 127.0.0.2 over TCP, free ports. */
    private static Reports overTcp(BenchSettings settings, BenchListener serverListener) throws Exception {
        int tcp = Ports.freeTcpPort();
        int udp = Ports.freeUdpPort();
        int baseline = settings.baseline() ? Ports.freeUdpPort() : 0;
        BenchEngine engine = new BenchEngine(Backends.installed());
        BenchRun server = engine.start(settings, new Topology.Server("127.0.0.1", tcp, udp, baseline,
                Duration.ofSeconds(60)), serverListener);
        BenchRun client = engine.start(settings, new Topology.Client("127.0.0.2", "127.0.0.1", tcp, udp, baseline,
                Duration.ofSeconds(60)), BenchListener.NONE);
        BenchReport measured = client.await(WAIT);
        return new Reports(server.await(WAIT), measured);
    }

    /** perftest's bandwidth server prints the client's row (xchg_bw_reports); so does this one. */
    @Test
    void aBandwidthServerReportsTheClientsRow() throws Exception {
        BenchSettings settings = BenchSettings.defaults(BenchTest.WRITE, BenchMode.BW).withSizes(List.of(4096, 8192))
                .withIterations(200);
        RecordingListener served = new RecordingListener();
        Reports reports = overTcp(settings, served);
        BenchReport measured = reports.client();
        BenchReport answered = reports.server();
        assertEquals(2, answered.rows().size(), "one row per size on the server");
        for (int i = 0; i < 2; i++) {
            BandwidthStats mine = answered.rows().get(i).bandwidth();
            BandwidthStats theirs = measured.rows().get(i).bandwidth();
            assertEquals(theirs, mine, "the server shows the client's figures");
        }
        assertEquals(2, served.rows.size(), "the server's listener saw the rows");
    }

    @Test
    void sidesStartedWithDifferentOptionsStopWithAClearMessage() throws Exception {
        int tcp = Ports.freeTcpPort();
        int udp = Ports.freeUdpPort();
        BenchSettings settings = BenchSettings.defaults(BenchTest.WRITE, BenchMode.BW).withSizes(List.of(4096))
                .withIterations(100);
        BenchEngine engine = new BenchEngine(Backends.installed());
        BenchRun server = engine.start(settings, new Topology.Server("127.0.0.1", tcp, udp, 0,
                Duration.ofSeconds(60)), BenchListener.NONE);
        BenchRun client = engine.start(settings.withSizes(List.of(8192)), new Topology.Client("127.0.0.2",
                "127.0.0.1", tcp, udp, 0, Duration.ofSeconds(60)), BenchListener.NONE);
        BenchException failure = assertThrows(BenchException.class, () -> client.await(WAIT));
        assertTrue(failure.getMessage().contains("same options"), failure.getMessage());
        assertThrows(BenchException.class, () -> server.await(WAIT));
    }

    /** A server blocked in accept() does not see an interrupt; stop() must still end it and free the port. */
    @Test
    void stopEndsAServerWaitingForItsClientAndFreesTheTcpPort() throws Exception {
        int tcp = Ports.freeTcpPort();
        List<String> notes = new CopyOnWriteArrayList<>();
        CountDownLatch waiting = new CountDownLatch(1);
        BenchRun server = new BenchEngine(Backends.installed()).start(BenchSettings.defaults(BenchTest.WRITE,
                BenchMode.BW), Topology.server(null, tcp, Ports.freeUdpPort(), 0, Duration.ofMinutes(10)),
                new BenchListener() {
                    @Override
                    public void note(String text) {
                        notes.add(text);
                        waiting.countDown();
                    }
                });
        assertTrue(waiting.await(60, TimeUnit.SECONDS), "the server says it waits");
        assertEquals("waiting for a client on port " + tcp + " of 127.0.0.1 (TCP, RDMA Lab's protocol)", notes.get(0));
        server.stop();
        // Well within the ten minutes the server would otherwise wait.
        BenchReport report = server.await(WAIT);
        assertTrue(report.stopped());
        assertTrue(report.rows().isEmpty());
        try (java.net.ServerSocket again = new java.net.ServerSocket()) {
            again.bind(new java.net.InetSocketAddress("127.0.0.1", tcp));
        }
    }

    /** bench's address rules, shared by the command line and the window. */
    @Test
    void topologiesTakeBenchsDefaultAddressesAndRefuseBadOnes() {
        Duration minute = Duration.ofMinutes(1);
        Topology.Loopback loopback = Topology.loopback(null, 4791, 18516);
        assertEquals(List.of("127.0.0.1", "127.0.0.2"), List.of(loopback.serverAddress(), loopback.clientAddress()));
        assertEquals("127.0.0.1", Topology.server(" ", 18515, 4791, 18516, minute).localAddress());
        assertEquals("127.0.0.3", Topology.server("127.0.0.3", 18515, 4791, 18516, minute).localAddress());
        Topology.Client client = Topology.client(" 127.0.0.1", "", 18515, 4791, 18516, minute);
        assertEquals(List.of("127.0.0.2", "127.0.0.1"), List.of(client.localAddress(), client.serverAddress()));
        assertEquals("127.0.0.1", Topology.client("127.0.0.2", null, 18515, 4791, 18516, minute).localAddress());
        assertEquals("127.0.0.9", Topology.client("127.0.0.1", "127.0.0.9", 18515, 4791, 18516, minute)
                .localAddress());
        assertEquals("give the server's IPv4 address (the machine where the server waits)", assertThrows(
                IllegalArgumentException.class, () -> Topology.client(" ", null, 18515, 4791, 18516, minute))
                .getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Topology.client("10.0.0.300", null, 18515, 4791,
                18516, minute)).getMessage().startsWith("'10.0.0.300' is not an IPv4 address"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Topology.server("localhost", 18515, 4791,
                18516, minute)).getMessage().startsWith("'localhost' is not an IPv4 address"));
        assertEquals("TCP port 0 is outside 1..65535", assertThrows(IllegalArgumentException.class,
                () -> Topology.server(null, 0, 4791, 18516, minute)).getMessage());
    }
}
