package org.rdmalab.softroce.net;

import java.io.IOException;
import java.net.BindException;
import java.net.Inet4Address;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.logging.Logger;
import org.rdmalab.verbs.Errno;
import org.rdmalab.verbs.VerbsException;

/**
 * Real UDP: each device binds a non-blocking datagram channel ({@link UdpSocket}) and runs one
 * thread, an event loop ({@link UdpLoop}) that waits on a selector for datagrams, runs handed-over
 * tasks and fires timers. All of the device's transport state lives on that thread, so the
 * protocol code needs no locks.
 *
 * <p>A send never waits. When the socket's send buffer is full the channel takes nothing
 * ({@link Fabric.SendResult#BLOCKED}); the transport keeps the datagram, asks for
 * {@link Endpoint#awaitWritable} and the loop adds write interest to its selector key until the
 * kernel has room again, then calls {@link Fabric.Receiver#onWritable}.
 */
public final class UdpFabric implements Fabric {

    private static final Logger LOG = Logger.getLogger(UdpFabric.class.getName());
    /** Socket buffers large enough for a window of 128 full-MTU packets plus a burst of READ responses. */
    private static final int SOCKET_BUFFER = 4 << 20;

    public static final UdpFabric INSTANCE = new UdpFabric(SOCKET_BUFFER);

    private final int sendBuffer;

    private UdpFabric(int sendBuffer) {
        this.sendBuffer = sendBuffer;
    }

    /**
     * Real UDP whose sockets ask for an {@code SO_SNDBUF} of {@code bytes} (the kernel doubles it
     * and keeps it above its minimum); tests use a small one so that the buffer fills.
     */
    public static UdpFabric withSendBuffer(int bytes) {
        return new UdpFabric(bytes);
    }

    @Override
    public Endpoint open(String verb, String name, Inet4Address address, int port, Receiver receiver)
            throws VerbsException {
        DatagramChannel channel = null;
        Selector selector = null;
        try {
            Opened opened = openChannel(name, new InetSocketAddress(address, port), sendBuffer);
            channel = opened.channel();
            selector = Selector.open();
            SelectionKey key = channel.register(selector, SelectionKey.OP_READ);
            UdpLoop loop = new UdpLoop(name, new UdpSocket(channel, selector, key), receiver, opened.ttl());
            loop.start();
            return loop;
        } catch (BindException e) {
            closeQuietly(channel, selector);
            String what = address.getHostAddress() + ":" + port;
            if (String.valueOf(e.getMessage()).contains("assign")) {
                throw new VerbsException(verb, Errno.EADDRNOTAVAIL.value(), "cannot bind UDP " + what
                        + ": the address is not configured on this machine (use 127.0.0.x or one of its own addresses)", e);
            }
            throw new VerbsException(verb, Errno.EADDRINUSE.value(), "UDP " + what + " is already in use (another "
                    + "software device, a kernel rxe device or another program holds it); give this device another "
                    + "address or UDP port", e);
        } catch (IOException e) {
            closeQuietly(channel, selector);
            throw new VerbsException(verb, Errno.EIO.value(), "cannot open a UDP socket on " + address.getHostAddress()
                    + ":" + port + ": " + e.getMessage(), e);
        }
    }

    static void closeQuietly(DatagramChannel channel, Selector selector) {
        try {
            if (selector != null) {
                selector.close();
            }
        } catch (IOException ignored) {
            // Nothing more to release.
        }
        try {
            if (channel != null) {
                channel.close();
            }
        } catch (IOException ignored) {
            // Nothing more to release.
        }
    }

    /** A device's socket, opened, and the IPv4 TTL its datagrams carry. */
    private record Opened(DatagramChannel channel, int ttl) {
    }

    /** Opens, sizes, binds and configures a device's socket. */
    private static Opened openChannel(String name, InetSocketAddress address, int sendBuffer)
            throws IOException {
        DatagramChannel channel = DatagramChannel.open(java.net.StandardProtocolFamily.INET);
        try {
            channel.setOption(StandardSocketOptions.SO_RCVBUF, SOCKET_BUFFER);
            channel.setOption(StandardSocketOptions.SO_SNDBUF, sendBuffer);
            channel.bind(address);
            // IPv4 ID 0 and DF on every datagram: the header the ICRC is computed over (WireSocket).
            WireSocket.Setup wire = WireSocket.configure(channel);
            if (!wire.fixedId()) {
                LOG.fine(() -> name + ": the kernel chooses the IPv4 ID, so kernel rxe will drop this device's packets: "
                        + wire.problem());
            }
            channel.configureBlocking(false);
            return new Opened(channel, wire.ttl());
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }
}
