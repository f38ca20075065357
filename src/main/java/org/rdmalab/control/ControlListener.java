package org.rdmalab.control;

import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.time.Duration;

/**
 * The server side of the TCP connection: listens on {@code <local_ip>:<port>}, accepts exactly one
 * client and then closes the listening socket, like the seed's {@code sock_connect}.
 *
 * <p>Binding and accepting are separate so a caller (or a test) can learn the port first when it
 * asked for port 0. Not thread-safe: one thread binds, accepts and closes.
 */
public final class ControlListener implements AutoCloseable {

    private final ServerSocket socket;
    /** acceptOne ran (once is all a listener serves). */
    private final java.util.concurrent.atomic.AtomicBoolean accepted = new java.util.concurrent.atomic.AtomicBoolean();
    private final String where;

    private ControlListener(ServerSocket socket) {
        this.socket = socket;
        this.where = Addresses.describe((InetSocketAddress) socket.getLocalSocketAddress());
    }

    /**
     * Listens on {@code localIp:port} (port 0 picks a free one).
     *
     * @throws ControlException {@link ControlException.Reason#PORT_IN_USE} when another program holds
     *     the port, {@link ControlException.Reason#BAD_ADDRESS} when the IP is malformed or not one of
     *     this machine's
     */
    public static ControlListener bind(String localIp, int port) throws ControlException {
        Addresses.checkPort(port, true);
        InetAddress address = Addresses.parse(localIp, "local");
        ServerSocket server = null;
        try {
            server = new ServerSocket();
            server.setReuseAddress(true);
            server.bind(new InetSocketAddress(address, port), 1);
            ControlListener listener = new ControlListener(server);
            server = null;
            return listener;
        } catch (IOException e) {
            throw bindFailure(e, address, port, isLocal(address));
        } finally {
            closeQuietly(server);
        }
    }

    /**
     * What a user is told when listening on {@code address:port} failed with {@code e}, in one line
     * with what to change: the port is taken; the address is not one of this machine's ({@code local}
     * is false, or the system said it cannot assign it); a port below 1024 needs root; else the
     * system's own words.
     */
    static ControlException bindFailure(IOException e, InetAddress address, int port, boolean local) {
        String ip = address.getHostAddress();
        String text = String.valueOf(e.getMessage());
        if (text.contains("in use")) {
            return new ControlException(ControlException.Reason.PORT_IN_USE, "TCP port " + port
                    + " is already in use on " + ip + "; is another demo running? choose another --tcp-port", e);
        }
        if (text.contains("assign") || !local) {
            return new ControlException(ControlException.Reason.BAD_ADDRESS, ip
                    + " is not an address of this machine; give one of its own IP addresses as <local_ip>", e);
        }
        if (e instanceof BindException && port > 0 && port < 1024) {
            return new ControlException(ControlException.Reason.IO, "listening on TCP port " + port
                    + " needs root (" + text + "); choose a --tcp-port above 1023", e);
        }
        return new ControlException(ControlException.Reason.IO, "cannot listen on "
                + Addresses.describe(address, port) + " (" + text + "); choose another --tcp-port or local IP", e);
    }

    /** True for the wildcard, loopback and the addresses of this machine's interfaces. */
    static boolean isLocal(InetAddress address) {
        if (address.isAnyLocalAddress() || address.isLoopbackAddress()) {
            return true;
        }
        try {
            return NetworkInterface.getByInetAddress(address) != null;
        } catch (SocketException e) {
            return false;
        }
    }

    /** The port actually bound (useful after binding port 0). */
    public int port() {
        return socket.getLocalPort();
    }

    /** {@code 127.0.0.1:12025}. */
    public String where() {
        return where;
    }

    /**
     * Waits up to {@code timeouts.accept()} for one client, then closes the listening socket whatever
     * happened. The returned channel reads with {@code timeouts.read()}. A {@link #close()} from
     * another thread ends the wait with {@link ControlException.Reason#IO}, whether it comes during
     * the wait or just before it.
     *
     * @throws IllegalStateException on a second call
     */
    public ControlChannel acceptOne(Timeouts timeouts) throws ControlException {
        if (accepted.getAndSet(true)) {
            throw new IllegalStateException("this listener on " + where + " already accepted");
        }
        try (ServerSocket server = socket) {
            if (server.isClosed()) {
                throw new ControlException(ControlException.Reason.IO, "the listener on " + where
                        + " was closed before a client came");
            }
            Duration timeout = timeouts.accept();
            server.setSoTimeout(Math.toIntExact(Math.max(1, timeout.toMillis())));
            Socket client = server.accept();
            return ControlChannel.over(client, timeouts.read());
        } catch (SocketTimeoutException e) {
            throw new ControlException(ControlException.Reason.TIMEOUT, "no client connected to " + where
                    + " within " + ControlText.duration(timeouts.accept())
                    + "; start the client with this server's IP, or raise the accept timeout", e);
        } catch (IOException e) {
            throw new ControlException(ControlException.Reason.IO, "waiting for a client on " + where
                    + " failed: " + e.getMessage(), e);
        }
    }

    /** Stops listening; idempotent. */
    @Override
    public void close() {
        closeQuietly(socket);
    }

    static void closeQuietly(AutoCloseable closeable) {
        if (closeable == null) {
            return;
        }
        try {
            closeable.close();
        } catch (Exception e) {
            // Closing a socket that already failed: nothing left to do.
        }
    }
}
