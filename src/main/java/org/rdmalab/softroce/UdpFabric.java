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
 */
final class UdpFabric implements Fabric {

    static final UdpFabric INSTANCE = new UdpFabric();

    private static final Logger LOG = Logger.getLogger(UdpFabric.class.getName());
    /** Socket buffers large enough for a window of 128 full-MTU packets plus a burst of READ responses. */
    private static final int SOCKET_BUFFER = 4 << 20;
    /** The selector reports ready keys to this; the loop reads the socket until it is empty anyway. */
    private static final java.util.function.Consumer<SelectionKey> IGNORE_READY = key -> { };

    private UdpFabric() {
    }

    @Override
    public Endpoint open(String verb, String name, Inet4Address address, int port, Receiver receiver)
            throws VerbsException {
        DatagramChannel channel = null;
        Selector selector = null;
        try {
            channel = DatagramChannel.open(java.net.StandardProtocolFamily.INET);
            channel.setOption(StandardSocketOptions.SO_RCVBUF, SOCKET_BUFFER);
            channel.setOption(StandardSocketOptions.SO_SNDBUF, SOCKET_BUFFER);
            channel.bind(new InetSocketAddress(address, port));
            channel.configureBlocking(false);
            selector = Selector.open();
            channel.register(selector, SelectionKey.OP_READ);
            UdpLoop loop = new UdpLoop(name, channel, selector, receiver);
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
        private final Receiver receiver;
        private final Thread thread;
        private final int localPort;
        private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
        private final AtomicBoolean sleeping = new AtomicBoolean();
        private final PriorityQueue<ScheduledTask> timers = new PriorityQueue<>();
        private final ByteBuffer receiveBuffer = ByteBuffer.allocate(65536);
        private final ByteBuffer sendBuffer = ByteBuffer.allocateDirect(65536);
        private final Map<Long, InetSocketAddress> destinations = new HashMap<>();
        private volatile boolean running = true;
        private long timerSequence;
        private SocketAddress lastSource;
        private long lastSourceIp;
        private int lastSourcePort;

        UdpLoop(String name, DatagramChannel channel, Selector selector, Receiver receiver) throws IOException {
            this.channel = channel;
            this.selector = selector;
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
        public boolean send(int destinationIp, int destinationPort, byte[] buffer, int offset, int length) {
            long key = ((long) destinationIp << 16) | destinationPort;
            InetSocketAddress target = destinations.get(key);
            if (target == null) {
                target = new InetSocketAddress(toAddress(destinationIp), destinationPort);
                destinations.put(key, target);
            }
            sendBuffer.clear();
            sendBuffer.put(buffer, offset, length).flip();
            try {
                return channel.send(sendBuffer, target) > 0;
            } catch (IOException e) {
                LOG.log(Level.FINE, "UDP send failed", e);
                return false;
            }
        }

        @Override
        public void run() {
            while (running) {
                try {
                    // Work handed over before a datagram was sent runs before that datagram is
                    // handled: a receive posted before the peer's SEND must be there for it.
                    boolean worked = runTasks();
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
                            selector.select(IGNORE_READY, Math.max(1, (waitNanos + 999_999) / 1_000_000));
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
