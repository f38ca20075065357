package org.rdmalab.softroce.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * A device's socket and loop over a socket in memory ({@link FakeUdp}) whose send buffer the test
 * fills and empties: a refused send answers BLOCKED and leaves nothing, the loop then asks the
 * selector for room and tells the transport once there is some, on its own thread or on a
 * caller's; a caller's turn reads one datagram (its answer), a brief turn none; datagrams keep
 * their sender and their length, and one from an IPv6 sender is dropped; a caller's turn asks the
 * sleeping loop thread to wake for the work it left, once; the loop thread stops reading the
 * socket while callers poll and reads it again once they stop. Most tests take turns on the
 * test's thread with the loop thread never started, so what each turn does is exact.
 */
class UdpSocketTest {

    /** What the transport heard: datagrams as "a.b.c.d:port [bytes] on thread", and "writable on thread". */
    private static final class Heard implements Fabric.Receiver {
        final List<String> events = Collections.synchronizedList(new ArrayList<>());
        Runnable whenWritable = () -> { };

        @Override
        public void onDatagram(int sourceIp, int sourcePort, byte[] buffer, int offset, int length) {
            events.add((sourceIp >>> 24) + "." + (sourceIp >>> 16 & 0xff) + "." + (sourceIp >>> 8 & 0xff) + "."
                    + (sourceIp & 0xff) + ":" + sourcePort + " "
                    + java.util.Arrays.toString(java.util.Arrays.copyOfRange(buffer, offset, offset + length)) + " on "
                    + Thread.currentThread().getName());
        }

        @Override
        public void onWritable() {
            events.add("writable on " + Thread.currentThread().getName());
            whenWritable.run();
        }

        List<String> take() {
            synchronized (events) {
                List<String> copy = new ArrayList<>(events);
                events.clear();
                return copy;
            }
        }
    }

    private static String here() {
        return Thread.currentThread().getName();
    }

    private static int ip(String text) {
        return Fabric.toInt((java.net.Inet4Address) FakeUdp.address(text));
    }

    private static void await(BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, what + " within 10 s");
            Thread.onSpinWait();
        }
    }

    @Test
    void aCallersTurnReadsOneDatagramWithItsSenderAndLength() throws Exception {
        FakeUdp udp = new FakeUdp();
        Heard heard = new Heard();
        UdpLoop loop = new UdpLoop("fake", udp.socket(), heard, 64);
        String here = Thread.currentThread().getName();
        udp.arrive("10.0.0.1", 1000, (byte) 1, (byte) 2, (byte) 3);
        udp.arrive("10.0.0.1", 1000, (byte) 4);
        udp.arrive("10.0.0.2", 1000, (byte) 5, (byte) 6);
        udp.arrive("10.0.0.2", 2000, new byte[0]);
        udp.arrive("192.168.200.255", 65535, (byte) 7);
        udp.arrive("10.20.30.40", 1, (byte) 8);
        List<String> expected = List.of("10.0.0.1:1000 [1, 2, 3] on " + here, "10.0.0.1:1000 [4] on " + here,
                "10.0.0.2:1000 [5, 6] on " + here, "10.0.0.2:2000 [] on " + here, "192.168.200.255:65535 [7] on " + here,
                "10.20.30.40:1 [8] on " + here);
        for (int i = 0; i < expected.size(); i++) {
            assertTrue(loop.progress(), "turn " + i + " read a datagram");
            assertEquals(List.of(expected.get(i)), heard.take(), "turn " + i);
            assertEquals(expected.size() - 1 - i, udp.waiting(), "one datagram a turn");
        }
        assertFalse(loop.progress(), "an empty socket: no work");
        assertEquals(List.of(), heard.take());
    }

    /** The device's socket is IPv4; a datagram with an IPv6 sender is not handed on, the next one is. */
    @Test
    void aDatagramFromAnIpv6SenderIsDropped() throws Exception {
        FakeUdp udp = new FakeUdp();
        Heard heard = new Heard();
        UdpLoop loop = new UdpLoop("fake", udp.socket(), heard, 64);
        udp.arrive("10.0.0.1", 1000, (byte) 1);
        udp.arrive("::1", 1000, (byte) 2);
        udp.arrive("10.0.0.1", 1000, (byte) 3);
        for (int i = 0; i < 3; i++) {
            loop.progress();
        }
        assertEquals(List.of("10.0.0.1:1000 [1] on " + here(), "10.0.0.1:1000 [3] on " + here()), heard.take());
    }

    @Test
    void aBriefTurnReadsNothingAndItsTaskRunsOnTheCaller() throws Exception {
        FakeUdp udp = new FakeUdp();
        Heard heard = new Heard();
        UdpLoop loop = new UdpLoop("fake", udp.socket(), heard, 64);
        udp.arrive("10.0.0.1", 1000, (byte) 1);
        List<String> ran = new ArrayList<>();
        loop.runOrExecuteBriefly(new LoopTask(() -> ran.add("brief " + loop.inLoop())));
        assertEquals(List.of("brief true"), ran);
        assertEquals(List.of(), heard.take(), "a brief turn reads no datagram");
        loop.runOrExecute(new LoopTask(() -> ran.add("post")));
        assertEquals(List.of("brief true", "post"), ran);
        assertEquals(List.of("10.0.0.1:1000 [1] on " + here()), heard.take(), "a post's turn reads one");
        assertFalse(loop.inLoop());
    }

    @Test
    void timersDueInACallersTurnFireInItAndOthersWait() throws Exception {
        FakeUdp udp = new FakeUdp();
        UdpLoop loop = new UdpLoop("fake", udp.socket(), new Heard(), 64);
        List<String> fired = new ArrayList<>();
        EventLoop.Timer[] cancelled = new EventLoop.Timer[1];
        loop.runOrExecute(new LoopTask(() -> {
            loop.schedule(0, () -> fired.add("now"));
            loop.schedule(TimeUnit.HOURS.toNanos(1), () -> fired.add("in an hour"));
            cancelled[0] = loop.schedule(TimeUnit.HOURS.toNanos(1) / 2, () -> fired.add("cancelled"));
        }));
        assertEquals(List.of("now"), fired, "due at once: in the same turn");
        assertFalse(loop.progress(), "nothing due");
        loop.runOrExecute(new LoopTask(() -> cancelled[0].cancel()));
        loop.runOrExecute(new LoopTask(() -> loop.schedule(-1, () -> fired.add("again"))));
        assertEquals(List.of("now", "again"), fired);
        assertFalse(loop.progress());
        long[] scheduled = new long[1];
        loop.runOrExecute(new LoopTask(() -> {
            loop.schedule(1_000_000, () -> fired.add("after 1 ms"));
            scheduled[0] = System.nanoTime(); // the deadline is at most 1 ms after this
        }));
        await(() -> System.nanoTime() - scheduled[0] > 1_000_000, "the timer due");
        assertTrue(loop.progress(), "a turn that only fired a timer did work");
        assertEquals(List.of("now", "again", "after 1 ms"), fired);
        loop.executeOnce(new LoopTask(() -> fired.add("handed over once")));
        assertTrue(loop.progress(), "a turn that only ran a task handed over once did work");
        loop.execute(() -> fired.add("handed over"));
        assertTrue(loop.progress(), "a turn that only ran a task handed over did work");
        assertEquals(List.of("now", "again", "after 1 ms", "handed over once", "handed over"), fired);
        assertFalse(loop.progress());
    }

    @Test
    void aSendIsSentOrRefusedWholeAndAFailureIsReported() throws Exception {
        FakeUdp udp = new FakeUdp();
        UdpLoop loop = new UdpLoop("fake", udp.socket(), new Heard(), 64);
        List<Fabric.SendResult> results = new ArrayList<>();
        byte[] buffer = {1, 2, 3, 4, 5, 6};
        loop.runOrExecute(new LoopTask(() -> {
            results.add(loop.send(ip("10.0.0.1"), 4791, buffer, 1, 3));
            results.add(loop.send(ip("10.0.0.2"), 4791, ByteBuffer.wrap(buffer, 4, 2)));
            udp.full(true);
            results.add(loop.send(ip("10.0.0.1"), 4791, buffer, 0, 6));
            udp.full(false);
            udp.sendFailure = new IOException("Network is unreachable");
            results.add(loop.send(ip("10.0.0.1"), 4791, buffer, 0, 1));
            results.add(loop.send(ip("10.0.0.1"), 5000, buffer, 5, 1));
            // Every byte of the address its own, and bytes of 128 and more.
            results.add(loop.send(ip("10.20.30.40"), 65535, buffer, 0, 2));
            results.add(loop.send(ip("192.168.200.255"), 1, buffer, 2, 1));
        }));
        assertEquals(List.of(Fabric.SendResult.SENT, Fabric.SendResult.SENT, Fabric.SendResult.BLOCKED,
                Fabric.SendResult.FAILED, Fabric.SendResult.SENT, Fabric.SendResult.SENT, Fabric.SendResult.SENT), results);
        assertEquals(List.of("10.0.0.1:4791 [2, 3, 4]", "10.0.0.2:4791 [5, 6]", "10.0.0.1:5000 [6]",
                "10.20.30.40:65535 [1, 2]", "192.168.200.255:1 [3]"), udp.sent);
    }

    /**
     * A refused send makes the loop ask for room (write interest) and wake its thread, which alone
     * selects; a caller's turn does not select but takes the socket to have room and tells the
     * transport, which tries again, on the caller's thread: in the same turn, and in the next one
     * once there is room; then the write interest is dropped.
     */
    @Test
    void aFullSocketIsWaitedOutAndACallersTurnTriesAgain() throws Exception {
        FakeUdp udp = new FakeUdp();
        Heard heard = new Heard();
        UdpLoop loop = new UdpLoop("fake", udp.socket(), heard, 64);
        List<Fabric.SendResult> results = new ArrayList<>();
        Runnable send = () -> {
            Fabric.SendResult result = loop.send(ip("10.0.0.1"), 4791, new byte[] {1}, 0, 1);
            results.add(result);
            if (result == Fabric.SendResult.BLOCKED) {
                loop.awaitWritable();
            }
        };
        heard.whenWritable = send; // the transport sends what waits
        udp.full(true);
        loop.runOrExecuteBriefly(new LoopTask(send));
        assertEquals(List.of(Fabric.SendResult.BLOCKED, Fabric.SendResult.BLOCKED), results);
        assertEquals(List.of("writable on " + here()), heard.take(), "tried again in the same turn");
        assertEquals(SelectionKey.OP_READ | SelectionKey.OP_WRITE, udp.key.interestOps(), "room asked for");
        assertEquals(1, udp.wakeups.get(), "the loop thread is woken to select for room");
        assertEquals(List.of(), udp.sent);
        udp.full(false);
        assertTrue(loop.progress(), "the turn told the transport");
        assertEquals(List.of("writable on " + here()), heard.take());
        assertEquals(List.of(Fabric.SendResult.BLOCKED, Fabric.SendResult.BLOCKED, Fabric.SendResult.SENT), results);
        assertEquals(List.of("10.0.0.1:4791 [1]"), udp.sent);
        assertEquals(SelectionKey.OP_READ, udp.key.interestOps(), "room no longer asked for");
        assertFalse(loop.progress(), "told once");
        assertEquals(List.of(), heard.take());
    }

    /** The loop thread selects for room and tells the transport on its own thread once there is some. */
    @Test
    void theLoopThreadWaitsForRoomAndSaysWhenThereIsSome() throws Exception {
        FakeUdp udp = new FakeUdp();
        Heard heard = new Heard();
        UdpLoop loop = new UdpLoop("fake-loop", udp.socket(), heard, 64);
        loop.start();
        try {
            udp.full(true);
            Fabric.SendResult blocked = loop.call("test", Duration.ofSeconds(10), () -> {
                Fabric.SendResult result = loop.send(ip("10.0.0.1"), 4791, new byte[] {1}, 0, 1);
                loop.awaitWritable();
                return result;
            });
            assertEquals(Fabric.SendResult.BLOCKED, blocked);
            for (int i = 0; i < 3; i++) {
                // Turns of the loop thread while the socket stays full tell nothing.
                int round = i;
                assertEquals(round, (int) loop.call("test", Duration.ofSeconds(10), () -> round));
            }
            // (Read interest comes and goes as the loop thread spins and sleeps.)
            assertEquals(SelectionKey.OP_WRITE, udp.key.interestOps() & SelectionKey.OP_WRITE, "room asked for");
            assertEquals(List.of(), heard.take());
            udp.full(false);
            await(() -> !heard.events.isEmpty(), "the transport told of room");
            assertEquals(List.of("writable on fake-loop"), heard.take());
            assertEquals(0, udp.key.interestOps() & SelectionKey.OP_WRITE, "room no longer asked for");
            udp.arrive("10.0.0.1", 1000, (byte) 9);
            await(() -> !heard.events.isEmpty(), "a datagram read by the loop thread");
            assertEquals(List.of("10.0.0.1:1000 [9] on fake-loop"), heard.take());
        } finally {
            loop.close();
        }
        assertTrue(udp.channel.closed, "closing the loop closes the socket");
        assertTrue(udp.selector.closed, "and its selector");
    }

    /**
     * A caller's turn that leaves work behind (a task handed over during it) wakes the loop
     * thread, once until it has woken; a turn that leaves nothing does not wake it.
     */
    @Test
    void aCallerAsksTheLoopThreadToWakeForWhatItLeftOnce() throws Exception {
        FakeUdp udp = new FakeUdp();
        UdpLoop loop = new UdpLoop("fake", udp.socket(), new Heard(), 64);
        List<String> ran = new ArrayList<>();
        loop.runOrExecute(new LoopTask(() -> ran.add("post")));
        loop.progress();
        assertEquals(0, udp.wakeups.get(), "nothing left: the loop thread sleeps on");
        loop.runOrExecute(new LoopTask(() -> loop.execute(() -> ran.add("left"))));
        assertEquals(1, udp.wakeups.get(), "work left: the loop thread is woken");
        loop.runOrExecuteBriefly(new LoopTask(() -> loop.execute(() -> ran.add("left again"))));
        assertEquals(1, udp.wakeups.get(), "already asked");
        assertEquals(List.of("post", "left"), ran, "each turn runs what was handed over before it");
        assertTrue(loop.progress());
        assertEquals(List.of("post", "left", "left again"), ran);
    }

    /**
     * While a caller busy-polls, the loop thread stops reading the socket (no read interest, so a
     * datagram's arrival does not wake it); once the caller stops, it reads the socket again.
     */
    @Test
    void theLoopThreadLeavesTheSocketToABusyPollerAndTakesItBack() throws Exception {
        FakeUdp udp = new FakeUdp();
        Heard heard = new Heard();
        UdpLoop loop = new UdpLoop("fake-poll", udp.socket(), heard, 64);
        loop.start();
        try {
            // The peer's packets arrive while the caller polls, as in a ping-pong: each wakes the
            // loop thread, which then finds the loop taken and naps in short steps. Without them it
            // looks again only after its idle second, and on a busy machine the caller is as likely
            // as not to be off its core just then (no turn in the last 50 us: not polling).
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            long nextArrival = System.nanoTime();
            while ((udp.key.interestOps() & SelectionKey.OP_READ) != 0) {
                long now = System.nanoTime();
                assertTrue(now < deadline, "read interest dropped within 10 s of busy polling");
                if (now - nextArrival >= 0) {
                    udp.arrive("10.0.0.2", 2000, (byte) 2);
                    nextArrival = now + TimeUnit.MICROSECONDS.toNanos(200);
                }
                loop.progress();
            }
            await(() -> (udp.key.interestOps() & SelectionKey.OP_READ) != 0,
                    "read interest back once the caller stopped");
            udp.arrive("10.0.0.1", 1000, (byte) 1);
            await(() -> heard.events.contains("10.0.0.1:1000 [1] on fake-poll"), "the loop thread read the datagram");
        } finally {
            loop.close();
        }
    }
}
