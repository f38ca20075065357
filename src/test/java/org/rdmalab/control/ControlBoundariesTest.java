package org.rdmalab.control;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rdmalab.verbs.Gid;
import org.rdmalab.verbs.Mtu;
import org.rdmalab.verbs.QpType;

/**
 * The control layer's limits, each tested on both sides: the addresses and ports a user types, the
 * timeouts, the words of durations, the copies of connection data, and reads that end early or time
 * out part way through a block.
 */
@Timeout(30)
class ControlBoundariesTest {

    private static ControlException badAddress(String text) {
        ControlException e = assertThrows(ControlException.class, () -> Addresses.parse(text, "server"));
        assertEquals(ControlException.Reason.BAD_ADDRESS, e.reason());
        return e;
    }

    @Test
    void anAddressMustBeGivenAndDottedFourTimesWithOctetsUpTo255() throws Exception {
        assertEquals("no server IP address was given", badAddress(" ").getMessage());
        assertEquals("no server IP address was given", badAddress(null).getMessage());
        // Java would read "10.1.2" as 10.1.0.2 and "10" as 0.0.0.10; the C programs' users mean neither.
        assertEquals("'10.1.2' is not a valid IPv4 address; give the server IP as in 192.168.1.100",
                badAddress("10.1.2").getMessage());
        badAddress("10");
        badAddress("256.0.0.1");
        badAddress("1.2.3.256");
        assertEquals(InetAddress.getByName("255.255.255.255"), Addresses.parse("255.255.255.255", "server"));
        assertEquals(InetAddress.getByName("10.0.0.254"), Addresses.parse(" 10.0.0.254 ", "server"));
        assertEquals(InetAddress.getByName("::1"), Addresses.parse("::1", "server"));
    }

    @Test
    void portsRunFrom1To65535AndAListenerMayAskFor0() throws ControlException {
        Addresses.checkPort(1, false);
        Addresses.checkPort(65535, false);
        Addresses.checkPort(0, true);
        Addresses.checkPort(65535, true);
        ControlException zero = assertThrows(ControlException.class, () -> Addresses.checkPort(0, false));
        assertEquals(ControlException.Reason.BAD_ADDRESS, zero.reason());
        assertEquals("TCP port 0 is out of range; choose a --tcp-port between 1 and 65535", zero.getMessage());
        assertThrows(ControlException.class, () -> Addresses.checkPort(65536, false));
        assertThrows(ControlException.class, () -> Addresses.checkPort(65536, true));
        assertThrows(ControlException.class, () -> Addresses.checkPort(-1, true));
    }

    @Test
    void anIpv6PeerIsWrittenInBracketsBeforeItsPort() throws Exception {
        assertEquals("[0:0:0:0:0:0:0:1]:12025", Addresses.describe(InetAddress.getByName("::1"), 12025));
        assertEquals("10.0.0.2:18515", Addresses.describe(InetAddress.getByName("10.0.0.2"), 18515));
    }

    @Test
    void aTimeoutRunsFromOneNanosecondUpToOneDay() {
        assertEquals(Duration.ofDays(1), Timeouts.DEFAULT.withConnect(Duration.ofDays(1)).connect());
        assertEquals(Duration.ofNanos(1), Timeouts.DEFAULT.withRead(Duration.ofNanos(1)).read());
        IllegalArgumentException longer = assertThrows(IllegalArgumentException.class,
                () -> Timeouts.DEFAULT.withRead(Duration.ofDays(1).plusNanos(1)));
        assertEquals("the read timeout must be between 1 ms and 1 day, not PT24H0.000000001S", longer.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Timeouts.DEFAULT.withConnect(Duration.ofMillis(-1)));
        assertThrows(IllegalArgumentException.class, () -> Timeouts.all(Duration.ZERO));
    }

    @Test
    void aDurationIsSaidInMillisecondsBelowOneSecondAndInSecondsFromIt() {
        assertEquals("999 ms", ControlText.duration(Duration.ofMillis(999)));
        assertEquals("1 s", ControlText.duration(Duration.ofMillis(1000)));
        assertEquals("1.001 s", ControlText.duration(Duration.ofMillis(1001)));
    }

    @Test
    void eachCopyOfConnectionDataChangesOnlyItsField() {
        ConnectionData data = new ConnectionData(QpType.RC, 0x11, 0x22, 0x33, Gid.parse("::ffff:10.0.0.1"), 0x4400,
                0x55, 66, Mtu.MTU_1024);
        Gid other = Gid.parse("::ffff:10.0.0.9");
        assertEquals(new ConnectionData(QpType.UC, 0x11, 0x22, 0x33, data.gid(), 0x4400, 0x55, 66, Mtu.MTU_1024),
                data.withQpType(QpType.UC));
        assertEquals(new ConnectionData(QpType.RC, 0x77, 0x22, 0x33, data.gid(), 0x4400, 0x55, 66, Mtu.MTU_1024),
                data.withQpn(0x77));
        assertEquals(new ConnectionData(QpType.RC, 0x11, 0x22, 0x88, data.gid(), 0x4400, 0x55, 66, Mtu.MTU_1024),
                data.withLid(0x88));
        assertEquals(new ConnectionData(QpType.RC, 0x11, 0x22, 0x33, other, 0x4400, 0x55, 66, Mtu.MTU_1024),
                data.withGid(other));
        assertEquals(new ConnectionData(QpType.RC, 0x11, 0x22, 0x33, data.gid(), 0x4400, 0x55, 66, Mtu.MTU_4096),
                data.withPathMtu(Mtu.MTU_4096));
        assertEquals(0xffffff, data.withQpn(0xffffff).qpn());
        assertEquals(0xffff, data.withLid(0xffff).lid());
        assertThrows(IllegalArgumentException.class, () -> data.withQpn(-1));
        assertThrows(IllegalArgumentException.class, () -> data.withPsn(0x1000000));
        assertThrows(IllegalArgumentException.class, () -> data.withLid(-1));
        assertEquals(0, data.withBuffer(0, 0, 0).length());
    }

    /** An input stream that hands out one byte per read, as a slow TCP peer does. */
    private static InputStream trickle(byte[] bytes) {
        return new ByteArrayInputStream(bytes) {
            @Override
            public synchronized int read(byte[] b, int off, int len) {
                return super.read(b, off, Math.min(len, 1));
            }
        };
    }

    @Test
    void aBlockArrivingByteByByteIsReadWhole() throws ControlException {
        ControlChannel channel = ControlChannel.of(trickle(new byte[] {1, 2, 3, 4, 5, 6}), new ByteArrayOutputStream(),
                "10.0.0.2:12025");
        assertArrayEquals(new byte[] {1, 2, 3, 4}, channel.read(4, "a block"));
        assertArrayEquals(new byte[] {5, 6}, channel.readIfOpen(2, "a block").orElseThrow());
        assertEquals(Optional.empty(), channel.readIfOpen(2, "a block"), "the peer closed before the next block");
        ControlException e = assertThrows(ControlException.class, () -> channel.read(1, "a sync byte"));
        assertEquals(ControlException.Reason.PEER_CLOSED, e.reason());
        assertEquals("peer 10.0.0.2:12025 closed the connection after 0 of 1 bytes of the sync byte", e.getMessage());
    }

    @Test
    void aPeerThatClosesPartWayIsAnErrorEvenWhereAnEndIsAllowed() {
        ControlChannel channel = ControlChannel.of(trickle(new byte[] {1, 2}), new ByteArrayOutputStream(), "p:1");
        ControlException e = assertThrows(ControlException.class, () -> channel.readIfOpen(4, "the connection block"));
        assertEquals(ControlException.Reason.PEER_CLOSED, e.reason());
        assertEquals("peer p:1 closed the connection after 2 of 4 bytes of the connection block", e.getMessage());
        ControlChannel next = ControlChannel.of(trickle(new byte[] {7}), new ByteArrayOutputStream(), "p:1");
        assertThrows(ControlException.class, () -> next.readNextIfOpen(3, "a frame header"));
        ControlChannel closed = ControlChannel.of(trickle(new byte[0]), new ByteArrayOutputStream(), "p:1");
        assertFalse(closed.isClosed());
        closed.close();
        assertTrue(closed.isClosed());
    }

    /** A socket pair on the loopback interface: [0] is this side's channel end, [1] the peer's socket. */
    private static final class Pair implements AutoCloseable {
        final ServerSocket server;
        final Socket peer;
        final ControlChannel channel;

        Pair(Duration readTimeout) throws Exception {
            server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
            Socket socket = new Socket(InetAddress.getLoopbackAddress(), server.getLocalPort());
            peer = server.accept();
            channel = ControlChannel.over(socket, readTimeout);
        }

        @Override
        public void close() throws Exception {
            channel.close();
            peer.close();
            server.close();
        }
    }

    @Test
    void aSilentPeerTimesOutNamingWhatWasAwaitedAndAPartialBlockSaysHowFarItGot() throws Exception {
        try (Pair pair = new Pair(Duration.ofMillis(200))) {
            ControlException silent = assertThrows(ControlException.class, () -> pair.channel.read(4, "a sync byte"));
            assertEquals(ControlException.Reason.TIMEOUT, silent.reason());
            assertTrue(silent.getMessage().startsWith("no answer from 127.0.0.1:" + pair.server.getLocalPort()
                    + " within 200 ms (waiting for a sync byte)"), silent.getMessage());

            pair.peer.getOutputStream().write(new byte[] {1, 2, 3});
            ControlException partial = assertThrows(ControlException.class,
                    () -> pair.channel.read(10, "a 10-byte frame"));
            assertEquals(ControlException.Reason.TIMEOUT, partial.reason());
            assertTrue(partial.getMessage().endsWith("sent only 3 of 10 bytes of the 10-byte frame within 200 ms;"
                    + " is the peer speaking the same protocol?"), partial.getMessage());

            pair.peer.close();
            assertEquals(Optional.empty(), pair.channel.readNextIfOpen(4, "a frame header"),
                    "a peer that closed before the next block is the end, not an error");
        }
    }

    @Test
    void peerClosedIsFalseWhileThePeerIsThereAndTrueOnceItLeft() throws Exception {
        try (Pair pair = new Pair(Duration.ofSeconds(5))) {
            assertFalse(pair.channel.peerClosed());
            pair.peer.close();
            org.rdmalab.testing.Await.until("the close seen", Duration.ofSeconds(10), pair.channel::peerClosed);
            assertFalse(pair.channel.isClosed(), "this side's end is still open");
            pair.channel.close();
            assertTrue(pair.channel.isClosed());
        }
        ControlChannel streams = ControlChannel.of(new ByteArrayInputStream(new byte[0]), new ByteArrayOutputStream(),
                "p:1");
        assertFalse(streams.peerClosed());
        streams.close();
        assertTrue(streams.peerClosed());
    }

    @Test
    void aPortInUseAndAnAddressOfAnotherMachineAreRefusedWithWhatToChange() throws Exception {
        try (ControlListener first = ControlListener.bind("127.0.0.1", 0)) {
            assertEquals("127.0.0.1:" + first.port(), first.where());
            try (ServerSocket holder = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
                int port = holder.getLocalPort();
                ControlException inUse = assertThrows(ControlException.class, () -> ControlListener.bind("127.0.0.1",
                        port));
                assertEquals(ControlException.Reason.PORT_IN_USE, inUse.reason());
                assertEquals("TCP port " + port + " is already in use on 127.0.0.1; is another demo running? choose"
                        + " another --tcp-port", inUse.getMessage());
            }
        }
        // 192.0.2.1 is TEST-NET-1: documentation only, never an address of this machine.
        ControlException foreign = assertThrows(ControlException.class, () -> ControlListener.bind("192.0.2.1", 0));
        assertEquals(ControlException.Reason.BAD_ADDRESS, foreign.reason());
        assertEquals("192.0.2.1 is not an address of this machine; give one of its own IP addresses as <local_ip>",
                foreign.getMessage());
    }
}
