package org.rdmalab.lab.scenario;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The bulk scenario's READ waits one ACK timeout per likely lost response, twice over. */
class BulkScenarioTimeoutTest {

    @Test
    void readRecoveryAllowsTwoAckTimeoutsPerLikelyGap() {
        long ack = 4096L << 0x12; // 1.07 s
        assertEquals(Duration.ZERO, BulkScenario.readRecovery("", 1024, 0x12));
        assertEquals(Duration.ZERO, BulkScenario.readRecovery("dup=0.5,delay=2ms,seed=3", 1024, 0x12));
        // 1024 responses, 5% dropped + 2% reordered: about 72 gaps.
        assertEquals(Duration.ofNanos(2 * 72 * ack),
                BulkScenario.readRecovery("drop=0.05,dup=0.01,reorder=0.02,seed=7", 1024, 0x12));
        assertEquals(Duration.ofNanos(2 * 64 * ack), BulkScenario.readRecovery("drop=1", 64, 0x12));
    }
}
