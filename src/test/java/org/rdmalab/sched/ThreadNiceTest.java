package org.rdmalab.sched;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

class ThreadNiceTest {

    /** Runs {@code body} on a new thread named {@code name} and returns what it answered. */
    static <T> T onNewThread(String name, Supplier<T> body) throws Exception {
        CompletableFuture<T> result = new CompletableFuture<>();
        Thread thread = new Thread(() -> {
            try {
                result.complete(body.get());
            } catch (RuntimeException | AssertionError e) {
                result.completeExceptionally(e);
            }
        }, name);
        thread.start();
        T value = result.get(10, TimeUnit.SECONDS);
        thread.join(10_000);
        return value;
    }

    /**
     * The calling thread's nice value, after assuming what the priority tests need: Linux with
     * {@code /proc/thread-self}, and at least 3 nice steps left below this thread (a test run under
     * {@code nice -n 19} has none, and its priority tests skip).
     */
    static int assumeRoomBelowCurrent() {
        assumeTrue(ThreadNice.supported(), "Linux with /proc/thread-self only");
        int nice = kernelNiceOfCurrent();
        assumeTrue(nice <= 16, "room below this thread's priority");
        return nice;
    }

    /** The nice value the kernel shows for the calling thread, read here rather than through the class. */
    static int kernelNiceOfCurrent() {
        try {
            String stat = Files.readString(Path.of("/proc/thread-self/stat"));
            return Integer.parseInt(stat.substring(stat.lastIndexOf(')') + 2).split(" ")[16]);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void niceIsTheNineteenthFieldCountedAfterTheLastParenthesis() {
        // A name with a space and a ')' in it, as a thread may be named.
        String stat = "4242 (soft0) x (y) S 1 4242 4242 0 -1 4194368 300 0 0 0 12 3 0 0 20 7 31 0 1234 "
                + "5000000 900 18446744073709551615 1 1 0 0 0 0 0 4096 0 0 0 -1 1 0 0 0 0 0";
        assertEquals(OptionalInt.of(7), ThreadNice.parseNice(stat));
        assertEquals(OptionalInt.of(-5), ThreadNice.parseNice(stat.replace(" 20 7 31 ", " 25 -5 31 ")));
        assertEquals(OptionalInt.empty(), ThreadNice.parseNice("4242 (cut"));
        assertEquals(OptionalInt.empty(), ThreadNice.parseNice("4242 (short) S 1 2 3"));
        // Sixteen fields after the name: the nice value would be the seventeenth.
        assertEquals(OptionalInt.empty(), ThreadNice.parseNice("4242 (x) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 20"));
        assertEquals(OptionalInt.of(0), ThreadNice.parseNice("4242 (x) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 20 0"));
        assertEquals(OptionalInt.empty(), ThreadNice.parseNice(stat.replace(" 20 7 31 ", " 20 x 31 ")));
    }

    @Test
    void onlyLinuxIsSupported() {
        assertTrue(ThreadNice.isLinux("Linux"));
        assertFalse(ThreadNice.isLinux("Mac OS X"));
        assertFalse(ThreadNice.isLinux("Windows 11"));
    }

    @Test
    void aThreadLowersItselfAndOnlyItself() throws Exception {
        int before = assumeRoomBelowCurrent();
        int[] seen = onNewThread("nice-test-self", () -> {
            int tid = ThreadNice.currentTid().orElseThrow();
            boolean lowered = ThreadNice.lowerCurrent(before + 3);
            return new int[] {lowered ? 1 : 0, kernelNiceOfCurrent(), ThreadNice.niceOf(tid).orElse(-99)};
        });
        assertEquals(1, seen[0]);
        assertEquals(before + 3, seen[1], "the kernel's nice value of the thread");
        assertEquals(before + 3, seen[2], "niceOf reads the same");
        assertEquals(before, kernelNiceOfCurrent(), "the thread that started it keeps its priority");
    }

    @Test
    void aThreadLowersASiblingFoundByItsName() throws Exception {
        int base = assumeRoomBelowCurrent();
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        CompletableFuture<Integer> niceInside = new CompletableFuture<>();
        java.util.concurrent.CountDownLatch lowered = new java.util.concurrent.CountDownLatch(1);
        Thread sibling = new Thread(() -> {
            try {
                lowered.await(10, TimeUnit.SECONDS);
                niceInside.complete(kernelNiceOfCurrent());
                release.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "nice-test-sibling-thread");
        sibling.start();
        try {
            int tid = -1;
            for (int i = 0; i < 100 && tid < 0; i++) {
                tid = ThreadNice.threads().entrySet().stream()
                        .filter(t -> t.getValue().equals("nice-test-sibli")).mapToInt(java.util.Map.Entry::getKey)
                        .findFirst().orElse(-1);
                if (tid < 0) {
                    Thread.sleep(10);
                }
            }
            assertTrue(tid > 0, "the kernel names the thread by its first 15 characters");
            assertTrue(ThreadNice.lower(tid, base + 2));
            lowered.countDown();
            assertEquals(base + 2, niceInside.get(10, TimeUnit.SECONDS));
        } finally {
            lowered.countDown();
            release.countDown();
            sibling.join(10_000);
        }
    }

    @Test
    void aLowerPriorityIsNeverRaised() throws Exception {
        int base = assumeRoomBelowCurrent();
        int[] seen = onNewThread("nice-test-keep", () -> {
            ThreadNice.lowerCurrent(base + 3);
            boolean asked = ThreadNice.lowerCurrent(base + 1);
            return new int[] {asked ? 1 : 0, kernelNiceOfCurrent()};
        });
        assertEquals(1, seen[0], "the thread already runs at that or lower priority");
        assertEquals(base + 3, seen[1]);
    }

    @Test
    void aThreadThatIsNotThereIsNotLowered() {
        assumeTrue(ThreadNice.supported(), "Linux with /proc/thread-self only");
        assertEquals(OptionalInt.empty(), ThreadNice.niceOf(Integer.MAX_VALUE));
        assertFalse(ThreadNice.lower(Integer.MAX_VALUE, 10));
    }

    @Test
    void niceValuesOutsideLinuxsRangeAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> ThreadNice.lower(1, 20));
        assertThrows(IllegalArgumentException.class, () -> ThreadNice.lower(1, -1));
        // 0 and 19 are Linux's own bounds: asked for, they are tried (here on a thread that is not there).
        assertFalse(ThreadNice.lower(Integer.MAX_VALUE, 0));
        assertFalse(ThreadNice.lower(Integer.MAX_VALUE, 19));
    }
}
