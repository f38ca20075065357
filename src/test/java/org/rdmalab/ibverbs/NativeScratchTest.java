package org.rdmalab.ibverbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.kenai.jffi.MemoryIO;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The block a queue reuses for its posts and polls: it belongs to the first thread that asks, keeps
 * what it holds across that thread's calls, passes to another thread once its owner has ended, and
 * is freed once.
 */
class NativeScratchTest {

    private static final MemoryIO IO = MemoryIO.getInstance();

    @Test
    void theOwnerGetsTheBlockAsItLeftItAndNoOtherThreadGetsIt() throws Exception {
        try (NativeScratch scratch = new NativeScratch(64)) {
            long block = scratch.acquire(64);
            assertNotEquals(0L, block);
            IO.putLong(block, -1L);
            IO.putLong(block + 56, -1L);
            scratch.release();
            assertEquals(0L, onAnotherThread(() -> scratch.acquire(8)), "another thread allocates its own");

            assertEquals(block, scratch.acquire(16), "the owner's again");
            assertEquals(-1L, IO.getLong(block), "not cleared: each call writes what it passes");
            scratch.release();
            assertEquals(0L, scratch.acquire(65), "larger than the block");
            assertEquals(block, scratch.acquire(64));
            scratch.release();
        }
    }

    @Test
    void aBlockWhoseOwnerEndedPassesToTheNextThreadWithWhatItHolds() throws Exception {
        try (NativeScratch scratch = new NativeScratch(64)) {
            List<Integer> request = List.of(7);
            long block = onAnotherThread(() -> {
                long at = scratch.acquire(64);
                IO.putLong(at, 42L);
                scratch.holding(request);
                scratch.release();
                return at;
            });
            assertNotEquals(0L, block);
            assertEquals(block, scratch.acquire(64), "the first owner has ended: this thread takes the block");
            assertEquals(42L, IO.getLong(block), "with what the ended owner wrote");
            assertTrue(scratch.holds(request), "and what it said it holds");
            scratch.release();
        }
    }

    @Test
    void theBlockRemembersWhatItsOwnerSaidItHoldsUntilTheOwnerForgetsIt() {
        try (NativeScratch scratch = new NativeScratch(64)) {
            List<Integer> request = List.of(7);
            assertNotEquals(0L, scratch.acquire(64));
            assertFalse(scratch.holds(request), "a new block holds nothing");
            assertFalse(scratch.holds(null), "null is never held");
            scratch.holding(request);
            scratch.release();

            assertNotEquals(0L, scratch.acquire(64));
            assertTrue(scratch.holds(request), "the next call sees it");
            assertFalse(scratch.holds(List.of(7)), "an equal object is not the one written");
            scratch.holding(null);
            assertFalse(scratch.holds(request), "forgotten");
            scratch.release();
        }
    }

    @Test
    void clearZeroesExactlyTheBytesAsked() {
        try (NativeScratch scratch = new NativeScratch(64)) {
            long block = scratch.acquire(64);
            for (int at = 0; at < 64; at += 8) {
                IO.putLong(block + at, -1L);
            }
            NativeScratch.clear(block + 4, 45);
            assertEquals(0x00000000ffffffffL, IO.getLong(block), "the 4 bytes before the range stay");
            assertEquals(0L, IO.getLong(block + 8));
            assertEquals(0L, IO.getLong(block + 40));
            assertEquals(0xffffffffffffff00L, IO.getLong(block + 48), "byte 48 is the range's last, 49 on stay");
            assertEquals(-1L, IO.getLong(block + 56));
            scratch.release();
        }
    }

    @Test
    void theOwnerOrNoOwnerFreesAtCloseAndAClosedBlockIsNeverHandedOutAgain() throws Exception {
        NativeScratch owned = new NativeScratch(32);
        assertNotEquals(0L, owned.acquire(32));
        owned.release();
        assertTrue(owned.closeNow(), "closed by its owner: freed now");
        assertEquals(0L, owned.acquire(8));
        assertFalse(owned.closeNow(), "a second close is a no-op");

        NativeScratch idle = new NativeScratch(32);
        assertTrue(onAnotherThread(() -> idle.closeNow() ? 1L : 0L) == 1L, "never used: freed now, by any thread");
        assertEquals(0L, idle.acquire(8));
    }

    @Test
    void closedFromAnotherThreadWhileTheOwnerRunsTheBlockIsNotFreedButNeverHandedOutAgain() throws Exception {
        NativeScratch scratch = new NativeScratch(32);
        CountDownLatch acquired = new CountDownLatch(1);
        CountDownLatch closed = new CountDownLatch(1);
        AtomicLong seen = new AtomicLong(-1);
        Thread owner = new Thread(() -> {
            long block = scratch.acquire(32);
            IO.putLong(block, 5L);
            acquired.countDown();
            try {
                closed.await(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            // The call in progress still uses its block: it must not have been freed under it.
            seen.set(IO.getLong(block));
            scratch.release();
            seen.compareAndSet(5L, scratch.acquire(8) == 0 ? 5L : -2L);
        });
        owner.start();
        assertTrue(acquired.await(5, TimeUnit.SECONDS));
        assertFalse(scratch.closeNow(), "the owner may be inside a call: left to the garbage collector");
        assertTrue(scratch.closed());
        closed.countDown();
        owner.join(5000);
        assertEquals(5L, seen.get(), "the owner's block was intact and is not handed out after close");
        assertEquals(0L, scratch.acquire(8));
    }

    private interface LongCall {
        long call();
    }

    private static long onAnotherThread(LongCall call) throws InterruptedException {
        AtomicLong result = new AtomicLong(Long.MIN_VALUE);
        Thread thread = new Thread(() -> result.set(call.call()));
        thread.start();
        thread.join(5000);
        assertFalse(thread.isAlive(), "the other thread finished");
        return result.get();
    }
}
