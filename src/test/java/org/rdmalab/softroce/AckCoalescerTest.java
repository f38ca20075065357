package org.rdmalab.softroce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The ACK coalescer's rules on a hand-driven clock: a peer that sends its next request while its
 * ACK is held gets one cumulative ACK per hold time; a peer that waits gets its ACK with this
 * side's next packet; everything leaves at a turn that is not a busy poller's.
 */
class AckCoalescerTest {

    private static final int PEER_IP = 0x7f000001;
    private static final long US = 1_000;

    /** The ACKs that left: {dest QPN, PSN}. */
    private final List<int[]> sent = new ArrayList<>();
    private final AckCoalescer acks = new AckCoalescer((ip, ttl, datagram, length) -> {
        ByteBuffer bytes = ByteBuffer.wrap(datagram, 0, length);
        sent.add(new int[] {bytes.getInt(4) & 0xffffff, bytes.getInt(8) & 0xffffff});
    });

    /** A 20-byte RC ACKNOWLEDGE to QP {@code qpn} acknowledging {@code psn}. */
    private static ByteBuffer ack(int qpn, int psn) {
        ByteBuffer packet = ByteBuffer.allocateDirect(64);
        packet.put(0, (byte) 0x11);
        packet.putInt(4, qpn);
        packet.putInt(8, psn);
        packet.putInt(12, 0x1f000000 | psn);
        return packet;
    }

    @Test
    void aPipeliningPeerGetsOneCumulativeAckPerHoldTime() {
        assertTrue(acks.hold(ack(0x11, 1), 20, PEER_IP, 64, 0));
        acks.afterTransmit(2 * US);
        assertEquals(0, sent.size(), "a peer seen for the first time is held long, to learn whether it waits");
        acks.requestArrived(PEER_IP, 0x11);
        assertEquals("pipelines", acks.peerState(PEER_IP, 0x11));
        assertTrue(acks.hold(ack(0x11, 2), 20, PEER_IP, 64, 10 * US));
        acks.requestArrived(PEER_IP, 0x11);
        assertTrue(acks.hold(ack(0x11, 3), 20, PEER_IP, 64, 20 * US));
        acks.afterTransmit(21 * US);
        acks.onTurn(true, 40 * US);
        assertEquals(1, acks.held(), "newer ACKs replace the held one");
        assertEquals(0, sent.size());

        acks.onTurn(true, AckCoalescer.HOLD_NANOS);
        assertEquals(1, sent.size());
        assertEquals(3, sent.get(0)[1], "the ACK that leaves is the newest: it acknowledges every older PSN");
        assertEquals("pipelines", acks.peerState(PEER_IP, 0x11));
    }

    @Test
    void aPeerThatWaitsForItsAcksGetsThemRightAfterThisSidesNextPacket() {
        long now = 0;
        for (int miss = 0; miss < AckCoalescer.MISSES; miss++) {
            assertTrue(acks.hold(ack(0x11, miss), 20, PEER_IP, 64, now));
            acks.afterTransmit(now + US);
            assertEquals(miss, sent.size(), "probing: held past this side's packet");
            now += AckCoalescer.HOLD_NANOS;
            acks.onTurn(true, now);
            assertEquals(miss + 1, sent.size(), "a probe leaves once it is as old as the hold time");
        }
        assertEquals("waits", acks.peerState(PEER_IP, 0x11));

        int quick = 0;
        for (int i = 0; i < AckCoalescer.FIRST_PROBE - 1; i++) {
            int before = sent.size();
            assertTrue(acks.hold(ack(0x11, 100 + i), 20, PEER_IP, 64, now));
            acks.afterTransmit(now + US);
            quick += sent.size() - before;
            now += 10 * US;
        }
        assertEquals(AckCoalescer.FIRST_PROBE - 1, quick, "each ACK left with the next packet");

        assertTrue(acks.hold(ack(0x11, 200), 20, PEER_IP, 64, now));
        acks.afterTransmit(now + US);
        assertEquals(1, acks.held(), "one ACK in FIRST_PROBE is a probe, held long");
        acks.requestArrived(PEER_IP, 0x11);
        assertEquals("pipelines", acks.peerState(PEER_IP, 0x11), "a request during the probe: the peer pipelines now");
    }

    @Test
    void aWaitingPeersAckLeavesAtTheNextBusyTurnWhenNothingIsSent() {
        for (int miss = 0; miss < AckCoalescer.MISSES; miss++) {
            acks.hold(ack(0x11, miss), 20, PEER_IP, 64, miss * AckCoalescer.HOLD_NANOS);
            acks.onTurn(true, (miss + 1) * AckCoalescer.HOLD_NANOS);
        }
        sent.clear();
        acks.hold(ack(0x11, 7), 20, PEER_IP, 64, 0);
        acks.onTurn(true, US);
        assertEquals(1, sent.size());
    }

    @Test
    void aTurnThatIsNotABusyPollersAndOtherResponderOutputReleaseEverything() {
        acks.hold(ack(0x11, 1), 20, PEER_IP, 64, 0);
        acks.hold(ack(0x12, 1), 20, PEER_IP, 64, 0);
        acks.onTurn(false, US);
        assertEquals(2, sent.size(), "the loop thread's turn sends all");

        acks.hold(ack(0x11, 2), 20, PEER_IP, 64, 2 * US);
        acks.beforeResponderOutput();
        assertEquals(3, sent.size(), "a NAK or READ response of the same responder does not overtake an older ACK");
        assertEquals(0, acks.held());
    }

    @Test
    void aCoalescerFullOfOtherQpsAcksSendsTheNextAtOnceAndDiscardForgetsAll() {
        for (int qpn = 1; qpn <= AckCoalescer.LIMIT; qpn++) {
            assertTrue(acks.hold(ack(qpn, 1), 20, PEER_IP, 64, 0));
        }
        assertFalse(acks.hold(ack(AckCoalescer.LIMIT + 1, 1), 20, PEER_IP, 64, 0));
        assertTrue(acks.hold(ack(1, 2), 20, PEER_IP, 64, 0), "a QP already held is replaced, not added");
        assertFalse(acks.hold(ack(1, 3), 24, PEER_IP, 64, 0), "only 20-byte plain ACKs are held");
        acks.discard();
        assertEquals(0, acks.held());
        assertEquals(0, sent.size());
    }
}
