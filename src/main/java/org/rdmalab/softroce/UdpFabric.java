package org.rdmalab.softroce;

import java.io.IOException;
import java.net.BindException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardSocketOptions;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.HashMap;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.rdmalab.verbs.Errno;
import org.rdmalab.verbs.VerbsException;

/**
 * Real UDP: each device binds a non-blocking datagram channel and runs one thread, an event loop
 * that waits on a selector for datagrams, runs handed-over tasks and fires timers. All of the
 * device's transport state lives on that thread, so the protocol code needs no locks.
 *
 * <p>A send never waits. When the socket's send buffer is full the channel takes nothing
 * ({@link Fabric.SendResult#BLOCKED}); the transport keeps the datagram, asks for
 * {@link Endpoint#awaitWritable} and the loop adds write interest to its selector key until the
 * kernel has room again, then calls {@link Fabric.Receiver#onWritable}.
 */
final class UdpFabric implements Fabric {

    private static final Logger LOG = Logger.getLogger(UdpFabric.class.getName());
    /** Socket buffers large enough for a window of 128 full-MTU packets plus a burst of READ responses. */
    private static final int SOCKET_BUFFER = 4 << 20;

    static final UdpFabric INSTANCE = new UdpFabric(SOCKET_BUFFER);

    private final int sendBuffer;

    private UdpFabric(int sendBuffer) {
        this.sendBuffer = sendBuffer;
    }

    /**
     * Real UDP whose sockets ask for an {@code SO_SNDBUF} of {@code bytes} (the kernel doubles it
     * and keeps it above its minimum); tests use a small one so that the buffer fills.
     */
    static UdpFabric withSendBuffer(int bytes) {
        return new UdpFabric(bytes);
    }

    @Override
    public Endpoint open(String verb, String name, Inet4Address address, int port, Receiver receiver)
            throws VerbsException {
        DatagramChannel channel = null;
        Selector selector = null;
        try {
            channel = DatagramChannel.open(java.net.StandardProtocolFamily.INET);
            channel.setOption(StandardSocketOptions.SO_RCVBUF, SOCKET_BUFFER);
            channel.setOption(StandardSocketOptions.SO_SNDBUF, sendBuffer);
            channel.bind(new InetSocketAddress(address, port));
            // IPv4 ID 0 and DF on every datagram: the header the ICRC is computed over (WireSocket).
            WireSocket.Setup wire = WireSocket.configure(channel);
            if (!wire.fixedId()) {
                LOG.fine(() -> name + ": the kernel chooses the IPv4 ID, so kernel rxe will drop this device's packets: "
                        + wire.problem());
            }
            channel.configureBlocking(false);
            selector = Selector.open();
            SelectionKey key = channel.register(selector, SelectionKey.OP_READ);
            UdpLoop loop = new UdpLoop(name, channel, selector, key, receiver, wire.ttl());
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

    private static void closeQuietly(DatagramChannel channel, Selector selector) {
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

    /** One device's loop thread and socket. */
    private static final class UdpLoop implements Endpoint, EventLoop, Runnable {

        private final DatagramChannel channel;
        private final Selector selector;
        private final SelectionKey key;
        private final Receiver receiver;
        private final Thread thread;
        private final int localPort;
        private final int ttl;
        private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
        private final AtomicBoolean sleeping = new AtomicBoolean();
        private final PriorityQueue<ScheduledTask> timers = new PriorityQueue<>();
        private final ByteBuffer receiveBuffer = ByteBuffer.allocate(65536);
        private final ByteBuffer sendBuffer = ByteBuffer.allocateDirect(65536);
        private final Map<Long, InetSocketAddress> destinations = new HashMap<>();
        private volatile boolean running = true;
        private long timerSequence;
        /** A send was refused and the transport waits for room: the key has OP_WRITE interest. */
        private boolean writableWanted;
        private SocketAddress lastSource;
        private long lastSourceIp;
        private int lastSourcePort;
        /** The selector found the socket writable (set by {@link #onReady}). */
        private boolean writableReady;
        /** Told of each ready key without the selected-key set's allocation. */
        private final java.util.function.Consumer<SelectionKey> onReady = ready -> {
            if (ready.isValid() && ready.isWritable()) {
                writableReady = true;
            }
        };

        UdpLoop(String name, DatagramChannel channel, Selector selector, SelectionKey key, Receiver receiver,
                int ttl) throws IOException {
            this.channel = channel;
            this.ttl = ttl;
            this.selector = selector;
            this.key = key;
            this.receiver = receiver;
            this.localPort = ((InetSocketAddress) channel.getLocalAddress()).getPort();
            this.thread = new Thread(this, name);
            thread.setDaemon(true);
        }

        void start() {
            thread.start();
        }

        @Override
        public EventLoop loop() {
            return this;
        }

        @Override
        public int localPort() {
            return localPort;
        }

        /** The socket sets no IP_TOS: every datagram carries TOS 0, whatever the QP's traffic class. */
        @Override
        public int sentTos(int tos) {
            return 0;
        }

        /** The socket's IP_TTL (the route's default, 64 on Linux), whatever the QP's hop limit: rxe does the same. */
        @Override
        public int sentTtl(int requested) {
            return ttl;
        }

        @Override
        public long nanoTime() {
            return System.nanoTime();
        }

        @Override
        public boolean inLoop() {
            return Thread.currentThread() == thread;
        }

        @Override
        public void execute(Runnable task) {
            tasks.add(task);
            if (sleeping.get() && sleeping.compareAndSet(true, false)) {
                selector.wakeup();
            }
        }

        @Override
        public Timer schedule(long delayNanos, Runnable task) {
            if (!inLoop()) {
                throw new IllegalStateException("timers are scheduled on the transport thread only");
            }
            ScheduledTask timer = new ScheduledTask(System.nanoTime() + Math.max(0, delayNanos), timerSequence++, task);
            timers.add(timer);
            return timer;
        }

        @Override
        public SendResult send(int destinationIp, int destinationPort, byte[] buffer, int offset, int length) {
            long key = ((long) destinationIp << 16) | destinationPort;
            InetSocketAddress target = destinations.get(key);
            if (target == null) {
                target = new InetSocketAddress(toAddress(destinationIp), destinationPort);
                destinations.put(key, target);
            }
            sendBuffer.clear();
            sendBuffer.put(buffer, offset, length).flip();
            try {
                // A non-blocking datagram channel sends all of the datagram or, when the socket's
                // send buffer has no room for it, nothing (EAGAIN).
                return channel.send(sendBuffer, target) > 0 ? SendResult.SENT : SendResult.BLOCKED;
            } catch (IOException e) {
                LOG.log(Level.FINE, "UDP send failed", e);
                return SendResult.FAILED;
            }
        }

        @Override
        public void awaitWritable() {
            if (!writableWanted && key.isValid()) {
                writableWanted = true;
                key.interestOps(SelectionKey.OP_READ | SelectionKey.OP_WRITE);
            }
        }

        /** The socket has room again: write interest off, then the transport resumes. */
        private void writable() {
            writableWanted = false;
            if (key.isValid()) {
                key.interestOps(SelectionKey.OP_READ);
            }
            receiver.onWritable();
        }

        @Override
        public void run() {
            while (running) {
                try {
                    // Work handed over before a datagram was sent runs before that datagram is
                    // handled: a receive posted before the peer's SEND must be there for it.
                    boolean worked = runTasks();
                    if (writableWanted) {
                        selector.selectNow(onReady);
                        if (writableReady) {
                            writableReady = false;
                            writable();
                            worked = true;
                        }
                    }
                    worked |= receiveAll();
                    worked |= runTimers();
                    if (worked) {
                        continue;
                    }
                    long now = System.nanoTime();
                    long waitNanos = timers.isEmpty() ? 1_000_000_000L : timers.peek().deadline - now;
                    if (waitNanos > 0) {
                        sleeping.set(true);
                        if (tasks.isEmpty()) {
                            selector.select(onReady, Math.max(1, (waitNanos + 999_999) / 1_000_000));
                        }
                        sleeping.set(false);
                    }
                } catch (Throwable e) {
                    if (running) {
                        LOG.log(Level.SEVERE, "transport loop error", e);
                    }
                }
            }
        }

        /** Runs the handed-over tasks; true when there was at least one. */
        private boolean runTasks() {
            Runnable task;
            int budget = 4096;
            boolean ran = false;
            while (budget-- > 0 && (task = tasks.poll()) != null) {
                task.run();
                ran = true;
            }
            return ran;
        }

        /** Handles the datagrams waiting in the socket (at most 256); true when there was at least one. */
        private boolean receiveAll() throws IOException {
            for (int i = 0; i < 256; i++) {
                receiveBuffer.clear();
                SocketAddress from = channel.receive(receiveBuffer);
                if (from == null) {
                    return i > 0;
                }
                if (!tasks.isEmpty()) {
                    runTasks();
                }
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
                receiver.onDatagram((int) lastSourceIp, lastSourcePort, receiveBuffer.array(), 0, receiveBuffer.position());
            }
            return true;
        }

        /** Fires the timers that are due; true when at least one ran. */
        private boolean runTimers() {
            long now = System.nanoTime();
            boolean ran = false;
            while (!timers.isEmpty() && timers.peek().deadline - now <= 0) {
                ScheduledTask timer = timers.poll();
                if (!timer.cancelled) {
                    timer.task.run();
                    ran = true;
                }
            }
            return ran;
        }

        @Override
        public void close() {
            if (!running) {
                return;
            }
            running = false;
            selector.wakeup();
            if (!inLoop()) {
                try {
                    thread.join(2000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            closeQuietly(channel, selector);
        }
    }

    static InetAddress toAddress(int ip) {
        try {
            return InetAddress.getByAddress(new byte[] {(byte) (ip >>> 24), (byte) (ip >>> 16), (byte) (ip >>> 8), (byte) ip});
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
    }
}
