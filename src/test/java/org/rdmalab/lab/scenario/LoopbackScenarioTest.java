package org.rdmalab.lab.scenario;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rdmalab.verbs.Mtu;
import org.rdmalab.verbs.WcFlag;
import org.rdmalab.verbs.WcOpcode;
import org.rdmalab.verbs.WcStatus;
import org.rdmalab.verbs.WorkCompletion;
import org.rdmalab.testing.Ports;
import org.rdmalab.verbs.spi.Backends;

/** Every scenario end to end on two soft0 devices over UDP on loopback, checked as a student would read it. */
@Timeout(60)
class LoopbackScenarioTest {

    private int port;
    private java.util.Set<Thread> threadsBefore;

    /** What a run reported. */
    private record Run(ScenarioResult result, List<ScenarioEvent> events) {

        List<WorkCompletion> completions(PeerRole role) {
            return events.stream().filter(e -> e instanceof ScenarioEvent.Completion c && c.role() == role)
                    .map(e -> ((ScenarioEvent.Completion) e).completion()).collect(Collectors.toList());
        }

        List<WcStatus> statuses(PeerRole role) {
            return completions(role).stream().map(WorkCompletion::status).collect(Collectors.toList());
        }

        List<byte[]> buffers(PeerRole role) {
            return events.stream().filter(e -> e instanceof ScenarioEvent.Buffer b && b.role() == role)
                    .map(e -> ((ScenarioEvent.Buffer) e).bytes()).collect(Collectors.toList());
        }

        List<String> failedChecks() {
            return events.stream().filter(e -> e instanceof ScenarioEvent.Check c && !c.passed())
                    .map(e -> ((ScenarioEvent.Check) e).text()).collect(Collectors.toList());
        }

        String log() {
            return events.stream().map(Object::toString).collect(Collectors.joining("\n"));
        }
    }

    @BeforeEach
    void device() {
        port = Ports.freeUdpPort();
        threadsBefore = Thread.getAllStackTraces().keySet();
    }

    @AfterEach
    void released() throws InterruptedException {
        assertTrue(Ports.portReleased(port), "both devices' UDP sockets are closed after the run");
        List<Thread> started = Thread.getAllStackTraces().keySet().stream().filter(t -> !threadsBefore.contains(t))
                .filter(t -> !t.getName().startsWith("junit-") && !isJdkThread(t.getName())).collect(Collectors.toList());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
        for (Thread thread : started) {
            thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
        }
        List<String> left = started.stream().filter(Thread::isAlive).map(Thread::getName).sorted()
                .collect(Collectors.toList());
        assertEquals(List.of(), left, "threads the run started are gone after it");
    }

    /** Threads the JDK starts on first use of some class (reference cleaners), not the run's. */
    private static boolean isJdkThread(String name) {
        return name.startsWith("Cleaner-") || name.equals("Common-Cleaner") || name.equals("process reaper");
    }

    private Run run(String name) {
        return run(name, UnaryOperator.identity());
    }

    private Run run(String name, UnaryOperator<LoopbackSettings> change) {
        List<ScenarioEvent> events = Collections.synchronizedList(new ArrayList<>());
        LoopbackSettings settings = change.apply(LoopbackSettings.defaults(port));
        Scenario scenario = Scenarios.find(name).orElseThrow();
        ScenarioResult result = new LoopbackLab(Backends.installed(), settings, events::add).run(scenario);
        return new Run(result, new ArrayList<>(events));
    }

    private static void assertExpected(Run run) {
        assertTrue(run.result().asExpected(), () -> run.result() + "\n" + run.log());
        assertEquals(List.of(), run.failedChecks());
    }

    @Test
    void seedWritesHelloWorldAndReadsItBack() {
        Run run = run("seed");
        assertExpected(run);
        List<WorkCompletion> client = run.completions(PeerRole.CLIENT);
        assertEquals(2, client.size(), run::log);
        assertEquals(WcStatus.SUCCESS, client.get(0).status());
        assertEquals(WcOpcode.RDMA_WRITE, client.get(0).opcode());
        assertEquals(WcStatus.SUCCESS, client.get(1).status());
        assertEquals(WcOpcode.RDMA_READ, client.get(1).opcode());
        assertEquals(11, client.get(1).byteLength());
        byte[] hello = "HelloWorld\0".getBytes(StandardCharsets.US_ASCII);
        List<byte[]> server = run.buffers(PeerRole.SERVER);
        assertArrayEquals(new byte[11], server.get(0), "the server's buffer starts zeroed");
        assertArrayEquals(hello, server.get(1), "the server's buffer shows the WRITE");
        List<byte[]> clientBuffers = run.buffers(PeerRole.CLIENT);
        assertArrayEquals(hello, clientBuffers.get(clientBuffers.size() - 1), "the READ brought it back");
        assertEquals(List.of(), run.completions(PeerRole.SERVER), "one-sided: no server completions");
    }

    @Test
    void bulkVerifiesByteForByteAtEachMtu() {
        Run run = run("bulk", s -> s.withSize(100_003).withPathMtu(Mtu.MTU_1024));
        assertExpected(run);
        assertEquals(List.of(WcStatus.SUCCESS, WcStatus.SUCCESS), run.statuses(PeerRole.CLIENT));
        assertEquals(100_003, run.completions(PeerRole.CLIENT).get(1).byteLength());
    }

    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(ints = {256, 512, 1024})
    void bulkSplitsIntoPathMtuPackets(int mtu) {
        Run run = run("bulk", s -> s.withSize(5 * mtu + 3).withPathMtu(Mtu.ofBytes(mtu)));
        assertExpected(run);
    }

    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(ints = {2048, 4096})
    void bulkAtLargePathMtuOnAJumboLink(int mtu) {
        Run run = run("bulk", s -> s.withSize(5 * mtu + 3).withPathMtu(Mtu.ofBytes(mtu))
                .withLinkMtu(9000));
        assertExpected(run);
    }

    @Test
    void aPathMtuAboveTheActiveMtuIsRefusedWithTheReason() {
        Run run = run("bulk", s -> s.withSize(5000).withPathMtu(Mtu.MTU_2048));
        assertFalse(run.result().asExpected());
        assertTrue(run.log().contains("EINVAL"), run.log());
    }

    @Test
    void bulkSurvivesInjectedFaults() {
        // 64 packets of 1 KiB each way: every lost READ response waits out the seed's 1.07 s ACK
        // timeout (as on rxe), so fewer, larger packets keep the lesson and not the wait.
        Run run = run("bulk", s -> s.withSize(64 * 1024).withPathMtu(Mtu.MTU_1024)
                .withFaults("drop=0.05,dup=0.01,seed=7"));
        assertExpected(run);
        assertEquals(List.of(WcStatus.SUCCESS, WcStatus.SUCCESS), run.statuses(PeerRole.CLIENT));
    }

    @Test
    void sendLandsInThePostedReceiveAndImmediateDataArrives() {
        Run run = run("send");
        assertExpected(run);
        assertEquals(List.of(WcStatus.SUCCESS, WcStatus.SUCCESS), run.statuses(PeerRole.CLIENT));
        List<WorkCompletion> server = run.completions(PeerRole.SERVER);
        assertEquals(2, server.size(), run::log);
        assertEquals(WcOpcode.RECV, server.get(0).opcode());
        assertEquals(11, server.get(0).byteLength());
        assertEquals(WcOpcode.RECV_RDMA_WITH_IMM, server.get(1).opcode());
        assertTrue(WcFlag.has(server.get(1).wcFlags(), WcFlag.WITH_IMM));
        assertEquals(0x1234abcd, server.get(1).immData());
    }

    @Test
    void atomicsReturnTheOldValues() {
        Run run = run("atomic");
        assertExpected(run);
        List<WorkCompletion> client = run.completions(PeerRole.CLIENT);
        assertEquals(List.of(WcOpcode.FETCH_ADD, WcOpcode.COMP_SWAP, WcOpcode.COMP_SWAP),
                client.stream().map(WorkCompletion::opcode).collect(Collectors.toList()));
        assertEquals(List.of(WcStatus.SUCCESS, WcStatus.SUCCESS, WcStatus.SUCCESS), run.statuses(PeerRole.CLIENT));
    }

    @Test
    void badRkeyIsARemoteAccessErrorAndFlushesTheNextRequest() {
        Run run = run("bad-rkey");
        assertExpected(run);
        assertEquals(List.of(WcStatus.REM_ACCESS_ERR, WcStatus.WR_FLUSH_ERR), run.statuses(PeerRole.CLIENT));
    }

    @Test
    void outOfBoundsIsARemoteAccessError() {
        Run run = run("out-of-bounds");
        assertExpected(run);
        assertEquals(List.of(WcStatus.REM_ACCESS_ERR, WcStatus.WR_FLUSH_ERR), run.statuses(PeerRole.CLIENT));
    }

    @Test
    void mrWithoutRemoteWriteIsARemoteAccessError() {
        Run run = run("mr-no-remote-write");
        assertExpected(run);
        assertEquals(List.of(WcStatus.REM_ACCESS_ERR, WcStatus.WR_FLUSH_ERR), run.statuses(PeerRole.CLIENT));
    }

    @Test
    void qpWithoutRemoteWriteIsAnInvalidRequest() {
        Run run = run("qp-no-remote-write");
        assertExpected(run);
        assertEquals(List.of(WcStatus.REM_INV_REQ_ERR, WcStatus.WR_FLUSH_ERR), run.statuses(PeerRole.CLIENT));
    }

    @Test
    void sendWithoutReceiveExceedsTheRnrRetries() {
        Run run = run("rnr");
        assertExpected(run);
        assertEquals(List.of(WcStatus.RNR_RETRY_EXC_ERR), run.statuses(PeerRole.CLIENT));
        assertEquals(List.of(), run.completions(PeerRole.SERVER));
    }

    @Test
    void silentPeerExceedsTheTransportRetriesInAboutTimeoutTimesRetries() {
        Run run = run("retry-exceeded");
        assertExpected(run);
        assertEquals(List.of(WcStatus.RETRY_EXC_ERR), run.statuses(PeerRole.CLIENT));
        long elapsed = run.events().stream().filter(e -> e instanceof ScenarioEvent.Completion)
                .mapToLong(e -> ((ScenarioEvent.Completion) e).elapsedNanos()).findFirst().orElseThrow();
        long expected = 7 * (4096L << 14);
        assertTrue(elapsed >= expected / 2 && elapsed < expected * 3 + 1_000_000_000L,
                "took " + elapsed / 1_000_000 + " ms, expected about " + expected / 1_000_000 + " ms");
    }

    @Test
    void resetToRtrIsRefusedWithEinvalAndExplained() {
        Run run = run("bad-transition");
        assertExpected(run);
        List<ScenarioEvent.VerbFailed> failures = run.events().stream()
                .filter(e -> e instanceof ScenarioEvent.VerbFailed).map(e -> (ScenarioEvent.VerbFailed) e)
                .collect(Collectors.toList());
        assertEquals(1, failures.size(), run::log);
        assertEquals("ibv_modify_qp", failures.get(0).verb());
        assertTrue(failures.get(0).message().contains("EINVAL (22"), failures.get(0).message());
        assertTrue(run.events().stream().anyMatch(e -> e instanceof ScenarioEvent.Note n
                && n.text().contains("RESET") && n.text().contains("INIT") && n.text().startsWith("QP state table")),
                run::log);
    }

    @Test
    void aBusyPortEndsTheRunWithAClearReasonAndReleasesEverything() throws Exception {
        try (java.net.DatagramSocket squatter = new java.net.DatagramSocket(
                new java.net.InetSocketAddress("127.0.0.2", port))) {
            Run run = run("seed");
            assertTrue(!run.result().asExpected(), run::log);
            assertTrue(!run.result().problems().isEmpty());
        }
    }
}
