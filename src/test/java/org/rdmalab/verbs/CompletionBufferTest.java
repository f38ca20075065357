package org.rdmalab.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The caller-kept completion array and the default {@code CompletionQueue.poll(CompletionBuffer)}. */
class CompletionBufferTest {

    private static final WorkCompletion WRITE = new WorkCompletion(1, WcStatus.SUCCESS, WcOpcode.RDMA_WRITE, 0, 8, 0,
            0x11, 0, 0);
    private static final WorkCompletion RECV = new WorkCompletion(2, WcStatus.SUCCESS, WcOpcode.RECV_RDMA_WITH_IMM, 0,
            4096, 0x01020304, 0x12, 0x34, WcFlag.WITH_IMM.value());
    private static final WorkCompletion FLUSHED = WorkCompletion.error(3, WcStatus.WR_FLUSH_ERR, WcOpcode.SEND, 0x11);

    @Test
    void readsBackEveryFieldOfWhatWasAdded() {
        CompletionBuffer buffer = new CompletionBuffer(3);
        assertEquals(3, buffer.capacity());
        assertTrue(buffer.isEmpty());
        buffer.add(WRITE);
        buffer.add(RECV);
        buffer.add(FLUSHED);
        assertEquals(3, buffer.size());
        assertEquals(List.of(WRITE, RECV, FLUSHED), buffer.toList());
        assertEquals(RECV, buffer.get(1));
        assertEquals(2, buffer.wrId(1));
        assertEquals(WcOpcode.RECV_RDMA_WITH_IMM, buffer.opcode(1));
        assertEquals(4096, buffer.byteLength(1));
        assertEquals(0x01020304, buffer.immData(1));
        assertEquals(0x12, buffer.qpNum(1));
        assertEquals(0x34, buffer.srcQp(1));
        assertEquals(WcFlag.WITH_IMM.value(), buffer.wcFlags(1));
        assertEquals(WcStatus.WR_FLUSH_ERR, buffer.status(2));
        assertFalse(buffer.isSuccess(2));
        assertTrue(buffer.isSuccess(0));
        assertEquals(0, buffer.vendorError(2));
        assertThrows(IllegalStateException.class, () -> buffer.add(WRITE), "full");
    }

    @Test
    void everyFieldKeepsAll32BitsWhateverItsNeighbours() {
        // Fields share storage two by two: the sign of one must not leak into the other.
        WorkCompletion allOnes = new WorkCompletion(-1L, WcStatus.GENERAL_ERR, WcOpcode.RECV_RDMA_WITH_IMM, -1, -1, -1,
                -1, -1, -1);
        WorkCompletion highBits = new WorkCompletion(Long.MIN_VALUE, WcStatus.SUCCESS, WcOpcode.SEND, 0x80000000,
                0x80000001, Integer.MIN_VALUE, 0xffffff, 0x80000000, 0);
        WorkCompletion zeros = new WorkCompletion(0, WcStatus.SUCCESS, WcOpcode.SEND, 0, 0, 0, 0, 0, 0);
        CompletionBuffer buffer = new CompletionBuffer(3);
        buffer.add(allOnes);
        buffer.add(highBits);
        buffer.add(zeros);
        assertEquals(List.of(allOnes, highBits, zeros), buffer.toList());
        assertEquals(-1, buffer.qpNum(0));
        assertEquals(Integer.MIN_VALUE, buffer.immData(1));
        assertEquals(0x80000001, buffer.byteLength(1));
        assertEquals(0, buffer.wcFlags(1));
        assertFalse(buffer.isSuccess(0));
        assertTrue(buffer.isSuccess(1));
    }

    @Test
    void onlyTheEntriesOfTheLastFillAreThere() {
        CompletionBuffer buffer = new CompletionBuffer(2);
        buffer.add(WRITE);
        buffer.add(RECV);
        buffer.clear();
        buffer.add(FLUSHED);
        assertEquals(1, buffer.size());
        assertEquals(3, buffer.wrId(0));
        assertThrows(IndexOutOfBoundsException.class, () -> buffer.wrId(1), "entry 1 is from the fill before");
        assertThrows(IndexOutOfBoundsException.class, () -> buffer.get(-1));
        assertEquals("1 of 2: [" + FLUSHED + "]", buffer.toString());
        assertThrows(IllegalArgumentException.class, () -> new CompletionBuffer(0));
    }

    @Test
    void theDefaultPollFillsTheBufferFromTheListPollAndEmptiesItOnFailure() throws Exception {
        ListOnlyCq cq = new ListOnlyCq();
        cq.waiting.addAll(List.of(WRITE, RECV, FLUSHED));
        CompletionBuffer buffer = new CompletionBuffer(2);
        assertEquals(2, cq.poll(buffer));
        assertEquals(List.of(WRITE, RECV), buffer.toList());
        assertEquals(List.of(2), cq.asked, "asked for the buffer's capacity");
        assertEquals(1, cq.poll(buffer));
        assertEquals(List.of(FLUSHED), buffer.toList());
        cq.failure = new VerbsException("ibv_poll_cq", Errno.EOVERFLOW, "overflowed");
        VerbsException e = assertThrows(VerbsException.class, () -> cq.poll(buffer));
        assertEquals(Errno.EOVERFLOW, e.errno());
        assertTrue(buffer.isEmpty());
    }

    @Test
    void theBusyPollPollsUntilACompletionIsThereAndGivesUpOnlyAfterItsTimeout() throws Exception {
        ListOnlyCq cq = new ListOnlyCq();
        cq.waiting.addAll(List.of(WRITE, RECV));
        cq.emptyPolls = 300; // more than one round of 256 between the timeout's looks at the clock
        CompletionBuffer buffer = new CompletionBuffer(2);
        assertEquals(2, cq.busyPoll(buffer, java.time.Duration.ofSeconds(10)));
        assertEquals(List.of(WRITE, RECV), buffer.toList());
        assertEquals(301, cq.asked.size(), "300 empty polls, then the one that found them");

        long start = System.nanoTime();
        assertEquals(0, cq.busyPoll(buffer, java.time.Duration.ofMillis(20)));
        assertTrue(System.nanoTime() - start >= 20_000_000L, "it waited out the timeout");
        assertTrue(buffer.isEmpty());
    }

    /** A CQ with only the list-shaped poll, as a backend that does not override the buffer poll. */
    private static final class ListOnlyCq implements CompletionQueue {
        final Deque<WorkCompletion> waiting = new ArrayDeque<>();
        final List<Integer> asked = new ArrayList<>();
        VerbsException failure;
        /** Polls that find nothing before the waiting completions show. */
        int emptyPolls;

        @Override
        public int capacity() {
            return 16;
        }

        @Override
        public CompletionChannel channel() {
            return null;
        }

        @Override
        public List<WorkCompletion> poll(int maxEntries) throws VerbsException {
            asked.add(maxEntries);
            if (failure != null) {
                throw failure;
            }
            List<WorkCompletion> taken = new ArrayList<>();
            if (emptyPolls > 0) {
                emptyPolls--;
                return taken;
            }
            while (taken.size() < maxEntries && !waiting.isEmpty()) {
                taken.add(waiting.poll());
            }
            return taken;
        }

        @Override
        public void requestNotify(boolean solicitedOnly) {
        }

        @Override
        public void ackEvents(int count) {
        }

        @Override
        public void close() {
        }
    }

    @Test
    void aBufferHoldsAtLeastOneEntryAndIsEmptyUntilOneIsAdded() {
        CompletionBuffer one = new CompletionBuffer(1);
        assertTrue(one.isEmpty());
        one.add(new WorkCompletion(1, WcStatus.SUCCESS, WcOpcode.SEND, 0, 1, 0, 1, 0, 0));
        assertFalse(one.isEmpty());
        assertEquals("a completion buffer holds at least one entry, not 0",
                assertThrows(IllegalArgumentException.class, () -> new CompletionBuffer(0)).getMessage());
    }
}
