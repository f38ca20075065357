package org.rdmalab.softroce.net;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.PriorityQueue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.rdmalab.sched.BackgroundPriority;

/**
 * One device's event loop, the {@link Fabric.Endpoint} a {@link UdpFabric} hands out over its
 * {@link UdpSocket}: a thread that waits for datagrams, handed-over tasks and timers. The loop's
 * state is owned by whoever holds {@link #owner}: the loop's own thread while it works, or a caller
 * that took the free loop for a turn ({@link #runOrExecute}, {@link #progress}). While callers keep taking turns (they busy-poll
 * the device), the loop thread stops reading the socket and only looks in after a millisecond,
 * then at doubling intervals up to 8 ms, so datagrams are read by the polling thread instead of
 * waking a second one; once the callers stop, the loop thread reads again.
 */
final class UdpLoop implements Fabric.Endpoint, EventLoop, Runnable {

    private static final Logger LOG = Logger.getLogger(UdpLoop.class.getName());

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

    private final Fabric.Receiver receiver;
    private final Thread thread;
    private final UdpSocket socket;
    private final int ttl;
    /** Runs handed-over work before each datagram a turn reads (made once: a turn allocates nothing). */
    private final Runnable tasksBeforeDatagram = this::runWaitingTasks;
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

    UdpLoop(String name, UdpSocket socket, Fabric.Receiver receiver, int ttl) {
        this.socket = socket;
        this.ttl = ttl;
        this.receiver = receiver;
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
        return socket.localPort();
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
            blocked = socket.writableWanted();
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
            blocked = socket.writableWanted();
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
    public Fabric.SendResult send(int destinationIp, int destinationPort, byte[] buffer, int offset, int length) {
        return socket.send(destinationIp, destinationPort, buffer, offset, length);
    }

    @Override
    public Fabric.SendResult send(int destinationIp, int destinationPort, ByteBuffer datagram) {
        return socket.send(destinationIp, destinationPort, datagram);
    }

    @Override
    public void awaitWritable() {
        socket.awaitWritable();
    }

    private boolean callersPoll(long now) {
        return now - busyTurnAt < CALLERS_POLL_NANOS;
    }

    @Override
    public void run() {
        // The window asks device loops to yield to the JavaFX thread; the command line does not.
        BackgroundPriority.process().applyHere();
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
                    socket.readInterest(!callersPoll && !spin);
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
            if (callersPoll && !socket.writableWanted()) {
                java.util.concurrent.locks.LockSupport.parkNanos(this, waitNanos);
            } else {
                socket.select(Math.max(1, (waitNanos + 999_999) / 1_000_000));
            }
        }
        sleeping.set(false);
        wakeAsked.set(false);
    }

    /** Wakes the loop thread wherever it waits. */
    private void wake() {
        socket.wakeup();
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
            if (socket.writableWanted() && socket.becameWritable(Thread.currentThread() == thread)) {
                // The socket has room again: the transport resumes.
                receiver.onWritable();
                worked = true;
            }
            if (readSocket) {
                worked |= socket.receive(receiver, Thread.currentThread() == thread ? LOOP_DATAGRAMS : CALLER_DATAGRAMS,
                        tasksBeforeDatagram);
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

    /** Runs the handed-over tasks if there are any (before a datagram a turn read is handled). */
    private void runWaitingTasks() {
        if (hasTasks()) {
            runTasks();
        }
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
        socket.close();
    }
}
