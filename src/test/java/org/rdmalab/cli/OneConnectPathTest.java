package org.rdmalab.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rdmalab.lab.LabSession;
import org.rdmalab.lab.LabSetup;
import org.rdmalab.testing.Ports;
import org.rdmalab.verbs.QpAttrMask;
import org.rdmalab.verbs.QpState;
import org.rdmalab.verbs.RcPath;
import org.rdmalab.verbs.spi.Backends;
import org.rdmalab.verbs.spi.DeviceOptions;

/**
 * The four RC connect sequences are one: a change planted in {@link RcPath} (a min_rnr_timer of
 * 0x05 at INIT → RTR) reaches the QPs of the window's steps, of {@code loopback}, of {@code bench}
 * and of {@code doctor}. Each QP's min_rnr_timer is read back from the device at its RTR → RTS,
 * while it is in RTR with what it was given.
 */
@Timeout(120)
class OneConnectPathTest {

    private static final int PLANTED = 0x05;

    /** The min_rnr_timer each QP had when it moved on to RTS. */
    private final List<Integer> seen = Collections.synchronizedList(new ArrayList<>());

    /** A plant that records each QP's min_rnr_timer at RTS and, when {@code change}, sets it to {@link #PLANTED} at RTR. */
    private AutoCloseable plant(boolean change) {
        return RcPath.plant((qp, attributes, mask) -> {
            if (attributes.state() == QpState.RTR && change) {
                return attributes.minRnrTimer(PLANTED);
            }
            if (attributes.state() == QpState.RTS && qp.state() == QpState.RTR) {
                seen.add(qp.query(QpAttrMask.MIN_RNR_TIMER.value()).minRnrTimer());
            }
            return attributes;
        });
    }

    /** What the QPs of one run had, the run's list cleared for the next. */
    private List<Integer> taken() {
        List<Integer> all = List.copyOf(seen);
        seen.clear();
        return all;
    }

    private static void assertAll(int expected, int count, List<Integer> values, String who) {
        assertEquals(count, values.size(), who + ": every QP went through RcPath to RTS: " + values);
        assertTrue(values.stream().allMatch(v -> v == expected), who + ": min_rnr_timer " + values);
    }

    @Test
    void aChangePlantedInTheSharedPathShowsUpInTheWindowsStepsLoopbackBenchAndDoctor() throws Exception {
        try (AutoCloseable unchanged = plant(false)) {
            windowSteps();
            assertAll(0x12, 2, taken(), "the window's steps, unplanted (the seed's 0x12)");
            benchWrite();
            assertAll(12, 2, taken(), "bench, unplanted (perftest's 12)");
        }
        try (AutoCloseable planted = plant(true)) {
            windowSteps();
            assertAll(PLANTED, 2, taken(), "the window's steps");
            loopbackSeed();
            assertAll(PLANTED, 2, taken(), "loopback");
            benchWrite();
            assertAll(PLANTED, 2, taken(), "bench");
            doctorPair();
            assertAll(PLANTED, 2, taken(), "doctor");
        }
        windowSteps();
        assertEquals(List.of(), taken(), "the plant is gone once closed");
    }

    /** The loopback lab as the window opens it (with the recommended GID), both sides run to their end. */
    private static void windowSteps() throws Exception {
        LabSetup setup = LabSetup.loopback().withGidIndex("auto")
                .withBase(DeviceOptions.defaults().withUdpPort(Ports.freeUdpPort()));
        List<LabSession> sessions = setup.open(Backends.installed());
        try {
            CompletableFuture<Void> server = CompletableFuture.runAsync(() -> sessions.get(0).runToEnd());
            sessions.get(1).runToEnd();
            server.get(60, TimeUnit.SECONDS);
            assertTrue(sessions.get(0).finished() && sessions.get(1).finished(), "both flows ran to their end");
        } finally {
            sessions.forEach(LabSession::close);
        }
    }

    private static void loopbackSeed() {
        CliRunner.Result result = CliRunner.run("loopback", "--scenario", "seed", "--udp-port",
                Integer.toString(Ports.freeUdpPort()));
        assertEquals(0, result.exitCode(), result.out() + result.err());
        assertTrue(result.out().contains("result: as expected"), result.out());
    }

    private static void benchWrite() {
        CliRunner.Result result = CliRunner.run("bench", "write", "--bw", "--loopback", "-s", "64", "-n", "20",
                "--udp-port", Integer.toString(Ports.freeUdpPort()), "--baseline-port",
                Integer.toString(Ports.freeUdpPort()));
        assertEquals(0, result.exitCode(), result.out() + result.err());
    }

    private static void doctorPair() throws Exception {
        String tcp = Integer.toString(Ports.freeTcpPort());
        String udp = Integer.toString(Ports.freeUdpPort());
        CompletableFuture<CliRunner.Result> server = CompletableFuture.supplyAsync(() -> CliRunner.run("doctor",
                "--serve", "127.0.0.1", "soft0", "--tcp-port", tcp, "--udp-port", udp, "--timeout", "20"));
        CliRunner.Result client = CliRunner.run("doctor", "127.0.0.2", "soft0", "127.0.0.1", "--tcp-port", tcp,
                "--udp-port", udp, "--timeout", "20");
        CliRunner.Result served = server.get(60, TimeUnit.SECONDS);
        assertEquals(0, client.exitCode(), client.out() + client.err());
        assertEquals(0, served.exitCode(), served.out() + served.err());
        assertFalse(client.out().contains("✗"), client.out());
    }
}
