package org.rdmalab.baseline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.rdmalab.testing.Ports;

class PingPongTest {

    private static DatagramChannel channel(String local, String peer, int port) throws Exception {
        DatagramChannel channel = unconnected(local, port);
        channel.connect(new InetSocketAddress(peer, port));
        return channel;
    }

    private static DatagramChannel unconnected(String local, int port) throws Exception {
        DatagramChannel channel = DatagramChannel.open(StandardProtocolFamily.INET);
        channel.bind(new InetSocketAddress(local, port));
        channel.configureBlocking(false);
        return channel;
    }

    /**
     * Takes the client's first hello on the server's address and leaves it unanswered, so the client
     * has spoken before its server exists; the address is free again when this returns.
     */
    private static void awaitUnansweredHello(InetSocketAddress server) throws Exception {
        try (DatagramSocket probe = new DatagramSocket(server)) {
            probe.setSoTimeout(30_000);
            probe.receive(new DatagramPacket(new byte[4096], 4096));
        }
    }

    /** One side's run on another thread. */
    private static CompletableFuture<PingPong.Run> inBackground(Callable<PingPong.Run> side) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return side.call();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
    }

    @Test
    void aClientStartedBeforeItsServerIsAnsweredAndTimesEveryRoundTripOfAMultiDatagramMessage() throws Exception {
        int port = Ports.freeUdpPort();
        long timeout = TimeUnit.SECONDS.toNanos(10);
        try (DatagramChannel client = channel("127.0.0.2", "127.0.0.1", port)) {
            // The client says hello before the server's socket exists, and says it again.
            CompletableFuture<PingPong.Run> clientRun =
                    inBackground(() -> new PingPong(client, null, 2500, 1024).client(300, timeout));
            awaitUnansweredHello(new InetSocketAddress("127.0.0.1", port));
            PingPong.Run served;
            try (DatagramChannel server = channel("127.0.0.1", "127.0.0.2", port)) {
                served = new PingPong(server, null, 2500, 1024).server(300, timeout);
            }
            PingPong.Run ran = clientRun.get(30, TimeUnit.SECONDS);
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
        assertEquals(3, Datagrams.count(2500, 1024), "a 2500-byte message is three 1024-byte packets");
    }

    @Test
    void rcsDatagramsRunEveryRoundTripWithOneAckForEachMessageEachWay() throws Exception {
        int port = Ports.freeUdpPort();
        long timeout = TimeUnit.SECONDS.toNanos(10);
        InetSocketAddress serverAddress = new InetSocketAddress("127.0.0.1", port);
        InetSocketAddress clientAddress = new InetSocketAddress("127.0.0.2", port);
        try (DatagramChannel client = unconnected("127.0.0.2", port)) {
            CompletableFuture<PingPong.Run> clientRun = inBackground(() ->
                    new PingPong(client, serverAddress, 2500, 1024).client(300, timeout));
            awaitUnansweredHello(serverAddress); // the client's hello finds no server yet
            PingPong.Run served;
            try (DatagramChannel server = unconnected("127.0.0.1", port)) {
                served = new PingPong(server, clientAddress, 2500, 1024).server(300, timeout);
            }
            PingPong.Run ran = clientRun.get(30, TimeUnit.SECONDS);
            assertNull(ran.failure());
            assertNull(served.failure());
            assertEquals(0, ran.lost());
            assertEquals(0, served.lost());
            assertEquals(300, ran.roundTrips().count());
            assertEquals(300, served.roundTrips().count());
            // Each side acknowledges each of the other's 300 messages once (the hello is not acknowledged).
            assertEquals(300, ran.acksSent());
            assertEquals(300, served.acksSent());
        }
    }

    @Test
    void rcsServerAnswersBeforeItAcknowledgesButAcknowledgesAtOnceWhileItsLastEchoWaitsForItsAck() throws Exception {
        int port = Ports.freeUdpPort();
        try (DatagramChannel server = unconnected("127.0.0.1", port);
             DatagramSocket peer = new DatagramSocket(new InetSocketAddress("127.0.0.2", port))) {
            CompletableFuture<PingPong.Run> serverRun = serverWithEchoTwoHeld(server, peer, port);
            sendRc(peer, PingPong.RC_ACK_TYPE, 1, 20);
            assertEquals("3/2/80", received(peer), "the echo that waited for that ACK");
            sendRc(peer, PingPong.RC_ACK_TYPE, 2, 20);
            PingPong.Run served = serverRun.get(30, TimeUnit.SECONDS);
            assertNull(served.failure());
            assertEquals(0, served.lost());
            assertEquals(2, served.roundTrips().count());
            assertEquals(2, served.acksSent());
        }
    }

    @Test
    void rcsServerWhoseEchoIsNeverAcknowledgedGoesOnAfterTheLossTimeAsItsClientWould() throws Exception {
        int port = Ports.freeUdpPort();
        try (DatagramChannel server = unconnected("127.0.0.1", port);
             DatagramSocket peer = new DatagramSocket(new InetSocketAddress("127.0.0.2", port))) {
            CompletableFuture<PingPong.Run> serverRun = serverWithEchoTwoHeld(server, peer, port);
            long since = System.nanoTime();
            // No ACK of echo 1 ever comes: echo 2 goes out once that ACK is taken for lost.
            assertEquals("3/2/80", received(peer));
            assertTrue(System.nanoTime() - since >= PingPong.LOSS_NANOS / 2, "it waited for the ACK first");
            sendRc(peer, PingPong.RC_ACK_TYPE, 2, 20);
            PingPong.Run served = serverRun.get(30, TimeUnit.SECONDS);
            assertNull(served.failure());
            assertEquals(2, served.roundTrips().count());
        }
    }

    /**
     * An RC server of two messages on 127.0.0.1, driven by hand from {@code peer} on 127.0.0.2 up to
     * message 2, which arrives before echo 1 is acknowledged: checks each datagram the server sends.
     */
    private static CompletableFuture<PingPong.Run> serverWithEchoTwoHeld(DatagramChannel server,
                                                                              DatagramSocket peer, int port)
            throws Exception {
        peer.setSoTimeout(5000);
        CompletableFuture<PingPong.Run> serverRun = inBackground(() ->
                new PingPong(server, new InetSocketAddress("127.0.0.2", port), 64, 1024)
                        .server(2, TimeUnit.SECONDS.toNanos(10)));
        // A 64-byte message is one datagram of 80 bytes, as a 64-byte SEND's packet (BTH, payload, ICRC).
        sendRc(peer, PingPong.RC_DATA, 0, 80);
        assertEquals("3/0/80", received(peer), "the hello's echo, not acknowledged");
        sendRc(peer, PingPong.RC_DATA, 1, 80);
        assertEquals("3/1/80", received(peer), "the answer first ...");
        assertEquals("4/1/20", received(peer), "... then the ACK, as long as RC's");
        // Message 2 before echo 1 is acknowledged: the echo must wait, the ACK need not.
        sendRc(peer, PingPong.RC_DATA, 2, 80);
        assertEquals("4/2/20", received(peer));
        return serverRun;
    }

    /** Sends the server on 127.0.0.1 (the socket's port) a datagram of RC's pattern. */
    private static void sendRc(DatagramSocket socket, byte type, int seq, int length) throws Exception {
        ByteBuffer datagram = ByteBuffer.allocate(length).put(type).put((byte) 1).putShort((short) 0).putInt(seq);
        socket.send(new DatagramPacket(datagram.array(), length,
                new InetSocketAddress("127.0.0.1", socket.getLocalPort())));
    }

    /** The next datagram as "type/message number/length". */
    private static String received(DatagramSocket socket) throws Exception {
        DatagramPacket packet = new DatagramPacket(new byte[2048], 2048);
        socket.receive(packet);
        ByteBuffer datagram = ByteBuffer.wrap(packet.getData(), 0, packet.getLength());
        return datagram.get(0) + "/" + datagram.getInt(4) + "/" + packet.getLength();
    }

    @Test
    void aServerOfOneIterationTimesThatRoundTripAsItsClientDoes() throws Exception {
        int port = Ports.freeUdpPort();
        long timeout = TimeUnit.SECONDS.toNanos(10);
        try (DatagramChannel server = channel("127.0.0.1", "127.0.0.2", port);
             DatagramChannel client = channel("127.0.0.2", "127.0.0.1", port)) {
            CompletableFuture<PingPong.Run> serverRun =
                    inBackground(() -> new PingPong(server, null, 64, 1024).server(1, timeout));
            PingPong.Run ran = new PingPong(client, null, 64, 1024).client(1, timeout);
            PingPong.Run served = serverRun.get(30, TimeUnit.SECONDS);
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
            PingPong.Run run = new PingPong(client, null, 64, 1024)
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
            PingPong.Run run = new PingPong(server, null, 64, 1024)
                    .server(10, TimeUnit.MILLISECONDS.toNanos(200));
            assertTrue(run.failure().contains("sent nothing within 200 ms"), run.failure());
        }
    }
}
