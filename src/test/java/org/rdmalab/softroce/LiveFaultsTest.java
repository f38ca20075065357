package org.rdmalab.softroce;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.rdmalab.verbs.FaultControl;
import org.rdmalab.verbs.FaultKind;
import org.rdmalab.verbs.FaultSettings;
import org.rdmalab.verbs.OneShotFault;
import org.rdmalab.verbs.PacketEvent;
import org.rdmalab.verbs.PacketObservable;
import org.rdmalab.verbs.SendFlag;
import org.rdmalab.verbs.SendWorkRequest;
import org.rdmalab.verbs.WcStatus;
import org.rdmalab.verbs.WorkCompletion;

/**
 * Faults changed on running devices through {@link FaultControl}: rates turned on and off between
 * the messages of one connection, one-shot faults that fire once on whichever device sends the
 * matching packet first, and every fault named on the event of the packet it hit.
 */
class LiveFaultsTest {

    /** Every packet event of both sides, in order, as "side direction opcode psn [faults]". */
    private static List<PacketEvent> listen(Peers peers, List<String> lines) {
        List<PacketEvent> events = Collections.synchronizedList(new ArrayList<>());
        for (Peers.Side side : List.of(peers.a, peers.b)) {
            String name = side == peers.a ? "a" : "b";
            ((PacketObservable) side.context).subscribe(event -> {
                events.add(event);
                lines.add(name + " " + event.direction() + " " + event.opcode() + " " + event.psn() + " " + event.faults());
            });
        }
        return events;
    }

    private static void write(Peers peers, long id, int length) throws Exception {
        peers.a.qp.postSend(SendWorkRequest.write(id, peers.a.mr.sge(0, length), peers.b.mr.address() + 64,
                peers.b.mr.rkey(), SendFlag.SIGNALED.value()));
    }

    private static long sent(List<PacketEvent> events, String opcode, int psn) {
        return events.stream().filter(e -> e.direction() == PacketEvent.Direction.SENT && e.opcode().equals(opcode)
                && e.psn() == psn).count();
    }

    @Test
    void droppingTheNextAckSendsTheWriteTwiceAndItStillSucceeds() throws Exception {
        try (Peers peers = Peers.simulated()) {
            List<String> lines = Collections.synchronizedList(new ArrayList<>());
            List<PacketEvent> events = listen(peers, lines);
            byte[] hello = "HelloWorld".getBytes(StandardCharsets.US_ASCII);
            peers.a.mr.write(0, hello);
            OneShotFault shot = OneShotFault.of(OneShotFault.Kind.DROP_NEXT_ACK, OneShotFault.Way.REQUESTER_TO_RESPONDER);
            // Armed on both devices, as the window arms it: only b sends ACKs, and it fires once.
            ((FaultControl) peers.a.context).arm(shot);
            ((FaultControl) peers.b.context).arm(shot);
            write(peers, 1, hello.length);
            List<WorkCompletion> done = peers.runUntilCompletions(peers.a, 1);
            assertEquals(WcStatus.SUCCESS, done.get(0).status(), done.toString());
            assertArrayEquals(hello, peers.b.mr.read(64, hello.length));
            assertTrue(shot.fired());
            assertEquals(2, sent(events, "RC_RDMA_WRITE_ONLY", 0), "the WRITE went out twice: " + lines);
            List<PacketEvent> dropped = events.stream().filter(PacketEvent::faulted).toList();
            assertEquals(1, dropped.size(), lines.toString());
            PacketEvent ack = dropped.get(0);
            assertEquals(PacketEvent.Direction.DROPPED, ack.direction());
            assertEquals("RC_ACKNOWLEDGE", ack.opcode());
            assertEquals(List.of(new PacketEvent.Fault(FaultKind.DROP, true, "the next ACK")), ack.faults());
            assertEquals("127.0.0.2:4791", ack.source(), "b, the responder, lost its ACK");
            assertEquals(20, ack.bytes().length, "the ACK's bytes come with it");
            assertEquals(1, peers.b.counter(Counter.FAULT_DROPPED));
            assertEquals(0, peers.a.counter(Counter.FAULT_DROPPED));

            // Fired once: the next WRITE goes once and its ACK arrives.
            lines.clear();
            events.clear();
            write(peers, 2, hello.length);
            assertEquals(WcStatus.SUCCESS, peers.runUntilCompletions(peers.a, 1).get(0).status());
            assertEquals(1, sent(events, "RC_RDMA_WRITE_ONLY", 1), lines.toString());
            assertFalse(events.stream().anyMatch(PacketEvent::faulted), lines.toString());
        }
    }

    @Test
    void aOneShotWaitsForAPacketGoingItsWay() throws Exception {
        try (Peers peers = Peers.simulated()) {
            List<String> lines = Collections.synchronizedList(new ArrayList<>());
            List<PacketEvent> events = listen(peers, lines);
            peers.a.mr.write(0, "HelloWorld".getBytes(StandardCharsets.US_ASCII));
            // Responder to requester: the WRITE (a request) passes, its ACK is corrupted.
            OneShotFault back = OneShotFault.of(OneShotFault.Kind.CORRUPT_NEXT_PACKET,
                    OneShotFault.Way.RESPONDER_TO_REQUESTER);
            ((FaultControl) peers.b.context).arm(back);
            ((FaultControl) peers.a.context).arm(back);
            write(peers, 1, 10);
            assertEquals(WcStatus.SUCCESS, peers.runUntilCompletions(peers.a, 1).get(0).status());
            PacketEvent corrupted = events.stream().filter(PacketEvent::faulted).findFirst().orElseThrow();
            assertEquals("RC_ACKNOWLEDGE", corrupted.opcode(), lines.toString());
            assertEquals(PacketEvent.Direction.SENT, corrupted.direction());
            assertEquals(new PacketEvent.Fault(FaultKind.CORRUPT, true, "bit 0 of byte 15 flipped"),
                    corrupted.faults().get(0));
            assertTrue(events.stream().anyMatch(e -> e.direction() == PacketEvent.Direction.DROPPED
                    && e.detail().startsWith("ICRC mismatch") && e.opcode().equals("RC_ACKNOWLEDGE")), lines.toString());
            assertEquals(1, peers.a.counter(Counter.RCVD_ICRC_ERR));
            assertEquals(0, peers.b.counter(Counter.RCVD_ICRC_ERR), "the WRITE itself arrived whole");
            assertEquals(2, sent(events, "RC_RDMA_WRITE_ONLY", 0), "the lost ACK made the WRITE go again");
        }
    }

    @Test
    void corruptingTheNextRequestFlipsItsLastPayloadByte() throws Exception {
        try (Peers peers = Peers.simulated()) {
            List<String> lines = Collections.synchronizedList(new ArrayList<>());
            List<PacketEvent> events = listen(peers, lines);
            byte[] hello = "HelloWorld".getBytes(StandardCharsets.US_ASCII);
            peers.a.mr.write(0, hello);
            ((FaultControl) peers.a.context).arm(OneShotFault.of(OneShotFault.Kind.CORRUPT_NEXT_PACKET,
                    OneShotFault.Way.REQUESTER_TO_RESPONDER));
            write(peers, 1, hello.length);
            assertEquals(WcStatus.SUCCESS, peers.runUntilCompletions(peers.a, 1).get(0).status());
            assertArrayEquals(hello, peers.b.mr.read(64, hello.length), "the retransmission brought the right bytes");
            List<PacketEvent> writes = events.stream().filter(e -> e.direction() == PacketEvent.Direction.SENT
                    && e.opcode().equals("RC_RDMA_WRITE_ONLY")).toList();
            assertEquals(2, writes.size(), lines.toString());
            byte[] bad = writes.get(0).bytes();
            byte[] good = writes.get(1).bytes();
            int last = bad.length - 5 - 2; // "HelloWorld" is padded to 12 bytes
            assertEquals('d', good[last], "the last payload byte");
            assertEquals('e', bad[last], "its bit 0 flipped");
            bad[last] = good[last];
            assertArrayEquals(good, bad, "and nothing else");
            assertTrue(writes.get(1).faults().isEmpty());
            assertEquals(1, peers.b.counter(Counter.RCVD_ICRC_ERR));
        }
    }

    @Test
    void ratesChangeBetweenTheMessagesOfARunningConnection() throws Exception {
        try (Peers peers = Peers.simulated()) {
            List<String> lines = Collections.synchronizedList(new ArrayList<>());
            List<PacketEvent> events = listen(peers, lines);
            byte[] data = new byte[64 * 1024];
            new Random(4).nextBytes(data);
            peers.a.mr.write(0, data);
            write(peers, 1, data.length);
            assertEquals(WcStatus.SUCCESS, peers.runUntilCompletions(peers.a, 1).get(0).status());
            assertFalse(events.stream().anyMatch(PacketEvent::faulted), "no faults at first");

            FaultControl faults = (FaultControl) peers.a.context;
            faults.setFaults(FaultSettings.parse("drop=0.2,seed=3"));
            assertEquals(FaultSettings.parse("drop=0.2,seed=3"), faults.faults());
            events.clear();
            write(peers, 2, data.length);
            assertEquals(WcStatus.SUCCESS, peers.runUntilCompletions(peers.a, 1).get(0).status());
            long drops = events.stream().filter(e -> e.faults().stream().anyMatch(f -> f.kind() == FaultKind.DROP)).count();
            assertTrue(drops > 0, "drops once the rate is set: " + lines);
            assertEquals(drops, peers.a.counter(Counter.FAULT_DROPPED));
            assertTrue(events.stream().filter(PacketEvent::faulted)
                    .allMatch(e -> e.direction() == PacketEvent.Direction.DROPPED && e.source().startsWith("127.0.0.1")
                            && !e.faults().get(0).oneShot()), "only a's own packets, lost, by the random draw");

            faults.setFaults(FaultSettings.NONE);
            events.clear();
            write(peers, 3, data.length);
            assertEquals(WcStatus.SUCCESS, peers.runUntilCompletions(peers.a, 1).get(0).status());
            assertFalse(events.stream().anyMatch(PacketEvent::faulted), "none once they are off: " + lines);
            assertEquals(drops, peers.a.counter(Counter.FAULT_DROPPED));
            assertArrayEquals(data, peers.b.mr.read(64, data.length));
        }
    }

    /** The faults of a run where the settings are set live after the connection is up. */
    private static List<String> liveRun(String spec) throws Exception {
        try (Peers peers = Peers.simulated()) {
            List<String> lines = Collections.synchronizedList(new ArrayList<>());
            List<PacketEvent> events = listen(peers, lines);
            byte[] data = new byte[128 * 1024];
            new Random(5).nextBytes(data);
            peers.a.mr.write(0, data);
            ((FaultControl) peers.a.context).setFaults(FaultSettings.parse(spec));
            ((FaultControl) peers.b.context).setFaults(FaultSettings.parse(spec));
            write(peers, 1, data.length);
            assertEquals(WcStatus.SUCCESS, peers.runUntilCompletions(peers.a, 1).get(0).status());
            return events.stream().filter(PacketEvent::faulted)
                    .map(e -> e.timestampNanos() + " " + e.source() + " " + e.opcode() + " " + e.psn() + " " + e.faults())
                    .toList();
        }
    }

    @Test
    void theSameSeedSetLiveRepeatsTheSameFaults() throws Exception {
        String spec = "drop=0.03,dup=0.03,reorder=0.03,corrupt=0.01,seed=11";
        List<String> first = liveRun(spec);
        assertTrue(first.stream().anyMatch(line -> line.contains("dup")), first.toString());
        assertTrue(first.stream().anyMatch(line -> line.contains("drop")), first.toString());
        assertEquals(first, liveRun(spec), "the same faults on the same packets at the same times");
        assertNotEquals(first, liveRun(spec.replace("seed=11", "seed=12")), "another seed, other faults");
    }

    @Test
    void aClosedContextIgnoresChangesAndSettingsAreChecked() throws Exception {
        Peers peers = Peers.simulated();
        peers.close();
        FaultControl closed = (FaultControl) peers.a.context;
        closed.setFaults(FaultSettings.parse("drop=1"));
        assertEquals(FaultSettings.NONE, closed.faults());
        assertThrows(IllegalArgumentException.class, () -> new FaultSettings(1.5, 0, 0, 0, 0, 1));
        assertThrows(IllegalArgumentException.class, () -> new FaultSettings(0, 0, 0, -0.1, 0, 1));
        assertEquals(FaultSettings.NONE, FaultSettings.parse(" "));
    }
}
