package org.rdmalab.control;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.NoRouteToHostException;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The deadlines of the control connection on a clock the test moves: a client's attempts while the
 * server is not up yet (how long each may take, how long it waits between two refusals, when it
 * gives up), and how long each socket read of a block may wait. Each limit is tested on both sides.
 * Then how a read ends otherwise (a reset before or after the first byte, a close on this side),
 * the peer-closed probe, and the channel's socket and stream handling. Nothing here waits on the
 * real clock: the sockets are scripted and a sleep only moves the clock.
 */
@Timeout(30)
class ControlDeadlinesTest {

    private static final long MS = 1_000_000L;
    private static final String PEER = "10.0.0.2:12025";

    /** The test's clock (nanoseconds): a sleep moves it, so does a scripted attempt or read. */
    private long now = 7 * MS; // not 0: the deadlines must be taken from the start, not from 0
    private final List<Long> sleeps = new ArrayList<>();
    private final List<ScriptedSocket> sockets = new ArrayList<>();
    private final List<String> refusals = new ArrayList<>();

    private long millisSinceStart(long start) {
        return (now - start) / MS;
    }

    /**
     * A socket that connects to nothing: {@link #connect} takes {@code connectTakes} on the test's
     * clock and then throws {@code failure} (or connects); reads come from {@code input}.
     */
    private final class ScriptedSocket extends Socket {
        final long connectTakes;
        final IOException failure;
        final long attemptedAt;
        int attemptTimeout = -1;
        final List<Integer> soTimeouts = new ArrayList<>();
        /** Null: getting the stream fails, as on a socket closed under the caller. */
        InputStream input = InputStream.nullInputStream();
        final ByteArrayOutputStream output = new ByteArrayOutputStream();
        boolean closed;
        boolean noDelay;

        ScriptedSocket(long connectTakes, IOException failure) {
            this.connectTakes = connectTakes;
            this.failure = failure;
            this.attemptedAt = now;
        }

        @Override
        public void connect(SocketAddress endpoint, int timeout) throws IOException {
            assertEquals(new InetSocketAddress("10.0.0.2", 12025), endpoint);
            attemptTimeout = timeout;
            now += connectTakes;
            if (failure != null) {
                throw failure;
            }
        }

        @Override
        public SocketAddress getRemoteSocketAddress() {
            return new InetSocketAddress("10.0.0.2", 12025);
        }

        @Override
        public void setTcpNoDelay(boolean on) {
            noDelay = on;
        }

        @Override
        public InputStream getInputStream() throws IOException {
            if (input == null) {
                throw new SocketException("Socket is closed");
            }
            return input;
        }

        @Override
        public OutputStream getOutputStream() {
            return output;
        }

        @Override
        public void setSoTimeout(int timeout) {
            soTimeouts.add(timeout);
        }

        @Override
        public boolean isClosed() {
            return closed;
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    /** Sockets for the attempts: each refused after {@code takes}, the last one as {@code last} says. */
    private java.util.function.Supplier<Socket> attempts(long takes, int refused, IOException last) {
        Deque<IOException> script = new ArrayDeque<>();
        for (int i = 0; i < refused; i++) {
            script.add(new ConnectException("Connection refused"));
        }
        int[] made = {0};
        return () -> {
            assertFalse(made[0]++ > refused, "an attempt after the client should have stopped");
            IOException failure = script.isEmpty() ? last : script.poll();
            ScriptedSocket socket = new ScriptedSocket(takes, failure);
            sockets.add(socket);
            return socket;
        };
    }

    private ControlChannel connect(Duration connectTimeout, java.util.function.Supplier<Socket> attempts)
            throws ControlException {
        return ControlChannel.connect("10.0.0.2", 12025, Timeouts.DEFAULT.withConnect(connectTimeout),
                (where, count, waited) -> refusals.add(where + " #" + count + " after " + waited.toMillis() + " ms"),
                () -> now, millis -> {
                    sleeps.add(millis);
                    now += millis * MS;
                }, attempts);
    }

    private ControlException refusedFor(Duration connectTimeout, long takes, int refused) {
        return assertThrows(ControlException.class, () -> connect(connectTimeout, attempts(takes, refused, null)));
    }

    private List<Long> attemptTimes(long start) {
        return sockets.stream().map(socket -> (socket.attemptedAt - start) / MS).toList();
    }

    private List<Integer> attemptTimeouts() {
        return sockets.stream().map(socket -> socket.attemptTimeout).toList();
    }

    @Test
    void aRefusedClientTriesEvery100MsAndWaitsOnlyTheTimeLeftBeforeGivingUp() {
        long start = now;
        ControlException e = refusedFor(Duration.ofMillis(250), 0, 4);
        assertEquals(ControlException.Reason.REFUSED, e.reason());
        assertEquals("nothing listens on " + PEER + " (connection refused for 250 ms); start the server first, or"
                + " check the server IP and --tcp-port", e.getMessage());
        assertEquals(List.of(0L, 100L, 200L, 250L), attemptTimes(start));
        assertEquals(List.of(100L, 100L, 50L), sleeps);
        assertEquals(250, millisSinceStart(start), "gave up at the deadline, not before or after");
        assertEquals(List.of(PEER + " #1 after 0 ms", PEER + " #2 after 100 ms", PEER + " #3 after 200 ms",
                PEER + " #4 after 250 ms"), refusals);
        assertTrue(sockets.stream().allMatch(socket -> socket.closed), "every refused socket is closed");
    }

    @Test
    void oneMillisecondLeftIsOneMoreAttemptAndLessIsTheEnd() {
        long start = now;
        // 201 ms: refused at 0, 100 and 200, then 1 ms left: wait it, try at 201, give up.
        refusedFor(Duration.ofMillis(201), 0, 4);
        assertEquals(List.of(0L, 100L, 200L, 201L), attemptTimes(start));
        assertEquals(List.of(100L, 100L, 1L), sleeps);

        sockets.clear();
        sleeps.clear();
        start = now;
        // A nanosecond short of 201 ms: under 1 ms left after the third refusal is no time to try again.
        refusedFor(Duration.ofNanos(201 * MS - 1), 0, 3);
        assertEquals(List.of(0L, 100L, 200L), attemptTimes(start));
        assertEquals(List.of(100L, 100L), sleeps);
    }

    @Test
    void eachAttemptMayTakeTheTimeLeftButNeverLessThanHalfASecond() {
        long start = now;
        // Each refusal takes 400 ms (a loaded machine): attempts at 0, 500 and 1000 ms of a 1001-ms budget.
        refusedFor(Duration.ofMillis(1001), 400 * MS, 3);
        assertEquals(List.of(0L, 500L, 1000L), attemptTimes(start));
        assertEquals(List.of(1001, 501, 500), attemptTimeouts(), "the time left, and at least 500 ms at the end");
        assertEquals(List.of(100L, 100L), sleeps);

        sockets.clear();
        sleeps.clear();
        refusedFor(Duration.ofMillis(999), 400 * MS, 3);
        assertEquals(List.of(999, 500, 500), attemptTimeouts(), "499 ms left still gets 500");
        assertEquals(List.of(100L, 99L), sleeps);
    }

    @Test
    void aDayToConnectIsGivenWholeToTheFirstAttempt() throws ControlException {
        long start = now;
        try (ControlChannel channel = connect(Duration.ofDays(1), attempts(0, 0, null))) {
            assertEquals(PEER, channel.peer());
        }
        assertEquals(List.of((int) Duration.ofDays(1).toMillis()), attemptTimeouts());
        assertEquals(List.of(), sleeps);
        assertEquals(0, millisSinceStart(start));
    }

    @Test
    void aServerThatComesUpIsReachedAndOnlyTheRefusedSocketsAreClosed() throws ControlException {
        try (ControlChannel channel = connect(Duration.ofSeconds(30), attempts(0, 2, null))) {
            assertEquals(PEER, channel.peer());
            assertEquals(Timeouts.DEFAULT.read(), channel.readTimeout());
            assertEquals(List.of(true, true, false), sockets.stream().map(socket -> socket.closed).toList());
            channel.write(new byte[] {1, 2, 3}, "three bytes");
            assertArrayEquals(new byte[] {1, 2, 3}, sockets.get(2).output.toByteArray());
        }
        assertTrue(sockets.get(2).closed, "closing the channel closes its socket");
        assertEquals(List.of(100L, 100L), sleeps);
        assertEquals(2, refusals.size());
    }

    @Test
    void anAttemptThatFailsOtherwiseEndsAtOnceSayingWhatToCheck() {
        ControlException noRoute = assertThrows(ControlException.class, () -> connect(Duration.ofSeconds(30),
                attempts(0, 0, new NoRouteToHostException("No route to host"))));
        assertEquals(ControlException.Reason.IO, noRoute.reason());
        assertEquals("cannot connect to " + PEER + " (No route to host); check the server IP and --tcp-port",
                noRoute.getMessage());

        ControlException unreachable = assertThrows(ControlException.class, () -> connect(Duration.ofSeconds(30),
                attempts(0, 0, new ConnectException("Network is unreachable"))));
        assertEquals(ControlException.Reason.IO, unreachable.reason());
        assertEquals("cannot reach " + PEER + " (Network is unreachable); check the server IP and the network between"
                + " the machines", unreachable.getMessage());

        ControlException silent = assertThrows(ControlException.class, () -> connect(Duration.ofSeconds(30),
                attempts(0, 0, new SocketTimeoutException("Connect timed out"))));
        assertEquals(ControlException.Reason.TIMEOUT, silent.reason());
        assertEquals("no answer from " + PEER + " within 30 s while connecting; check the server IP and that no"
                + " firewall drops TCP port 12025", silent.getMessage());

        assertEquals(List.of(), sleeps, "none of them waits to try again");
        assertEquals(List.of(), refusals);
        assertTrue(sockets.stream().allMatch(socket -> socket.closed));
    }

    @Test
    void aClientStoppedWhileWaitingToRetrySaysSoAndKeepsTheInterrupt() {
        ControlException e = assertThrows(ControlException.class, () -> ControlChannel.connect("10.0.0.2", 12025,
                Timeouts.DEFAULT, (where, count, waited) -> { }, () -> now, millis -> {
                    throw new InterruptedException();
                }, attempts(0, 1, null)));
        try {
            assertEquals(ControlException.Reason.INTERRUPTED, e.reason());
            assertEquals("stopped while connecting to " + PEER, e.getMessage());
            assertTrue(Thread.currentThread().isInterrupted(), "the interrupt is kept for the caller");
        } finally {
            Thread.interrupted();
        }
    }

    // ---- reads: the socket's timeout is the time left of the read timeout ----

    /** Input whose reads each take some time on the test's clock and return the next chunk or fail. */
    private final class TimedInput extends InputStream {
        private final Deque<Object[]> chunks = new ArrayDeque<>();

        TimedInput then(long takes, byte... bytes) {
            chunks.add(new Object[] {takes, bytes});
            return this;
        }

        TimedInput thenFail(long takes, IOException failure) {
            chunks.add(new Object[] {takes, failure});
            return this;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] into, int offset, int length) throws IOException {
            Object[] chunk = chunks.poll();
            if (chunk == null) {
                return -1;
            }
            now += (Long) chunk[0];
            if (chunk[1] instanceof IOException failure) {
                throw failure;
            }
            byte[] bytes = (byte[]) chunk[1];
            if (bytes == null) {
                throw new SocketTimeoutException("Read timed out");
            }
            assertTrue(bytes.length <= length, "the script sends no more than was asked");
            System.arraycopy(bytes, 0, into, offset, bytes.length);
            return bytes.length;
        }
    }

    private ScriptedSocket socketReading(InputStream input) {
        ScriptedSocket socket = new ScriptedSocket(0, null);
        socket.input = input;
        return socket;
    }

    private ControlChannel channelOver(ScriptedSocket socket) throws ControlException {
        return ControlChannel.over(socket, Duration.ofSeconds(1), () -> now);
    }

    @Test
    void eachReadOfABlockWaitsOnlyWhatIsLeftOfTheReadTimeout() throws ControlException {
        ScriptedSocket socket = socketReading(new TimedInput().then(300 * MS, new byte[] {1, 2, 3, 4})
                .then(699 * MS, new byte[] {5, 6}).then(0, new byte[] {7, 8}));
        ControlChannel channel = channelOver(socket);
        assertArrayEquals(new byte[] {1, 2, 3, 4, 5, 6, 7, 8}, channel.read(8, "the block"));
        assertEquals(List.of(1000, 700, 1), socket.soTimeouts, "1 s, then what is left: 700 ms, then 1 ms");
    }

    @Test
    void aBlockNotWholeWhenTheReadTimeoutIsUpFailsThoughBytesStillCome() throws ControlException {
        // The first 4 bytes take the whole second: nothing is left to wait for the other 4.
        ScriptedSocket whole = socketReading(new TimedInput().then(1000 * MS, new byte[] {1, 2, 3, 4})
                .then(0, new byte[] {5, 6, 7, 8}));
        ControlException e = assertThrows(ControlException.class, () -> channelOver(whole).read(8, "a frame"));
        assertEquals(ControlException.Reason.TIMEOUT, e.reason());
        assertEquals(PEER + " sent only 4 of 8 bytes of the frame within 1 s; is the peer speaking the same"
                + " protocol?", e.getMessage());
        assertEquals(List.of(1000), whole.soTimeouts);

        // Half a millisecond left is less than the socket's smallest timeout: the same failure.
        ScriptedSocket half = socketReading(new TimedInput().then(1000 * MS - MS / 2, new byte[] {1, 2, 3, 4})
                .then(0, new byte[] {5, 6, 7, 8}));
        assertEquals(ControlException.Reason.TIMEOUT,
                assertThrows(ControlException.class, () -> channelOver(half).read(8, "a frame")).reason());
    }

    @Test
    void aSocketThatTimesOutIsReportedWithWhatWasAwaited() throws ControlException {
        ScriptedSocket socket = socketReading(new TimedInput().then(1000 * MS, (byte[]) null));
        ControlException e = assertThrows(ControlException.class, () -> channelOver(socket).read(4, "a sync byte"));
        assertEquals(ControlException.Reason.TIMEOUT, e.reason());
        assertEquals("no answer from " + PEER + " within 1 s (waiting for a sync byte); is the peer still running?",
                e.getMessage());
        assertTrue(e.getCause() instanceof SocketTimeoutException);
    }

    @Test
    void aBackgroundReadWaitsWithoutLimitForTheFirstByteThenGivesTheRestTheWholeTimeout() throws ControlException {
        // The next frame comes after an hour; its rest must follow within the read timeout from then.
        ScriptedSocket socket = socketReading(new TimedInput().then(3600_000 * MS, new byte[] {1})
                .then(999 * MS, new byte[] {2, 3}).then(0, new byte[] {4}));
        ControlChannel channel = channelOver(socket);
        Optional<byte[]> frame = channel.readNextIfOpen(4, "a frame header");
        assertArrayEquals(new byte[] {1, 2, 3, 4}, frame.orElseThrow());
        assertEquals(List.of(0, 1000, 1), socket.soTimeouts, "no limit, then 1 s from the first byte");

        // A plain read gives the first byte the read timeout too.
        ScriptedSocket plain = socketReading(new TimedInput().then(0, new byte[] {1, 2}));
        assertArrayEquals(new byte[] {1, 2}, channelOver(plain).read(2, "two bytes"));
        assertEquals(List.of(1000), plain.soTimeouts);
    }

    @Test
    void aBackgroundReadOfAPeerThatEndsIsTheEndBeforeTheFirstByteAndAnErrorAfter() throws ControlException {
        ScriptedSocket ended = socketReading(new TimedInput());
        assertEquals(Optional.empty(), channelOver(ended).readNextIfOpen(4, "a frame header"));

        ScriptedSocket cut = socketReading(new TimedInput().then(0, new byte[] {1}));
        ControlException e = assertThrows(ControlException.class,
                () -> channelOver(cut).readNextIfOpen(4, "a frame header"));
        assertEquals(ControlException.Reason.PEER_CLOSED, e.reason());
        assertEquals("peer " + PEER + " closed the connection after 1 of 4 bytes of the frame header",
                e.getMessage());
        assertNull(e.getCause());
    }

    // ---- how a read ends otherwise, and the rest of the channel ----

    @Test
    void aConnectionResetBeforeTheFirstByteIsTheEndWhereAnEndIsAllowedAndABreakOtherwise() throws ControlException {
        ScriptedSocket atStart = socketReading(new TimedInput().thenFail(0, new SocketException("Connection reset")));
        assertEquals(Optional.empty(), channelOver(atStart).readIfOpen(4, "a frame header"));

        ScriptedSocket plain = socketReading(new TimedInput().thenFail(0, new SocketException("Connection reset")));
        ControlException e = assertThrows(ControlException.class, () -> channelOver(plain).read(4, "a frame header"));
        assertEquals(ControlException.Reason.PEER_CLOSED, e.reason());
        assertEquals("the connection to " + PEER + " broke after 0 of 4 bytes of the frame header (Connection reset);"
                + " the peer program probably stopped", e.getMessage());

        ScriptedSocket partWay = socketReading(new TimedInput().then(0, new byte[] {1, 2})
                .thenFail(0, new SocketException("Connection reset")));
        ControlException cut = assertThrows(ControlException.class,
                () -> channelOver(partWay).readIfOpen(4, "a frame header"));
        assertEquals(ControlException.Reason.PEER_CLOSED, cut.reason());
        assertTrue(cut.getMessage().contains(" broke after 2 of 4 bytes "), cut.getMessage());
    }

    @Test
    void aReadEndedByClosingThisSideSaysItWasClosedHere() throws ControlException {
        ScriptedSocket socket = socketReading(new TimedInput().thenFail(0, new SocketException("Socket closed")));
        ControlChannel channel = channelOver(socket);
        channel.close();
        assertTrue(channel.isClosed());
        ControlException e = assertThrows(ControlException.class, () -> channel.readIfOpen(4, "a frame header"));
        assertEquals(ControlException.Reason.IO, e.reason());
        assertEquals("the connection to " + PEER + " was closed on this side while waiting for a frame header",
                e.getMessage());
    }

    @Test
    void peerClosedLooksForAMillisecondAndOnlyTheStreamsEndOrABreakIsTheEnd() throws ControlException {
        ScriptedSocket nul = socketReading(new TimedInput().then(0, new byte[] {0}));
        assertFalse(channelOver(nul).peerClosed(), "a NUL byte from the peer is not its end");
        assertEquals(List.of(1), nul.soTimeouts);
        assertTrue(channelOver(socketReading(new TimedInput())).peerClosed());
        assertFalse(channelOver(socketReading(new TimedInput().thenFail(0, new SocketTimeoutException("Read timed out"))))
                .peerClosed(), "nothing within the millisecond: still there");
        assertTrue(channelOver(socketReading(new TimedInput().thenFail(0, new SocketException("Connection reset"))))
                .peerClosed());
    }

    @Test
    void aSocketIsUsedWithoutNagleAndOneThatCannotBeUsedIsClosedAndReported() throws ControlException {
        ScriptedSocket good = socketReading(new TimedInput());
        channelOver(good);
        assertTrue(good.noDelay, "small control messages go out at once");

        ScriptedSocket broken = socketReading(null);
        ControlException e = assertThrows(ControlException.class, () -> channelOver(broken));
        assertEquals(ControlException.Reason.IO, e.reason());
        assertEquals("cannot use the connection to " + PEER + ": Socket is closed", e.getMessage());
        assertTrue(broken.closed);
    }

    @Test
    void aNewReadTimeoutAppliesToTheNextReadAndMustBePositive() throws ControlException {
        ScriptedSocket socket = socketReading(new TimedInput().then(0, new byte[] {1}));
        ControlChannel channel = channelOver(socket);
        channel.setReadTimeout(Duration.ofSeconds(5));
        assertEquals(Duration.ofSeconds(5), channel.readTimeout());
        assertArrayEquals(new byte[] {1}, channel.read(1, "a byte"));
        assertEquals(List.of(5000), socket.soTimeouts);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> channel.setReadTimeout(Duration.ZERO));
        assertEquals("the read timeout must be between 1 ms and 1 day, not PT0S", e.getMessage());
        assertEquals(Duration.ofSeconds(5), channel.readTimeout());
    }

    @Test
    void aChannelOverStreamsFlushesEachMessageAndClosesBothStreams() throws ControlException {
        boolean[] closed = new boolean[2];
        ByteArrayOutputStream sink = new ByteArrayOutputStream();
        InputStream in = new java.io.ByteArrayInputStream(new byte[0]) {
            @Override
            public void close() {
                closed[0] = true;
            }
        };
        OutputStream out = new java.io.BufferedOutputStream(sink) {
            @Override
            public void close() throws IOException {
                closed[1] = true;
                super.close();
            }
        };
        ControlChannel channel = ControlChannel.of(in, out, "pipe");
        channel.write(new byte[] {1, 2, 3}, "three bytes");
        assertArrayEquals(new byte[] {1, 2, 3}, sink.toByteArray(), "the message left at once, not in a buffer");
        assertFalse(channel.isClosed());
        channel.close();
        assertTrue(channel.isClosed());
        assertTrue(closed[0] && closed[1], "both streams closed");
    }
}
