package org.rdmalab.softroce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import java.net.Inet4Address;
import org.rdmalab.softroce.net.EventLoop;
import org.rdmalab.softroce.net.Fabric;
import org.rdmalab.softroce.net.SimulatedNetwork;
import org.rdmalab.verbs.CompletionBuffer;
import org.rdmalab.verbs.CompletionChannel;
import org.rdmalab.verbs.Context;
import org.rdmalab.verbs.Errno;
import org.rdmalab.verbs.VerbsException;
import org.rdmalab.verbs.WcOpcode;
import org.rdmalab.verbs.WcStatus;
import org.rdmalab.verbs.WorkCompletion;
import org.rdmalab.verbs.spi.DeviceOptions;

/**
 * soft0's CQ as ibv_poll_cq, ibv_req_notify_cq and ibv_ack_cq_events see it: completions come out
 * in order with every field as pushed, also after the ring grew while it wrapped; the CQ holds
 * exactly its capacity, the next completion overflows it and a drained overflowed CQ fails with
 * EOVERFLOW; an armed CQ signals its channel once, for any completion or, armed for solicited
 * ones only, for a solicited or failed one; events are acknowledged up to the number delivered;
 * a poll that finds the queue empty lends its thread to the device for one turn and then takes
 * what that turn completed, and a poll that found completions does not.
 */
class SoftCompletionQueueTest {

    private Context context;

    @BeforeEach
    void open() throws Exception {
        context = SoftRoceProvider.device(DeviceOptions.defaults(), new SimulatedNetwork()).open();
    }

    @AfterEach
    void close() {
        context.close();
    }

    private SoftCompletionQueue cq(int cqe, CompletionChannel channel) throws VerbsException {
        return (SoftCompletionQueue) context.createCq(cqe, channel, 0);
    }

    /** Completion {@code n}: every field its own value, none equal to another's. */
    private static WorkCompletion completion(int n) {
        WcStatus[] statuses = WcStatus.values();
        WcOpcode[] opcodes = WcOpcode.values();
        return new WorkCompletion(1000L + n, statuses[n % statuses.length], opcodes[n % opcodes.length], 3 * n + 1,
                5 * n + 2, 7 * n + 3, 0x10000 + n, 0x20000 + n, n % 4);
    }

    private static void push(SoftCompletionQueue cq, int n) {
        assertTrue(cq.push(completion(n), false), "completion " + n);
    }

    private static List<WorkCompletion> pollAll(SoftCompletionQueue cq) throws VerbsException {
        List<WorkCompletion> all = new ArrayList<>();
        while (true) {
            List<WorkCompletion> some = cq.poll(7);
            if (some.isEmpty()) {
                return all;
            }
            all.addAll(some);
        }
    }

    @Test
    void completionsComeOutInOrderWithEveryFieldAlsoAfterTheRingGrewWhileWrapped() throws Exception {
        SoftCompletionQueue cq = cq(100, null);
        assertEquals(127, cq.capacity(), "rxe grants 2^k - 1");
        int next = 0;
        int expected = 0;
        for (int i = 0; i < 60; i++) {
            push(cq, next++);
        }
        List<WorkCompletion> polled = new ArrayList<>(cq.poll(50));
        // 10 wait in slots 50..59 of the first 64; 54 more wrap round to slot 49, then the ring grows.
        for (int i = 0; i < 54 + 20; i++) {
            push(cq, next++);
        }
        polled.addAll(pollAll(cq));
        assertEquals(next, polled.size());
        for (WorkCompletion completion : polled) {
            assertEquals(completion(expected++), completion);
        }
        // Full again after growing: the ring holds the whole capacity.
        for (int i = 0; i < 127; i++) {
            push(cq, next++);
        }
        CompletionBuffer buffer = new CompletionBuffer(100);
        assertEquals(100, cq.poll(buffer));
        assertEquals(100, buffer.size());
        for (int i = 0; i < 100; i++) {
            WorkCompletion want = completion(expected++);
            assertEquals(want, buffer.get(i));
            assertEquals(want.wrId(), buffer.wrId(i));
            assertEquals(want.qpNum(), buffer.qpNum(i));
        }
        assertEquals(27, cq.poll(buffer), "the rest, however large the buffer");
        for (int i = 0; i < 27; i++) {
            assertEquals(completion(expected++), buffer.get(i));
        }
        assertEquals(0, cq.poll(buffer));
        assertTrue(buffer.isEmpty(), "a poll clears the buffer first");
        assertFalse(cq.overflowed());
    }

    @Test
    void aSmallCqsRingIsItsCapacityAndPollTakesAtMostWhatItIsAskedFor() throws Exception {
        SoftCompletionQueue cq = cq(3, null);
        assertEquals(3, cq.capacity());
        for (int n = 0; n < 3; n++) {
            push(cq, n);
        }
        assertEquals(List.of(), cq.poll(0), "ibv_poll_cq with num_entries 0");
        assertThrows(IllegalArgumentException.class, () -> cq.poll(-1));
        assertEquals(List.of(completion(0), completion(1)), cq.poll(2));
        push(cq, 3);
        push(cq, 4);
        assertEquals(List.of(completion(2), completion(3), completion(4)), cq.poll(10));
        assertEquals(List.of(), cq.poll(10));
        assertThrows(IllegalArgumentException.class, () -> cq.poll(-1), "also on an empty CQ");
    }

    @Test
    void theCompletionAfterTheCapacityOverflowsAndADrainedOverflowedCqFailsWithEoverflow() throws Exception {
        SoftCompletionQueue cq = cq(7, null);
        SoftRoceContext soft = (SoftRoceContext) context;
        for (int n = 0; n < 7; n++) {
            push(cq, n);
        }
        assertEquals(0, soft.counter(Counter.CQ_OVERFLOW));
        assertFalse(cq.overflowed(), "exactly full is not overflowed");
        assertFalse(cq.pushError(99, WcStatus.WR_FLUSH_ERR, WcOpcode.SEND, 5), "the eighth is lost");
        assertTrue(cq.overflowed());
        assertEquals(1, soft.counter(Counter.CQ_OVERFLOW));
        assertFalse(cq.push(completion(8), false), "and the ninth");
        assertEquals(2, soft.counter(Counter.CQ_OVERFLOW));
        assertEquals(List.of(completion(0), completion(1), completion(2)), cq.poll(3),
                "what was in the queue is still polled");
        assertEquals(4, cq.poll(new CompletionBuffer(16)));
        VerbsException e = assertThrows(VerbsException.class, () -> cq.poll(1));
        assertEquals(Errno.EOVERFLOW, e.errno());
        assertTrue(e.getMessage().contains("all 7 entries full"), e.getMessage());
        e = assertThrows(VerbsException.class, () -> cq.poll(new CompletionBuffer(1)));
        assertEquals(Errno.EOVERFLOW, e.errno());
    }

    @Test
    void anErrorCompletionCarriesOnlyItsWrIdStatusOpcodeAndQpNumber() throws Exception {
        SoftCompletionQueue cq = cq(1, null);
        assertTrue(cq.pushError(42, WcStatus.REM_ACCESS_ERR, WcOpcode.RDMA_READ, 0x17));
        assertEquals(List.of(new WorkCompletion(42, WcStatus.REM_ACCESS_ERR, WcOpcode.RDMA_READ, 0, 0, 0, 0x17, 0, 0)),
                cq.poll(1));
    }

    @Test
    void anArmedCqSignalsItsChannelOnceForAnyCompletion() throws Exception {
        CompletionChannel channel = context.createCompletionChannel();
        SoftCompletionQueue cq = cq(16, channel);
        assertSame(channel, cq.channel());
        push(cq, 0);
        assertTimesOut(channel, "not armed");
        cq.requestNotify(false);
        push(cq, 1);
        assertSame(cq, channel.getEvent(Duration.ZERO));
        push(cq, 2);
        assertTimesOut(channel, "one event per arming");
        cq.requestNotify(false);
        assertTrue(cq.push(completion(3), true));
        assertSame(cq, channel.getEvent(Duration.ZERO));

        cq.ackEvents(0);
        assertThrows(IllegalArgumentException.class, () -> cq.ackEvents(3), "two delivered");
        assertThrows(IllegalArgumentException.class, () -> cq.ackEvents(-1));
        cq.ackEvents(2);
        assertThrows(IllegalArgumentException.class, () -> cq.ackEvents(1), "all acknowledged");
    }

    @Test
    void armingACqWithoutAChannelSignalsNothingAndKeepsEveryCompletion() throws Exception {
        SoftCompletionQueue cq = cq(4, null);
        cq.requestNotify(false);
        push(cq, 0);
        cq.requestNotify(true);
        assertTrue(cq.push(completion(1), true));
        assertEquals(List.of(completion(0), completion(1)), cq.poll(4));
        cq.close();
        assertThrows(IllegalStateException.class, () -> cq.requestNotify(false), "ibv_req_notify_cq on a destroyed CQ");
    }

    @Test
    void armedForSolicitedOnlyItSignalsASolicitedOrFailedCompletion() throws Exception {
        CompletionChannel channel = context.createCompletionChannel();
        SoftCompletionQueue cq = cq(16, channel);
        cq.requestNotify(true);
        assertTrue(cq.push(new WorkCompletion(1, WcStatus.SUCCESS, WcOpcode.RECV, 0, 8, 0, 1, 2, 0), false));
        assertTimesOut(channel, "an unsolicited success");
        assertTrue(cq.push(new WorkCompletion(2, WcStatus.SUCCESS, WcOpcode.RECV, 0, 8, 0, 1, 2, 0), true));
        assertSame(cq, channel.getEvent(Duration.ZERO), "a solicited one");
        cq.requestNotify(true);
        assertTrue(cq.pushError(3, WcStatus.WR_FLUSH_ERR, WcOpcode.RECV, 1));
        assertSame(cq, channel.getEvent(Duration.ZERO), "a failed one, solicited or not");
        // Armed for every completion again: an unsolicited success signals.
        cq.requestNotify(false);
        assertTrue(cq.push(new WorkCompletion(4, WcStatus.SUCCESS, WcOpcode.RECV, 0, 8, 0, 1, 2, 0), false));
        assertSame(cq, channel.getEvent(Duration.ZERO));
        assertEquals(4, cq.poll(10).size());
    }

    @Test
    void aClosedCqTakesNothingAndCountsNoOverflow() throws Exception {
        SoftCompletionQueue cq = cq(1, null);
        push(cq, 0);
        cq.close();
        assertTrue(cq.push(completion(1), false), "the QP is not sent to ERR for a CQ being destroyed");
        assertTrue(cq.push(completion(2), false));
        assertFalse(cq.overflowed());
        assertEquals(0, ((SoftRoceContext) context).counter(Counter.CQ_OVERFLOW));
        assertThrows(IllegalStateException.class, () -> cq.poll(1));
    }

    /**
     * A device whose loop's turn is scripted: each {@link EventLoop#progress} runs {@link #turn}
     * (when set) and says it did work.
     */
    private static final class ScriptedTurns implements Fabric {
        private final SimulatedNetwork net = new SimulatedNetwork();
        Runnable turn;
        int turns;

        @Override
        public Endpoint open(String verb, String name, Inet4Address address, int port, Receiver receiver)
                throws VerbsException {
            Endpoint real = net.open(verb, name, address, port, receiver);
            EventLoop loop = real.loop();
            EventLoop scripted = new EventLoop() {
                @Override
                public long nanoTime() {
                    return loop.nanoTime();
                }

                @Override
                public void execute(Runnable task) {
                    loop.execute(task);
                }

                @Override
                public Timer schedule(long delayNanos, Runnable task) {
                    return loop.schedule(delayNanos, task);
                }

                @Override
                public boolean inLoop() {
                    return loop.inLoop();
                }

                @Override
                public boolean progress() {
                    turns++;
                    if (turn == null) {
                        return false;
                    }
                    turn.run();
                    return true;
                }
            };
            return new Endpoint() {
                @Override
                public EventLoop loop() {
                    return scripted;
                }

                @Override
                public int localPort() {
                    return real.localPort();
                }

                @Override
                public SendResult send(int destinationIp, int destinationPort, byte[] buffer, int offset, int length) {
                    return real.send(destinationIp, destinationPort, buffer, offset, length);
                }

                @Override
                public void awaitWritable() {
                    real.awaitWritable();
                }

                @Override
                public void close() {
                    real.close();
                }
            };
        }
    }

    @Test
    void anEmptyPollLendsItsThreadForOneTurnAndTakesWhatThatTurnCompleted() throws Exception {
        ScriptedTurns fabric = new ScriptedTurns();
        try (Context device = SoftRoceProvider.device(DeviceOptions.defaults(), fabric).open()) {
            SoftCompletionQueue cq = (SoftCompletionQueue) device.createCq(16, null, 0);
            assertEquals(List.of(), cq.poll(4), "no transport yet: nothing to lend the thread to");
            assertEquals(0, fabric.turns);
            ((SoftRoceContext) device).transport("ibv_create_qp");

            int[] next = {0};
            fabric.turn = () -> push(cq, next[0]++);
            assertEquals(List.of(completion(0)), cq.poll(4), "the turn's completion");
            assertEquals(1, fabric.turns);
            push(cq, next[0]++);
            assertEquals(List.of(completion(1)), cq.poll(4), "found at once: no turn, nothing lost");
            assertEquals(1, fabric.turns);
            assertEquals(List.of(), cq.poll(0), "asking for none lends nothing");
            assertEquals(1, fabric.turns);

            CompletionBuffer buffer = new CompletionBuffer(4);
            assertEquals(1, cq.poll(buffer));
            assertEquals(completion(2), buffer.get(0), "the turn's completion, into the buffer");
            assertEquals(2, fabric.turns);
            push(cq, next[0]++);
            assertEquals(1, cq.poll(buffer));
            assertEquals(completion(3), buffer.get(0));
            assertEquals(2, fabric.turns, "found at once");

            fabric.turn = null;
            assertEquals(List.of(), cq.poll(4), "a turn that did nothing");
            assertEquals(0, cq.poll(buffer));
            assertEquals(4, fabric.turns);
        }
    }

    private static void assertTimesOut(CompletionChannel channel, String why) {
        VerbsException e = assertThrows(VerbsException.class, () -> channel.getEvent(Duration.ZERO), why);
        assertEquals(Errno.ETIMEDOUT, e.errno());
    }
}
