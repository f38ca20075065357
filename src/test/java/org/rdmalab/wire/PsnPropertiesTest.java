package org.rdmalab.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.rdmalab.testing.Draws;

/**
 * Properties of 24-bit PSN arithmetic, each checked over 1000 seeded draws ({@link Draws}) with the
 * wrap from 0xFFFFFF to 0 drawn often: the draws include the edges, and the offsets reach across the
 * wrap both ways.
 */
class PsnPropertiesTest {

    private static final int TRIES = 1000;
    private static final int HALF = 1 << 23;

    @Test
    void addThenDiffGivesTheOffsetBack() {
        Draws.forAll(0x5E_0001L, TRIES, d -> {
            int psn = d.ints("psn", 0, Psn.MASK);
            int n = d.ints("n", -HALF, HALF - 1);
            int later = Psn.add(psn, n);
            assertEquals(later, later & Psn.MASK, "the sum stays in 24 bits");
            assertEquals(n, Psn.diff(later, psn));
            assertEquals(-n == HALF ? -HALF : -n, Psn.diff(psn, later));
            assertEquals(psn, Psn.add(later, -n));
        });
    }

    @Test
    void addIsModulo2To24() {
        Draws.forAll(0x5E_0002L, TRIES, d -> {
            int psn = d.ints("psn", 0, Psn.MASK);
            int n = d.ints("n");
            assertEquals(Math.floorMod((long) psn + n, 1L << 24), Psn.add(psn, n));
        });
    }

    @Test
    void nextIsAddOne() {
        Draws.forAll(0x5E_0003L, TRIES, d -> {
            int psn = d.ints("psn", 0, Psn.MASK);
            int next = Psn.next(psn);
            assertEquals(Psn.add(psn, 1), next);
            assertEquals(psn == Psn.MASK ? 0 : psn + 1, next);
            assertTrue(Psn.before(psn, next));
            assertFalse(Psn.before(next, psn));
            assertEquals(1, Psn.diff(next, psn));
        });
    }

    /** Of two distinct PSNs less than half the space apart, exactly one comes before the other. */
    @Test
    void beforeIsAStrictOrderWithinHalfTheSpace() {
        Draws.forAll(0x5E_0004L, TRIES, d -> {
            int psn = d.ints("psn", 0, Psn.MASK);
            int gap = d.ints("gap", 1, HALF - 1);
            int later = Psn.add(psn, gap);
            assertTrue(Psn.before(psn, later));
            assertFalse(Psn.before(later, psn));
            assertFalse(Psn.before(psn, psn));
            assertEquals(gap, Psn.diff(later, psn));
            assertEquals(-gap, Psn.diff(psn, later));
        });
    }

    @Test
    void diffIsAlwaysSigned24Bits() {
        Draws.forAll(0x5E_0005L, TRIES, d -> {
            int a = d.ints("a", 0, Psn.MASK);
            int b = d.ints("b", 0, Psn.MASK);
            int diff = Psn.diff(a, b);
            assertTrue(diff >= -HALF && diff < HALF, "diff " + diff);
            assertEquals(a, Psn.add(b, diff));
            assertEquals(diff < 0, Psn.before(a, b));
        });
    }

    @Test
    void checkAcceptsExactly24Bits() {
        Draws.forAll(0x5E_0006L, TRIES, d -> {
            int value = d.ints("value");
            if (value >= 0 && value <= Psn.MASK) {
                assertEquals(value, Psn.check(value));
            } else {
                assertThrows(IllegalArgumentException.class, () -> Psn.check(value));
            }
        });
    }

    /** Both sides of both ends of the 24-bit range, written out rather than drawn. */
    @Test
    void checkAtTheEdges() {
        for (int side = 0; side <= 1; side++) {
            String at = "side " + side;
            int s = side;
            assertEquals(Psn.MASK - side, Psn.check(Psn.MASK - side), at);
            assertEquals(side, Psn.check(side), at);
            assertThrows(IllegalArgumentException.class, () -> Psn.check(Psn.MASK + 1 + s), at);
            assertThrows(IllegalArgumentException.class, () -> Psn.check(-1 - s), at);
        }
    }
}
