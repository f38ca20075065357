package org.rdmalab.control;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * One connected TCP control connection (or a pair of streams in tests) with the reads and writes the
 * exchange formats need: each message goes out in one write, each read waits for an exact number of
 * bytes (short reads are joined) within the read timeout, and every failure becomes a
 * {@link ControlException} with a one-line message naming the peer and what was expected.
 *
 * <p>Not thread-safe: one thread reads at a time and one thread writes at a time (they may be two
 * threads: a background reader and a sender). {@link #close()} may be called from any thread to
 * unblock a reader (it then fails with {@link ControlException.Reason#IO}).
 */
public final class ControlChannel implements AutoCloseable {

    /** How long a client waits between connection attempts while the server is not up yet. */
    public static final Duration RETRY_INTERVAL = Duration.ofMillis(100);

    /** The shortest time one connection attempt is given, even right before the deadline. */
    private static final Duration MIN_ATTEMPT = Duration.ofMillis(500);

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    private final String peer;
    /** Nanoseconds, as {@link System#nanoTime()}: the read deadlines are taken from it. */
    private final LongSupplier clock;
    private volatile Duration readTimeout;
    private volatile boolean closedStreams;

    private ControlChannel(Socket socket, InputStream in, OutputStream out, String peer, Duration readTimeout,
            LongSupplier clock) {
        this.socket = socket;
        this.in = in;
        this.out = out;
        this.peer = peer;
        this.readTimeout = readTimeout;
        this.clock = clock;
    }

    /**
     * Server side in one call: listens on {@code localIp:port}, accepts one client within
     * {@code timeouts.accept()} and closes the listener.
     */
    public static ControlChannel accept(String localIp, int port, Timeouts timeouts) throws ControlException {
        return ControlListener.bind(localIp, port).acceptOne(timeouts);
    }

    /**
     * Client side: connects to {@code serverIp:port}, trying again every {@link #RETRY_INTERVAL} while
     * nothing listens there yet, until {@code timeouts.connect()} has passed.
     */
    public static ControlChannel connect(String serverIp, int port, Timeouts timeouts) throws ControlException {
        return connect(serverIp, port, timeouts, (where, refusals, waited) -> { });
    }

    /** Told while a client waits for its server: after each refused attempt, so a user sees it is waiting. */
    @FunctionalInterface
    public interface Waiting {
        /** {@code where} refused {@code refusals} attempts in the {@code waited} since the first. */
        void refused(String where, int refusals, Duration waited);
    }

    /**
     * {@link #connect(String, int, Timeouts)}, telling {@code waiting} of every refused attempt (on
     * the connecting thread) while nothing listens on {@code serverIp:port} yet.
     */
    public static ControlChannel connect(String serverIp, int port, Timeouts timeouts, Waiting waiting)
            throws ControlException {
        return connect(serverIp, port, timeouts, waiting, System::nanoTime, Thread::sleep, Socket::new);
    }

    /** How {@link #connect} waits between two attempts (a test's only moves its clock). */
    @FunctionalInterface
    interface Sleeper {
        /** Waits {@code millis} milliseconds. */
        void sleep(long millis) throws InterruptedException;
    }

    /**
     * {@link #connect(String, int, Timeouts, Waiting)} with the clock (nanoseconds), the wait between
     * attempts and the unconnected sockets given: a test drives the retries and the deadlines with
     * them. The channel returned reads with the same clock.
     */
    static ControlChannel connect(String serverIp, int port, Timeouts timeouts, Waiting waiting, LongSupplier clock,
            Sleeper sleeper, Supplier<Socket> sockets) throws ControlException {
        Objects.requireNonNull(waiting, "waiting");
        Addresses.checkPort(port, false);
        InetAddress address = Addresses.parse(serverIp, "server");
        InetSocketAddress target = new InetSocketAddress(address, port);
        String where = Addresses.describe(address, port);
        long start = clock.getAsLong();
        long deadline = start + timeouts.connect().toNanos();
        int refusals = 0;
        while (true) {
            long remainingMillis = Duration.ofNanos(deadline - clock.getAsLong()).toMillis();
            Socket socket = sockets.get();
            try {
                // At least MIN_ATTEMPT per attempt: a refusal on a loaded machine can take longer than the
                // last few milliseconds before the deadline, and must still read as a refusal.
                socket.connect(target, (int) Math.max(MIN_ATTEMPT.toMillis(), Math.min(Integer.MAX_VALUE, remainingMillis)));
                ControlChannel channel = over(socket, timeouts.read(), clock);
                socket = null;
                return channel;
            } catch (ConnectException e) {
                if (!String.valueOf(e.getMessage()).contains("refused")) {
                    throw new ControlException(ControlException.Reason.IO, "cannot reach " + where + " ("
                            + e.getMessage() + "); check the server IP and the network between the machines", e);
                }
                refusals++;
                waiting.refused(where, refusals, Duration.ofNanos(clock.getAsLong() - start));
                long wait = Math.min(RETRY_INTERVAL.toMillis(),
                        Duration.ofNanos(deadline - clock.getAsLong()).toMillis());
                if (wait <= 0) {
                    throw new ControlException(ControlException.Reason.REFUSED, "nothing listens on " + where
                            + " (connection refused for " + ControlText.duration(timeouts.connect())
                            + "); start the server first, or check the server IP and --tcp-port", e);
                }
                sleep(sleeper, wait, where);
            } catch (SocketTimeoutException e) {
                throw new ControlException(ControlException.Reason.TIMEOUT, "no answer from " + where + " within "
                        + ControlText.duration(timeouts.connect())
                        + " while connecting; check the server IP and that no firewall drops TCP port " + port, e);
            } catch (IOException e) {
                throw new ControlException(ControlException.Reason.IO, "cannot connect to " + where + " ("
                        + e.getMessage() + "); check the server IP and --tcp-port", e);
            } finally {
                ControlListener.closeQuietly(socket);
            }
        }
    }

    private static void sleep(Sleeper sleeper, long millis, String where) throws ControlException {
        try {
            sleeper.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ControlException(ControlException.Reason.INTERRUPTED, "stopped while connecting to " + where, e);
        }
    }

    /** Wraps a connected socket (the channel owns it from now on). Disables Nagle: messages are small. */
    public static ControlChannel over(Socket socket, Duration readTimeout) throws ControlException {
        return over(socket, readTimeout, System::nanoTime);
    }

    /** {@link #over(Socket, Duration)} with the clock (nanoseconds) the read deadlines are taken from. */
    static ControlChannel over(Socket socket, Duration readTimeout, LongSupplier clock) throws ControlException {
        Objects.requireNonNull(readTimeout, "readTimeout");
        String peer = Addresses.describe((InetSocketAddress) socket.getRemoteSocketAddress());
        try {
            socket.setTcpNoDelay(true);
            return new ControlChannel(socket, socket.getInputStream(), socket.getOutputStream(), peer, readTimeout,
                    clock);
        } catch (IOException e) {
            ControlListener.closeQuietly(socket);
            throw new ControlException(ControlException.Reason.IO, "cannot use the connection to " + peer + ": "
                    + e.getMessage(), e);
        }
    }

    /**
     * A channel over plain streams, for codec tests and pipes. Reads wait as long as the stream
     * does: the read timeout only applies to sockets.
     */
    public static ControlChannel of(InputStream in, OutputStream out, String peer) {
        return new ControlChannel(null, Objects.requireNonNull(in, "in"), Objects.requireNonNull(out, "out"),
                Objects.requireNonNull(peer, "peer"), Timeouts.DEFAULT.read(), System::nanoTime);
    }

    /** The peer as {@code 127.0.0.1:12025}. */
    public String peer() {
        return peer;
    }

    /** How long one read may wait. */
    public Duration readTimeout() {
        return readTimeout;
    }

    /** Changes how long later reads may wait (an interactive session may give the peer minutes). */
    public void setReadTimeout(Duration value) {
        Timeouts.check(value, "read");
        this.readTimeout = value;
    }

    /** Sends {@code bytes} in one write, as the C peers expect; {@code what} names them in errors. */
    public void write(byte[] bytes, String what) throws ControlException {
        try {
            out.write(bytes);
            out.flush();
        } catch (IOException e) {
            throw new ControlException(ControlException.Reason.PEER_CLOSED, "cannot send " + what + " to " + peer
                    + " (" + e.getMessage() + "); the peer closed the connection", e);
        }
    }

    /**
     * Reads exactly {@code length} bytes within the read timeout.
     *
     * @param what names the bytes in errors: {@code "the connection block"} gives "peer 10.0.0.2:12025
     *     closed the connection after 12 of 34 bytes of the connection block"
     */
    public byte[] read(int length, String what) throws ControlException {
        return readInternal(length, what, false, false);
    }

    /**
     * Like {@link #read}, but a peer that closes (or resets) the connection before sending the first
     * byte gives an empty result instead of an error; closing after some bytes is still an error.
     */
    public Optional<byte[]> readIfOpen(int length, String what) throws ControlException {
        return Optional.ofNullable(readInternal(length, what, true, false));
    }

    /**
     * Like {@link #readIfOpen}, but waits without a limit for the first byte (a background reader
     * waiting for the peer's next message); once it arrives the rest must follow within the read
     * timeout. {@link #close()} from another thread ends the wait with {@link ControlException.Reason#IO}.
     */
    public Optional<byte[]> readNextIfOpen(int length, String what) throws ControlException {
        return Optional.ofNullable(readInternal(length, what, true, true));
    }

    private byte[] readInternal(int length, String what, boolean endAllowed, boolean idleFirst)
            throws ControlException {
        byte[] bytes = new byte[length];
        Duration timeout = readTimeout;
        long deadline = clock.getAsLong() + timeout.toNanos();
        int done = 0;
        while (done < length) {
            int count;
            try {
                if (socket != null) {
                    if (idleFirst && done == 0) {
                        socket.setSoTimeout(0);
                    } else {
                        long remaining = Duration.ofNanos(deadline - clock.getAsLong()).toMillis();
                        if (remaining <= 0) {
                            throw timeout(done, length, what, timeout, null);
                        }
                        socket.setSoTimeout((int) Math.min(Integer.MAX_VALUE, remaining));
                    }
                }
                count = in.read(bytes, done, length - done);
                if (idleFirst && done == 0 && count > 0) {
                    deadline = clock.getAsLong() + timeout.toNanos();
                }
            } catch (SocketTimeoutException e) {
                throw timeout(done, length, what, timeout, e);
            } catch (SocketException e) {
                if (socket != null && socket.isClosed()) {
                    throw new ControlException(ControlException.Reason.IO, "the connection to " + peer
                            + " was closed on this side while waiting for " + what, e);
                }
                if (done == 0 && endAllowed) {
                    return null;
                }
                throw new ControlException(ControlException.Reason.PEER_CLOSED, "the connection to " + peer
                        + " broke after " + done + " of " + length + " bytes of " + stripArticle(what) + " ("
                        + e.getMessage() + "); the peer program probably stopped", e);
            } catch (IOException e) {
                throw new ControlException(ControlException.Reason.IO, "reading " + what + " from " + peer
                        + " failed: " + e.getMessage(), e);
            }
            if (count < 0) {
                if (done == 0 && endAllowed) {
                    return null;
                }
                throw new ControlException(ControlException.Reason.PEER_CLOSED, "peer " + peer
                        + " closed the connection after " + done + " of " + length + " bytes of " + stripArticle(what));
            }
            done += count;
        }
        return bytes;
    }

    private static String stripArticle(String what) {
        return what.startsWith("a ") ? "the " + what.substring(2) : what;
    }

    private ControlException timeout(int done, int length, String what, Duration timeout, Throwable cause) {
        String within = ControlText.duration(timeout);
        if (done == 0) {
            return new ControlException(ControlException.Reason.TIMEOUT, "no answer from " + peer + " within " + within
                    + " (waiting for " + what + "); is the peer still running?", cause);
        }
        return new ControlException(ControlException.Reason.TIMEOUT, peer + " sent only " + done + " of " + length
                + " bytes of " + stripArticle(what) + " within " + within + "; is the peer speaking the same protocol?",
                cause);
    }

    /**
     * True when the peer closed (or reset) the connection, looking for about a millisecond; false
     * while it is open. For a side whose run ends either way (a failure it will report, or the
     * peer's end): what the peer sent and this side has not read is dropped.
     */
    public boolean peerClosed() {
        try {
            in.skip(in.available());
            if (socket == null) {
                return closedStreams;
            }
            socket.setSoTimeout(1);
            return in.read() < 0;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true;
        }
    }

    /** True once {@link #close()} ran (or the socket was closed). */
    public boolean isClosed() {
        return socket != null ? socket.isClosed() : closedStreams;
    }

    /** Closes the connection; idempotent, never throws. */
    @Override
    public void close() {
        if (socket != null) {
            ControlListener.closeQuietly(socket);
        } else {
            closedStreams = true;
            ControlListener.closeQuietly(in);
            ControlListener.closeQuietly(out);
        }
    }

    @Override
    public String toString() {
        return "control connection to " + peer;
    }
}
