package org.rdmalab.softroce.net;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A device's non-blocking UDP socket and the selector its loop waits on: sends and receives
 * datagrams without allocating, and keeps the selector key's interest set (read while the loop
 * thread reads the socket, write while a refused send waits for room).
 *
 * <p>Threads: owned by whichever thread is on the loop ({@link UdpLoop}), except
 * {@link #wakeup} (any thread) and the interest changes, which the loop thread and callers both
 * make under one lock. Only the loop thread selects.
 */
final class UdpSocket {

    private static final Logger LOG = Logger.getLogger(UdpSocket.class.getName());

    private final DatagramChannel channel;
    private final Selector selector;
    private final SelectionKey key;
    private final int localPort;
    /**
     * Datagrams are read into native memory and copied out once: a heap buffer would make the
     * channel take a temporary native one from its per-thread cache and copy all the same, on
     * every read, the empty reads of a busy poller's turns included.
     */
    private final ByteBuffer receiveBuffer = ByteBuffer.allocateDirect(65536);
    private final byte[] received = new byte[65536];
    private final ByteBuffer sendBuffer = ByteBuffer.allocateDirect(65536);
    private final Map<Long, InetSocketAddress> destinations = new HashMap<>();
    /** The last destination, looked up without boxing its key. */
    private InetSocketAddress lastDestination;
    private int lastDestinationIp;
    private int lastDestinationPort;
    /** The key has read interest (off while callers poll); changed by the loop thread only. */
    private volatile boolean readInterest = true;
    /** Guards changes of the key's interest set, which the loop thread and callers both make. */
    private final Object interestLock = new Object();
    /**
     * A send was refused and the transport waits for room: the key has OP_WRITE interest.
     * Written on the loop; volatile for the loop thread's look before it sleeps.
     */
    private volatile boolean writableWanted;
    private SocketAddress lastSource;
    private long lastSourceIp;
    private int lastSourcePort;
    /** The selector found the socket writable (set by {@link #onReady}). */
    private boolean writableReady;
    /** Told of each ready key without the selected-key set's allocation. */
    private final Consumer<SelectionKey> onReady = ready -> {
        if (ready.isValid() && ready.isWritable()) {
            writableReady = true;
        }
    };

    /** A bound, non-blocking {@code channel}, registered for reading with {@code selector} as {@code key}. */
    UdpSocket(DatagramChannel channel, Selector selector, SelectionKey key) throws IOException {
        this.channel = channel;
        this.selector = selector;
        this.key = key;
        this.localPort = ((InetSocketAddress) channel.getLocalAddress()).getPort();
    }

    int localPort() {
        return localPort;
    }

    /** Sends {@code length} bytes of {@code buffer} as one datagram, through the direct send buffer. */
    Fabric.SendResult send(int destinationIp, int destinationPort, byte[] buffer, int offset, int length) {
        sendBuffer.clear();
        sendBuffer.put(buffer, offset, length).flip();
        return send(destinationIp, destinationPort, sendBuffer);
    }

    /** Sends {@code datagram}'s remaining bytes as one datagram; never waits. */
    Fabric.SendResult send(int destinationIp, int destinationPort, ByteBuffer datagram) {
        if (destinationIp != lastDestinationIp || destinationPort != lastDestinationPort || lastDestination == null) {
            long destination = ((long) destinationIp << 16) | destinationPort;
            InetSocketAddress target = destinations.get(destination);
            if (target == null) {
                target = new InetSocketAddress(toAddress(destinationIp), destinationPort);
                destinations.put(destination, target);
            }
            lastDestination = target;
            lastDestinationIp = destinationIp;
            lastDestinationPort = destinationPort;
        }
        try {
            // A non-blocking datagram channel sends all of the datagram or, when the socket's
            // send buffer has no room for it, nothing (EAGAIN).
            return channel.send(datagram, lastDestination) > 0 ? Fabric.SendResult.SENT : Fabric.SendResult.BLOCKED;
        } catch (IOException e) {
            LOG.log(Level.FINE, "UDP send failed", e);
            return Fabric.SendResult.FAILED;
        }
    }

    /** True while a refused send waits for room (write interest is on). */
    boolean writableWanted() {
        return writableWanted;
    }

    /** Asks the selector for room (write interest on) after a refused send; on the loop. */
    void awaitWritable() {
        if (!writableWanted) {
            writableWanted = true;
            updateInterest();
        }
    }

    /**
     * Whether the socket has room again for a send that waits, write interest off when it has; on
     * the loop. Only the loop thread ({@code selecting}) selects (a second select on a selector
     * waits for the first); a caller simply takes the socket to have room and tries again.
     */
    boolean becameWritable(boolean selecting) throws IOException {
        if (selecting) {
            selector.selectNow(onReady);
        } else {
            writableReady = true;
        }
        if (!writableReady) {
            return false;
        }
        writableReady = false;
        writableWanted = false;
        updateInterest();
        return true;
    }

    private void updateInterest() {
        synchronized (interestLock) {
            int ops = (readInterest ? SelectionKey.OP_READ : 0) | (writableWanted ? SelectionKey.OP_WRITE : 0);
            if (key.isValid() && key.interestOps() != ops) {
                key.interestOps(ops);
            }
        }
    }

    /**
     * Read interest on while the loop thread reads the socket, off while callers poll it (loop
     * thread, on the loop). A selector applies a new interest set only in its next select, and
     * while callers poll the loop thread parks instead of selecting: without a {@code selectNow}
     * the socket would keep its read interest in the epoll set, and every datagram's delivery
     * would run epoll's wake-up callback inside the sender's {@code sendto} (about 0.4 µs of its
     * 1.7 µs on a loopback ping-pong).
     */
    void readInterest(boolean wanted) throws IOException {
        if (readInterest != wanted) {
            readInterest = wanted;
            updateInterest();
            if (!wanted) {
                selector.selectNow(onReady);
            }
        }
    }

    /**
     * Hands the datagrams waiting in the socket (at most {@code limit}) to {@code receiver}, running
     * {@code beforeEach} ahead of each (loop; the array it gets is reused).
     *
     * @return true when there was at least one
     */
    boolean receive(Fabric.Receiver receiver, int limit, Runnable beforeEach) throws IOException {
        for (int i = 0; i < limit; i++) {
            receiveBuffer.clear();
            SocketAddress from = channel.receive(receiveBuffer);
            if (from == null) {
                return i > 0;
            }
            beforeEach.run();
            if (from != lastSource) {
                // The channel hands back the same address object while the sender stays the
                // same, so the address is decoded once per sender, not once per datagram.
                InetAddress address = ((InetSocketAddress) from).getAddress();
                byte[] ip = address.getAddress();
                lastSourceIp = ip.length != 4 ? -1L
                        : ((ip[0] & 0xffL) << 24) | ((ip[1] & 0xff) << 16) | ((ip[2] & 0xff) << 8) | (ip[3] & 0xff);
                lastSourcePort = ((InetSocketAddress) from).getPort();
                lastSource = from;
            }
            if (lastSourceIp < 0) {
                continue;
            }
            int length = receiveBuffer.position();
            receiveBuffer.get(0, received, 0, length);
            receiver.onDatagram((int) lastSourceIp, lastSourcePort, received, 0, length);
        }
        return true;
    }

    /** Waits in the selector for a datagram, room, a wake-up or {@code millis} (loop thread, off the loop). */
    void select(long millis) throws IOException {
        selector.select(onReady, millis);
    }

    /** Ends a {@link #select} now. Thread-safe. */
    void wakeup() {
        selector.wakeup();
    }

    /** Closes the selector and the channel. */
    void close() {
        UdpFabric.closeQuietly(channel, selector);
    }

    private static InetAddress toAddress(int ip) {
        try {
            return InetAddress.getByAddress(new byte[] {(byte) (ip >>> 24), (byte) (ip >>> 16), (byte) (ip >>> 8), (byte) ip});
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
    }
}
