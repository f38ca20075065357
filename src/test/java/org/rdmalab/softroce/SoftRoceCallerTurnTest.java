package org.rdmalab.softroce;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.rdmalab.verbs.PacketEvent;
import org.rdmalab.verbs.PacketObservable;
import org.rdmalab.verbs.SendFlag;
import org.rdmalab.verbs.SendWorkRequest;
import org.rdmalab.verbs.WcStatus;
import org.rdmalab.verbs.WorkCompletion;

/**
 * Threads that wait for a device do its work themselves (UdpFabric's caller turns): a post sends
 * its packets from the posting thread, and a busy poll of an empty CQ reads the socket on the
 * polling thread, so a round trip needs no hand-off to the device's own thread.
 */
class SoftRoceCallerTurnTest {

    @Test
    void aBusyPollerSendsAndReceivesItsOwnPacketsOnItsOwnThread() throws Exception {
        try (Peers peers = Peers.udp(new Peers.Setup(), SoftRoceUdpTest.freePort(), null)) {
            Map<String, Long> threadsSending = new ConcurrentHashMap<>();
            Map<String, Long> threadsReceiving = new ConcurrentHashMap<>();
            ((PacketObservable) peers.a.context).subscribe(event -> {
                Map<String, Long> seen = event.direction() == PacketEvent.Direction.SENT ? threadsSending
                        : threadsReceiving;
                seen.merge(Thread.currentThread().getName(), 1L, Long::sum);
            });
            String poller = Thread.currentThread().getName();
            for (int i = 0; i < 200; i++) {
                peers.a.qp.postSend(SendWorkRequest.write(i, peers.a.mr.sge(0, 64), peers.b.mr.address(),
                        peers.b.mr.rkey(), SendFlag.SIGNALED.value()));
                WorkCompletion wc = busyPoll(peers.a.cq, Duration.ofSeconds(20));
                assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
            }
            // The device's own thread may still take a turn now and then (it looks in while the
            // poller has its core taken away); most of the work is the poller's.
            long sentHere = threadsSending.getOrDefault(poller, 0L);
            long receivedHere = threadsReceiving.getOrDefault(poller, 0L);
            assertTrue(sentHere >= 150, "WRITEs sent by the posting thread: " + threadsSending);
            assertTrue(receivedHere >= 150, "ACKs read by the polling thread: " + threadsReceiving);
        }
    }

    /**
     * A poller interrupted over and over (as a stop button or an executor's shutdownNow does) must
     * not take the device's socket with it: the JDK closes a channel whose thread is interrupted
     * in blocking I/O, so the socket a caller uses must stay non-blocking.
     */
    @Test
    void anInterruptedPollerDoesNotCloseTheDevicesSocket() throws Exception {
        try (Peers peers = Peers.udp(new Peers.Setup(), SoftRoceUdpTest.freePort(), null)) {
            AtomicBoolean stop = new AtomicBoolean();
            AtomicLong polls = new AtomicLong();
            Thread poller = new Thread(() -> {
                while (!stop.get()) {
                    try {
                        peers.b.cq.poll(1);
                        polls.incrementAndGet();
                    } catch (Exception e) {
                        return;
                    }
                    Thread.interrupted();
                }
            }, "interrupted poller");
            poller.start();
            long deadline = System.nanoTime() + Duration.ofMillis(1500).toNanos();
            long interrupts = 0;
            while (System.nanoTime() < deadline) {
                poller.interrupt();
                interrupts++;
                Thread.onSpinWait();
            }
            stop.set(true);
            poller.join(5000);
            assertTrue(polls.get() > 1000, "the poller polled (" + polls.get() + " polls, " + interrupts + " interrupts)");
            // b's socket still works both ways: a WRITE into b, a READ back from b.
            byte[] data = new byte[3000];
            new java.util.Random(5).nextBytes(data);
            peers.a.mr.write(0, data);
            peers.a.qp.postSend(SendWorkRequest.write(1, peers.a.mr.sge(0, data.length), peers.b.mr.address() + 8192,
                    peers.b.mr.rkey(), SendFlag.SIGNALED.value()));
            assertEquals(WcStatus.SUCCESS, busyPoll(peers.a.cq, Duration.ofSeconds(20)).status());
            peers.a.qp.postSend(SendWorkRequest.read(2, peers.a.mr.sge(16384, data.length), peers.b.mr.address() + 8192,
                    peers.b.mr.rkey(), SendFlag.SIGNALED.value()));
            assertEquals(WcStatus.SUCCESS, busyPoll(peers.a.cq, Duration.ofSeconds(20)).status());
            assertArrayEquals(data, peers.a.mr.read(16384, data.length));
        }
    }

    private static WorkCompletion busyPoll(org.rdmalab.verbs.CompletionQueue cq, Duration limit) throws Exception {
        long deadline = System.nanoTime() + limit.toNanos();
        while (System.nanoTime() < deadline) {
            List<WorkCompletion> polled = cq.poll(1);
            if (!polled.isEmpty()) {
                return polled.get(0);
            }
        }
        Optional<WorkCompletion> none = Optional.empty();
        return none.orElseThrow(() -> new AssertionError("no completion within " + limit));
    }
}
