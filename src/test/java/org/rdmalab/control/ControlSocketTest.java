package org.rdmalab.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rdmalab.control.pingpong.PingpongExchange;
import org.rdmalab.control.seed.SeedBlock;
import org.rdmalab.control.seed.SeedExchange;
import org.rdmalab.testing.Await;
import org.rdmalab.verbs.Gid;
import org.rdmalab.verbs.Mtu;
import org.rdmalab.verbs.QpType;

/** The transport and the seed / pingpong exchanges over real sockets on 127.0.0.1, ephemeral ports. */
@Timeout(30)
class ControlSocketTest {

    private static final String LOOPBACK = "127.0.0.1";
    private static final Duration SHORT = Duration.ofMillis(300);
    private static final Timeouts QUICK = Timeouts.all(Duration.ofSeconds(5));

    private static final ConnectionData SERVER = new ConnectionData(QpType.RC, 0x11, 0, 0,
            Gid.parse("::ffff:127.0.0.1"), 0x7f0000001000L, 0x1234, 11, Mtu.MTU_256);
    private static final ConnectionData CLIENT = new ConnectionData(QpType.RC, 0x12, 0, 0,
            Gid.parse("::ffff:127.0.0.1"), 0x7f0000002000L, 0x5678, 11, Mtu.MTU_256);

    @Test
    void seedExchangeBothWays() throws Exception {
        try (ControlListener listener = ControlListener.bind(LOOPBACK, 0);
                PeerThread<ConnectionData> server = PeerThread.start("seed-server", () -> {
                    try (ControlChannel channel = listener.acceptOne(QUICK)) {
                        SeedExchange exchange = new SeedExchange(channel);
                        ConnectionData client = exchange.exchange(SERVER);
                        exchange.sync(SeedExchange.SYNC_READY);
                        exchange.sync(SeedExchange.SYNC_RECEIVED);
                        exchange.finalSync(SeedExchange.SYNC_WRITTEN);
                        return client;
                    }
                })) {
            try (ControlChannel channel = ControlChannel.connect(LOOPBACK, listener.port(), QUICK)) {
                SeedExchange exchange = new SeedExchange(channel);
                assertEquals(SERVER, exchange.exchange(CLIENT));
                assertEquals('Q', exchange.sync(SeedExchange.SYNC_READY));
                assertEquals('R', exchange.sync(SeedExchange.SYNC_RECEIVED));
                assertEquals((byte) 'W', exchange.finalSync(SeedExchange.SYNC_WRITTEN).orElseThrow());
            }
            assertEquals(CLIENT, server.result(Duration.ofSeconds(10)));
        }
    }

    @Test
    void pingpongExchangeBothWays() throws Exception {
        ConnectionData server = ConnectionData.rc(0x21, 3, Gid.ZERO).withPsn(0x123456).withBuffer(0, 0, 4096);
        ConnectionData client = ConnectionData.rc(0x22, 4, Gid.ZERO).withPsn(0x654321).withBuffer(0, 0, 4096);
        try (ControlListener listener = ControlListener.bind(LOOPBACK, 0);
                PeerThread<ConnectionData> serverSide = PeerThread.start("pingpong-server", () -> {
                    try (ControlChannel channel = listener.acceptOne(QUICK)) {
                        return new PingpongExchange(channel).asServer(server);
                    }
                })) {
            try (ControlChannel channel = ControlChannel.connect(LOOPBACK, listener.port(), QUICK)) {
                assertEquals(server, new PingpongExchange(channel).asClient(client));
            }
            assertEquals(client, serverSide.result(Duration.ofSeconds(10)));
        }
    }

    /**
     * A stop closes the listener from another thread; if that lands just before the wait, the wait
     * ends as one interrupted by the close does (bench's Stop on a waiting server relies on it), and
     * a second wait on the same listener is a programming error.
     */
    @Test
    void aListenerClosedBeforeItsWaitEndsItWithAnIoError() throws Exception {
        ControlListener listener = ControlListener.bind(LOOPBACK, 0);
        listener.close();
        ControlException e = assertThrows(ControlException.class, () -> listener.acceptOne(QUICK));
        assertEquals(ControlException.Reason.IO, e.reason());
        assertTrue(e.getMessage().contains("was closed before a client came"), e.getMessage());
        assertThrows(IllegalStateException.class, () -> listener.acceptOne(QUICK));
    }

    /** A side sees its peer's close at once, and no close while the peer is there, silent or not. */
    @Test
    void aPeerThatClosesIsSeenWithoutWaitingAndALivePeerIsNot() throws Exception {
        try (ControlListener listener = ControlListener.bind(LOOPBACK, 0);
                ControlChannel client = ControlChannel.connect(LOOPBACK, listener.port(), QUICK);
                ControlChannel server = listener.acceptOne(QUICK)) {
            long start = System.nanoTime();
            assertFalse(server.peerClosed(), "the client is there and silent");
            assertTrue(System.nanoTime() - start < 1_000_000_000L, "a look, not a wait");
            client.write(new byte[] {1}, "a byte");
            assertFalse(server.peerClosed(), "a client that sends is there");
            client.write(new byte[] {2}, "a byte");
            client.close();
            long deadline = System.nanoTime() + 5_000_000_000L;
            boolean ended = false;
            while (!ended && System.nanoTime() < deadline) {
                ended = server.peerClosed();
            }
            assertTrue(ended, "the client's close is seen, after what it sent last");
        }
    }

    @Test
    void peerClosingMidBlock() throws Exception {
        byte[] twelve = Arrays.copyOf(new SeedBlock(1, 2, 3, 4, Gid.ZERO).serialize(), 12);
        try (ServerSocket raw = new ServerSocket(0, 1, InetAddress.getByName(LOOPBACK));
                PeerThread<Void> peer = PeerThread.start("half-block", () -> {
                    try (Socket socket = raw.accept()) {
                        socket.getOutputStream().write(twelve);
                        socket.getInputStream().readNBytes(SeedBlock.LENGTH);
                    }
                    return null;
                });
                ControlChannel channel = ControlChannel.connect(LOOPBACK, raw.getLocalPort(), QUICK)) {
            ControlException e = assertThrows(ControlException.class, () -> new SeedExchange(channel).exchange(SERVER));
            assertEquals(ControlException.Reason.PEER_CLOSED, e.reason());
            assertEquals("peer 127.0.0.1:" + raw.getLocalPort()
                    + " closed the connection after 12 of 34 bytes of the connection block", e.getMessage());
            peer.result(Duration.ofSeconds(5));
        }
    }

    @Test
    void peerThatNeverAnswersTimesOutQuickly() throws Exception {
        try (ServerSocket raw = new ServerSocket(0, 1, InetAddress.getByName(LOOPBACK));
                PeerThread<Void> peer = PeerThread.start("silent", () -> {
                    try (Socket socket = raw.accept(); InputStream in = socket.getInputStream()) {
                        in.readAllBytes();
                    }
                    return null;
                });
                ControlChannel channel = ControlChannel.connect(LOOPBACK, raw.getLocalPort(), QUICK.withRead(SHORT))) {
            long start = System.nanoTime();
            ControlException e = assertThrows(ControlException.class, () -> new SeedExchange(channel).exchange(SERVER));
            long millis = Duration.ofNanos(System.nanoTime() - start).toMillis();
            assertEquals(ControlException.Reason.TIMEOUT, e.reason());
            assertEquals("no answer from 127.0.0.1:" + raw.getLocalPort()
                    + " within 300 ms (waiting for the connection block); is the peer still running?", e.getMessage());
            // The 300 ms read timeout ended the wait (not the peer, which never answers); the upper bound
            // only catches a wait that never ends, with room for a loaded machine's scheduling.
            assertTrue(millis >= 250 && millis < 30_000, millis + " ms");
            channel.close();
            peer.result(Duration.ofSeconds(5));
        }
    }

    @Test
    void portInUse() throws Exception {
        try (ControlListener first = ControlListener.bind(LOOPBACK, 0)) {
            ControlException e = assertThrows(ControlException.class,
                    () -> ControlListener.bind(LOOPBACK, first.port()).close());
            assertEquals(ControlException.Reason.PORT_IN_USE, e.reason());
            assertEquals("TCP port " + first.port() + " is already in use on 127.0.0.1; is another demo running?"
                    + " choose another --tcp-port", e.getMessage());
        }
    }

    @Test
    void malformedLocalIp() {
        ControlException e = assertThrows(ControlException.class, () -> ControlListener.bind("300.1.2.3", 0));
        assertEquals(ControlException.Reason.BAD_ADDRESS, e.reason());
        assertEquals("'300.1.2.3' is not a valid IPv4 address; give the local IP as in 192.168.1.100",
                e.getMessage());
        assertThrows(ControlException.class, () -> ControlListener.bind("10.0.0", 0));
        assertThrows(ControlException.class, () -> ControlListener.bind("", 0));
    }

    @Test
    void localIpThatIsNotThisMachines() {
        // 192.0.2.0/24 is TEST-NET-1 (RFC 5737): never assigned to a real interface.
        ControlException e = assertThrows(ControlException.class, () -> ControlListener.bind("192.0.2.1", 0));
        assertEquals(ControlException.Reason.BAD_ADDRESS, e.reason());
        assertEquals("192.0.2.1 is not an address of this machine; give one of its own IP addresses as <local_ip>",
                e.getMessage());
    }

    @Test
    void portOutOfRange() {
        ControlException e = assertThrows(ControlException.class, () -> ControlChannel.connect(LOOPBACK, 70000, QUICK));
        assertEquals("TCP port 70000 is out of range; choose a --tcp-port between 1 and 65535", e.getMessage());
    }

    @Test
    void connectionRefusedUntilTheDeadline() throws Exception {
        int port;
        try (ControlListener probe = ControlListener.bind(LOOPBACK, 0)) {
            port = probe.port();
        }
        long start = System.nanoTime();
        ControlException e = assertThrows(ControlException.class,
                () -> ControlChannel.connect(LOOPBACK, port, QUICK.withConnect(SHORT)));
        long millis = Duration.ofNanos(System.nanoTime() - start).toMillis();
        assertEquals(ControlException.Reason.REFUSED, e.reason());
        assertEquals("nothing listens on 127.0.0.1:" + port + " (connection refused for 300 ms); start the server"
                + " first, or check the server IP and --tcp-port", e.getMessage());
        assertTrue(millis >= 250 && millis < 8000, millis + " ms");
    }

    @Test
    void clientStartedFirstWaitsForTheServer() throws Exception {
        int port;
        try (ControlListener probe = ControlListener.bind(LOOPBACK, 0)) {
            port = probe.port();
        }
        CompletableFuture<Thread> clientThread = new CompletableFuture<>();
        try (PeerThread<ConnectionData> client = PeerThread.start("early-client", () -> {
            clientThread.complete(Thread.currentThread());
            try (ControlChannel channel = ControlChannel.connect(LOOPBACK, port, QUICK)) {
                return new SeedExchange(channel).exchange(CLIENT);
            }
        })) {
            // Refused at least once: the client waits between two attempts.
            Await.untilTimedWaiting("the client to be refused and wait to try again", Duration.ofSeconds(10),
                    clientThread.get(10, TimeUnit.SECONDS));
            try (ControlChannel channel = ControlChannel.accept(LOOPBACK, port, QUICK)) {
                assertEquals(CLIENT, new SeedExchange(channel).exchange(SERVER));
            }
            assertEquals(SERVER, client.result(Duration.ofSeconds(10)));
        }
    }

    @Test
    void noClientWithinTheAcceptTimeoutAndTheListenerIsClosed() throws Exception {
        ControlListener listener = ControlListener.bind(LOOPBACK, 0);
        int port = listener.port();
        ControlException e = assertThrows(ControlException.class, () -> listener.acceptOne(QUICK.withAccept(SHORT)));
        assertEquals(ControlException.Reason.TIMEOUT, e.reason());
        assertEquals("no client connected to 127.0.0.1:" + port + " within 300 ms; start the client with this"
                + " server's IP, or raise the accept timeout", e.getMessage());
        ControlListener.bind(LOOPBACK, port).close();
    }

    @Test
    void theListenerAcceptsExactlyOneClient() throws Exception {
        try (ControlListener listener = ControlListener.bind(LOOPBACK, 0);
                PeerThread<Void> client = PeerThread.start("one-client", () -> {
                    ControlChannel.connect(LOOPBACK, listener.port(), QUICK).close();
                    return null;
                })) {
            listener.acceptOne(QUICK).close();
            client.result(Duration.ofSeconds(5));
            ControlException e = assertThrows(ControlException.class,
                    () -> ControlChannel.connect(LOOPBACK, listener.port(), QUICK.withConnect(SHORT)));
            assertEquals(ControlException.Reason.REFUSED, e.reason());
        }
    }
}
