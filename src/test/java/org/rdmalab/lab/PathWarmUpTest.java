package org.rdmalab.lab;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.CompilationMXBean;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;
import org.rdmalab.control.Timeouts;
import org.rdmalab.testing.Ports;
import org.rdmalab.verbs.Mtu;
import org.rdmalab.verbs.spi.Backends;
import org.rdmalab.verbs.spi.DeviceOptions;

/**
 * ibv_rc_pingpong's flow on soft0 warms its path up on a private twin device before the peers
 * meet (issue 32), and the run itself is untouched: its QPs keep their numbers and it counts its
 * own round trips.
 */
class PathWarmUpTest {

    private static final Flows.Settings SETTINGS = new Flows.Settings("soft0", 1, "auto", 4096, Mtu.MTU_1024, 5000);

    @Test
    void bothSidesWarmUpOnTwinsThenRunEveryRoundTripOnTheirOwnQps() throws Exception {
        int udpPort = Ports.freeUdpPort();
        PeerLink[] links = PeerLinks.memoryPair(Duration.ofSeconds(30));
        LabSession server = session(Role.SERVER, "127.0.0.1", udpPort, links[0], 100);
        LabSession client = session(Role.CLIENT, "127.0.0.2", udpPort, links[1], 100);
        TwoSides.runToEnd(server, client, Duration.ofSeconds(60));

        for (LabSession side : List.of(server, client)) {
            String posted = result(side, "Post receives");
            Matcher warmUp = Pattern.compile("500 receives posted; soft0's path warmed up first with ([0-9]+) round "
                    + "trips between two private twins of the device \\(([0-9]+\\.[0-9]{2}) s, not counted in the "
                    + "run\\)").matcher(posted);
            assertTrue(warmUp.matches(), posted);
            // Ten times the run's 100, or fewer where the machine was too busy to run them in the budget.
            int rounds = Integer.parseInt(warmUp.group(1));
            assertTrue(rounds == 1000 || (rounds > 0 && rounds % 250 == 0
                    && Double.parseDouble(warmUp.group(2)) >= PathWarmUp.BUDGET.toMillis() / 1000.0), posted);
            assertTrue(result(side, "Create QP").startsWith("QP number 0x11,"),
                    "the twin's QPs took none of the session device's numbers: " + result(side, "Create QP"));
            assertTrue(result(side, "Ping-pong SEND/RECV").startsWith("100 round trips of 4096 bytes in "),
                    result(side, "Ping-pong SEND/RECV"));
        }
    }

    @Test
    void overTcpTheServerWarmsUpBeforeItListensAndTheClientOnceConnectedSoTheWarmUpsNeverOverlap()
            throws Exception {
        int tcpPort = Ports.freeTcpPort();
        int udpPort = Ports.freeUdpPort();
        Timeouts timeouts = Timeouts.all(Duration.ofSeconds(30));
        // Every step's end, both sides in one list, in the order they came.
        List<String> ends = Collections.synchronizedList(new ArrayList<>());
        try (LabSession server = session(Role.SERVER, "127.0.0.1", udpPort, PeerLinks.pingpong(
                new PeerLinks.Endpoint(Role.SERVER, "127.0.0.1", "127.0.0.1", tcpPort, timeouts)), 100);
             LabSession client = session(Role.CLIENT, "127.0.0.2", udpPort, PeerLinks.pingpong(
                     new PeerLinks.Endpoint(Role.CLIENT, "127.0.0.2", "127.0.0.1", tcpPort, timeouts)), 100)) {
            server.addListener(event -> {
                if (event instanceof LabEvent.StepFinished finished) {
                    ends.add("server " + finished.step().id());
                }
            });
            client.addListener(event -> {
                if (event instanceof LabEvent.StepFinished finished) {
                    ends.add("client " + finished.step().id());
                }
            });
            // Both started at once, as a student starting the two sides on one machine does.
            TwoSides.runToEnd(server, client, Duration.ofSeconds(60));
            for (LabSession side : List.of(server, client)) {
                assertTrue(result(side, "Post receives").contains("soft0's path warmed up first with"),
                        result(side, "Post receives"));
            }
        }
        // The server's warm-up ends before the client can connect; the client's runs once connected
        // and ends before the server gets its data.
        List<String> order = List.of("server post-receives", "client connect", "client post-receives",
                "server receive-data");
        assertEquals(order, ends.stream().filter(order::contains).toList(), ends.toString());
    }

    @Test
    void aWarmUpLeavesItsPeerHalfOfTheLinksShortestWait() {
        assertEquals(new PathWarmUp.Limits(PathWarmUp.BUDGET, PathWarmUp.QUIET_LIMIT),
                PathWarmUp.Limits.within(Optional.empty()));
        assertEquals(PathWarmUp.Limits.FULL, PathWarmUp.Limits.within(Optional.of(Duration.ofSeconds(30))));
        assertEquals(PathWarmUp.Limits.FULL, PathWarmUp.Limits.within(Optional.of(Duration.ofSeconds(8))));
        // demo --timeout 4: 2 s, 1.5 s of round trips and 0.5 s for the compilers.
        assertEquals(new PathWarmUp.Limits(Duration.ofMillis(1500), Duration.ofMillis(500)),
                PathWarmUp.Limits.within(Optional.of(Duration.ofSeconds(4))));
        assertEquals(new PathWarmUp.Limits(Duration.ofNanos(2_999_250_000L), Duration.ofNanos(999_750_000)),
                PathWarmUp.Limits.within(Optional.of(Duration.ofMillis(7998))));
        // A TCP link counts the shortest of its connect, accept and read timeouts.
        Timeouts timeouts = new Timeouts(Duration.ofSeconds(3), Duration.ofSeconds(4), Duration.ofSeconds(5));
        assertEquals(Optional.of(Duration.ofSeconds(3)), PeerLinks.pingpong(
                new PeerLinks.Endpoint(Role.CLIENT, "127.0.0.2", "127.0.0.1", 1, timeouts)).shortestWait());
        assertEquals(Optional.of(Duration.ofSeconds(4)), PeerLinks.seed(new PeerLinks.Endpoint(Role.SERVER,
                "127.0.0.1", "127.0.0.1", 1, timeouts.withConnect(Duration.ofSeconds(9)))).shortestWait());
        assertEquals(Optional.of(Duration.ofSeconds(2)), PeerLinks.lab(new PeerLinks.Endpoint(Role.SERVER,
                "127.0.0.1", "127.0.0.1", 1, timeouts.withRead(Duration.ofSeconds(2)))).shortestWait());
        assertEquals(Optional.of(Duration.ofSeconds(7)), PeerLinks.memoryPair(Duration.ofSeconds(7))[0].shortestWait());
    }

    @Test
    void aWarmUpRunsExactlyItsRoundTripsOverSeveralPairsOfTwins() throws Exception {
        PeerLink[] links = PeerLinks.memoryPair(Duration.ofSeconds(30));
        LabSession server = session(Role.SERVER, "127.0.0.1", Ports.freeUdpPort(), links[0], 1);
        try {
            while (server.nextStep().map(step -> !step.id().equals("connect")).orElse(false)) {
                server.runNext();
            }
            assertTrue(result(server, "Post receives").startsWith("500 receives posted"), result(server, "Post receives"));
            // 1 400: a first pair of twins for 1 000, then a second for 400 in chunks of 250 and 150.
            for (int rounds : new int[] {1, PathWarmUp.TWIN_ROUNDS + 400}) {
                long begin = System.nanoTime();
                int done = PathWarmUp.run(server, rounds, Mtu.MTU_1024, Duration.ofSeconds(5));
                boolean overBudget = System.nanoTime() - begin >= PathWarmUp.BUDGET.toNanos();
                if (overBudget) {
                    assertTrue(done > 0 && done <= rounds, rounds + " asked, " + done + " run over the budget");
                } else {
                    assertEquals(rounds, done);
                }
            }
            // A budget spent at once still runs the first chunk of 250, and only that.
            assertEquals(250, PathWarmUp.run(server, PathWarmUp.TWIN_ROUNDS + 400, Mtu.MTU_1024, Duration.ofSeconds(5),
                    Duration.ZERO));
            assertEquals(1, PathWarmUp.run(server, 1, Mtu.MTU_1024, Duration.ofSeconds(5), Duration.ZERO));
        } finally {
            server.close();
        }
    }

    @Test
    void aRunWarmsUpWithTenTimesItsRoundTripsUpToTheCap() {
        Duration timeout = Duration.ofSeconds(2);
        assertEquals(20_000, PathWarmUp.ROUNDS);
        assertEquals(10, new PingPongStep.PostReceives(Mtu.MTU_1024, timeout, 1).warmUpRounds());
        assertEquals(10_000, new PingPongStep.PostReceives(Mtu.MTU_1024, timeout, 1000).warmUpRounds());
        assertEquals(19_990, new PingPongStep.PostReceives(Mtu.MTU_1024, timeout, 1999).warmUpRounds());
        assertEquals(20_000, new PingPongStep.PostReceives(Mtu.MTU_1024, timeout, 2000).warmUpRounds());
        assertEquals(20_000, new PingPongStep.PostReceives(Mtu.MTU_1024, timeout, 2001).warmUpRounds());
        assertEquals(PathWarmUp.ROUNDS,
                new PingPongStep.PostReceives(Mtu.MTU_1024, timeout, 100_000_000).warmUpRounds());
    }

    @Test
    void theWarmUpWaitsForTheCompilersTotalTimeToStandStill() throws Exception {
        // Growing for its first six looks (about 120 ms), then still: the wait outlasts the growth.
        Compilers compilers = new Compilers(true, 6);
        assertTrue(PathWarmUp.awaitCompilerQuiet(compilers, Duration.ofMillis(60), Duration.ofSeconds(10)));
        assertTrue(compilers.looks > 6, "returned while the compilers were still busy: " + compilers.looks + " looks");
        // A still total from the start: quiet after about three looks, long before the limit.
        Compilers still = new Compilers(true, 0);
        assertTrue(PathWarmUp.awaitCompilerQuiet(still, Duration.ofMillis(60), Duration.ofSeconds(10)));
        assertTrue(still.looks >= 3 && still.looks < 20, still.looks + " looks");
    }

    @Test
    void theWarmUpStopsWaitingAtItsLimitOrWhereNoCompilerKeepsTime() throws Exception {
        Compilers busy = new Compilers(true, Integer.MAX_VALUE);
        assertFalse(PathWarmUp.awaitCompilerQuiet(busy, Duration.ofSeconds(10), Duration.ofMillis(100)));
        assertTrue(busy.looks >= 3, busy.looks + " looks");
        Compilers untimed = new Compilers(false, 0);
        assertFalse(PathWarmUp.awaitCompilerQuiet(untimed, Duration.ofMillis(60), Duration.ofSeconds(10)));
        assertEquals(0, untimed.looks);
        assertFalse(PathWarmUp.awaitCompilerQuiet(null, Duration.ofMillis(60), Duration.ofSeconds(10)));
    }

    /** A JIT whose total compilation time grows by 1 ms at each of its first {@code busyLooks} looks. */
    private static final class Compilers implements CompilationMXBean {
        private final boolean timed;
        private final int busyLooks;
        int looks;

        Compilers(boolean timed, int busyLooks) {
            this.timed = timed;
            this.busyLooks = busyLooks;
        }

        @Override
        public String getName() {
            return "test";
        }

        @Override
        public boolean isCompilationTimeMonitoringSupported() {
            return timed;
        }

        @Override
        public long getTotalCompilationTime() {
            looks++;
            return Math.min(looks, busyLooks);
        }

        @Override
        public ObjectName getObjectName() {
            return null;
        }
    }

    private static LabSession session(Role role, String address, int udpPort, PeerLink link, int iterations) {
        DeviceOptions options = DeviceOptions.defaults().withAddress(DeviceOptions.parseAddress(address))
                .withUdpPort(udpPort);
        return new LabSession(role, Backends.installed(), options, link, Flows.pingpong(role, SETTINGS, iterations));
    }

    private static String result(LabSession session, String title) {
        return session.steps().stream().filter(step -> step.title().equals(title)).findFirst()
                .flatMap(Step::result).map(StepResult::summary).orElse("(no step '" + title + "')");
    }
}
