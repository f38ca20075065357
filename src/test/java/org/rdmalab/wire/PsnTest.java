package org.rdmalab.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class PsnTest {

    @Test
    void addWrapsAt24Bits() {
        assertEquals(0, Psn.next(0xFFFFFF));
        assertEquals(1, Psn.add(0xFFFFFE, 3));
        assertEquals(0xFFFFFF, Psn.add(0, -1));
        assertEquals(0x000100, Psn.add(0x0000FF, 1));
    }

    @Test
    void diffIsSigned24Bit() {
        assertEquals(2, Psn.diff(1, 0xFFFFFF));
        assertEquals(-2, Psn.diff(0xFFFFFF, 1));
        assertEquals(0, Psn.diff(5, 5));
        assertEquals(-0x800000, Psn.diff(0x800000, 0));
        assertEquals(0x7FFFFF, Psn.diff(0x7FFFFF, 0));
    }

    @Test
    void beforeAcrossTheWrap() {
        assertTrue(Psn.before(0xFFFFF0, 0x000010));
        assertFalse(Psn.before(0x000010, 0xFFFFF0));
        assertFalse(Psn.before(7, 7));
        assertTrue(Psn.before(0, 1));
    }

    @Test
    void check() {
        assertEquals(0xFFFFFF, Psn.check(0xFFFFFF));
        assertThrows(IllegalArgumentException.class, () -> Psn.check(0x1000000));
    }
}
