package org.rdmalab.softroce.net;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.rdmalab.verbs.Errno;
import org.rdmalab.verbs.VerbsException;

/**
 * The in-memory network the transport tests run on, on its virtual clock: a datagram arrives one
 * latency after it left and not a nanosecond before, as many times as the interceptor says, with
 * the bytes it had when sent; a full send buffer refuses the next datagram and says when there is
 * room again; tasks and timers run in deadline order, then in the order they were scheduled, and
 * a cancelled one not at all; an endpoint's address is its own until it is closed; and each way
 * of running the clock stops where it says. Also the {@link EventLoop} contract every loop shares:
 * a {@link LoopTask} queued at most once at a time, and {@code call} handing back the task's
 * result or failure, or ETIMEDOUT and EINTR.
 */
class SimulatedNetworkTest {

    private static final long LATENCY = 2_000;

    /** What an endpoint heard: "time src:port bytes" per datagram, and "writable at time". */
    private static final class Heard implements Fabric.Receiver {
        final SimulatedNetwork net;
        final List<String> events = new ArrayList<>();

        Heard(SimulatedNetwork net) {
            this.net = net;
        }

        @Override
        public void onDatagram(int sourceIp, int sourcePort, byte[] buffer, int offset, int length) {
            byte[] bytes = java.util.Arrays.copyOfRange(buffer, offset, offset + length);
            events.add(net.nanoTime() + " " + Integer.toHexString(sourceIp) + ":" + sourcePort + " "
                    + java.util.Arrays.toString(bytes));
        }

        @Override
        public void onWritable() {
            events.add("writable at " + net.nanoTime());
        }
    }

    private static Inet4Address ip(String text) throws Exception {
        return (Inet4Address) InetAddress.getByName(text);
    }

    @Test
    void aDatagramArrivesOneLatencyLaterWithTheBytesItHadWhenSent() throws Exception {
        SimulatedNetwork net = new SimulatedNetwork(Duration.ofNanos(LATENCY));
        Heard heardA = new Heard(net);
        Heard heardB = new Heard(net);
        Fabric.Endpoint a = net.open("test", "a", ip("10.0.0.1"), 4791, heardA);
        Fabric.Endpoint b = net.open("test", "b", ip("10.0.0.2"), 5000, heardB);
        assertEquals(5000, b.localPort());
        byte[] data = {1, 2, 3, 4};
        assertEquals(Fabric.SendResult.SENT, a.send(0x0A000002, 5000, data, 1, 2));
        data[1] = 9;
        net.advance(Duration.ofNanos(LATENCY - 1));
        assertEquals(List.of(), heardB.events, "not before its latency");
        net.advance(Duration.ofNanos(1));
        assertEquals(List.of("2000 a000001:4791 [2, 3]"), heardB.events);
        assertEquals(1, net.deliveredDatagrams());
        assertEquals(2000, net.nanoTime());
        a.send(0x0A000002, 4791, data, 0, 1);
        net.runUntilIdle();
        assertEquals(1, heardB.events.size(), "no endpoint at that port: lost");
        assertEquals(1, net.deliveredDatagrams());
        assertEquals(0x0A000001, Fabric.toInt(ip("10.0.0.1")));
        assertEquals(0xC0A801FE, Fabric.toInt(ip("192.168.1.254")));
    }

    @Test
    void theInterceptorSaysHowManyCopiesArriveAndInjectedDatagramsComeFromWhoTheySay() throws Exception {
        SimulatedNetwork net = new SimulatedNetwork(Duration.ofNanos(LATENCY));
        Heard heardB = new Heard(net);
        Fabric.Endpoint a = net.open("test", "a", ip("10.0.0.1"), 4791, new Heard(net));
        net.open("test", "b", ip("10.0.0.2"), 4791, heardB);
        int[] copies = {0};
        net.intercept((src, dst, datagram) -> {
            assertEquals(0x0A000001, src);
            assertEquals(0x0A000002, dst);
            return copies[0];
        });
        for (int n = 0; n <= 2; n++) {
            copies[0] = n;
            a.send(0x0A000002, 4791, new byte[] {(byte) n}, 0, 1);
        }
        net.runUntilIdle();
        assertEquals(List.of("2000 a000001:4791 [1]", "2000 a000001:4791 [2]", "2000 a000001:4791 [2]"), heardB.events);
        net.intercept(null);
        net.inject(0x0A000009, 1234, 0x0A000002, 4791, new byte[] {7});
        net.runUntilIdle();
        assertEquals("4000 a000009:1234 [7]", heardB.events.get(3));
        assertEquals(4, net.deliveredDatagrams());
    }

    @Test
    void aFullSendBufferRefusesTheNextDatagramAndSaysWhenThereIsRoom() throws Exception {
        SimulatedNetwork net = new SimulatedNetwork(Duration.ofNanos(LATENCY));
        Heard heardA = new Heard(net);
        Heard heardB = new Heard(net);
        Fabric.Endpoint a = net.open("test", "a", ip("10.0.0.1"), 4791, heardA);
        net.open("test", "b", ip("10.0.0.2"), 4791, heardB);
        assertThrows(IllegalArgumentException.class, () -> net.limitSendBuffer(0, Duration.ZERO));
        assertThrows(IllegalArgumentException.class, () -> net.limitSendBuffer(1, Duration.ofNanos(-1)));
        net.limitSendBuffer(2, Duration.ofNanos(10_000));
        a.awaitWritable();
        net.runUntilIdle();
        assertEquals(List.of("writable at 0"), heardA.events, "room already: at once");
        heardA.events.clear();
        assertEquals(Fabric.SendResult.SENT, a.send(0x0A000002, 4791, new byte[] {1}, 0, 1));
        assertEquals(Fabric.SendResult.SENT, a.send(0x0A000002, 4791, new byte[] {2}, 0, 1));
        assertEquals(Fabric.SendResult.BLOCKED, a.send(0x0A000002, 4791, new byte[] {3}, 0, 1));
        assertEquals(1, net.refusedDatagrams());
        a.awaitWritable();
        net.runUntilIdle();
        assertEquals(List.of("writable at 10000"), heardA.events, "when the first left the buffer");
        assertEquals(List.of("12000 a000001:4791 [1]", "22000 a000001:4791 [2]"), heardB.events,
                "one serialization time apart, then the latency");
    }

    @Test
    void tasksRunInDeadlineOrderThenInTheOrderScheduledAndACancelledOneNot() throws Exception {
        SimulatedNetwork net = new SimulatedNetwork(Duration.ofNanos(LATENCY));
        Fabric.Endpoint a = net.open("test", "a", ip("10.0.0.1"), 4791, new Heard(net));
        EventLoop loop = a.loop();
        assertTrue(loop.inLoop());
        List<String> ran = new ArrayList<>();
        loop.schedule(300, () -> ran.add("c at " + loop.nanoTime()));
        loop.schedule(100, () -> ran.add("a at " + loop.nanoTime()));
        loop.schedule(300, () -> ran.add("d at " + loop.nanoTime()));
        EventLoop.Timer cancelled = loop.schedule(200, () -> ran.add("cancelled"));
        loop.schedule(-5, () -> ran.add("now at " + loop.nanoTime()));
        loop.execute(() -> ran.add("task at " + loop.nanoTime()));
        cancelled.cancel();
        assertTrue(net.runUntilIdle());
        assertEquals(List.of("now at 0", "task at 0", "a at 100", "c at 300", "d at 300"), ran);
        assertEquals(300, net.nanoTime());
    }

    @Test
    void eachWayOfRunningTheClockStopsWhereItSays() throws Exception {
        SimulatedNetwork net = new SimulatedNetwork(Duration.ofNanos(LATENCY));
        Fabric.Endpoint a = net.open("test", "a", ip("10.0.0.1"), 4791, new Heard(net));
        List<Long> ran = new ArrayList<>();
        a.loop().schedule(1_000, () -> ran.add(net.nanoTime()));
        a.loop().schedule(5_000, () -> ran.add(net.nanoTime()));
        assertFalse(net.runUntilIdle(Duration.ofNanos(4_999)), "an event is left");
        assertEquals(4_999, net.nanoTime());
        assertEquals(List.of(1_000L), ran);
        assertTrue(net.runUntilIdle(Duration.ofNanos(1)));
        assertEquals(List.of(1_000L, 5_000L), ran);
        a.loop().schedule(1_000, () -> ran.add(net.nanoTime()));
        a.loop().schedule(2_000, () -> ran.add(net.nanoTime()));
        assertTrue(net.runUntil(() -> ran.size() == 3, Duration.ofSeconds(1)));
        assertEquals(6_000, net.nanoTime(), "stopped as soon as the condition held");
        assertFalse(net.runUntil(() -> ran.size() == 9, Duration.ofNanos(999)), "the next event is beyond the limit");
        assertEquals(3, ran.size());
        assertTrue(net.runUntil(() -> ran.size() == 4, Duration.ofNanos(1_000)), "at the limit exactly");
        assertFalse(net.runUntil(() -> false, Duration.ofSeconds(1)), "idle: nothing can make it hold");
        net.advance(Duration.ofNanos(500));
        assertEquals(7_500, net.nanoTime());
    }

    @Test
    void anAddressIsOneEndpointsUntilItIsClosedAndAClosedOneHearsNothing() throws Exception {
        SimulatedNetwork net = new SimulatedNetwork(Duration.ofNanos(LATENCY));
        Heard heardB = new Heard(net);
        Fabric.Endpoint a = net.open("test", "a", ip("10.0.0.1"), 4791, new Heard(net));
        Fabric.Endpoint b = net.open("test", "b", ip("10.0.0.2"), 4791, heardB);
        VerbsException e = assertThrows(VerbsException.class, () -> net.open("ibv_create_qp", "again", ip("10.0.0.2"),
                4791, new Heard(net)));
        assertEquals(Errno.EADDRINUSE, e.errno());
        assertTrue(e.getMessage().contains("UDP 10.0.0.2:4791 is already in use"), e.getMessage());
        net.open("test", "other port", ip("10.0.0.2"), 4792, new Heard(net)).close();
        a.send(0x0A000002, 4791, new byte[] {1}, 0, 1);
        List<String> ran = new ArrayList<>();
        b.loop().execute(() -> ran.add("task"));
        b.loop().schedule(10, () -> ran.add("timer"));
        b.close();
        b.close();
        net.runUntilIdle();
        assertEquals(List.of(), heardB.events, "closed before it arrived");
        assertEquals(List.of(), ran, "a closed endpoint's loop runs nothing");
        assertEquals(0, net.deliveredDatagrams());
        Heard again = new Heard(net);
        net.open("test", "b again", ip("10.0.0.2"), 4791, again);
        a.send(0x0A000002, 4791, new byte[] {2}, 0, 1);
        net.runUntilIdle();
        assertEquals(1, again.events.size());
    }
    @Test
    void aLoopTaskWaitsInTheQueueAtMostOnceAtATime() throws Exception {
        SimulatedNetwork net = new SimulatedNetwork(Duration.ofNanos(LATENCY));
        EventLoop loop = net.open("test", "a", ip("10.0.0.1"), 4791, new Heard(net)).loop();
        int[] runs = {0};
        LoopTask task = new LoopTask(() -> runs[0]++);
        loop.executeOnce(task);
        loop.runOrExecute(task);
        loop.runOrExecuteBriefly(task);
        net.runUntilIdle();
        assertEquals(1, runs[0], "three hand-overs before it ran: one run");
        loop.executeOnce(task);
        net.runUntilIdle();
        assertEquals(2, runs[0], "queued again once it ran");
        assertFalse(loop.progress(), "a simulation lends no turns");
        assertFalse(loop.holdingReplies());
    }

    /** A loop whose thread is never the caller's: it runs each task it is handed at once, or drops it. */
    private static EventLoop elsewhere(boolean runs) {
        return new EventLoop() {
            @Override
            public long nanoTime() {
                return 0;
            }

            @Override
            public void execute(Runnable task) {
                if (runs) {
                    task.run();
                }
            }

            @Override
            public Timer schedule(long delayNanos, Runnable task) {
                throw new UnsupportedOperationException();
            }

            @Override
            public boolean inLoop() {
                return false;
            }
        };
    }

    @Test
    void callRunsTheTaskOnTheLoopAndHandsBackItsResultOrItsFailure() throws Exception {
        for (EventLoop loop : List.of(elsewhere(true), new SimulatedNetwork().open("test", "a", ip("10.0.0.1"), 4791,
                new Heard(new SimulatedNetwork())).loop())) {
            assertEquals(42, loop.call("ibv_test", Duration.ofSeconds(5), () -> 42));
            VerbsException verbs = new VerbsException("ibv_test", Errno.EBUSY, "busy");
            assertEquals(verbs, assertThrows(VerbsException.class, () -> loop.call("ibv_test", Duration.ofSeconds(5), () -> {
                throw verbs;
            })));
            IllegalArgumentException runtime = new IllegalArgumentException("bad");
            assertEquals(runtime, assertThrows(IllegalArgumentException.class,
                    () -> loop.call("ibv_test", Duration.ofSeconds(5), () -> {
                        throw runtime;
                    })));
            Exception checked = new java.io.IOException("io");
            IllegalStateException wrapped = assertThrows(IllegalStateException.class,
                    () -> loop.call("ibv_test", Duration.ofSeconds(5), () -> {
                        throw checked;
                    }));
            assertEquals(checked, wrapped.getCause());
        }
        AssertionError error = new AssertionError("an error");
        assertEquals(error, assertThrows(AssertionError.class, () -> elsewhere(true).call("ibv_test",
                Duration.ofSeconds(5), () -> {
                    throw error;
                })));
    }

    @Test
    void callGivesUpWithEtimedoutOrEintr() throws Exception {
        VerbsException e = assertThrows(VerbsException.class,
                () -> elsewhere(false).call("ibv_modify_qp", Duration.ofMillis(1), () -> 1));
        assertEquals(Errno.ETIMEDOUT, e.errno());
        assertEquals("ibv_modify_qp", e.verb());
        assertTrue(e.getMessage().contains("did not answer within 1 ms"), e.getMessage());
        Thread.currentThread().interrupt();
        try {
            e = assertThrows(VerbsException.class, () -> elsewhere(false).call("ibv_modify_qp", Duration.ofSeconds(5), () -> 1));
            assertEquals(Errno.EINTR, e.errno());
            assertTrue(Thread.currentThread().isInterrupted(), "the interrupt is kept");
        } finally {
            Thread.interrupted();
        }
    }
    @Test
    void theEdgesOfTheNetworksSettingsAndClock() throws Exception {
        SimulatedNetwork net = new SimulatedNetwork(Duration.ofNanos(LATENCY));
        Heard heardA = new Heard(net);
        Fabric.Endpoint a = net.open("test", "a", ip("10.0.0.1"), 4791, heardA);
        assertEquals(0x48, a.sentTos(0x48), "what a QP asks for is what the datagram carries");
        assertEquals(17, a.sentTtl(17));
        assertFalse(heardA.holdsReplies());
        heardA.onTurn();
        // No send buffer: room at once.
        a.awaitWritable();
        net.runUntilIdle();
        assertEquals(List.of("writable at 0"), heardA.events);
        heardA.events.clear();
        // One datagram of room is a buffer too.
        net.limitSendBuffer(1, Duration.ofNanos(100));
        assertEquals(Fabric.SendResult.SENT, a.send(0x0A000002, 4791, new byte[] {1}, 0, 1));
        assertEquals(Fabric.SendResult.BLOCKED, a.send(0x0A000002, 4791, new byte[] {2}, 0, 1));
        // Injected towards nobody: lost, not delivered.
        net.inject(0x0A000009, 1, 0x0A000003, 4791, new byte[] {3});
        net.runUntilIdle();
        assertEquals(0, net.deliveredDatagrams());
        // A loop that never goes idle: the ten virtual minutes, then false.
        EventLoop loop = a.loop();
        Runnable[] tick = new Runnable[1];
        tick[0] = () -> loop.schedule(1_000_000_000L, tick[0]);
        tick[0].run();
        long start = net.nanoTime();
        assertFalse(net.runUntilIdle());
        assertEquals(start + Duration.ofMinutes(10).toNanos(), net.nanoTime());
    }

    @Test
    void closingAnEndpointTwiceLeavesTheAddressToItsNewOwner() throws Exception {
        SimulatedNetwork net = new SimulatedNetwork(Duration.ofNanos(LATENCY));
        Fabric.Endpoint a = net.open("test", "a", ip("10.0.0.1"), 4791, new Heard(net));
        Fabric.Endpoint old = net.open("test", "b", ip("10.0.0.2"), 4791, new Heard(net));
        old.close();
        Heard heard = new Heard(net);
        net.open("test", "b again", ip("10.0.0.2"), 4791, heard);
        old.close();
        a.send(0x0A000002, 4791, new byte[] {5}, 0, 1);
        net.runUntilIdle();
        assertEquals(1, heard.events.size(), "the second close of the old endpoint left the new one bound");
    }
}
