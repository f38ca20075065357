package org.rdmalab.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** perftest's defaults and the option checks, with messages that name the option. */
class BenchSettingsTest {

    @Test
    void defaultsAreThoseOfPerftest() {
        BenchSettings bw = BenchSettings.defaults(BenchTest.WRITE, BenchMode.BW);
        assertEquals(List.of(65536), bw.sizes());
        assertEquals(5000, bw.iterations());
        assertEquals(128, bw.txDepth());
        assertEquals(100, bw.cqModeration());
        BenchSettings lat = BenchSettings.defaults(BenchTest.WRITE, BenchMode.LAT);
        assertEquals(List.of(2), lat.sizes());
        assertEquals(1000, lat.iterations());
        assertEquals(1, lat.txDepth());
        assertEquals(List.of(8), BenchSettings.defaults(BenchTest.ATOMIC, BenchMode.BW).sizes());
    }

    @Test
    void theSweepRunsTwoToEightMebibytesAndBoundsTheBytesPerSize() {
        List<Integer> sizes = BenchSettings.sweep(BenchTest.WRITE);
        assertEquals(23, sizes.size());
        assertEquals(2, sizes.get(0));
        assertEquals(1 << 23, sizes.get(22));
        BenchSettings sweep = BenchSettings.defaults(BenchTest.WRITE, BenchMode.BW).withSizes(sizes);
        assertEquals(5000, sweep.iterationsFor(2));
        assertEquals(32, sweep.iterationsFor(1 << 23), "256 MiB / 8 MiB");
        assertEquals(List.of(8), BenchSettings.sweep(BenchTest.ATOMIC));
    }

    @Test
    void badValuesNameTheOption() {
        BenchSettings base = BenchSettings.defaults(BenchTest.WRITE, BenchMode.BW);
        assertMessage("-s 0", () -> base.withSizes(List.of(0)));
        assertMessage("-s 16777216", () -> base.withSizes(List.of(1 << 24)));
        assertMessage("-n 1", () -> base.withIterations(1));
        assertMessage("-t 0", () -> base.withTxDepth(0));
        assertMessage("-i 0", () -> base.withPort(0));
        assertMessage("-D 4000", () -> base.withDuration(4000));
        assertMessage("atomic operations move 8 bytes",
                () -> BenchSettings.defaults(BenchTest.ATOMIC, BenchMode.BW).withSizes(List.of(16)));
    }

    @Test
    void runningUntilStoppedReportsEveryIntervalOfOneBandwidthSize() {
        BenchSettings forever = BenchSettings.defaults(BenchTest.SEND, BenchMode.BW).withSizes(List.of(4096))
                .withRunInfinitely(true, BenchSettings.DEFAULT_REPORT_INTERVAL);
        assertTrue(forever.runInfinitely());
        assertTrue(forever.timed(), "each interval runs for a time");
        assertEquals(5, forever.durationSeconds(), "perftest's default interval");
        assertTrue(forever.agreement().endsWith(" until stopped"), "both sides must agree on it");
        BenchSettings counted = forever.withRunInfinitely(false, 0);
        assertFalse(counted.runInfinitely());
        assertFalse(counted.timed());
        assertMessage("for bandwidth tests", () -> BenchSettings.defaults(BenchTest.WRITE, BenchMode.LAT)
                .withRunInfinitely(true, 5));
        assertMessage("give -s N, not -a", () -> forever.withSizes(List.of(2, 4)));
        assertMessage("drop --baseline", () -> forever.withBaseline(true));
        assertMessage("needs its report interval", () -> forever.withDuration(0));
    }

    @Test
    void bothWaysIsForBandwidthAndKeepsTheBaseline() {
        BenchSettings duplex = BenchSettings.defaults(BenchTest.WRITE, BenchMode.BW).withBidirectional(true);
        assertTrue(duplex.bidirectional());
        assertTrue(duplex.agreement().endsWith(" both ways"), "both sides must agree on it");
        assertMessage("-b is for bandwidth tests", () -> BenchSettings.defaults(BenchTest.SEND, BenchMode.LAT)
                .withBidirectional(true));
        assertTrue(duplex.withBaseline(true).baseline(), "-b with --baseline: the baseline runs both ways");
        assertEquals("RDMA_Write Bidirectional BW Test", BenchFormat.title(duplex));
    }

    @Test
    void severalQpsAreForBandwidthAloneAndAgreedByBothSides() {
        BenchSettings four = BenchSettings.defaults(BenchTest.WRITE, BenchMode.BW).withQps(4);
        assertEquals(4, four.qps());
        assertTrue(four.agreement().endsWith(" qps 4"));
        assertEquals(1, BenchSettings.defaults(BenchTest.WRITE, BenchMode.BW).qps(), "perftest's default");
        assertMessage("-q 65: the number of QPs must be 1..64", () -> four.withQps(65));
        assertMessage("-q is for bandwidth tests", () -> BenchSettings.defaults(BenchTest.READ, BenchMode.LAT)
                .withQps(2));
        assertTrue(four.withBaseline(true).baseline(), "-q with --baseline: every QP's messages over one socket pair");
        assertTrue(four.withBidirectional(true).bidirectional(), "-q with -b: every QP both ways");
    }

    @Test
    void aTimedRunNeedsNoIterationCount() {
        BenchSettings timed = BenchSettings.defaults(BenchTest.READ, BenchMode.LAT).withDuration(3).withIterations(0);
        assertTrue(timed.timed());
    }

    @Test
    void warmupIsTenThousandMessagesAtMostOneGibibyteAtLeastTen() {
        // The suite runs with a lower limit (the pom sets the property); a user's run has none.
        withWarmupLimitProperty(null, () -> {
            BenchSettings base = BenchSettings.defaults(BenchTest.WRITE, BenchMode.LAT);
            assertEquals(10_000, base.withIterations(5).warmupFor(2), "whatever -n is");
            assertEquals(10_000, base.withIterations(1_000_000).warmupFor(2));
            assertEquals(10_000, base.withIterations(5000).warmupFor(65536));
            assertEquals(10_000, base.withDuration(3).warmupFor(2));
            assertEquals(8192, base.withIterations(5000).warmupFor(131072), "at most 1 GiB of messages");
            assertEquals(128, base.withIterations(5000).warmupFor(8 << 20));
            assertEquals(11, base.withIterations(5000).warmupFor((1 << 30) / 11));
            assertEquals(10, base.withIterations(5000).warmupFor((1 << 30) / 9), "but at least 10");
            assertEquals(10, base.withIterations(5000).warmupFor(1 << 30));
        });
    }

    @Test
    void theWarmupLimitPropertyLowersTheCountButNotBelowTenNorAboveTheBytes() {
        BenchSettings base = BenchSettings.defaults(BenchTest.WRITE, BenchMode.BW);
        withWarmupLimitProperty("100", () -> {
            assertEquals(100, base.warmupFor(65536));
            assertEquals(100, base.warmupFor(2));
            assertEquals(64, base.warmupFor(16 << 20), "the 1 GiB bound still holds");
        });
        withWarmupLimitProperty("3", () -> assertEquals(10, base.warmupFor(2)));
        withWarmupLimitProperty("20000", () -> assertEquals(20_000, base.warmupFor(2)));
    }

    private static void withWarmupLimitProperty(String value, Runnable check) {
        String before = System.getProperty(BenchSettings.WARMUP_LIMIT_PROPERTY);
        try {
            if (value == null) {
                System.clearProperty(BenchSettings.WARMUP_LIMIT_PROPERTY);
            } else {
                System.setProperty(BenchSettings.WARMUP_LIMIT_PROPERTY, value);
            }
            check.run();
        } finally {
            if (before == null) {
                System.clearProperty(BenchSettings.WARMUP_LIMIT_PROPERTY);
            } else {
                System.setProperty(BenchSettings.WARMUP_LIMIT_PROPERTY, before);
            }
        }
    }

    private static void assertMessage(String expected, org.junit.jupiter.api.function.Executable executable) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, executable);
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }
}
