package org.rdmalab.softroce.net;

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
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;
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
            UdpLoop loop = new UdpLoop(name, channel, selector, key, receiver, opened.ttl());
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

    /**
     * One device's socket and loop. The loop's state is owned by whoever holds {@link #owner}: the
     * loop's own thread while it works, or a caller that took the free loop for a turn
     * ({@link #runOrExecute}, {@link #progress}). While callers keep taking turns (they busy-poll
     * the device), the loop thread stops reading the socket and only looks in after a millisecond,
     * then at doubling intervals up to 8 ms, so datagrams are read by the polling thread instead of
     * waking a second one; once the callers stop, the loop thread reads again.
     */
    private static final class UdpLoop implements Endpoint, EventLoop, Runnable {

        /**
         * Two caller turns this close together mean a caller busy-polls the device (a caller that
         * backs off between polls, as {@code pollOne} does, is not fast enough to read for the loop).
         */
        private static final long BUSY_GAP_NANOS = 20_000;
        /** How long after its last busy turn a caller is still taken to be polling. */
        private static final long CALLERS_POLL_NANOS = 50_000;
        /**
         * How long the loop thread sleeps at first once callers poll: then it looks whether they
         * still do, so a caller that stopped (or lost its core) delays a datagram about this long.
         * Each wake-up takes a core from a spinning thread for a moment: at 100 µs (10 000 a second
         * per device) a two-JVM ping-pong lost about 7 % of its round trips to 30 µs stalls, and
         * both its mean and write latency's average were a quarter higher than at 1 ms.
         */
        private static final long POLLING_WAIT_NANOS = 1_000_000;
        /**
         * Each sleep that ends with callers still polling doubles the next one, up to this. At 1 ms
         * every time, the wake-ups (a thousand a second per device) still cost a two-JVM ping-pong
         * on two cores about a sixth of its time: its round trips over 20 µs came at least once a
         * millisecond, and with no wake-ups at all its mean fell from 2.26–2.70 to 1.91–2.16 times
         * the UDP round trip in three runs each (docs/performance.md). A caller that stops after polling
         * a while leaves what arrives, and an ACK it held, for at most this long.
         */
        private static final long MAX_POLLING_WAIT_NANOS = 8_000_000;
        /**
         * How long the loop thread keeps polling the socket after its last work before it blocks
         * in the selector (while no caller polls). Blocking after every burst made a receiver that
         * keeps up with its sender sleep and be woken for nearly every datagram, and the wake-up
         * runs inside the sender's {@code sendto}: a loopback 64 KiB WRITE stream then ran at half
         * its speed, stably, until the receiver fell behind once (Linux's busy polling, {@code
         * SO_BUSY_POLL}, polls a while before sleeping for the same reason).
         */
        private static final long SPIN_NANOS = 50_000;
        /** Datagrams one turn of the loop thread handles at most. */
        private static final int LOOP_DATAGRAMS = 256;
        /**
         * Datagrams one caller's turn handles at most: a caller that waits for one packet (its
         * answer) looks again after each, instead of also reading the ACK that came behind it.
         */
        private static final int CALLER_DATAGRAMS = 1;
        /** How long the loop thread sleeps when nothing is due. */
        private static final long IDLE_WAIT_NANOS = 1_000_000_000L;

        private final DatagramChannel channel;
        private final Selector selector;
        private final SelectionKey key;
        private final Receiver receiver;
        private final Thread thread;
        private final int localPort;
        private final int ttl;
        private final ReentrantLock owner = new ReentrantLock();
        private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
        /**
         * Tasks handed over with {@link #executeOnce}, newest first, linked through
         * {@link LoopTask#next}: queuing one allocates nothing, where {@link #tasks} takes a node
         * per task.
         */
        private final AtomicReference<LoopTask> onceTasks = new AtomicReference<>();
        private final AtomicBoolean sleeping = new AtomicBoolean();
        /**
         * A caller's turn asked the loop thread to wake ({@link #afterCallerTurn}) and it has not
         * woken since: later turns need not ask again, since the loop thread looks at everything
         * once it runs. Without this every turn asked again while the woken thread waited for a
         * core (two busy pollers on two cores: milliseconds), two system calls each.
         */
        private final AtomicBoolean wakeAsked = new AtomicBoolean();
        private final PriorityQueue<ScheduledTask> timers = new PriorityQueue<>();
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
        private volatile boolean running = true;
        /** When a caller last took a turn (System.nanoTime()). */
        private volatile long callerTurnAt = System.nanoTime() - 2 * CALLERS_POLL_NANOS;
        /** When a caller last took a turn soon after the one before (System.nanoTime()). */
        private volatile long busyTurnAt = System.nanoTime() - 2 * CALLERS_POLL_NANOS;
        /** The latest the loop thread wakes up; a caller that schedules an earlier timer wakes it. */
        private volatile long plannedWake;
        private long timerSequence;
        /** When the loop thread's last turn did some work (loop thread only). */
        private long workedAt = System.nanoTime() - SPIN_NANOS;
        /** The loop thread's next sleep while callers poll (loop thread only). */
        private long pollingWait = POLLING_WAIT_NANOS;
        /** A busy-polling caller's poll turn runs (see {@link #holdingReplies()}); on the loop. */
        private boolean holdingReplies;
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
            this.plannedWake = System.nanoTime();
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
            return owner.isHeldByCurrentThread();
        }

        @Override
        public boolean holdingReplies() {
            return holdingReplies;
        }

        @Override
        public void execute(Runnable task) {
            tasks.add(task);
            if (sleeping.get() && sleeping.compareAndSet(true, false)) {
                wake();
            }
        }

        @Override
        public void executeOnce(LoopTask task) {
            if (!task.claim()) {
                return; // it waits in the queue already, and its run will do this hand-over's work
            }
            LoopTask newest;
            do {
                newest = onceTasks.get();
                task.next = newest;
            } while (!onceTasks.compareAndSet(newest, task));
            if (sleeping.get() && sleeping.compareAndSet(true, false)) {
                wake();
            }
        }

        /** True while handed-over work waits. */
        private boolean hasTasks() {
            return !tasks.isEmpty() || onceTasks.get() != null;
        }

        @Override
        public void runOrExecute(LoopTask task) {
            runOrExecute(task, true);
        }

        @Override
        public void runOrExecuteBriefly(LoopTask task) {
            runOrExecute(task, false);
        }

        private void runOrExecute(LoopTask task, boolean thenReadSocket) {
            if (!takeForCaller()) {
                executeOnce(task);
                return;
            }
            long earliest;
            boolean blocked;
            boolean held;
            long start = System.nanoTime();
            try {
                holdingReplies = callersPoll(start);
                turn(task, thenReadSocket);
            } finally {
                holdingReplies = false;
                earliest = nextDeadline();
                blocked = writableWanted;
                held = receiver.holdsReplies();
                owner.unlock();
            }
            afterCallerTurn(start, earliest, blocked, held, thenReadSocket);
        }

        @Override
        public boolean progress() {
            if (!takeForCaller()) {
                return false;
            }
            boolean worked;
            long earliest;
            boolean blocked;
            boolean held;
            long start = System.nanoTime();
            try {
                holdingReplies = callersPoll(start);
                worked = turn(null, true);
            } finally {
                holdingReplies = false;
                earliest = nextDeadline();
                blocked = writableWanted;
                held = receiver.holdsReplies();
                owner.unlock();
            }
            afterCallerTurn(start, earliest, blocked, held, true);
            return worked;
        }

        /**
         * Takes the loop for a caller's turn if it is free; not from a thread already on the loop (a
         * turn inside a turn would reorder work). An interrupted caller is fine: the JDK closes a
         * channel whose thread is interrupted only in blocking I/O, and this socket never blocks.
         */
        private boolean takeForCaller() {
            return running && !owner.isHeldByCurrentThread() && owner.tryLock();
        }

        /**
         * After a caller's turn that began at {@code start}: a turn that read the socket and began
         * soon after the last such turn ended (however long it took: a post may send many packets)
         * marks callers as polling (a turn that read nothing does not: it did not take the socket
         * over); then wake the loop thread for work it left, for a full socket (only it selects for
         * room), for a timer due before its planned wake-up while callers do not poll (a polling
         * caller runs due timers in its turns), or for replies the turn held back
         * ({@code held}) while the loop thread sleeps longer than {@link #MAX_POLLING_WAIT_NANOS}: it
         * went to sleep before callers polled, and only its turns release them once callers stop
         * (without this a held ACK waited for the next datagram, and the peer, waiting for that
         * ACK, sent none until its retransmission timer fired). A wake already asked for and not
         * yet taken is not asked for again.
         */
        private void afterCallerTurn(long start, long earliestTimer, boolean blocked, boolean held,
                                     boolean readSocket) {
            long now = System.nanoTime();
            if (readSocket) {
                if (start - callerTurnAt < BUSY_GAP_NANOS) {
                    busyTurnAt = now;
                }
                callerTurnAt = now;
            }
            if (hasTasks() || blocked
                    || (earliestTimer - plannedWake < 0 && !callersPoll(now))
                    || (held && plannedWake - now > MAX_POLLING_WAIT_NANOS)) {
                if (!wakeAsked.get() && wakeAsked.compareAndSet(false, true)) {
                    wake();
                }
            }
        }

        private long nextDeadline() {
            ScheduledTask next = timers.peek();
            return next == null ? Long.MAX_VALUE : next.deadline;
        }

        @Override
        public Timer schedule(long delayNanos, Runnable task) {
            if (!inLoop()) {
                throw new IllegalStateException("timers are scheduled on the loop only");
            }
            ScheduledTask timer = new ScheduledTask(System.nanoTime() + Math.max(0, delayNanos), timerSequence++, task);
            timers.add(timer);
            return timer;
        }

        @Override
        public SendResult send(int destinationIp, int destinationPort, byte[] buffer, int offset, int length) {
            sendBuffer.clear();
            sendBuffer.put(buffer, offset, length).flip();
            return send(destinationIp, destinationPort, sendBuffer);
        }

        @Override
        public SendResult send(int destinationIp, int destinationPort, ByteBuffer datagram) {
            if (destinationIp != lastDestinationIp || destinationPort != lastDestinationPort || lastDestination == null) {
                long key = ((long) destinationIp << 16) | destinationPort;
                InetSocketAddress target = destinations.get(key);
                if (target == null) {
                    target = new InetSocketAddress(toAddress(destinationIp), destinationPort);
                    destinations.put(key, target);
                }
                lastDestination = target;
                lastDestinationIp = destinationIp;
                lastDestinationPort = destinationPort;
            }
            try {
                // A non-blocking datagram channel sends all of the datagram or, when the socket's
                // send buffer has no room for it, nothing (EAGAIN).
                return channel.send(datagram, lastDestination) > 0 ? SendResult.SENT : SendResult.BLOCKED;
            } catch (IOException e) {
                LOG.log(Level.FINE, "UDP send failed", e);
                return SendResult.FAILED;
            }
        }

        @Override
        public void awaitWritable() {
            if (!writableWanted) {
                writableWanted = true;
                updateInterest();
            }
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
         * Reads the socket on the loop thread, or leaves it to polling callers (loop thread, on the
         * loop). A selector applies a new interest set only in its next select, and while callers
         * poll the loop thread parks instead of selecting: without a {@code selectNow} the socket
         * would keep its read interest in the epoll set, and every datagram's delivery would run
         * epoll's wake-up callback inside the sender's {@code sendto} (about 0.4 µs of its 1.7 µs on
         * a loopback ping-pong).
         */
        private void readInterest(boolean wanted) throws IOException {
            if (readInterest != wanted) {
                readInterest = wanted;
                updateInterest();
                if (!wanted) {
                    selector.selectNow(onReady);
                }
            }
        }

        private boolean callersPoll(long now) {
            return now - busyTurnAt < CALLERS_POLL_NANOS;
        }

        /** The socket has room again: write interest off, then the transport resumes. */
        private void writable() {
            writableWanted = false;
            updateInterest();
            receiver.onWritable();
        }

        @Override
        public void run() {
            while (running) {
                try {
                    if (!owner.tryLock()) {
                        // A caller is taking a turn and handles what is there. If callers poll, the
                        // loop thread keeps out of their way for a while; if not, it is soon free.
                        long now = System.nanoTime();
                        if (callersPoll(now)) {
                            long nap = pollingNap();
                            plannedWake = now + nap;
                            sleep(nap, true);
                        } else {
                            Thread.yield();
                        }
                        continue;
                    }
                    long waitNanos;
                    boolean callersPoll;
                    boolean spin;
                    try {
                        if (turn(null, true)) {
                            workedAt = System.nanoTime();
                            continue;
                        }
                        long now = System.nanoTime();
                        waitNanos = timers.isEmpty() ? IDLE_WAIT_NANOS : timers.peek().deadline - now;
                        callersPoll = callersPoll(now);
                        spin = !callersPoll && now - workedAt < SPIN_NANOS && !hasTasks();
                        readInterest(!callersPoll && !spin);
                        if (callersPoll) {
                            waitNanos = Math.min(waitNanos, pollingNap());
                        } else {
                            pollingWait = POLLING_WAIT_NANOS;
                        }
                        plannedWake = spin ? now : now + Math.max(0, waitNanos);
                    } finally {
                        owner.unlock();
                    }
                    if (spin) {
                        Thread.onSpinWait();
                    } else if (waitNanos > 0) {
                        sleep(waitNanos, callersPoll);
                    }
                } catch (Throwable e) {
                    if (running) {
                        LOG.log(Level.SEVERE, "transport loop error", e);
                    }
                }
            }
        }

        /**
         * The next sleep while callers poll: {@link #POLLING_WAIT_NANOS} after they began, then
         * twice the last one, up to {@link #MAX_POLLING_WAIT_NANOS} (loop thread only).
         */
        private long pollingNap() {
            long nap = pollingWait;
            pollingWait = Math.min(nap * 2, MAX_POLLING_WAIT_NANOS);
            return nap;
        }

        /**
         * Waits (without the loop) until a datagram, a wake-up or {@code waitNanos}; while callers
         * poll, the socket is theirs and the thread only parks (the selector counts in milliseconds).
         */
        private void sleep(long waitNanos, boolean callersPoll) throws IOException {
            sleeping.set(true);
            if (!hasTasks()) {
                if (callersPoll && !writableWanted) {
                    java.util.concurrent.locks.LockSupport.parkNanos(this, waitNanos);
                } else {
                    selector.select(onReady, Math.max(1, (waitNanos + 999_999) / 1_000_000));
                }
            }
            sleeping.set(false);
            wakeAsked.set(false);
        }

        /** Wakes the loop thread wherever it waits. */
        private void wake() {
            selector.wakeup();
            java.util.concurrent.locks.LockSupport.unpark(thread);
        }

        /**
         * One turn on the loop (the caller holds {@link #owner}): handed-over tasks, then
         * {@code task}, datagrams that wait, and due timers. Work handed over before a datagram was
         * sent runs before that datagram is handled: a receive posted before the peer's SEND must
         * be there for it. Without {@code readSocket} the turn reads no datagram (timers still run).
         *
         * @return true when something was done
         */
        private boolean turn(Runnable task, boolean readSocket) {
            boolean worked = false;
            try {
                if (task == null) {
                    receiver.onTurn();
                }
                worked = runTasks();
                if (task != null) {
                    task.run();
                    worked = true;
                }
                if (writableWanted) {
                    if (Thread.currentThread() == thread) {
                        selector.selectNow(onReady);
                    } else {
                        // Only the loop thread selects (a second select on a selector waits for the
                        // first); a caller simply tries again.
                        writableReady = true;
                    }
                    if (writableReady) {
                        writableReady = false;
                        writable();
                        worked = true;
                    }
                }
                if (readSocket) {
                    worked |= receiveAll(Thread.currentThread() == thread ? LOOP_DATAGRAMS : CALLER_DATAGRAMS);
                }
                worked |= runTimers();
            } catch (Throwable e) {
                if (running) {
                    LOG.log(Level.SEVERE, "transport loop error", e);
                }
            }
            return worked;
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
            return runOnceTasks() || ran;
        }

        /** Runs the tasks handed over with {@link #executeOnce}, oldest first; true when there was one. */
        private boolean runOnceTasks() {
            // A plain read first: most turns find nothing, and an atomic swap costs a locked
            // instruction on every one of them.
            if (onceTasks.get() == null) {
                return false;
            }
            LoopTask newestFirst = onceTasks.getAndSet(null);
            if (newestFirst == null) {
                return false;
            }
            LoopTask oldestFirst = null;
            while (newestFirst != null) {
                LoopTask next = newestFirst.next;
                newestFirst.next = oldestFirst;
                oldestFirst = newestFirst;
                newestFirst = next;
            }
            while (oldestFirst != null) {
                LoopTask task = oldestFirst;
                oldestFirst = task.next;
                task.next = null;
                task.release();
                task.run();
            }
            return true;
        }

        /** Handles the datagrams waiting in the socket (at most {@code limit}); true when there was at least one. */
        private boolean receiveAll(int limit) throws IOException {
            for (int i = 0; i < limit; i++) {
                receiveBuffer.clear();
                SocketAddress from = channel.receive(receiveBuffer);
                if (from == null) {
                    return i > 0;
                }
                if (hasTasks()) {
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
                int length = receiveBuffer.position();
                receiveBuffer.get(0, received, 0, length);
                receiver.onDatagram((int) lastSourceIp, lastSourcePort, received, 0, length);
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
            wake();
            if (Thread.currentThread() != thread) {
                try {
                    thread.join(2000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            closeQuietly(channel, selector);
        }
    }

    private static InetAddress toAddress(int ip) {
        try {
            return InetAddress.getByAddress(new byte[] {(byte) (ip >>> 24), (byte) (ip >>> 16), (byte) (ip >>> 8), (byte) ip});
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
    }
}
