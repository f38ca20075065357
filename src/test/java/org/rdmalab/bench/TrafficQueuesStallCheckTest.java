package org.rdmalab.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;

/**
 * The idle pass of bench's waits ({@link TrafficQueues#stallCheck}) reads the clock once per 256
 * empty polls, and a wait that has not yet reached its 256th empty poll reads none: a latency
 * loop's waits, answered within a few polls, then cost no clock read per round trip (a clock that
 * is a system call, as on a machine whose clock source the vDSO cannot read, costs microseconds a
 * read). It still gives up after {@link RdmaTraffic#STALL_NANOS} without progress, and still sees a
 * stop.
 */
class TrafficQueuesStallCheckTest {

    /** A clock that counts its reads and says what the test sets. */
    private static final class CountingClock implements LongSupplier {
        long now = 1_000;
        int reads;

        @Override
        public long getAsLong() {
            reads++;
            return now;
        }
    }

    private final AtomicBoolean stop = new AtomicBoolean();
    private final Progress progress = new Progress(stop, BenchListener.NONE);
    private final CountingClock clock = new CountingClock();

    /** Runs idle passes {@code from} to {@code to - 1} of one wait; its last {@code lastProgress}. */
    private long idle(int from, int to, long lastProgress) throws BenchException {
        long last = lastProgress;
        for (int idle = from; idle < to; idle++) {
            last = TrafficQueues.stallCheck(clock, progress, idle, last, "the test's byte");
        }
        return last;
    }

    @Test
    void aWaitReadsNoClockBeforeItsTwoHundredFiftySixthEmptyPoll() throws Exception {
        long last = idle(0, 255, TrafficQueues.NOT_TIMED);
        assertEquals(0, clock.reads, "255 empty polls read the clock " + clock.reads + " times");
        assertEquals(TrafficQueues.NOT_TIMED, last, "its clock has not started");
        last = idle(255, 256, last);
        assertEquals(1, clock.reads);
        assertEquals(1_000, last, "the 256th empty poll starts the wait's clock");
    }

    @Test
    void aLongWaitReadsTheClockOncePerTwoHundredFiftySixEmptyPolls() throws Exception {
        idle(0, 256 * 10, TrafficQueues.NOT_TIMED);
        assertEquals(10, clock.reads);
    }

    @Test
    void aWaitWithoutProgressGivesUpAfterTheStallTimeFromWhenItsClockStarted() throws Exception {
        long started = idle(0, 256, TrafficQueues.NOT_TIMED);
        clock.now = started + RdmaTraffic.STALL_NANOS;
        long last = idle(256, 512, started);
        assertEquals(started, last, "exactly the stall time is not past it");
        clock.now++;
        long still = last;
        assertEquals(still, idle(512, 767, still), "no clock read, so no failure, before the next 256th poll");
        PeerGone gone = assertThrows(PeerGone.class, () -> idle(767, 768, still));
        assertTrue(gone.getMessage().contains("nothing arrived for 30 s while waiting for the test's byte"),
                gone.getMessage());
    }

    @Test
    void aTimeGivenByTheCallerIsKeptAndChecked() throws Exception {
        // BandwidthLoop passes its own time of last progress, never NOT_TIMED.
        assertEquals(5L, idle(0, 256, 5L));
        clock.now = 5L + RdmaTraffic.STALL_NANOS + 1;
        assertThrows(PeerGone.class, () -> idle(256, 512, 5L));
    }

    @Test
    void aStopIsSeenOnTheSamePassesAsTheClock() throws Exception {
        stop.set(true);
        idle(0, 255, TrafficQueues.NOT_TIMED);
        assertThrows(BenchStopped.class, () -> idle(255, 256, TrafficQueues.NOT_TIMED));
        assertEquals(0, clock.reads, "stopped before reading the clock");
    }
}
