package org.rdmalab.softroce.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * Properties of 24-bit PSN arithmetic (jqwik), with the wrap from 0xFFFFFF to 0 drawn often: the
 * generators include the edges, and the offsets reach across the wrap both ways.
 */
class PsnPropertiesTest {

    private static final int HALF = 1 << 23;

    @Property
    void addThenDiffGivesTheOffsetBack(@ForAll @IntRange(min = 0, max = Psn.MASK) int psn,
                                       @ForAll @IntRange(min = -HALF, max = HALF - 1) int n) {
        int later = Psn.add(psn, n);
        assertEquals(later, later & Psn.MASK, "the sum stays in 24 bits");
        assertEquals(n, Psn.diff(later, psn));
        assertEquals(-n == HALF ? -HALF : -n, Psn.diff(psn, later));
        assertEquals(psn, Psn.add(later, -n));
    }

    @Property
    void addIsModulo2To24(@ForAll @IntRange(min = 0, max = Psn.MASK) int psn, @ForAll int n) {
        assertEquals(Math.floorMod((long) psn + n, 1L << 24), Psn.add(psn, n));
    }

    @Property
    void nextIsAddOne(@ForAll @IntRange(min = 0, max = Psn.MASK) int psn) {
        int next = Psn.next(psn);
        assertEquals(Psn.add(psn, 1), next);
        assertEquals(psn == Psn.MASK ? 0 : psn + 1, next);
        assertTrue(Psn.before(psn, next));
        assertFalse(Psn.before(next, psn));
        assertEquals(1, Psn.diff(next, psn));
    }

    /** Of two distinct PSNs less than half the space apart, exactly one comes before the other. */
    @Property
    void beforeIsAStrictOrderWithinHalfTheSpace(@ForAll @IntRange(min = 0, max = Psn.MASK) int psn,
                                                @ForAll @IntRange(min = 1, max = HALF - 1) int gap) {
        int later = Psn.add(psn, gap);
        assertTrue(Psn.before(psn, later));
        assertFalse(Psn.before(later, psn));
        assertFalse(Psn.before(psn, psn));
        assertEquals(gap, Psn.diff(later, psn));
        assertEquals(-gap, Psn.diff(psn, later));
    }

    @Property
    void diffIsAlwaysSigned24Bits(@ForAll @IntRange(min = 0, max = Psn.MASK) int a,
                                  @ForAll @IntRange(min = 0, max = Psn.MASK) int b) {
        int diff = Psn.diff(a, b);
        assertTrue(diff >= -HALF && diff < HALF, "diff " + diff);
        assertEquals(a, Psn.add(b, diff));
        assertEquals(diff < 0, Psn.before(a, b));
    }

    @Property
    void checkAcceptsExactly24Bits(@ForAll int value) {
        if (value >= 0 && value <= Psn.MASK) {
            assertEquals(value, Psn.check(value));
        } else {
            assertThrows(IllegalArgumentException.class, () -> Psn.check(value));
        }
    }

    @Property
    void checkAtTheEdges(@ForAll @IntRange(min = 0, max = 1) int side) {
        assertEquals(Psn.MASK - side, Psn.check(Psn.MASK - side));
        assertEquals(side, Psn.check(side));
        assertThrows(IllegalArgumentException.class, () -> Psn.check(Psn.MASK + 1 + side));
        assertThrows(IllegalArgumentException.class, () -> Psn.check(-1 - side));
    }
}
