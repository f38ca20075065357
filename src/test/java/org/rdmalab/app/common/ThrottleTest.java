package org.rdmalab.app.common;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ThrottleTest {

    private static final long MS = 1_000_000L;

    private final AtomicLong clock = new AtomicLong(5_000 * MS);
    private final List<Runnable> waiting = new ArrayList<>();
    private final AtomicInteger runs = new AtomicInteger();
    private final Throttle throttle = new Throttle(100 * MS, clock::get, waiting::add, runs::incrementAndGet);

    @Test
    void theFirstRequestRunsAtOnceAndRequestsWithinTheIntervalRunOnceWhenItHasPassed() {
        throttle.request();
        assertEquals(1, runs.get(), "a change after a quiet spell is shown at once");
        assertEquals(0, waiting.size());
        clock.addAndGet(30 * MS);
        throttle.request();
        clock.addAndGet(30 * MS);
        throttle.request();
        throttle.request();
        assertEquals(1, runs.get(), "three requests 30 and 60 ms later wait");
        assertEquals(1, waiting.size(), "for one run, armed once");
        clock.addAndGet(100 * MS);
        waiting.remove(0).run();
        assertEquals(2, runs.get(), "the last request is answered after the interval");
        clock.addAndGet(99 * MS);
        throttle.request();
        assertEquals(2, runs.get(), "99 ms after the last run: within the interval");
        assertEquals(1, waiting.size());
    }

    @Test
    void aRequestAtTheIntervalAfterTheLastRunRunsAtOnce() {
        throttle.request();
        clock.addAndGet(100 * MS);
        throttle.request();
        assertEquals(2, runs.get(), "exactly 100 ms later");
        assertEquals(0, waiting.size());
        clock.addAndGet(99 * MS);
        throttle.request();
        assertEquals(2, runs.get(), "99 ms later: waits");
        assertEquals(1, waiting.size());
    }

    @Test
    void nowRunsWithinTheIntervalAndAWaitingRunStillComes() {
        throttle.request();
        clock.addAndGet(10 * MS);
        throttle.request();
        throttle.now();
        assertEquals(2, runs.get(), "now runs at once, 10 ms after the last run");
        waiting.remove(0).run();
        assertEquals(3, runs.get());
        clock.addAndGet(50 * MS);
        throttle.request();
        assertEquals(3, runs.get(), "the interval counts from the last run, the waiting one");
    }

    @Test
    void neverRunsEveryRequestAtOnce() {
        AtomicInteger each = new AtomicInteger();
        Throttle every = Throttle.never(each::incrementAndGet);
        every.request();
        every.request();
        every.request();
        assertEquals(3, each.get());
    }
}
