package org.rdmalab.lab;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.channels.DatagramChannel;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.rdmalab.testing.Ports;

class UdpPingPongStepTest {

    private static DatagramChannel channel(String local, String peer, int port) throws Exception {
        DatagramChannel channel = DatagramChannel.open(StandardProtocolFamily.INET);
        channel.bind(new InetSocketAddress(local, port));
        channel.connect(new InetSocketAddress(peer, port));
        channel.configureBlocking(false);
        return channel;
    }

    @Test
    void aClientStartedBeforeItsServerIsAnsweredAndTimesEveryRoundTripOfAMultiDatagramMessage() throws Exception {
        int port = Ports.freeUdpPort();
        long timeout = TimeUnit.SECONDS.toNanos(10);
        try (DatagramChannel client = channel("127.0.0.2", "127.0.0.1", port)) {
            // The client says hello before the server's socket exists (ICMP port unreachable).
            CompletableFuture<UdpPingPongStep.Run> clientRun = CompletableFuture.supplyAsync(() -> {
                try {
                    return new UdpPingPongStep.Datagrams(client, 2500, 1024).client(300, timeout);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            Thread.sleep(50);
            UdpPingPongStep.Run served;
            try (DatagramChannel server = channel("127.0.0.1", "127.0.0.2", port)) {
                served = new UdpPingPongStep.Datagrams(server, 2500, 1024).server(300, timeout);
            }
            UdpPingPongStep.Run ran = clientRun.get(30, TimeUnit.SECONDS);
            assertNull(ran.failure());
            assertNull(served.failure());
            assertEquals(0, ran.lost());
            assertEquals(0, served.lost());
            assertTrue(ran.nanos() > 0 && served.nanos() > 0, ran + " " + served);
            // Every round trip is in the distribution: the client's 300, and the server's 300 from the
            // hello's echo to the first echo and from each echo to the next.
            assertEquals(300, ran.roundTrips().count());
            assertEquals(300, served.roundTrips().count());
            double meanMicros = ran.nanos() / 1e3 / 300;
            double median = ran.roundTrips().medianMicros();
            assertTrue(median > 0 && median <= ran.roundTrips().p99Micros(), ran.roundTrips().summary());
            assertTrue(median < 2 * meanMicros, "median " + median + " against a mean of " + meanMicros);
        }
        assertEquals(3, UdpPingPongStep.datagrams(2500, 1024), "a 2500-byte message is three 1024-byte packets");
    }

    @Test
    void aServerOfOneIterationTimesThatRoundTripAsItsClientDoes() throws Exception {
        int port = Ports.freeUdpPort();
        long timeout = TimeUnit.SECONDS.toNanos(10);
        try (DatagramChannel server = channel("127.0.0.1", "127.0.0.2", port);
             DatagramChannel client = channel("127.0.0.2", "127.0.0.1", port)) {
            CompletableFuture<UdpPingPongStep.Run> serverRun = CompletableFuture.supplyAsync(() -> {
                try {
                    return new UdpPingPongStep.Datagrams(server, 64, 1024).server(1, timeout);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            UdpPingPongStep.Run ran = new UdpPingPongStep.Datagrams(client, 64, 1024).client(1, timeout);
            UdpPingPongStep.Run served = serverRun.get(30, TimeUnit.SECONDS);
            assertNull(served.failure());
            // The server's time covers the round trip from its echo of the hello to its echo of
            // message 1, not only its own turn on message 1: one round trip, as the client's does.
            assertEquals(1, ran.roundTrips().count());
            assertEquals(1, served.roundTrips().count());
            double recordedNanos = served.roundTrips().medianMicros() * 1e3;
            assertEquals(served.nanos(), recordedNanos, served.nanos() / 100.0, "the time is that round trip's");
        }
    }

    @Test
    void aClientWithNoPeerFailsWithinItsTimeoutSayingWhatToCheck() throws Exception {
        int port = Ports.freeUdpPort();
        try (DatagramChannel client = channel("127.0.0.2", "127.0.0.1", port)) {
            long start = System.nanoTime();
            UdpPingPongStep.Run run = new UdpPingPongStep.Datagrams(client, 64, 1024)
                    .client(10, TimeUnit.MILLISECONDS.toNanos(200));
            assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(5));
            assertTrue(run.failure().contains("did not answer within 200 ms"), run.failure());
            assertTrue(run.failure().contains("--baseline"), run.failure());
        }
    }

    @Test
    void aServerWhoseClientNeverComesFailsWithinItsTimeout() throws Exception {
        int port = Ports.freeUdpPort();
        try (DatagramChannel server = channel("127.0.0.1", "127.0.0.2", port)) {
            UdpPingPongStep.Run run = new UdpPingPongStep.Datagrams(server, 64, 1024)
                    .server(10, TimeUnit.MILLISECONDS.toNanos(200));
            assertTrue(run.failure().contains("sent nothing within 200 ms"), run.failure());
        }
    }
}
