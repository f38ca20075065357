package org.rdmalab.lab;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rdmalab.control.Timeouts;
import org.rdmalab.control.lab.LabConnection;
import org.rdmalab.testing.Await;
import org.rdmalab.testing.Ports;
import org.rdmalab.verbs.QpState;
import org.rdmalab.verbs.spi.Backends;
import org.rdmalab.verbs.spi.DeviceOptions;

/** Two sessions over the lab protocol in one JVM: what one does reaches the other, and reset leaks nothing. */
@Timeout(300)
class LabResetLeakTest {

    private static final int ROUNDS = 100;

    private static LabSession session(Role role, String address, int udpPort, int tcpPort) {
        DeviceOptions options = DeviceOptions.defaults().withAddress(DeviceOptions.parseAddress(address))
                .withUdpPort(udpPort);
        PeerLink link = PeerLinks.lab(new PeerLinks.Endpoint(role, address, "127.0.0.1", tcpPort,
                Timeouts.all(Duration.ofSeconds(10))));
        return new LabSession(role, Backends.installed(), options, link,
                Flows.seed(role, Flows.SeedFlow.WRITE_ONLY, Flows.Settings.seed("soft0"), true));
    }

    /** Runs steps up to and including {@code lastId}. */
    private static boolean runThrough(LabSession session, String lastId) {
        while (session.nextStep().isPresent()) {
            String id = session.nextStep().get().id();
            if (!session.runNext().orElseThrow().ok()) {
                return false;
            }
            if (id.equals(lastId)) {
                return true;
            }
        }
        return false;
    }

    /** Threads a session leaves when it leaks: link readers and software-device transports. */
    private static long sessionThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
                .filter(name -> name.startsWith(LabConnection.READER_THREAD_PREFIX)
                        || (name.startsWith("soft0@") && name.endsWith(" transport")))
                .count();
    }

    /** Open sockets of this process (TCP and UDP), from /proc/self/fd. */
    private static long openSockets() throws IOException {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.filter(fd -> {
                try {
                    return Files.readSymbolicLink(fd).toString().startsWith("socket:");
                } catch (IOException gone) {
                    return false;
                }
            }).count();
        }
    }

    /** {@code count} once it is down to {@code target}, or what it is after 5 s (the test then says so). */
    private static long settled(java.util.function.LongSupplier count, long target) {
        try {
            Await.until("the count to settle", Duration.ofSeconds(5), () -> count.getAsLong() <= target);
        } catch (AssertionError stillMore) {
            // the caller's assertion names what is left
        }
        return count.getAsLong();
    }

    @Test
    void thePeersStateAndBufferReachThisSideOverTheLabProtocol() throws Exception {
        int udpPort = Ports.freeUdpPort();
        int tcpPort = Ports.freeTcpPort();
        ExecutorService serverThread = Executors.newSingleThreadExecutor();
        try (LabSession server = session(Role.SERVER, "127.0.0.1", udpPort, tcpPort);
                LabSession client = session(Role.CLIENT, "127.0.0.2", udpPort, tcpPort)) {
            List<LabEvent> clientEvents = Collections.synchronizedList(new ArrayList<>());
            client.addListener(clientEvents::add);
            CompletableFuture<LabEvent.QpStateChange> peerInit = new CompletableFuture<>();
            client.addListener(event -> {
                if (event instanceof LabEvent.QpStateChange change && change.side() == LabEvent.Side.PEER
                        && change.to() == QpState.INIT) {
                    peerInit.complete(change);
                }
            });
            Future<Boolean> serverRun = serverThread.submit(() -> runThrough(server, "exchange"));
            assertTrue(runThrough(client, "exchange"));
            assertTrue(serverRun.get(30, TimeUnit.SECONDS));
            // The server moves its QP while the client waits for nothing: the state still arrives.
            assertTrue(server.runNext().orElseThrow().ok(), "server INIT");
            int serverQp = server.resources().queuePair().orElseThrow().qpNum();
            LabEvent.QpStateChange seen = peerInit.get(10, TimeUnit.SECONDS);
            assertEquals(serverQp, seen.qpNum(), "the server's INIT reached the idle client");

            server.resources().memoryRegion().orElseThrow().write(0, "ServerData\0"
                    .getBytes(StandardCharsets.US_ASCII));
            byte[] snapshot = client.traffic().readPeerBuffer(0, 11).orElseThrow();
            assertArrayEquals("ServerData\0".getBytes(StandardCharsets.US_ASCII), snapshot);
            LabEvent.RemoteBuffer view;
            synchronized (clientEvents) {
                view = clientEvents.stream().filter(LabEvent.RemoteBuffer.class::isInstance)
                        .map(LabEvent.RemoteBuffer.class::cast).findFirst().orElseThrow();
            }
            assertEquals("peer snapshot (lab protocol)", view.source());
            assertArrayEquals(snapshot, view.bytes());
            assertEquals("lab", client.resources().localWire().orElseThrow().protocol());
            Future<?> serverReset = serverThread.submit(server::reset);
            client.reset();
            serverReset.get(30, TimeUnit.SECONDS);
        } finally {
            serverThread.shutdownNow();
        }
    }

    @Test
    void reset100TimesLeaksNoThreadAndNoSocket() throws Exception {
        int udpPort = Ports.freeUdpPort();
        ExecutorService serverThread = Executors.newSingleThreadExecutor();
        long threadsBefore = sessionThreads();
        long socketsBefore = openSockets();
        long start = System.nanoTime();
        try {
            for (int round = 0; round < ROUNDS; round++) {
                int tcpPort = Ports.freeTcpPort();
                LabSession server = session(Role.SERVER, "127.0.0.1", udpPort, tcpPort);
                LabSession client = session(Role.CLIENT, "127.0.0.2", udpPort, tcpPort);
                Future<Boolean> serverRun = serverThread.submit(() -> runThrough(server, "modify-init"));
                assertTrue(runThrough(client, "modify-init"), "client, round " + round);
                assertTrue(serverRun.get(30, TimeUnit.SECONDS), "server, round " + round);
                Future<?> serverReset = serverThread.submit(server::reset);
                client.reset();
                serverReset.get(30, TimeUnit.SECONDS);
            }
        } finally {
            serverThread.shutdownNow();
            serverThread.awaitTermination(5, TimeUnit.SECONDS);
        }
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        System.out.println(ROUNDS + " connect + reset rounds over the lab protocol in " + millis + " ms");
        assertEquals(threadsBefore, settled(LabResetLeakTest::sessionThreads, threadsBefore), "session threads");
        long socketsAfter = settled(() -> {
            try {
                return openSockets();
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }, socketsBefore);
        assertEquals(socketsBefore, socketsAfter, "open sockets");
        assertTrue(Ports.portReleased(udpPort), "the devices released their UDP port");
    }
}
