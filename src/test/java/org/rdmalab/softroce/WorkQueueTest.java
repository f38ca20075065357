package org.rdmalab.softroce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The one ring behind a QP's send and receive queue: its full answer, its order and its reset. */
class WorkQueueTest {

    /** A slot that counts its releases. */
    private static final class Counted implements WorkQueue.Slot {
        int value;
        int released;

        @Override
        public void release() {
            released++;
        }
    }

    private static void post(WorkQueue<Counted> queue, int value) {
        queue.nextToPost().value = value;
        queue.publish();
    }

    @Test
    void reserveTakesExactlyTheLimitThenSaysFullUntilTheHeadIsRemoved() {
        WorkQueue<Counted> queue = new WorkQueue<>(3, Counted::new);
        assertTrue(queue.reserve(3));
        assertTrue(queue.reserve(3));
        assertTrue(queue.reserve(3));
        assertFalse(queue.reserve(3), "the fourth of three is refused (ENOMEM)");
        for (int i = 0; i < 3; i++) {
            post(queue, i);
        }
        while (queue.hasPosted()) {
            queue.admit();
        }
        queue.removeHead();
        assertTrue(queue.reserve(3), "a removed head frees one slot");
        assertFalse(queue.reserve(3));
    }

    @Test
    void requestsComeOutInPostingOrderAcrossTheRingsWrapAndReuseItsSlots() {
        WorkQueue<Counted> queue = new WorkQueue<>(2, Counted::new);
        List<Integer> seen = new ArrayList<>();
        Counted first = queue.nextToPost();
        for (int i = 0; i < 5; i++) {
            assertTrue(queue.reserve(2));
            post(queue, i);
            assertTrue(queue.hasPosted());
            assertSame(queue.admit(), queue.peek());
            assertFalse(queue.hasPosted());
            assertEquals(i, queue.tail() - 1);
            seen.add(queue.peek().value);
            queue.removeHead();
            assertTrue(queue.isEmpty());
            assertNull(queue.peek());
        }
        assertEquals(List.of(0, 1, 2, 3, 4), seen);
        assertEquals(5, queue.head());
        assertEquals(3, first.released, "slot 0 held requests 0, 2 and 4");
    }

    @Test
    void clearReleasesEverySlotInUseAndPostedButNotTakenInAndEmptiesTheRing() {
        WorkQueue<Counted> queue = new WorkQueue<>(4, Counted::new);
        List<Counted> slots = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            assertTrue(queue.reserve(4));
            slots.add(queue.nextToPost());
            post(queue, i);
        }
        queue.admit(); // one taken in; two still only posted
        queue.clear();
        for (Counted slot : slots) {
            assertEquals(1, slot.released);
        }
        assertTrue(queue.isEmpty());
        assertFalse(queue.hasPosted());
        assertSame(slots.get(0), queue.nextToPost(), "the ring starts over at its first slot");
        for (int i = 0; i < 4; i++) {
            assertTrue(queue.reserve(4), "a cleared queue has all of its slots free");
        }
        assertFalse(queue.reserve(4));
    }

    @Test
    void aDepthOfZeroStillHasOneSlot() {
        WorkQueue<Counted> queue = new WorkQueue<>(0, Counted::new);
        assertFalse(queue.reserve(0), "max_wr 0 takes nothing");
        assertTrue(queue.nextToPost() != null);
    }
}
