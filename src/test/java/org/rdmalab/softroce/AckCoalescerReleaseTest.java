package org.rdmalab.softroce;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What the ACK coalescer hands its sink and when, on a hand-driven clock: each ACK leaves with its
 * own destination, hop limit and bytes (the newest of a peer QP's), a held ACK leaves at its hold
 * time and not a nanosecond before, what stays held keeps its own fields when others leave before
 * it, a peer is taken to wait after its second missed probe and not its first, a waiting peer's
 * probes come at intervals that double up to {@link AckCoalescer#PROBE_EVERY}, and the oldest of
 * {@link AckCoalescer#PEERS} remembered peers is the one forgotten.
 */
class AckCoalescerReleaseTest {

    private static final int IP_A = 0x0A000001;
    private static final int IP_B = 0x0A000002;
    private static final long HOLD = AckCoalescer.HOLD_NANOS;
    private static final long US = 1_000;

    /** One ACK as the sink got it. */
    private record Sent(int ip, int ttl, int qpn, int psn, byte[] bytes) {
    }

    private final List<Sent> sent = new ArrayList<>();
    private final AckCoalescer acks = new AckCoalescer((ip, ttl, datagram, length) -> {
        assertEquals(20, length, "an ACK is 20 bytes");
        ByteBuffer bytes = ByteBuffer.wrap(datagram, 0, length);
        byte[] copy = new byte[length];
        System.arraycopy(datagram, 0, copy, 0, length);
        sent.add(new Sent(ip, ttl, bytes.getInt(4) & 0xffffff, bytes.getInt(8) & 0xffffff, copy));
    });

    /** A 20-byte RC ACKNOWLEDGE to QP {@code qpn} acknowledging {@code psn}, with an ICRC made of both. */
    private static byte[] bytes(int qpn, int psn) {
        ByteBuffer packet = ByteBuffer.allocate(20);
        packet.put(0, (byte) 0x11);
        packet.putInt(4, qpn);
        packet.putInt(8, psn);
        packet.putInt(12, 0x1f000000 | psn);
        packet.putInt(16, qpn * 31 + psn);
        return packet.array();
    }

    private static ByteBuffer ack(int qpn, int psn) {
        ByteBuffer packet = ByteBuffer.allocateDirect(64);
        packet.put(0, bytes(qpn, psn));
        return packet;
    }

    private boolean hold(int qpn, int psn, int ip, int ttl, long now) {
        return acks.hold(ack(qpn, psn), 20, ip, ttl, now);
    }

    /** Makes the peer QP {@code qpn} at {@code ip} one that waits for its ACKs; returns the clock after. */
    private long makeWaiting(int qpn, int ip, long now) {
        for (int miss = 0; miss < AckCoalescer.MISSES; miss++) {
            assertTrue(hold(qpn, 1000 + miss, ip, 64, now));
            now += HOLD;
            acks.onTurn(true, now);
        }
        assertEquals("waits", acks.peerState(ip, qpn));
        return now;
    }

    @Test
    void anAckLeavesWithItsOwnDestinationHopLimitAndTheNewestBytes() {
        assertTrue(hold(0x11, 5, IP_A, 64, 0));
        assertTrue(hold(0x22, 9, IP_B, 17, 0));
        assertTrue(hold(0x11, 6, IP_A, 33, US), "the newer ACK of the same QP replaces the held one");
        assertEquals(2, acks.held());
        acks.releaseAll();
        assertEquals(2, sent.size());
        assertEquals(IP_A, sent.get(0).ip(), "held first, sent first");
        assertEquals(33, sent.get(0).ttl(), "with the newer ACK's hop limit");
        assertEquals(6, sent.get(0).psn());
        assertArrayEquals(bytes(0x11, 6), sent.get(0).bytes());
        assertEquals(IP_B, sent.get(1).ip());
        assertEquals(17, sent.get(1).ttl());
        assertArrayEquals(bytes(0x22, 9), sent.get(1).bytes());
        assertEquals(0, acks.held());
    }

    @Test
    void aLongHeldAckLeavesAtItsHoldTimeAndNotBefore() {
        long start = 7 * HOLD + 123;
        assertTrue(hold(0x11, 1, IP_A, 64, start));
        acks.afterTransmit(start + HOLD - 1);
        acks.onTurn(true, start + HOLD - 1);
        assertEquals(0, sent.size(), "one nanosecond short of the hold time");
        acks.onTurn(true, start + HOLD);
        assertEquals(1, sent.size(), "at the hold time");
        // A replacement does not restart the clock: the peer's first held ACK sets it.
        assertTrue(hold(0x11, 2, IP_A, 64, start + 2 * HOLD));
        assertTrue(hold(0x11, 3, IP_A, 64, start + 3 * HOLD - 10));
        acks.afterTransmit(start + 3 * HOLD - 1);
        assertEquals(1, sent.size());
        acks.afterTransmit(start + 3 * HOLD);
        assertEquals(2, sent.size());
        assertEquals(3, sent.get(1).psn());
    }

    @Test
    void whatStaysHeldKeepsItsOwnFieldsWhenAnEarlierAckLeaves() {
        long now = makeWaiting(0x11, IP_A, 0);
        sent.clear();
        // [0]: the waiting peer's short hold; [1]: a new peer's long hold with its own fields.
        assertTrue(hold(0x11, 50, IP_A, 64, now));
        long held = now + 5 * US;
        assertTrue(hold(0x22, 70, IP_B, 9, held));
        acks.afterTransmit(held + US);
        assertEquals(1, sent.size(), "the waiting peer's ACK follows this side's packet");
        assertEquals(0x11, sent.get(0).qpn());
        assertEquals(1, acks.held());
        acks.afterTransmit(held + HOLD - 1);
        assertEquals(1, sent.size(), "the other is still a long hold, timed from its own hold");
        acks.afterTransmit(held + HOLD);
        assertEquals(2, sent.size());
        Sent moved = sent.get(1);
        assertEquals(IP_B, moved.ip());
        assertEquals(9, moved.ttl());
        assertEquals(0x22, moved.qpn());
        assertArrayEquals(bytes(0x22, 70), moved.bytes());
        assertEquals("unknown", acks.peerState(IP_B, 0x22), "one missed probe is not yet waiting");
    }

    @Test
    void aRequestDuringAHeldAckKeepsItFromCountingAsAMissEvenAfterOtherAcksLeftFirst() {
        long now = makeWaiting(0x11, IP_A, 0);
        // The new peer misses once.
        assertTrue(hold(0x22, 1, IP_B, 64, now));
        now += HOLD;
        acks.onTurn(true, now);
        assertEquals("unknown", acks.peerState(IP_B, 0x22));
        // Then a request comes while its ACK is held, behind a waiting peer's ACK that leaves first.
        assertTrue(hold(0x11, 2, IP_A, 64, now));
        assertTrue(hold(0x22, 2, IP_B, 64, now));
        acks.requestArrived(IP_B, 0x22);
        acks.afterTransmit(now + US);
        assertEquals(1, acks.held());
        now += HOLD;
        acks.onTurn(true, now);
        assertEquals(0, acks.held());
        assertEquals("pipelines", acks.peerState(IP_B, 0x22));
        // One more miss after the renewed hold is the first in a row, not the second.
        assertTrue(hold(0x22, 3, IP_B, 64, now));
        now += HOLD;
        acks.onTurn(true, now);
        assertEquals("pipelines", acks.peerState(IP_B, 0x22), "misses are counted in a row");
        assertTrue(hold(0x22, 4, IP_B, 64, now));
        now += HOLD;
        acks.onTurn(true, now);
        assertEquals("waits", acks.peerState(IP_B, 0x22), "the second in a row");
    }

    @Test
    void aRequestWithNoAckHeldChangesNothing() {
        long now = makeWaiting(0x11, IP_A, 0);
        assertTrue(hold(0x22, 1, IP_B, 64, now));
        acks.requestArrived(IP_A, 0x11);
        acks.requestArrived(IP_A, 0x99);
        assertEquals("waits", acks.peerState(IP_A, 0x11), "its ACK had already left: it did wait");
        assertEquals("unknown", acks.peerState(IP_A, 0x99));
        acks.releaseAll();
        acks.requestArrived(IP_B, 0x22);
        assertEquals("unknown", acks.peerState(IP_B, 0x22), "nothing held: nothing learnt");
    }

    @Test
    void everythingLeavingAtOnceCountsNoMissesEvenWhenOld() {
        long now = 0;
        for (int i = 0; i < 3 * AckCoalescer.MISSES; i++) {
            assertTrue(hold(0x11, i, IP_A, 64, now));
            now += 2 * HOLD;
            if (i % 2 == 0) {
                acks.onTurn(false, now);
            } else {
                acks.beforeResponderOutput();
            }
            assertEquals(i + 1, sent.size());
        }
        assertEquals("unknown", acks.peerState(IP_A, 0x11), "released for another reason, not found waiting");
    }

    @Test
    void aWaitingPeersProbesComeAtIntervalsThatDoubleUpToTheLimit() {
        long now = makeWaiting(0x11, IP_A, 0);
        List<Integer> gaps = new ArrayList<>();
        int quick = 0;
        int psn = 0;
        while (gaps.size() < 16) {
            int before = sent.size();
            assertTrue(hold(0x11, psn++ & 0xffffff, IP_A, 64, now));
            acks.afterTransmit(now + US);
            now += 2 * US;
            if (sent.size() > before) {
                quick++;
            } else {
                gaps.add(quick + 1);
                quick = 0;
                now += HOLD;
                acks.onTurn(true, now);
                assertEquals(before + 1, sent.size(), "the probe leaves at its hold time");
                assertEquals("waits", acks.peerState(IP_A, 0x11));
            }
        }
        int first = AckCoalescer.FIRST_PROBE;
        assertEquals(List.of(first, first, 2 * first, 2 * first, 4 * first, 4 * first, 8 * first, 8 * first,
                16 * first, 16 * first, 32 * first, 32 * first, 64 * first, 64 * first, 64 * first, 64 * first), gaps,
                "each interval is waited through twice (MISSES) before it doubles, up to PROBE_EVERY");
        assertEquals(AckCoalescer.PROBE_EVERY, 64 * first);
    }

    @Test
    void theOldestRememberedPeerIsForgottenFirstAndItsHeldAckLeavesBeforeItsSlotIsReused() {
        long now = 0;
        // Peer 0 pipelines; peers 1..63 are seen once each.
        assertTrue(hold(0, 1, IP_A, 64, now));
        acks.requestArrived(IP_A, 0);
        acks.releaseAll();
        for (int qpn = 1; qpn < AckCoalescer.PEERS; qpn++) {
            assertTrue(hold(qpn, 1, IP_A, 64, now));
            acks.releaseAll();
        }
        assertTrue(hold(1, 2, IP_A, 64, now));
        acks.requestArrived(IP_A, 1);
        assertEquals("pipelines", acks.peerState(IP_A, 0));
        assertEquals("pipelines", acks.peerState(IP_A, 1));
        sent.clear();
        // The 65th peer takes peer 0's place; peer 1 is remembered still.
        assertTrue(hold(AckCoalescer.PEERS, 1, IP_B, 64, now));
        assertEquals("unknown", acks.peerState(IP_A, 0), "forgotten");
        assertEquals("pipelines", acks.peerState(IP_A, 1));
        assertEquals(0, sent.size(), "peer 0 had no ACK held");
        assertEquals(2, acks.held());
        // The 66th takes peer 1's place while peer 1's ACK is held: everything held leaves first.
        assertTrue(hold(AckCoalescer.PEERS + 1, 1, IP_B, 64, now));
        assertEquals(2, sent.size());
        assertEquals(1, sent.get(0).qpn());
        assertEquals(AckCoalescer.PEERS, sent.get(1).qpn());
        assertEquals(1, acks.held(), "only the new peer's ACK");
        assertEquals("unknown", acks.peerState(IP_A, 1));
        acks.requestArrived(IP_B, AckCoalescer.PEERS + 1);
        assertEquals("pipelines", acks.peerState(IP_B, AckCoalescer.PEERS + 1), "its ACK is its own");
        assertEquals("unknown", acks.peerState(IP_B, AckCoalescer.PEERS), "released, then a request: nothing held");
    }
    @Test
    void theSameQpNumberAtTwoAddressesIsTwoPeers() {
        assertTrue(hold(0x11, 1, IP_A, 64, 0));
        assertTrue(hold(0x11, 2, IP_B, 65, 0));
        assertEquals(2, acks.held(), "not a replacement");
        acks.requestArrived(IP_B, 0x11);
        assertEquals("pipelines", acks.peerState(IP_B, 0x11));
        assertEquals("unknown", acks.peerState(IP_A, 0x11));
        acks.releaseAll();
        assertEquals(List.of(IP_A, IP_B), sent.stream().map(Sent::ip).toList());
        assertEquals(List.of(1, 2), sent.stream().map(Sent::psn).toList());
        assertEquals("unknown", acks.peerState(IP_A, 0x12), "a QPN never seen");
    }

    @Test
    void aWaitingPeersShortHeldAcksThatLeaveLateAreNoMissedProbes() {
        long now = makeWaiting(0x11, IP_A, 0);
        // Each ACK between probes leaves at the poller's next turn, a whole hold time later.
        for (int i = 1; i < AckCoalescer.FIRST_PROBE; i++) {
            int before = sent.size();
            assertTrue(hold(0x11, i, IP_A, 64, now));
            now += HOLD;
            acks.onTurn(true, now);
            assertEquals(before + 1, sent.size(), "a short hold leaves at the turn: " + i);
        }
        int before = sent.size();
        assertTrue(hold(0x11, 99, IP_A, 64, now));
        acks.afterTransmit(now + US);
        assertEquals(before, sent.size(), "the probe is still the FIRST_PROBE-th ACK");
    }
}
