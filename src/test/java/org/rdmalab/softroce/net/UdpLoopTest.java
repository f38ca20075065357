package org.rdmalab.softroce.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * A device's loop over a real UDP socket on 127.0.0.1 ({@link UdpFabric}, {@link UdpLoop},
 * {@link UdpSocket}), driven the way the transport drives it and heard through a recording
 * receiver: datagrams arrive in the order they were sent, with their bytes and their sender; a
 * send reaches the destination it names; handed-over work runs in order, and work handed over
 * before a datagram arrived runs before that datagram is handled; timers fire in deadline order and
 * not before; a caller that takes the loop for a turn does the work on its own thread, and a
 * busy-polling caller reads the datagrams itself; an idle loop thread is woken for what a caller
 * left it; a closed device lets go of its port and its thread. Every wait is bounded.
 */
class UdpLoopTest {

    private static final InetAddress LOCALHOST = address("127.0.0.1");
    private static final InetAddress SECOND = address("127.0.0.2");
    private static final AtomicInteger DEVICES = new AtomicInteger();
    /**
     * How long an idle loop thread's sleep may be cut short after a caller left it work: well
     * under the loop's one second idle sleep, which is what the work would wait for if nobody
     * woke the thread.
     */
    private static final long PROMPT_MILLIS = 500;

    private static InetAddress address(String text) {
        try {
            return InetAddress.getByName(text);
        } catch (java.net.UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    /** What a device heard: each datagram as "a.b.c.d:port [bytes] on thread", and its turns. */
    private static final class Heard implements Fabric.Receiver {
        final String name = "udp-loop-test-" + DEVICES.incrementAndGet();
        final List<String> events = Collections.synchronizedList(new ArrayList<>());
        final List<String> turnThreads = Collections.synchronizedList(new ArrayList<>());
        /** Datagrams read while the loop held replies back (a busy poller's turn). */
        final AtomicInteger readHolding = new AtomicInteger();
        /** Datagrams read on the device's own thread while it said it held replies back. */
        final AtomicInteger loopThreadHolding = new AtomicInteger();
        volatile EventLoop loop;
        /** What {@link #holdsReplies} answers; the loop thread's next turn clears it. */
        volatile boolean holding;
        final CountDownLatch released = new CountDownLatch(1);
        volatile Runnable onNextDatagram;

        @Override
        public void onDatagram(int sourceIp, int sourcePort, byte[] buffer, int offset, int length) {
            byte[] bytes = java.util.Arrays.copyOfRange(buffer, offset, offset + length);
            boolean held = loop != null && loop.holdingReplies();
            if (held) {
                readHolding.incrementAndGet();
                if (Thread.currentThread().getName().equals(name)) {
                    loopThreadHolding.incrementAndGet();
                }
            }
            events.add(describe(sourceIp, sourcePort, bytes) + " on " + where());
            Runnable next = onNextDatagram;
            if (next != null) {
                onNextDatagram = null;
                next.run();
            }
        }

        @Override
        public void onWritable() {
            events.add("writable");
        }

        @Override
        public void onTurn() {
            turnThreads.add(Thread.currentThread().getName());
            if (holding && Thread.currentThread().getName().equals(name)) {
                holding = false;
                released.countDown();
            }
        }

        @Override
        public boolean holdsReplies() {
            return holding;
        }

        String where() {
            return Thread.currentThread().getName().equals(name) ? "loop" : Thread.currentThread().getName();
        }

        /** Waits until {@code count} events were heard (at most 10 s) and returns them. */
        List<String> await(int count) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (events.size() < count && System.nanoTime() < deadline) {
                Thread.onSpinWait();
                Thread.yield();
            }
            synchronized (events) {
                return new ArrayList<>(events);
            }
        }
    }

    private static String describe(int ip, int port, byte[] bytes) {
        return (ip >>> 24) + "." + (ip >>> 16 & 0xff) + "." + (ip >>> 8 & 0xff) + "." + (ip & 0xff) + ":" + port + " "
                + java.util.Arrays.toString(bytes);
    }

    private static int ip(InetAddress address) {
        return Fabric.toInt((Inet4Address) address);
    }

    private static Fabric.Endpoint open(Heard heard) throws Exception {
        return open(heard, 0);
    }

    private static Fabric.Endpoint open(Heard heard, int port) throws Exception {
        Fabric.Endpoint endpoint = UdpFabric.INSTANCE.open("test", heard.name, (Inet4Address) LOCALHOST, port, heard);
        heard.loop = endpoint.loop();
        return endpoint;
    }

    private static DatagramSocket peer(InetAddress address, int port) throws Exception {
        DatagramSocket socket = new DatagramSocket(new InetSocketAddress(address, port));
        socket.setSoTimeout(10_000);
        return socket;
    }

    private static Thread threadNamed(String name) {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no thread " + name));
    }

    /** Keeps the loop thread busy in a task until {@link #release}; the loop is taken when it returns. */
    private static final class Blocker implements AutoCloseable {
        final CountDownLatch started = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);

        Blocker(EventLoop loop) throws InterruptedException {
            loop.execute(() -> {
                started.countDown();
                try {
                    release.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            assertTrue(started.await(10, TimeUnit.SECONDS), "the loop took the blocking task");
        }

        @Override
        public void close() {
            release.countDown();
        }
    }

    @Test
    void datagramsArriveInOrderWithTheirBytesAndTheirSender() throws Exception {
        Heard heard = new Heard();
        try (Fabric.Endpoint device = open(heard);
             DatagramSocket one = peer(LOCALHOST, 0);
             DatagramSocket two = peer(SECOND, 0)) {
            List<String> sent = new ArrayList<>();
            for (int i = 0; i < 300; i++) {
                // Runs of one sender and changes of sender, and every length from 1 to 50 bytes.
                DatagramSocket from = i % 3 == 0 ? two : one;
                byte[] bytes = new byte[1 + i % 50];
                for (int k = 0; k < bytes.length; k++) {
                    bytes[k] = (byte) (i + 7 * k);
                }
                from.send(new DatagramPacket(bytes, bytes.length, LOCALHOST, device.localPort()));
                sent.add(describe(ip(from.getLocalAddress()), from.getLocalPort(), bytes) + " on loop");
            }
            assertEquals(sent, heard.await(sent.size()));
        }
    }

    @Test
    void aDeviceSendsEachSliceToTheDestinationItNames() throws Exception {
        Heard heard = new Heard();
        int shared = freePortOnBoth();
        try (Fabric.Endpoint device = open(heard);
             DatagramSocket first = peer(LOCALHOST, shared);
             DatagramSocket second = peer(SECOND, shared);
             DatagramSocket third = peer(LOCALHOST, 0)) {
            // The same address with another port, and the same port at another address, in turn.
            DatagramSocket[] order = {first, second, first, third, second, third, third, first};
            List<Fabric.SendResult> results = device.loop().call("test", Duration.ofSeconds(10), () -> {
                List<Fabric.SendResult> answers = new ArrayList<>();
                for (int i = 0; i < order.length; i++) {
                    byte[] buffer = {9, 9, (byte) (10 * i), (byte) (10 * i + 1), (byte) (10 * i + 2), 9};
                    int ip = ip(order[i].getLocalAddress());
                    int port = order[i].getLocalPort();
                    if (i % 2 == 0) {
                        answers.add(device.send(ip, port, buffer, 2, 3));
                    } else {
                        answers.add(device.send(ip, port, ByteBuffer.wrap(buffer, 2, 3)));
                    }
                }
                return answers;
            });
            assertEquals(Collections.nCopies(order.length, Fabric.SendResult.SENT), results);
            for (int i = 0; i < order.length; i++) {
                DatagramPacket packet = new DatagramPacket(new byte[16], 16);
                order[i].receive(packet);
                assertEquals(List.of((byte) (10 * i), (byte) (10 * i + 1), (byte) (10 * i + 2)),
                        bytes(packet), "datagram " + i + " at " + order[i].getLocalSocketAddress());
                assertEquals(new InetSocketAddress(LOCALHOST, device.localPort()), packet.getSocketAddress());
            }
            for (DatagramSocket socket : List.of(first, second, third)) {
                socket.setSoTimeout(50);
                assertThrows(SocketTimeoutException.class, () -> socket.receive(new DatagramPacket(new byte[16], 16)),
                        "nothing more for " + socket.getLocalSocketAddress());
            }
        }
    }

    /**
     * A send the kernel refuses (here port 0, before any other send) is lost as on a broken link,
     * not thrown at the transport; the next one goes.
     */
    @Test
    void aRefusedSendFailsAndTheNextOneGoes() throws Exception {
        Heard heard = new Heard();
        try (Fabric.Endpoint device = open(heard); DatagramSocket peer = peer(LOCALHOST, 0)) {
            List<Fabric.SendResult> results = device.loop().call("test", Duration.ofSeconds(10), () -> List.of(
                    device.send(0, 0, new byte[] {1}, 0, 1),
                    device.send(ip(LOCALHOST), 0, new byte[] {2}, 0, 1),
                    device.send(ip(LOCALHOST), peer.getLocalPort(), new byte[] {3, 4}, 0, 2)));
            assertEquals(List.of(Fabric.SendResult.FAILED, Fabric.SendResult.FAILED, Fabric.SendResult.SENT), results);
            DatagramPacket packet = new DatagramPacket(new byte[16], 16);
            peer.receive(packet);
            assertEquals(List.of((byte) 3, (byte) 4), bytes(packet));
        }
    }

    /**
     * 400 kB arriving while the loop is busy waits in the socket (its receive buffer is 4 MiB
     * where the kernel allows it, not the default of about 200 kB) and is read in order once the
     * loop is free.
     */
    @Test
    void whatArrivesWhileTheLoopIsBusyWaitsInTheSocket() throws Exception {
        long rmemMax = Long.parseLong(java.nio.file.Files.readAllLines(
                java.nio.file.Path.of("/proc/sys/net/core/rmem_max")).get(0).trim());
        org.junit.jupiter.api.Assumptions.assumeTrue(rmemMax >= 1 << 20,
                "the kernel lets a socket have a receive buffer of 1 MiB or more");
        Heard heard = new Heard();
        int count = 400;
        try (Fabric.Endpoint device = open(heard); DatagramSocket peer = peer(LOCALHOST, 0)) {
            try (Blocker busy = new Blocker(device.loop())) {
                byte[] bytes = new byte[1000];
                for (int i = 0; i < count; i++) {
                    bytes[0] = (byte) i;
                    bytes[1] = (byte) (i >> 8);
                    peer.send(new DatagramPacket(bytes, bytes.length, LOCALHOST, device.localPort()));
                }
            }
            List<String> heardNow = heard.await(count);
            assertEquals(count, heardNow.size(), "every datagram kept while the loop was busy");
            for (int i = 0; i < count; i++) {
                String prefix = describe(ip(LOCALHOST), peer.getLocalPort(), new byte[] {(byte) i, (byte) (i >> 8)})
                        .replace("]", ",");
                assertTrue(heardNow.get(i).startsWith(prefix), i + ": " + heardNow.get(i));
            }
        }
    }

    @Test
    void handedOverTasksRunOnTheLoopOnceEachAndInOrder() throws Exception {
        Heard heard = new Heard();
        try (Fabric.Endpoint device = open(heard)) {
            EventLoop loop = device.loop();
            List<String> ran = Collections.synchronizedList(new ArrayList<>());
            LoopTask a = new LoopTask(() -> ran.add("a " + heard.where() + " " + loop.inLoop()));
            LoopTask b = new LoopTask(() -> ran.add("b " + heard.where()));
            LoopTask c = new LoopTask(() -> ran.add("c " + heard.where()));
            List<String> plain = Collections.synchronizedList(new ArrayList<>());
            try (Blocker busy = new Blocker(loop)) {
                loop.executeOnce(a);
                loop.executeOnce(b);
                loop.executeOnce(a); // waits already: not queued twice
                loop.executeOnce(c);
                for (int i = 0; i < 5; i++) {
                    int n = i;
                    loop.execute(() -> plain.add(n + " " + heard.where()));
                }
                assertFalse(loop.inLoop(), "the test's thread is not on the loop");
            }
            CountDownLatch done = new CountDownLatch(1);
            loop.executeOnce(new LoopTask(done::countDown)); // after c, however the turns fall
            assertTrue(done.await(10, TimeUnit.SECONDS));
            assertEquals(List.of("a loop true", "b loop", "c loop"), ran);
            assertEquals(List.of("0 loop", "1 loop", "2 loop", "3 loop", "4 loop"), plain);
        }
    }

    /** A task handed over again while it runs was taken off the queue first: it runs again. */
    @Test
    void aLoopTaskHandedOverWhileItRunsRunsAgain() throws Exception {
        Heard heard = new Heard();
        try (Fabric.Endpoint device = open(heard)) {
            EventLoop loop = device.loop();
            AtomicInteger runs = new AtomicInteger();
            CountDownLatch twice = new CountDownLatch(2);
            LoopTask[] task = new LoopTask[1];
            task[0] = new LoopTask(() -> {
                if (runs.incrementAndGet() == 1) {
                    loop.executeOnce(task[0]);
                }
                twice.countDown();
            });
            loop.executeOnce(task[0]);
            assertTrue(twice.await(10, TimeUnit.SECONDS), "ran " + runs.get() + " times");
            CountDownLatch after = new CountDownLatch(1);
            loop.execute(after::countDown);
            assertTrue(after.await(10, TimeUnit.SECONDS));
            assertEquals(2, runs.get());
        }
    }

    /**
     * Work handed over while the loop reads a burst of datagrams runs before the next datagram is
     * handled, when it was handed over before that datagram was sent: a receive posted before the
     * peer's SEND must be there for it.
     */
    @Test
    void workHandedOverBeforeADatagramWasSentRunsBeforeItIsHandled() throws Exception {
        Heard heard = new Heard();
        try (Fabric.Endpoint device = open(heard); DatagramSocket peer = peer(LOCALHOST, 0)) {
            EventLoop loop = device.loop();
            int port = device.localPort();
            for (int round = 0; round < 20; round++) {
                heard.events.clear();
                byte first = (byte) (2 * round);
                byte second = (byte) (2 * round + 1);
                heard.onNextDatagram = () -> {
                    loop.execute(() -> heard.events.add("posted"));
                    try {
                        peer.send(new DatagramPacket(new byte[] {second}, 1, LOCALHOST, port));
                    } catch (java.io.IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                };
                peer.send(new DatagramPacket(new byte[] {first}, 1, LOCALHOST, port));
                List<String> seen = heard.await(3);
                String source = describe(ip(LOCALHOST), peer.getLocalPort(), new byte[0]).replace(" []", "");
                assertEquals(List.of(source + " [" + first + "] on loop", "posted", source + " [" + second + "] on loop"),
                        seen, "round " + round);
            }
        }
    }

    @Test
    void timersFireInDeadlineOrderNotBeforeTheirDelayAndACancelledOneNever() throws Exception {
        Heard heard = new Heard();
        try (Fabric.Endpoint device = open(heard)) {
            EventLoop loop = device.loop();
            List<String> fired = Collections.synchronizedList(new ArrayList<>());
            List<String> early = Collections.synchronizedList(new ArrayList<>());
            CountDownLatch last = new CountDownLatch(1);
            long ms = 1_000_000;
            AtomicLong base = new AtomicLong();
            loop.execute(() -> {
                // Each delay is counted from one instant, so that a stall of this thread between
                // two schedule calls cannot reorder the deadlines; 100 ms apart.
                base.set(System.nanoTime());
                java.util.function.LongUnaryOperator delayTo = at -> base.get() + at - System.nanoTime();
                java.util.function.LongFunction<Runnable> record = at -> () -> {
                    fired.add(at / ms + " ms " + heard.where());
                    if (System.nanoTime() - base.get() < at) {
                        early.add(at / ms + " ms");
                    }
                };
                loop.schedule(delayTo.applyAsLong(300 * ms), () -> {
                    record.apply(300 * ms).run();
                    last.countDown();
                });
                loop.schedule(delayTo.applyAsLong(100 * ms), record.apply(100 * ms));
                EventLoop.Timer cancelled = loop.schedule(delayTo.applyAsLong(150 * ms), record.apply(150 * ms));
                loop.schedule(delayTo.applyAsLong(200 * ms), record.apply(200 * ms));
                loop.schedule(0, record.apply(0));
                // A delay below 0 is 0: due now, after the timer of delay 0 scheduled before it.
                loop.schedule(-5 * ms, () -> fired.add("-5 ms " + heard.where()));
                cancelled.cancel();
            });
            assertTrue(last.await(10, TimeUnit.SECONDS));
            assertEquals(List.of("0 ms loop", "-5 ms loop", "100 ms loop", "200 ms loop", "300 ms loop"), fired);
            assertEquals(List.of(), early, "timers that fired before their delay");
            assertThrows(IllegalStateException.class, () -> loop.schedule(0, () -> { }), "off the loop");
        }
    }

    /**
     * A caller that finds the loop free does the work on its own thread (after what was handed over
     * before); a task handed over from inside a turn is not run inside it but after it.
     */
    @Test
    void aCallerTakesAFreeLoopForItsTurnButATurnIsNeverNested() throws Exception {
        Heard heard = new Heard();
        try (Fabric.Endpoint device = open(heard)) {
            EventLoop loop = device.loop();
            String caller = Thread.currentThread().getName();
            // Each kind of turn until one finds the loop free (the loop thread keeps it a while
            // after work of its own); each task runs once, on the caller's thread or the loop's.
            for (boolean brief : new boolean[] {false, true}) {
                List<String> ranOn = Collections.synchronizedList(new ArrayList<>());
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                int calls = 0;
                while (!ranOn.contains(caller)) {
                    assertTrue(System.nanoTime() < deadline, "a turn on the calling thread within 10 s: " + ranOn);
                    CountDownLatch ran = new CountDownLatch(1);
                    LoopTask task = new LoopTask(() -> {
                        ranOn.add(heard.where() + (loop.inLoop() ? "" : " off the loop"));
                        ran.countDown();
                    });
                    if (brief) {
                        loop.runOrExecuteBriefly(task);
                    } else {
                        loop.runOrExecute(task);
                    }
                    calls++;
                    assertTrue(ran.await(10, TimeUnit.SECONDS));
                }
                assertEquals(calls, ranOn.size(), "each task ran once");
                assertTrue(ranOn.stream().allMatch(t -> t.equals(caller) || t.equals("loop")), ranOn.toString());
            }
            assertFalse(heard.turnThreads.contains(caller), "a post's turn is not a poll's turn: " + heard.turnThreads);

            List<String> order = Collections.synchronizedList(new ArrayList<>());
            CountDownLatch inner = new CountDownLatch(2);
            loop.execute(() -> {
                order.add("outer begins");
                loop.runOrExecute(new LoopTask(() -> {
                    order.add("inner");
                    inner.countDown();
                }));
                loop.runOrExecuteBriefly(new LoopTask(() -> {
                    order.add("inner, brief");
                    inner.countDown();
                }));
                order.add("outer ends");
            });
            assertTrue(inner.await(10, TimeUnit.SECONDS));
            assertEquals(List.of("outer begins", "outer ends", "inner", "inner, brief"), order);
        }
    }

    /**
     * A caller that busy-polls reads the datagrams on its own thread (the loop thread keeps out of
     * its way), holds replies back while it does, and says whether its turn did anything.
     */
    @Test
    void aBusyPollerReadsTheDatagramsItself() throws Exception {
        Heard heard = new Heard();
        try (Fabric.Endpoint device = open(heard); DatagramSocket peer = peer(LOCALHOST, 0)) {
            EventLoop loop = device.loop();
            String caller = Thread.currentThread().getName();
            int count = 200;
            int worked = 0;
            for (int i = 0; i < count; i++) {
                for (int turn = 0; turn < 20; turn++) {
                    loop.progress(); // polling before the datagram comes, as a waiting thread does
                }
                peer.send(new DatagramPacket(new byte[] {(byte) i}, 1, LOCALHOST, device.localPort()));
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (heard.events.size() <= i && System.nanoTime() < deadline) {
                    if (loop.progress()) {
                        worked++;
                    }
                }
                assertEquals(i + 1, heard.events.size(), "datagram " + i + " within 10 s");
            }
            long readHere = heard.events.stream().filter(e -> e.endsWith(" on " + caller)).count();
            assertTrue(readHere >= count / 2, "datagrams read by the polling thread: " + readHere + " of " + count);
            assertTrue(worked >= readHere, worked + " turns did work, " + readHere + " datagrams read in them");
            assertTrue(heard.readHolding.get() > 0, "replies held back in a busy poller's turns");
            assertEquals(0, heard.loopThreadHolding.get(), "the loop thread's own turns hold nothing back");
            assertTrue(heard.turnThreads.contains(caller), "a poll's turn begins with onTurn");
            assertFalse(loop.holdingReplies(), "nothing is held back outside a turn");
            int idleWork = 0;
            for (int i = 0; i < 1000; i++) {
                if (loop.progress()) {
                    idleWork++;
                }
            }
            assertEquals(0, idleWork, "turns with nothing to do say so");
        }
    }

    /**
     * A receive post's brief turn reads no datagram, even one that waits in the socket: the
     * poller's next turn does.
     */
    @Test
    void aBriefTurnLeavesTheDatagramsToTheNextPoll() throws Exception {
        Heard heard = new Heard();
        try (Fabric.Endpoint device = open(heard); DatagramSocket peer = peer(LOCALHOST, 0)) {
            EventLoop loop = device.loop();
            String caller = Thread.currentThread().getName();
            List<String> readInBriefTurns = Collections.synchronizedList(new ArrayList<>());
            int briefTurns = 0;
            for (int i = 0; i < 100; i++) {
                peer.send(new DatagramPacket(new byte[] {(byte) i}, 1, LOCALHOST, device.localPort()));
                int before = heard.events.size();
                boolean[] onCaller = new boolean[1];
                loop.runOrExecuteBriefly(new LoopTask(() -> onCaller[0] = heard.where().equals(caller)));
                if (onCaller[0]) {
                    briefTurns++;
                    synchronized (heard.events) {
                        heard.events.subList(before, heard.events.size()).stream()
                                .filter(e -> e.endsWith(" on " + caller)).forEach(readInBriefTurns::add);
                    }
                }
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (heard.events.size() <= i && System.nanoTime() < deadline) {
                    loop.progress();
                }
                assertEquals(i + 1, heard.events.size(), "datagram " + i + " within 10 s");
            }
            assertTrue(briefTurns > 0, "some brief turns ran on the calling thread");
            assertEquals(List.of(), readInBriefTurns);
        }
    }

    /**
     * The loop thread sleeps while nothing is due (up to a second); work a caller leaves it wakes
     * it at once: a task handed over, a timer due before the planned wake-up, and replies a
     * caller's last turn held back.
     */
    @Test
    void anIdleLoopThreadIsWokenForWhatACallerLeavesIt() throws Exception {
        Heard heard = new Heard();
        try (Fabric.Endpoint device = open(heard)) {
            EventLoop loop = device.loop();
            for (int round = 0; round < 3; round++) {
                CountDownLatch ran = new CountDownLatch(1);
                loop.execute(ran::countDown);
                assertTrue(ran.await(PROMPT_MILLIS, TimeUnit.MILLISECONDS), "round " + round + ": execute");
                CountDownLatch once = new CountDownLatch(1);
                loop.executeOnce(new LoopTask(once::countDown));
                assertTrue(once.await(PROMPT_MILLIS, TimeUnit.MILLISECONDS), "round " + round + ": executeOnce");
                CountDownLatch timer = new CountDownLatch(1);
                loop.runOrExecute(new LoopTask(() -> loop.schedule(2_000_000, timer::countDown)));
                assertTrue(timer.await(PROMPT_MILLIS, TimeUnit.MILLISECONDS), "round " + round + ": a 2 ms timer");
            }
            String caller = Thread.currentThread().getName();
            heard.holding = true;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!heard.turnThreads.contains(caller) && System.nanoTime() < deadline) {
                loop.progress(); // until a turn of this thread's ran and saw replies held
            }
            assertTrue(heard.released.await(PROMPT_MILLIS, TimeUnit.MILLISECONDS),
                    "replies the caller held back are released by the loop thread");
        }
    }

    @Test
    void aClosedDeviceLetsGoOfItsPortAndItsThread() throws Exception {
        Heard heard = new Heard();
        Fabric.Endpoint device = open(heard);
        int port = device.localPort();
        Thread thread = threadNamed(heard.name);
        assertTrue(thread.isDaemon(), "the loop thread does not keep the JVM alive");
        device.close();
        assertFalse(thread.isAlive(), "the loop thread ended");
        device.close(); // twice: nothing more to do
        try (DatagramSocket again = new DatagramSocket(new InetSocketAddress(LOCALHOST, port))) {
            assertEquals(port, again.getLocalPort(), "the port is free again");
        }
        EventLoop loop = device.loop();
        boolean[] ran = new boolean[1];
        loop.runOrExecute(new LoopTask(() -> ran[0] = true));
        assertFalse(ran[0], "a closed loop is not taken for a turn");
        assertFalse(loop.progress());
    }

    /** A device closed from its own loop (a task on its thread) does not wait for itself. */
    @Test
    void aDeviceClosedFromItsOwnThreadStopsAtOnce() throws Exception {
        Heard heard = new Heard();
        Fabric.Endpoint device = open(heard);
        int port = device.localPort();
        Thread thread = threadNamed(heard.name);
        long start = System.nanoTime();
        device.loop().execute(device::close);
        thread.join(1_500);
        assertFalse(thread.isAlive(), "the loop thread ended within 1.5 s, not after waiting 2 s for itself");
        assertTrue(System.nanoTime() - start < TimeUnit.MILLISECONDS.toNanos(1_500));
        try (DatagramSocket again = new DatagramSocket(new InetSocketAddress(LOCALHOST, port))) {
            assertEquals(port, again.getLocalPort(), "the port is free again");
        }
    }

    @Test
    void theDeviceBindsTheAddressItWasGivenAndSaysWhatItsDatagramsCarry() throws Exception {
        int port = freePortOnBoth();
        Heard heard = new Heard();
        try (Fabric.Endpoint device = open(heard, port)) {
            assertEquals(port, device.localPort());
            assertEquals(device, device.loop());
            assertEquals(0, device.sentTos(0xB8), "no IP_TOS is set");
            int ttl = Integer.parseInt(java.nio.file.Files.readAllLines(
                java.nio.file.Path.of("/proc/sys/net/ipv4/ip_default_ttl")).get(0).trim());
            assertEquals(ttl, device.sentTtl(3), "the route's TTL, whatever the QP asked");
            long before = System.nanoTime();
            long now = device.loop().nanoTime();
            assertTrue(now >= before && now <= System.nanoTime(), "the loop's clock is System.nanoTime");
        }
        Heard other = new Heard();
        try (Fabric.Endpoint device = open(other, 0)) {
            assertTrue(device.localPort() > 0, "port 0 binds a port of the kernel's choosing");
        }
    }

    @Test
    void anAddressInUseOrNotOnThisMachineIsRefusedWithItsErrno() throws Exception {
        try (DatagramSocket taken = peer(LOCALHOST, 0)) {
            int port = taken.getLocalPort();
            org.rdmalab.verbs.VerbsException inUse = assertThrows(org.rdmalab.verbs.VerbsException.class,
                    () -> open(new Heard(), port));
            assertEquals("test", inUse.verb());
            assertEquals(org.rdmalab.verbs.Errno.EADDRINUSE, inUse.errno());
            assertTrue(inUse.detail().startsWith("UDP 127.0.0.1:" + port + " is already in use"), inUse.detail());
        }
        Heard heard = new Heard();
        org.rdmalab.verbs.VerbsException elsewhere = assertThrows(org.rdmalab.verbs.VerbsException.class,
                () -> UdpFabric.INSTANCE.open("ibv_open_device", heard.name, (Inet4Address) address("192.0.2.1"),
                        4791, heard));
        assertEquals("ibv_open_device", elsewhere.verb());
        assertEquals(org.rdmalab.verbs.Errno.EADDRNOTAVAIL, elsewhere.errno());
        assertTrue(elsewhere.detail().startsWith("cannot bind UDP 192.0.2.1:4791: the address is not configured"),
                elsewhere.detail());
        assertTrue(Thread.getAllStackTraces().keySet().stream().noneMatch(t -> t.getName().equals(heard.name)),
                "no loop thread for a device that could not bind");
    }

    /** A device whose send buffer is small (as the back-pressure tests ask) sends and receives. */
    @Test
    void aDeviceWithASmallSendBufferWorks() throws Exception {
        Heard heard = new Heard();
        Fabric.Endpoint device = UdpFabric.withSendBuffer(16 << 10).open("test", heard.name, (Inet4Address) LOCALHOST,
                0, heard);
        try (device; DatagramSocket peer = peer(LOCALHOST, 0)) {
            peer.send(new DatagramPacket(new byte[] {5}, 1, LOCALHOST, device.localPort()));
            assertEquals(List.of(describe(ip(LOCALHOST), peer.getLocalPort(), new byte[] {5}) + " on loop"),
                    heard.await(1));
            assertEquals(Fabric.SendResult.SENT, device.loop().call("test", Duration.ofSeconds(10),
                    () -> device.send(ip(LOCALHOST), peer.getLocalPort(), new byte[] {6}, 0, 1)));
            DatagramPacket packet = new DatagramPacket(new byte[4], 4);
            peer.receive(packet);
            assertEquals(List.of((byte) 6), bytes(packet));
        }
    }

    /** A device that cannot bind leaves no socket open behind it, however often it is tried. */
    @Test
    void aDeviceThatCannotBindLeavesNoDescriptorBehind() throws Exception {
        try (DatagramSocket taken = peer(LOCALHOST, 0)) {
            int port = taken.getLocalPort();
            open(new Heard()).close(); // classes loaded, caches filled
            long before = descriptors();
            for (int i = 0; i < 20; i++) {
                assertThrows(org.rdmalab.verbs.VerbsException.class, () -> open(new Heard(), port));
            }
            long after = descriptors();
            assertTrue(after - before < 10, "descriptors before 20 failed opens " + before + ", after " + after);
        }
    }

    private static long descriptors() throws java.io.IOException {
        try (java.util.stream.Stream<java.nio.file.Path> fds = java.nio.file.Files.list(
                java.nio.file.Path.of("/proc/self/fd"))) {
            return fds.count();
        }
    }

    @Test
    void closingQuietlyClosesBothAndToleratesNeither() throws Exception {
        UdpFabric.closeQuietly(null, null);
        java.nio.channels.DatagramChannel channel = java.nio.channels.DatagramChannel.open();
        java.nio.channels.Selector selector = java.nio.channels.Selector.open();
        UdpFabric.closeQuietly(channel, selector);
        assertFalse(channel.isOpen());
        assertFalse(selector.isOpen());
    }

    private static List<Byte> bytes(DatagramPacket packet) {
        List<Byte> bytes = new ArrayList<>();
        for (int i = 0; i < packet.getLength(); i++) {
            bytes.add(packet.getData()[packet.getOffset() + i]);
        }
        return bytes;
    }

    /** A UDP port free on both 127.0.0.1 and 127.0.0.2 right now. */
    private static int freePortOnBoth() throws Exception {
        for (int attempt = 0; attempt < 20; attempt++) {
            int port;
            try (DatagramSocket probe = new DatagramSocket(new InetSocketAddress(LOCALHOST, 0))) {
                port = probe.getLocalPort();
            }
            try (DatagramSocket second = new DatagramSocket(new InetSocketAddress(SECOND, port))) {
                return port;
            } catch (java.net.SocketException e) {
                // Taken on the other address; try another.
            }
        }
        throw new IllegalStateException("no free UDP port on 127.0.0.1 and 127.0.0.2");
    }
}
