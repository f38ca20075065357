package org.rdmalab.baseline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class RoundTripsTest {

    @Test
    void theMedianAndThe99thPercentileAreThoseOfTheRecordedRoundTripsNotTheirMean() {
        RoundTrips trips = new RoundTrips();
        for (int i = 0; i < 990; i++) {
            trips.record(12_800); // 12.8 us, the typical round trip
        }
        for (int i = 0; i < 10; i++) {
            trips.record(3_000_000); // ten 3 ms stalls: they move the mean to 42.7 us, not the median
        }
        assertEquals(1000, trips.count());
        assertEquals(12.8, trips.medianMicros(), 12.8 * 1e-3);
        assertEquals(12.8, trips.p99Micros(), 12.8 * 1e-3, "the 990th of 1000 is still a typical one");
        trips.record(3_000_000);
        assertEquals(3000, trips.p99Micros(), 3000 * 1e-3, "the 991st of 1001 is a stall");
        assertTrue(trips.summary().matches("median 12\\.80 usec, 99% (2999|3000)\\.[0-9]{2} usec"), trips.summary());
    }

    @Test
    void nothingRecordedHasNoMedianAndOutOfRangeTimesAreClampedNotThrown() {
        RoundTrips trips = new RoundTrips();
        assertTrue(Double.isNaN(trips.medianMicros()));
        trips.record(-5);
        trips.record(Long.MAX_VALUE);
        assertEquals(2, trips.count());
        assertEquals(0, trips.medianMicros());
        assertTrue(trips.p99Micros() >= 3.6e9 * 0.999, "an hour at most: " + trips.p99Micros());
    }
}
