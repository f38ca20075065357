package org.rdmalab.ibverbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.kenai.jffi.MemoryIO;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The block a queue reuses for its posts and polls: one holder at a time, what it holds remembered
 * across holders, freed once.
 */
class NativeScratchTest {

    private static final MemoryIO IO = MemoryIO.getInstance();

    @Test
    void oneHolderAtATimeGetsTheBlockAsItsLastHolderLeftIt() {
        try (NativeScratch scratch = new NativeScratch(64)) {
            long block = scratch.acquire(64);
            assertNotEquals(0L, block);
            IO.putLong(block, -1L);
            IO.putLong(block + 56, -1L);
            assertEquals(0L, scratch.acquire(8), "held: a second caller allocates its own");
            scratch.release();

            assertEquals(block, scratch.acquire(16), "released: the same block again");
            assertEquals(-1L, IO.getLong(block), "not cleared: each holder writes what it passes");
            scratch.release();
            assertEquals(0L, scratch.acquire(65), "larger than the block");
            assertEquals(block, scratch.acquire(64));
            scratch.release();
        }
    }

    @Test
    void theBlockRemembersWhatAHolderSaidItHoldsUntilAHolderForgetsIt() {
        try (NativeScratch scratch = new NativeScratch(64)) {
            List<Integer> request = List.of(7);
            assertNotEquals(0L, scratch.acquire(64));
            assertFalse(scratch.holds(request), "a new block holds nothing");
            assertFalse(scratch.holds(null), "null is never held");
            scratch.holding(request);
            scratch.release();

            assertNotEquals(0L, scratch.acquire(64));
            assertTrue(scratch.holds(request), "the next holder sees it");
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
    void closeWaitsForTheHolderAndAClosedBlockIsNeverHandedOutAgain() throws Exception {
        NativeScratch scratch = new NativeScratch(32);
        assertNotEquals(0L, scratch.acquire(32));
        Thread holder = new Thread(() -> {
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            scratch.release();
        });
        holder.start();
        long start = System.nanoTime();
        assertTrue(scratch.closeWaiting(), "freed once the holder gave it back");
        assertTrue(System.nanoTime() - start >= 40_000_000L, "close waited for the holder");
        holder.join(5000);
        assertEquals(0L, scratch.acquire(8));
        assertTrue(scratch.closeWaiting(), "a second close is a no-op");

        NativeScratch idle = new NativeScratch(32);
        idle.close();
        idle.close();
        assertEquals(0L, idle.acquire(8));
    }
}
