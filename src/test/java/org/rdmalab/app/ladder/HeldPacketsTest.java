package org.rdmalab.app.ladder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.rdmalab.verbs.PacketEvent;

/**
 * The live ladder's held packets: time order with each send before its arrival, the settling
 * hold, and the frame budget that spreads a storm over several drains without losing, repeating
 * or reordering a packet.
 */
class HeldPacketsTest {

    private static final String CLIENT = "10.0.0.2:4791";
    private static final String SERVER = "10.0.0.1:4791";

    /** A clock that jumps a second at every look: any budget is spent at the first check. */
    private static final class JumpingClock implements java.util.function.LongSupplier {
        long now;

        @Override
        public long getAsLong() {
            now += 1_000_000_000L;
            return now;
        }
    }

    private static PacketEvent packet(long at, PacketEvent.Direction direction, int psn) {
        return new PacketEvent(at, direction, CLIENT, SERVER, "RC_RDMA_WRITE_MIDDLE", 0x11, psn, false, 1024, "",
                List.of(), new byte[] {1});
    }

    /**
     * N WRITE packets, each sent at 10 µs · PSN + 2 µs and arriving 1 µs earlier than that (the
     * receiver stamped first), heard in a shuffled order.
     */
    private static List<PacketEvent> storm(int count, List<PacketEvent> arrivals) {
        List<PacketEvent> heard = new ArrayList<>();
        for (int psn = 0; psn < count; psn++) {
            heard.add(packet(10_000L * psn + 2_000, PacketEvent.Direction.SENT, psn));
            PacketEvent arrival = packet(10_000L * psn + 1_000, PacketEvent.Direction.RECEIVED, psn);
            arrivals.add(arrival);
            heard.add(arrival);
        }
        Collections.shuffle(heard, new Random(7));
        return heard;
    }

    /** Drains until nothing is held, counting the drains; the last one must leave nothing. */
    private static int drainAll(HeldPackets held, List<PacketEvent> out) {
        int drains = 0;
        HeldPackets.Left left;
        do {
            held.settleAll();
            left = held.drain(out::add);
            drains++;
        } while (left == HeldPackets.Left.OUT_OF_TIME);
        assertEquals(HeldPackets.Left.NOTHING, left);
        return drains;
    }

    private static void assertInOrderOnce(int count, List<PacketEvent> arrivals, List<PacketEvent> out) {
        assertEquals(2 * count, out.size(), "every send and every arrival, once");
        for (int psn = 0; psn < count; psn++) {
            PacketEvent sent = out.get(2 * psn);
            assertEquals(PacketEvent.Direction.SENT, sent.direction(), "the send first, PSN " + psn);
            assertEquals(psn, sent.psn());
            assertEquals(arrivals.get(psn).timestampNanos(), sent.timestampNanos(), "stamped at its arrival");
            assertSame(arrivals.get(psn), out.get(2 * psn + 1), "then its arrival, PSN " + psn);
        }
    }

    @Test
    void aTinyBudgetSpreadsTheStormOverManyDrainsAndEveryPacketArrivesOnceInOrder() {
        List<PacketEvent> arrivals = new ArrayList<>();
        HeldPackets held = new HeldPackets(new JumpingClock(), 1);
        storm(3_000, arrivals).forEach(held::add);
        List<PacketEvent> out = new ArrayList<>();
        int drains = drainAll(held, out);
        assertInOrderOnce(3_000, arrivals, out);
        // 6 000 packets, at least 32 and (the clock looked at every 32) at most 32 + 1 send per drain.
        assertTrue(drains >= 6_000 / 33 && drains <= 6_000 / 32 + 1, "drains: " + drains);
        assertEquals(0, held.size());
    }

    @Test
    void aBudgetThatIsNeverSpentTakesEverythingInOneDrain() {
        List<PacketEvent> arrivals = new ArrayList<>();
        HeldPackets held = new HeldPackets(() -> 0L, 1);
        storm(3_000, arrivals).forEach(held::add);
        List<PacketEvent> out = new ArrayList<>();
        assertEquals(1, drainAll(held, out));
        assertInOrderOnce(3_000, arrivals, out);
    }

    @Test
    void packetsHeardBetweenDrainsJoinInTimeOrderBehindWhatWasLeft() {
        List<PacketEvent> arrivals = new ArrayList<>();
        List<PacketEvent> heard = storm(1_000, arrivals);
        HeldPackets held = new HeldPackets(new JumpingClock(), 1);
        List<PacketEvent> out = new ArrayList<>();
        // Half heard, one drain (out of time), then the other half heard: still one order.
        heard.subList(0, 1_000).forEach(held::add);
        held.settleAll();
        assertEquals(HeldPackets.Left.OUT_OF_TIME, held.drain(out::add));
        int first = out.size();
        heard.subList(1_000, 2_000).forEach(held::add);
        drainAll(held, out);
        assertEquals(2_000, out.size());
        assertTrue(first >= 32, "the first drain made progress: " + first);
        for (int i = 1; i < out.size(); i++) {
            assertTrue(out.get(i - 1).timestampNanos() <= out.get(i).timestampNanos()
                    || i <= first, "in time order after the first drain, at " + i);
        }
        assertEquals(2_000, out.stream().distinct().count());
    }

    @Test
    void whatMayStillBeOvertakenWaitsEvenWhenTheBudgetCutADrainShort() {
        HeldPackets held = new HeldPackets(new JumpingClock(), 1);
        // Sends 1 ms apart, 0 to 99 ms: the newest is 99 ms, so up to 94 ms is settled.
        for (int i = 0; i < 100; i++) {
            held.add(packet(i * 1_000_000L, PacketEvent.Direction.SENT, i));
        }
        List<PacketEvent> out = new ArrayList<>();
        assertEquals(HeldPackets.Left.OUT_OF_TIME, held.drain(out::add));
        HeldPackets.Left left;
        do {
            left = held.drain(out::add); // nothing new heard in between, but still within the cut
        } while (left == HeldPackets.Left.OUT_OF_TIME);
        assertEquals(HeldPackets.Left.UNSETTLED, left);
        assertEquals(95, out.size(), "0 to 94 ms are settled, 95 to 99 ms may still be overtaken");
        assertEquals(94_000_000L, out.get(94).timestampNanos());
        // A whole hold with nothing new: the rest goes.
        assertEquals(HeldPackets.Left.NOTHING, held.drain(out::add));
        assertEquals(100, out.size());
        for (int i = 0; i < 100; i++) {
            assertEquals(i, out.get(i).psn());
        }
    }

    @Test
    void aLongBacklogHeardInPiecesBetweenCutDrainsComesOutOnceWithEachSendBeforeItsArrival() {
        List<PacketEvent> arrivals = new ArrayList<>();
        List<PacketEvent> heard = storm(4_000, arrivals);
        // Heard as the lab hands them: batch after batch in time, each batch in any order.
        heard.sort(java.util.Comparator.comparingInt(PacketEvent::psn));
        for (int piece = 0; piece < 20; piece++) {
            Collections.shuffle(heard.subList(piece * 400, piece * 400 + 400), new Random(piece));
        }
        HeldPackets held = new HeldPackets(new JumpingClock(), 1);
        List<PacketEvent> out = new ArrayList<>();
        for (int piece = 0; piece < 20; piece++) {
            heard.subList(piece * 400, piece * 400 + 400).forEach(held::add);
            held.drain(out::add); // cut short each time: a backlog builds up
        }
        drainAll(held, out);
        assertEquals(8_000, out.size());
        assertEquals(8_000, out.stream().map(System::identityHashCode).distinct().count() + out.stream()
                .filter(packet -> packet.direction() == PacketEvent.Direction.SENT).count()
                - out.stream().filter(packet -> packet.direction() == PacketEvent.Direction.SENT)
                        .map(System::identityHashCode).distinct().count(), "no packet twice");
        java.util.Map<Integer, Integer> sentAt = new java.util.HashMap<>();
        for (int i = 0; i < out.size(); i++) {
            PacketEvent packet = out.get(i);
            if (packet.direction() == PacketEvent.Direction.SENT) {
                assertEquals(null, sentAt.put(packet.psn(), i), "PSN " + packet.psn() + " sent once");
            }
        }
        for (int i = 0; i < out.size(); i++) {
            PacketEvent packet = out.get(i);
            if (packet.direction() == PacketEvent.Direction.RECEIVED) {
                assertSame(arrivals.get(packet.psn()), packet);
                assertTrue(sentAt.get(packet.psn()) < i, "PSN " + packet.psn() + " sent before it arrived");
            }
        }
        // Once all was heard, the rest came out in time order.
        for (int i = out.size() - 1_000; i < out.size(); i++) {
            assertTrue(out.get(i - 1).timestampNanos() <= out.get(i).timestampNanos(), "in time order at " + i);
        }
    }

    @Test
    void atTheLimitNothingIsShedAndOneOverShedsTheOldestOne() {
        List<PacketEvent> arrivals = new ArrayList<>();
        List<PacketEvent> heard = storm(50, arrivals); // 100 packets
        HeldPackets held = new HeldPackets(() -> 0L, 1);
        heard.forEach(held::add);
        List<PacketEvent> shed = new ArrayList<>();
        assertEquals(0, held.shedBeyond(100, shed::add), "100 held, limit 100");
        assertEquals(List.of(), shed);
        assertEquals(1, held.shedBeyond(99, shed::add), "100 held, limit 99");
        assertEquals(1, shed.size());
        assertEquals(99, held.size());
        // The oldest of all: PSN 0's arrival, stamped 1 µs before its send.
        assertSame(arrivals.get(0), shed.get(0));
    }

    @Test
    void aBacklogOverTheLimitShedsItsOldestInTimeOrderAndTheRestIsDrawnAfterThemNothingTwice() {
        List<PacketEvent> arrivals = new ArrayList<>();
        List<PacketEvent> heard = storm(3_000, arrivals); // 6 000 packets, shuffled
        HeldPackets held = new HeldPackets(new JumpingClock(), 1);
        List<PacketEvent> out = new ArrayList<>();
        heard.subList(0, 4_000).forEach(held::add);
        held.settleAll();
        held.drain(out::add); // one frame's worth (out of time)
        int drawnFirst = out.size();
        heard.subList(4_000, 6_000).forEach(held::add);
        int before = held.size();
        List<PacketEvent> shed = new ArrayList<>();
        assertEquals(before - 1_000, held.shedBeyond(1_000, shed::add));
        assertEquals(1_000, held.size(), "what is held is the limit");
        for (int i = 1; i < shed.size(); i++) {
            assertTrue(shed.get(i - 1).timestampNanos() <= shed.get(i).timestampNanos(), "shed in time order, at " + i);
        }
        drainAll(held, out);
        assertEquals(1_000, out.size() - drawnFirst, "the newest 1 000 drawn after the shed");
        long newestShed = shed.get(shed.size() - 1).timestampNanos();
        for (PacketEvent drawn : out.subList(drawnFirst, out.size())) {
            assertTrue(drawn.timestampNanos() >= newestShed, "nothing drawn is older than what was shed");
        }
        List<PacketEvent> all = new ArrayList<>(out);
        all.addAll(shed);
        assertEquals(6_000, all.size(), "every packet drawn or shed");
        java.util.Set<PacketEvent> once = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        once.addAll(all);
        assertEquals(6_000, once.size(), "none twice");
    }
}
