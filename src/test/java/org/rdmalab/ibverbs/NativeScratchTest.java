package org.rdmalab.ibverbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.kenai.jffi.MemoryIO;
import org.junit.jupiter.api.Test;

/** The block a queue reuses for its posts and polls: one holder at a time, zeroed, freed once. */
class NativeScratchTest {

    private static final MemoryIO IO = MemoryIO.getInstance();

    @Test
    void oneHolderAtATimeGetsTheBlockZeroedOverWhatItAsked() {
        try (NativeScratch scratch = new NativeScratch(64)) {
            long block = scratch.acquire(64);
            assertNotEquals(0L, block);
            IO.putLong(block, -1L);
            IO.putLong(block + 56, -1L);
            assertEquals(0L, scratch.acquire(8), "held: a second caller allocates its own");
            scratch.release();

            assertEquals(block, scratch.acquire(16), "released: the same block again");
            assertEquals(0L, IO.getLong(block), "what a previous holder wrote is cleared");
            assertEquals(-1L, IO.getLong(block + 56), "only the bytes asked for are cleared");
            scratch.release();
            assertEquals(0L, scratch.acquire(65), "larger than the block");
            assertEquals(block, scratch.acquire(64));
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
