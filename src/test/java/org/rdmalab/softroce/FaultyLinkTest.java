package org.rdmalab.softroce;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.rdmalab.softroce.net.Fabric;
import org.rdmalab.verbs.FaultControl;
import org.rdmalab.verbs.FaultKind;
import org.rdmalab.verbs.FaultSettings;
import org.rdmalab.verbs.OneShotFault;
import org.rdmalab.verbs.PacketEvent;
import org.rdmalab.verbs.PacketEvent.Fault;
import org.rdmalab.verbs.PacketObservable;
import org.rdmalab.verbs.SendFlag;
import org.rdmalab.verbs.SendWorkRequest;
import org.rdmalab.verbs.WcStatus;
import org.rdmalab.verbs.spi.DeviceOptions;
import org.rdmalab.wire.Icrc;

/**
 * The faults in front of a device's link, packet by packet on the virtual clock: what each random
 * fault does to the datagrams a's requester sends (which copy goes, when, in what order, with
 * which bit flipped), the faults each packet event names, in the order they fired, and the
 * counters of each kind. Only a has faults: b's ACKs come back untouched.
 */
class FaultyLinkTest {

    private static final int A = Fabric.toInt(DeviceOptions.parseAddress("127.0.0.1"));
    private static final int B = Fabric.toInt(DeviceOptions.parseAddress("127.0.0.2"));
    private static final Fault DUPLICATE = new Fault(FaultKind.DUPLICATE, false, "");
    private static final Fault REORDER = new Fault(FaultKind.REORDER, false, "held back behind the next packet");

    /** a's packets as they leave (SENT) or are lost (DROPPED), in order. */
    private static List<PacketEvent> outOfA(Peers peers) {
        List<PacketEvent> events = Collections.synchronizedList(new ArrayList<>());
        ((PacketObservable) peers.a.context).subscribe(event -> {
            if (event.direction() != PacketEvent.Direction.RECEIVED) {
                events.add(event);
            }
        });
        return events;
    }

    private static Peers peers(String faultsA) throws Exception {
        Peers.Setup setup = new Peers.Setup();
        setup.faultsA = faultsA;
        return Peers.simulated(setup);
    }

    /** a writes {@code length} bytes (each its own value) to b. */
    private static void write(Peers peers, long id, int length) throws Exception {
        byte[] data = new byte[length];
        for (int i = 0; i < length; i++) {
            data[i] = (byte) (i * 7 + 1);
        }
        peers.a.mr.write(0, data);
        peers.writeFromA(id, 0, length, SendFlag.SIGNALED.value());
    }

    /** Runs until a has sent or lost {@code count} packets (at most a virtual second) and returns them. */
    private static List<PacketEvent> firstOut(Peers peers, List<PacketEvent> events, int count) {
        assertTrue(peers.net.runUntil(() -> events.size() >= count, Duration.ofSeconds(1)), events.toString());
        return List.copyOf(events.subList(0, count));
    }

    private static List<FaultKind> kinds(PacketEvent event) {
        return event.faults().stream().map(Fault::kind).toList();
    }

    /** The first WRITE of 8 bytes that a sends with {@code faultsA}, as it went on the wire. */
    private static List<PacketEvent> firstWrite(String faultsA, int count) throws Exception {
        try (Peers peers = peers(faultsA)) {
            List<PacketEvent> events = outOfA(peers);
            write(peers, 1, 8);
            return firstOut(peers, events, count);
        }
    }

    private static boolean icrcOk(byte[] datagram) {
        return Icrc.verifyCanonicalIpv4(A, B, 4791, 4791, datagram, 0, datagram.length);
    }

    @Test
    void aCorruptedPacketHasExactlyTheNamedBitFlippedAndItsDuplicateToo() throws Exception {
        byte[] clean = firstWrite("", 1).get(0).bytes();
        assertTrue(icrcOk(clean));
        // seed 1: the first draw corrupts (rate 1), the next picks bit 142 of the 40-byte WRITE.
        try (Peers peers = peers("corrupt=1,dup=1,seed=1")) {
            List<PacketEvent> events = outOfA(peers);
            write(peers, 1, 8);
            List<PacketEvent> out = firstOut(peers, events, 2);
            Fault corrupt = new Fault(FaultKind.CORRUPT, false, "bit 6 of byte 17 flipped");
            assertEquals(List.of(corrupt), out.get(0).faults());
            assertEquals(List.of(corrupt, DUPLICATE), out.get(1).faults(), "the copy names both, in order");
            for (PacketEvent copy : out) {
                assertEquals(PacketEvent.Direction.SENT, copy.direction());
                byte[] bytes = copy.bytes();
                assertFalse(icrcOk(bytes), "b drops it");
                assertEquals((byte) (clean[17] ^ 0x40), bytes[17]);
                bytes = bytes.clone();
                bytes[17] ^= 0x40;
                assertArrayEquals(clean, bytes, "and no other bit");
            }
            assertEquals(1, peers.a.counter(Counter.FAULT_CORRUPTED));
            assertEquals(1, peers.a.counter(Counter.FAULT_DUPLICATED));
            assertEquals(0, peers.a.counter(Counter.FAULT_DROPPED));
            assertEquals(0, peers.a.counter(Counter.FAULT_REORDERED));
            peers.net.runUntil(() -> peers.b.counter(Counter.RCVD_ICRC_ERR) == 2, Duration.ofSeconds(1));
            assertEquals(2, peers.b.counter(Counter.RCVD_ICRC_ERR));
        }
    }

    @Test
    void theFirstBitOfTheFirstByteCanBeTheOneFlipped() throws Exception {
        byte[] clean = firstWrite("", 1).get(0).bytes();
        // seed 440: the bit drawn is bit 0 of byte 0, the opcode (RDMA WRITE Only, 0x0A, becomes 0x0B).
        PacketEvent out = firstWrite("corrupt=1,seed=440", 1).get(0);
        assertEquals(List.of(new Fault(FaultKind.CORRUPT, false, "bit 0 of byte 0 flipped")), out.faults());
        byte[] bytes = out.bytes().clone();
        assertEquals(0x0B, bytes[0]);
        bytes[0] ^= 1;
        assertArrayEquals(clean, bytes);
    }

    @Test
    void aReorderedPacketLeavesBehindTheNextOneOrAfterItsHold() throws Exception {
        try (Peers peers = peers("reorder=1,seed=2")) {
            List<PacketEvent> events = outOfA(peers);
            long start = peers.net.nanoTime();
            write(peers, 1, 2048); // two packets of 1024 bytes
            List<PacketEvent> out = firstOut(peers, events, 2);
            assertEquals(List.of(1, 0), out.stream().map(PacketEvent::psn).toList(), out.toString());
            assertEquals(List.of(), out.get(0).faults(), "the one that overtook");
            assertEquals(List.of(REORDER), out.get(1).faults());
            assertEquals(start, out.get(1).timestampNanos(), "released as soon as the next one left");
            assertEquals(1, peers.a.counter(Counter.FAULT_REORDERED), "the second was not held: the first was");
            assertEquals(WcStatus.SUCCESS, peers.runUntilCompletions(peers.a, 1).get(0).status());

            // Half a hold later, a one-packet WRITE: nothing follows it, so it waits its whole hold
            // (the first packet's hold, cancelled when it left, does not cut this one short).
            peers.net.advance(Duration.ofNanos(FaultyLink.REORDER_HOLD_NANOS / 2));
            events.clear();
            long reordered = peers.a.counter(Counter.FAULT_REORDERED);
            long posted = peers.net.nanoTime();
            write(peers, 2, 8);
            PacketEvent alone = firstOut(peers, events, 1).get(0);
            assertEquals(List.of(REORDER), alone.faults());
            assertEquals(posted + FaultyLink.REORDER_HOLD_NANOS, alone.timestampNanos());
            assertEquals(PacketEvent.Direction.SENT, alone.direction());
            assertTrue(icrcOk(alone.bytes()), "reordered, not damaged");
            assertEquals(reordered + 1, peers.a.counter(Counter.FAULT_REORDERED));
            assertEquals(0, peers.a.counter(Counter.FAULT_DUPLICATED));
            assertEquals(WcStatus.SUCCESS, peers.runUntilCompletions(peers.a, 1).get(0).status());
        }
    }

    @Test
    void aHeldPacketKeepsItsEarlierFaultsAndItsDuplicateLeavesAtOnce() throws Exception {
        try (Peers peers = peers("corrupt=1,dup=1,reorder=1,seed=3")) {
            List<PacketEvent> events = outOfA(peers);
            write(peers, 1, 2048); // two packets
            List<PacketEvent> out = firstOut(peers, events, 4);
            // 0 is held back and its copy goes; 1 (not held: 0 is) goes with its copy; then 0.
            assertEquals(List.of(0, 1, 1, 0), out.stream().map(PacketEvent::psn).toList(), out.toString());
            assertEquals(List.of(FaultKind.CORRUPT, FaultKind.DUPLICATE), kinds(out.get(0)));
            assertEquals(List.of(FaultKind.CORRUPT), kinds(out.get(1)));
            assertEquals(List.of(FaultKind.CORRUPT, FaultKind.DUPLICATE), kinds(out.get(2)));
            assertEquals(List.of(FaultKind.CORRUPT, FaultKind.REORDER), kinds(out.get(3)));
            assertEquals(out.get(0).faults().get(0), out.get(3).faults().get(0), "the same bit, flipped once");
            assertArrayEquals(out.get(0).bytes(), out.get(3).bytes());
            assertArrayEquals(out.get(1).bytes(), out.get(2).bytes());
            assertEquals(2, peers.a.counter(Counter.FAULT_DUPLICATED));
            assertEquals(1, peers.a.counter(Counter.FAULT_REORDERED));
            assertEquals(2, peers.a.counter(Counter.FAULT_CORRUPTED));
        }
    }

    @Test
    void aDelayedPacketAndItsDuplicateLeaveOneDelayLater() throws Exception {
        try (Peers peers = peers("delay=3ms,dup=1,seed=4")) {
            List<PacketEvent> events = outOfA(peers);
            long start = peers.net.nanoTime();
            write(peers, 1, 8);
            assertFalse(peers.net.runUntil(() -> !events.isEmpty(), Duration.ofMillis(2)), "nothing before the delay");
            List<PacketEvent> out = firstOut(peers, events, 2);
            Fault delay = new Fault(FaultKind.DELAY, false, "3ms");
            assertEquals(List.of(delay), out.get(0).faults());
            assertEquals(List.of(DUPLICATE, delay), out.get(1).faults());
            for (PacketEvent each : out) {
                assertEquals(start + 3_000_000, each.timestampNanos());
                assertEquals(0, each.psn());
            }
            assertEquals(1, peers.a.counter(Counter.FAULT_DUPLICATED));
            assertEquals(WcStatus.SUCCESS, peers.runUntilCompletions(peers.a, 1).get(0).status());
        }
    }

    @Test
    void oneShotFaultsAreCountedAndNamedByKind() throws Exception {
        try (Peers peers = peers("")) {
            List<PacketEvent> events = outOfA(peers);
            FaultControl a = (FaultControl) peers.a.context;
            a.arm(OneShotFault.of(OneShotFault.Kind.CORRUPT_NEXT_PACKET, OneShotFault.Way.REQUESTER_TO_RESPONDER));
            write(peers, 1, 8);
            assertEquals(WcStatus.SUCCESS, peers.runUntilCompletions(peers.a, 1).get(0).status());
            assertEquals(1, peers.a.counter(Counter.FAULT_CORRUPTED));
            assertEquals(0, peers.a.counter(Counter.FAULT_DROPPED));

            events.clear();
            a.arm(OneShotFault.of(OneShotFault.Kind.DROP_NEXT_PACKET, OneShotFault.Way.REQUESTER_TO_RESPONDER));
            write(peers, 2, 8);
            PacketEvent lost = firstOut(peers, events, 1).get(0);
            assertEquals(PacketEvent.Direction.DROPPED, lost.direction());
            assertEquals(List.of(new Fault(FaultKind.DROP, true, "the next packet")), lost.faults());
            assertEquals(1, peers.a.counter(Counter.FAULT_DROPPED));
            assertEquals(1, peers.a.counter(Counter.FAULT_CORRUPTED));
            assertEquals(WcStatus.SUCCESS, peers.runUntilCompletions(peers.a, 1).get(0).status());
        }
    }

    @Test
    void armingAOneShotDoesNotStartTheRandomDrawsOver() throws Exception {
        // seed 6 draws 0.74, then 0.45: the first packet passes a drop rate of 0.5, the second is lost.
        try (Peers peers = peers("drop=0.5,seed=6")) {
            List<PacketEvent> events = outOfA(peers);
            write(peers, 1, 8);
            assertEquals(WcStatus.SUCCESS, peers.runUntilCompletions(peers.a, 1).get(0).status());
            assertEquals(PacketEvent.Direction.SENT, events.get(0).direction());
            // A one-shot for ACKs, which a (the requester) never sends: the settings are taken
            // again, with the same version, and the draws go on.
            ((FaultControl) peers.a.context).arm(OneShotFault.of(OneShotFault.Kind.DROP_NEXT_ACK,
                    OneShotFault.Way.RESPONDER_TO_REQUESTER));
            peers.net.advance(Duration.ofNanos(1));
            events.clear();
            write(peers, 2, 8);
            PacketEvent second = firstOut(peers, events, 1).get(0);
            assertEquals(PacketEvent.Direction.DROPPED, second.direction());
            assertEquals(List.of(new Fault(FaultKind.DROP, false, "")), second.faults());
            assertEquals(WcStatus.SUCCESS, peers.runUntilCompletions(peers.a, 1).get(0).status());
        }
    }

    @Test
    void aPacketHeldWhenTheRatesGoOffLeavesBehindTheNextOne() throws Exception {
        try (Peers peers = peers("reorder=1,seed=2")) {
            List<PacketEvent> events = outOfA(peers);
            FaultControl a = (FaultControl) peers.a.context;
            write(peers, 1, 8);
            assertTrue(peers.net.runUntil(() -> peers.a.counter(Counter.FAULT_REORDERED) == 1, Duration.ofMillis(1)));
            assertTrue(events.isEmpty(), "held back");
            long held = peers.net.nanoTime();
            // The rates go off while a one-shot for ACKs keeps the faults' path in use.
            a.setFaults(FaultSettings.NONE);
            a.arm(OneShotFault.of(OneShotFault.Kind.DROP_NEXT_ACK, OneShotFault.Way.RESPONDER_TO_REQUESTER));
            peers.net.advance(Duration.ofNanos(1));
            write(peers, 2, 8);
            List<PacketEvent> out = firstOut(peers, events, 2);
            assertEquals(List.of(1, 0), out.stream().map(PacketEvent::psn).toList(), out.toString());
            assertEquals(List.of(), out.get(0).faults());
            assertEquals(List.of(REORDER), out.get(1).faults());
            assertEquals(held + 1, out.get(1).timestampNanos(), "behind the next packet, not after its hold");
            assertEquals(2, peers.runUntilCompletions(peers.a, 2).stream()
                    .filter(wc -> wc.status() == WcStatus.SUCCESS).count());
        }
    }

    @Test
    void faultsApplyWithoutListenersToo() throws Exception {
        try (Peers peers = peers("")) {
            ((FaultControl) peers.a.context).arm(OneShotFault.of(OneShotFault.Kind.DROP_NEXT_PACKET,
                    OneShotFault.Way.REQUESTER_TO_RESPONDER));
            peers.net.advance(Duration.ofNanos(1));
            write(peers, 1, 8);
            assertEquals(WcStatus.SUCCESS, peers.runUntilCompletions(peers.a, 1).get(0).status());
            assertEquals(1, peers.a.counter(Counter.FAULT_DROPPED));
            assertEquals(1, peers.a.counter(Counter.COMPLETER_RETRY_ERR), "the WRITE was lost and resent by the timer");
        }
    }
}
