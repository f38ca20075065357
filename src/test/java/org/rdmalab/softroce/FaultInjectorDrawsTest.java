package org.rdmalab.softroce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.rdmalab.verbs.FaultSettings;

/**
 * Each of the fault injector's draws, against the seeded generator it draws from: a fault whose
 * rate is 0 never fires and draws nothing (so turning one fault on leaves the others' draws
 * where they were), a rate of 1 always fires, any other rate fires when the next number is
 * below it, and a corrupted bit lies inside the datagram.
 */
class FaultInjectorDrawsTest {

    private static FaultInjector injector(double drop, double dup, double reorder, double corrupt, long seed) {
        return new FaultInjector(new FaultSettings(drop, dup, reorder, corrupt, 0, seed));
    }

    @Test
    void anEmptySpecIsNoInjectorAndASpecKeepsItsSeedAndDelay() {
        assertNull(FaultInjector.parse(null));
        assertNull(FaultInjector.parse(""));
        assertNull(FaultInjector.parse("  "));
        FaultInjector parsed = FaultInjector.parse("drop=0.25,delay=2ms,seed=42");
        assertEquals(42, parsed.seed());
        assertEquals(2_000_000, parsed.delayNanos());
        assertEquals(0.25, parsed.settings().drop());
        assertEquals("drop=0.25,dup=0.0,reorder=0.0,corrupt=0.0,delay=2000000ns,seed=42", parsed.toString());
        assertEquals("drop=0.0,dup=0.5,reorder=0.125,corrupt=1.0,delay=0ns,seed=-3",
                FaultInjector.parse("dup=0.5,reorder=0.125,corrupt=1,seed=-3").toString());
    }

    @Test
    void aRateOfZeroNeverFiresAndDrawsNothing() {
        // One kind of fault at a time is on: each of its draws takes the generator's next number,
        // whatever the other draws (whose rate is 0) were asked before it.
        for (int on = 0; on < 4; on++) {
            double[] rates = new double[4];
            rates[on] = 0.5;
            long seed = 11 + on;
            FaultInjector faults = injector(rates[0], rates[1], rates[2], rates[3], seed);
            SplittableRandom reference = new SplittableRandom(seed);
            int fired = 0;
            for (int datagram = 0; datagram < 200; datagram++) {
                String what = "kind " + on + ", datagram " + datagram;
                boolean drop = on == 0 && reference.nextDouble() < 0.5;
                assertEquals(drop, faults.drawDrop(), what);
                boolean dup = on == 1 && reference.nextDouble() < 0.5;
                assertEquals(dup, faults.drawDuplicate(), what);
                boolean reorder = on == 2 && reference.nextDouble() < 0.5;
                assertEquals(reorder, faults.drawReorder(), what);
                int bit = on == 3 && reference.nextDouble() < 0.5 ? reference.nextInt(100 * 8) : -1;
                assertEquals(bit, faults.drawCorruptBit(100), what);
                fired += drop || dup || reorder || bit >= 0 ? 1 : 0;
            }
            assertTrue(fired > 50 && fired < 150, "about half: " + fired);
        }
    }

    @Test
    void eachOtherDrawTakesOneNumberInTheFixedOrder() {
        long seed = 7;
        FaultInjector faults = injector(0.3, 0.4, 0.6, 0.7, seed);
        SplittableRandom reference = new SplittableRandom(seed);
        int[] fired = new int[4];
        for (int datagram = 0; datagram < 300; datagram++) {
            boolean drop = reference.nextDouble() < 0.3;
            assertEquals(drop, faults.drawDrop(), "drop " + datagram);
            boolean dup = reference.nextDouble() < 0.4;
            assertEquals(dup, faults.drawDuplicate(), "dup " + datagram);
            boolean reorder = reference.nextDouble() < 0.6;
            assertEquals(reorder, faults.drawReorder(), "reorder " + datagram);
            int bit = reference.nextDouble() < 0.7 ? reference.nextInt(64 * 8) : -1;
            assertEquals(bit, faults.drawCorruptBit(64), "corrupt " + datagram);
            fired[0] += drop ? 1 : 0;
            fired[1] += dup ? 1 : 0;
            fired[2] += reorder ? 1 : 0;
            fired[3] += bit >= 0 ? 1 : 0;
        }
        for (int kind = 0; kind < 4; kind++) {
            assertTrue(fired[kind] > 0 && fired[kind] < 300, "kind " + kind + " fired sometimes: " + fired[kind]);
        }
    }

    @Test
    void aRateOfOneAlwaysFiresAndTheBitLiesInsideTheDatagram() {
        FaultInjector faults = injector(1, 1, 1, 1, 5);
        boolean[] seen = new boolean[8];
        for (int i = 0; i < 400; i++) {
            assertTrue(faults.drawDrop());
            assertTrue(faults.drawDuplicate());
            assertTrue(faults.drawReorder());
            int bit = faults.drawCorruptBit(1);
            assertTrue(bit >= 0 && bit < 8, "a bit of a one-byte datagram: " + bit);
            seen[bit] = true;
        }
        for (int bit = 0; bit < 8; bit++) {
            assertTrue(seen[bit], "every bit of the byte can be hit: " + bit);
        }
    }
}
