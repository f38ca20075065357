package org.rdmalab.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The fault spec: what it parses to, what it refuses in one line, and the spec it writes back. */
class FaultSettingsTest {

    @Test
    void aSpecParsesToItsRatesDelayAndSeed() {
        FaultSettings settings = FaultSettings.parse("drop=0.05, DUP=0.01,reorder=0.02,corrupt=0.001,delay=2ms,seed=7");
        assertEquals(new FaultSettings(0.05, 0.01, 0.02, 0.001, 2_000_000, 7), settings);
        assertEquals("drop=0.05,dup=0.01,reorder=0.02,corrupt=0.001,delay=2ms,seed=7", settings.toSpec());
        assertEquals(settings, FaultSettings.parse(settings.toSpec()));
        assertEquals("seed=1", FaultSettings.NONE.toSpec());
        assertEquals(FaultSettings.NONE, FaultSettings.parse(null));
        assertTrue(FaultSettings.parse("seed=9").none(), "a seed alone injects nothing");
        assertFalse(FaultSettings.parse("delay=1ns").none());
        assertFalse(FaultSettings.parse("corrupt=0.0001").none());
        assertEquals("drop=1,seed=1", FaultSettings.parse("drop=1").toSpec());
    }

    @Test
    void delaysTakeTheirUnitAndStopAtSixtySeconds() {
        assertEquals(500_000, FaultSettings.duration("500us"));
        assertEquals(100, FaultSettings.duration("100ns"));
        assertEquals(1_500_000_000, FaultSettings.duration("1.5s"));
        assertEquals(60_000_000_000L, FaultSettings.duration("60s"));
        assertThrows(IllegalArgumentException.class, () -> FaultSettings.duration("60001ms"));
        assertEquals("1500us", FaultSettings.formatDelay(1_500_000));
        assertEquals("2ms", FaultSettings.formatDelay(2_000_000));
        assertEquals("1s", FaultSettings.formatDelay(1_000_000_000));
        assertEquals("999ns", FaultSettings.formatDelay(999));
        assertEquals("0ns", FaultSettings.formatDelay(0));
    }

    @Test
    void badSpecsAreOneLineNamingTheKeyOrValue() {
        assertEquals("fault spec: unknown key 'jitter'; valid keys: drop, dup, reorder, corrupt, delay, seed",
                assertThrows(IllegalArgumentException.class, () -> FaultSettings.parse("jitter=3ms")).getMessage());
        assertEquals("fault spec: drop 1.01 is outside 0..1",
                assertThrows(IllegalArgumentException.class, () -> FaultSettings.parse("drop=1.01")).getMessage());
        assertEquals("fault spec: dup 'x' is not a probability (0..1)",
                assertThrows(IllegalArgumentException.class, () -> FaultSettings.parse("dup=x")).getMessage());
        assertEquals("fault spec item 'drop' is not key=value; valid keys: drop, dup, reorder, corrupt, delay, seed",
                assertThrows(IllegalArgumentException.class, () -> FaultSettings.parse("drop")).getMessage());
        assertEquals("fault spec: seed 'x' is not an integer",
                assertThrows(IllegalArgumentException.class, () -> FaultSettings.parse("seed=x")).getMessage());
        for (String bad : new String[] {"drop=-0.01", "delay=5", "delay=-1ms", "reorder=NaN"}) {
            String message = assertThrows(IllegalArgumentException.class, () -> FaultSettings.parse(bad)).getMessage();
            assertFalse(message.contains("\n"), message);
            assertTrue(message.startsWith("fault spec"), message);
        }
        assertEquals(1.0, FaultSettings.parse("drop=1").drop());
        assertEquals(0.0, FaultSettings.parse("drop=0").drop());
    }

    @Test
    void aOneShotFiresOnceOnlyOnItsWay() {
        OneShotFault request = OneShotFault.of(OneShotFault.Kind.DROP_NEXT_PACKET, OneShotFault.Way.REQUESTER_TO_RESPONDER);
        assertTrue(request.matches(true, false));
        assertFalse(request.matches(false, true));
        assertFalse(request.matches(false, false), "a READ response comes back");
        OneShotFault ack = OneShotFault.of(OneShotFault.Kind.DROP_NEXT_ACK, OneShotFault.Way.REQUESTER_TO_RESPONDER);
        assertEquals(OneShotFault.Way.RESPONDER_TO_REQUESTER, ack.way(), "an ACK always comes back");
        assertTrue(ack.matches(false, true));
        assertFalse(ack.matches(false, false), "a READ response is not an ACK");
        assertTrue(request.waiting());
        assertTrue(request.claim());
        assertFalse(request.claim(), "once");
        assertTrue(request.fired());
        assertFalse(request.cancel());
        assertTrue(ack.cancel());
        assertFalse(ack.claim(), "a cancelled one never fires");
    }

    private static String refused(String spec) {
        return assertThrows(IllegalArgumentException.class,
                () -> FaultSettings.parse(spec)).getMessage();
    }

    /** A rate is accepted at 0 and 1 and refused just outside, in a spec and in the settings themselves. */
    @Test
    void ratesAreCheckedAtBothEnds() {
        assertEquals(1.0, FaultSettings.parse("drop=1").drop());
        assertEquals(0.0, FaultSettings.parse("corrupt=0").corrupt());
        assertEquals("fault spec: drop 1.01 is outside 0..1", refused("drop=1.01"));
        assertEquals("fault spec: reorder -0.01 is outside 0..1", refused("reorder=-0.01"));
        assertEquals("fault spec: dup NaN is outside 0..1", refused("dup=NaN"));
        assertEquals("fault spec: corrupt 1.5 is outside 0..1", assertThrows(
                IllegalArgumentException.class, () -> new FaultSettings(0, 0, 0, 1.5, 0, 1)).getMessage());
        assertEquals("fault spec: drop -0.5 is outside 0..1", assertThrows(
                IllegalArgumentException.class, () -> new FaultSettings(-0.5, 0, 0, 0, 0, 1)).getMessage());
    }

    @Test
    void settingsAreNoneOnlyWhenNothingCanFire() {
        assertTrue(FaultSettings.parse("seed=9").none());
        for (String spec : new String[] {"drop=0.1", "dup=0.1", "reorder=0.1", "corrupt=0.1", "delay=1ns"}) {
            assertFalse(FaultSettings.parse(spec).none(), spec);
        }
        assertEquals(42, FaultSettings.parse("drop=0.1").withSeed(42).seed());
        assertEquals(0.1, FaultSettings.parse("drop=0.1").withSeed(42).drop());
    }

    @Test
    void emptyItemsAreSkippedAndAnItemNeedsAKey() {
        assertEquals(FaultSettings.NONE, FaultSettings.parse("   "));
        assertEquals(0.2, FaultSettings.parse(" , drop=0.2,, ").drop());
        assertEquals("fault spec: unknown key ''; valid keys: drop, dup, reorder, corrupt, delay, seed",
                refused("=0.1"));
    }

    @Test
    void aDelayOfExactlySixtySecondsIsTheLongest() {
        assertEquals(60_000_000_000L, FaultSettings.duration("60s"));
        assertEquals("fault spec: delay '60.001s' is outside 0..60s", refused("delay=60.001s"));
        assertEquals("fault spec: delay '-1ms' is outside 0..60s", refused("delay=-1ms"));
        assertEquals(0, FaultSettings.duration("0us"));
        assertEquals(2_000, FaultSettings.duration("2us"));
        assertEquals(3, FaultSettings.duration("3ns"));
    }

    @Test
    void aRateOutOfRangeIsQuotedAsTypedAndADelayNeedsAUnit() {
        assertEquals("fault spec: drop 1.50 is outside 0..1", refused("drop=1.50"));
        assertEquals("fault spec: dup -0.010 is outside 0..1", refused("dup=-0.010"));
        assertEquals("fault spec: delay '5' needs a unit (ns, us, ms or s), e.g. 2ms", refused("delay=5"));
        assertEquals(2_000_000_000L, FaultSettings.duration("2s"));
        assertEquals(2_000_000L, FaultSettings.duration("2ms"));
    }
}
