package org.rdmalab.app.lab;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The completions table's "since post" column on both sides of each unit's boundary. */
class CompletionRowTest {

    private static String sincePost(long nanos) {
        return new CompletionRow(Instant.EPOCH, "client", null, nanos).sincePost();
    }

    @Test
    void anUnknownTimeIsBlankAndZeroIsShown() {
        assertEquals("", sincePost(-1));
        assertEquals("0.0 µs", sincePost(0));
    }

    @Test
    void belowOneMillisecondInMicrosecondsFromItInMilliseconds() {
        assertEquals("12.3 µs", sincePost(12_345));
        assertEquals("999.9 µs", sincePost(999_900));
        assertEquals("1.00 ms", sincePost(1_000_000));
        assertEquals("2.35 ms", sincePost(2_345_678));
    }
}
