package org.rdmalab.softroce;

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
import org.rdmalab.verbs.OneShotFault;
import org.rdmalab.verbs.PacketEvent;
import org.rdmalab.verbs.PacketObservable;
import org.rdmalab.verbs.ReceiveWorkRequest;
import org.rdmalab.verbs.SendFlag;
import org.rdmalab.verbs.SendWorkRequest;
import org.rdmalab.verbs.WcStatus;
import org.rdmalab.verbs.WorkCompletion;
import org.rdmalab.verbs.spi.DeviceOptions;

/**
 * The transport's way out, on the virtual clock, with b's loop steered as a busy-polling caller's
 * ({@link TurnFabric}): which packets a busy poller's turn holds back (plain ACKs only, never with
 * faults), what lets them go (the next turn, an aged hold after any packet, other responder output
 * first, a destroyed QP, faults turned on), what the coalescer learns from requests (not from
 * responses); a socket that refuses a datagram or is full.
 */
class SoftTransportTest {

    private static final int A = Fabric.toInt(DeviceOptions.parseAddress("127.0.0.1"));
    private static final int B = Fabric.toInt(DeviceOptions.parseAddress("127.0.0.2"));
    private static final int SIGNALED = SendFlag.SIGNALED.value();
    private static final Duration SECOND = Duration.ofSeconds(1);

    private final TurnFabric fabric = new TurnFabric();

    private Peers peers() throws Exception {
        return Peers.simulated(new Peers.Setup(), fabric.net, fabric, "127.0.0.1", "127.0.0.2");
    }

    /** b's packets as they leave or are lost, as "OPCODE psn". */
    private static List<String> outOf(Peers.Side side) {
        List<String> lines = Collections.synchronizedList(new ArrayList<>());
        ((PacketObservable) side.context).subscribe(event -> {
            if (event.direction() == PacketEvent.Direction.SENT) {
                lines.add(event.opcode() + " " + event.psn());
            }
        });
        return lines;
    }

    private static boolean holds(Peers.Side side) {
        return side.soft().transportIfStarted().holdsReplies();
    }

    /** a writes 8 bytes to b and the network runs until b has taken the WRITE (its ACK made). */
    private static void writeToB(Peers peers, long id) throws Exception {
        long received = peers.b.counter(Counter.RCVD_PKTS);
        peers.writeFromA(id, 0, 8, SIGNALED);
        assertTrue(peers.net.runUntil(() -> peers.b.counter(Counter.RCVD_PKTS) > received, SECOND));
    }

    private static WcStatus completionOfA(Peers peers) throws Exception {
        return peers.runUntilCompletions(peers.a, 1).get(0).status();
    }

    @Test
    void aPlainAckMadeInABusyPollersTurnWaitsForItsHoldOrTheLoopsOwnTurn() throws Exception {
        try (Peers peers = peers()) {
            TurnFabric.Port b = fabric.port(B);
            assertFalse(holds(peers.b), "nothing held yet");
            b.holding = true;
            writeToB(peers, 1);
            long heldAt = peers.net.nanoTime();
            assertEquals(0, peers.b.counter(Counter.SENT_PKTS), "the ACK waits");
            assertTrue(holds(peers.b));
            peers.net.advance(Duration.ofNanos(AckCoalescer.HOLD_NANOS - 1));
            b.turn(); // a busy poller's turn before the hold has run out: a peer not seen yet is probed
            assertEquals(0, peers.b.counter(Counter.SENT_PKTS));
            assertEquals(List.of(), Peers.drain(peers.a));
            peers.net.advance(Duration.ofNanos(heldAt + AckCoalescer.HOLD_NANOS - peers.net.nanoTime()));
            b.turn(); // ... and at its end
            assertEquals(1, peers.b.counter(Counter.SENT_PKTS), "counted when it leaves");
            assertFalse(holds(peers.b));
            assertEquals(WcStatus.SUCCESS, completionOfA(peers));

            writeToB(peers, 2);
            assertEquals(1, peers.b.counter(Counter.SENT_PKTS));
            b.holding = false;
            b.turn(); // the loop's own turn: everything goes
            assertEquals(2, peers.b.counter(Counter.SENT_PKTS));
            assertFalse(holds(peers.b));
            assertEquals(WcStatus.SUCCESS, completionOfA(peers));
        }
    }

    @Test
    void onlyPlainAcksWait() throws Exception {
        try (Peers peers = peers()) {
            fabric.port(B).holding = true;
            // No receive posted at b: its RNR NAK (20 bytes, like an ACK) leaves at once.
            peers.a.qp.postSend(SendWorkRequest.send(1, peers.a.mr.sge(0, 8), SIGNALED));
            assertTrue(peers.net.runUntil(() -> peers.b.counter(Counter.SEND_RNR_ERR) == 1, SECOND));
            assertEquals(1, peers.b.counter(Counter.SENT_PKTS));
            assertFalse(holds(peers.b));
            peers.b.qp.postRecv(ReceiveWorkRequest.of(1, peers.b.mr.sge(0, 64)));
            fabric.port(B).holding = false;
            assertEquals(WcStatus.SUCCESS, completionOfA(peers));
            fabric.port(B).holding = true;

            // b's own SEND of 4 bytes is 20 bytes too, and its first byte clears the AETH's NAK bits.
            long sent = peers.b.counter(Counter.SENT_PKTS);
            peers.b.mr.write(0, new byte[] {1, 2, 3, 4});
            peers.a.qp.postRecv(ReceiveWorkRequest.of(2, peers.a.mr.sge(0, 64)));
            peers.b.qp.postSend(SendWorkRequest.send(2, peers.b.mr.sge(0, 4), SIGNALED));
            assertTrue(peers.net.runUntil(() -> peers.b.counter(Counter.SENT_PKTS) == sent + 1, SECOND));
            assertFalse(holds(peers.b), "a request is never held");
            WorkCompletion received = peers.runUntilCompletions(peers.a, 1).get(0);
            assertEquals(4, received.byteLength());
        }
    }

    @Test
    void otherResponderOutputLetsTheHeldAckGoFirst() throws Exception {
        try (Peers peers = peers()) {
            List<String> out = outOf(peers.b);
            fabric.port(B).holding = true;
            writeToB(peers, 1);
            assertTrue(holds(peers.b));
            peers.readIntoA(2, 0, 2048, SIGNALED); // READ Response First and Last
            assertEquals(2, peers.runUntilCompletions(peers.a, 2).size());
            assertEquals(List.of("RC_ACKNOWLEDGE 0", "RC_RDMA_READ_RESPONSE_FIRST 1", "RC_RDMA_READ_RESPONSE_LAST 2"),
                    out.subList(0, 3));

            out.clear();
            writeToB(peers, 3);
            assertTrue(holds(peers.b));
            peers.a.qp.postSend(SendWorkRequest.fetchAdd(4, peers.a.mr.sge(0, 8), peers.b.mr.address(),
                    peers.b.mr.rkey(), 5, SIGNALED));
            assertEquals(2, peers.runUntilCompletions(peers.a, 2).size());
            assertEquals(List.of("RC_ACKNOWLEDGE 3", "RC_ATOMIC_ACKNOWLEDGE 4"), out.subList(0, 2));
        }
    }

    @Test
    void theCoalescerLearnsFromRequestsAndThisSidesOwnRequestsLeaveTheAckHeld() throws Exception {
        try (Peers peers = peers()) {
            fabric.port(B).holding = true;
            SoftTransport b = peers.b.soft().transportIfStarted();
            int qpnA = peers.a.qp.qpNum();
            writeToB(peers, 1);
            assertTrue(holds(peers.b));
            // b writes to a: its request leaves, the ACK it holds stays (the hold is young);
            // a's ACK of it is a response, not a request of a: b learns nothing from it.
            peers.b.mr.write(0, new byte[] {9, 9, 9, 9, 9, 9, 9, 9});
            peers.b.qp.postSend(SendWorkRequest.write(7, peers.b.mr.sge(0, 8), peers.a.mr.address(), peers.a.mr.rkey(),
                    SIGNALED));
            assertEquals(WcStatus.SUCCESS, peers.runUntilCompletions(peers.b, 1).get(0).status());
            assertTrue(holds(peers.b), "b's own request does not release its held ACK");
            assertEquals("unknown", b.ackPeerState(A, qpnA));
            // a request of a while b still holds its ACK: a does not wait for its ACKs.
            writeToB(peers, 2);
            assertEquals("pipelines", b.ackPeerState(A, qpnA));
            fabric.port(B).holding = false;
            fabric.port(B).turn();
            assertEquals(2, peers.runUntilCompletions(peers.a, 2).size());
        }
    }

    @Test
    void anAgedHoldFollowsTheNextPacketWhicheverWayItLeaves() throws Exception {
        try (Peers peers = peers()) {
            fabric.port(B).holding = true;
            peers.b.mr.write(0, new byte[] {9, 9, 9, 9, 9, 9, 9, 9});
            for (int round = 0; round < 2; round++) {
                if (round == 1) {
                    outOf(peers.b); // a listener: b's packets take the copying path
                }
                writeToB(peers, 10 + round);
                assertTrue(holds(peers.b));
                peers.net.advance(Duration.ofNanos(AckCoalescer.HOLD_NANOS));
                assertTrue(holds(peers.b), "no turn, no packet: still held");
                long sent = peers.b.counter(Counter.SENT_PKTS);
                peers.b.qp.postSend(SendWorkRequest.write(20 + round, peers.b.mr.sge(0, 8), peers.a.mr.address(),
                        peers.a.mr.rkey(), SIGNALED));
                assertTrue(peers.net.runUntil(() -> peers.b.counter(Counter.SENT_PKTS) == sent + 2, SECOND));
                assertFalse(holds(peers.b), "round " + round + ": the aged ACK followed b's WRITE");
                assertEquals(WcStatus.SUCCESS, completionOfA(peers));
                assertEquals(WcStatus.SUCCESS, peers.runUntilCompletions(peers.b, 1).get(0).status());
            }
        }
    }

    @Test
    void faultsLetTheHeldAckGoAndHoldNothing() throws Exception {
        try (Peers peers = peers()) {
            fabric.port(B).holding = true;
            writeToB(peers, 1);
            assertTrue(holds(peers.b));
            // A one-shot for requests, which b (answering) does not send: faults are on.
            ((FaultControl) peers.b.context).arm(OneShotFault.of(OneShotFault.Kind.DROP_NEXT_PACKET,
                    OneShotFault.Way.REQUESTER_TO_RESPONDER));
            peers.net.advance(Duration.ofNanos(1));
            assertFalse(holds(peers.b));
            assertEquals(1, peers.b.counter(Counter.SENT_PKTS));
            assertEquals(WcStatus.SUCCESS, completionOfA(peers));
            writeToB(peers, 2);
            assertFalse(holds(peers.b), "with faults no ACK is held");
            assertEquals(2, peers.b.counter(Counter.SENT_PKTS));
            assertEquals(WcStatus.SUCCESS, completionOfA(peers));
        }
    }

    @Test
    void aDestroyedQpsHeldAckLeaves() throws Exception {
        try (Peers peers = peers()) {
            fabric.port(B).holding = true;
            writeToB(peers, 1);
            assertTrue(holds(peers.b));
            peers.b.qp.close();
            assertFalse(holds(peers.b));
            assertEquals(WcStatus.SUCCESS, completionOfA(peers), "a got its ACK");
        }
    }

    @Test
    void aRefusedDatagramIsCountedAndNamedAndTheTimerResendsIt() throws Exception {
        try (Peers peers = peers()) {
            TurnFabric.Port a = fabric.port(A);
            a.failNext = 1;
            peers.writeFromA(1, 0, 8, SIGNALED); // straight from the send buffer
            assertEquals(WcStatus.SUCCESS, completionOfA(peers));
            assertEquals(1, peers.a.counter(Counter.SEND_ERR));
            assertEquals(1, peers.a.counter(Counter.COMPLETER_RETRY_ERR), "resent by the timer");

            List<PacketEvent> events = Collections.synchronizedList(new ArrayList<>());
            ((PacketObservable) peers.a.context).subscribe(events::add);
            a.failNext = 1;
            peers.writeFromA(2, 0, 8, SIGNALED); // through the copying path
            assertEquals(WcStatus.SUCCESS, completionOfA(peers));
            assertEquals(2, peers.a.counter(Counter.SEND_ERR));
            PacketEvent lost = events.get(0);
            assertEquals(PacketEvent.Direction.DROPPED, lost.direction());
            assertEquals("RC_RDMA_WRITE_ONLY", lost.opcode());
            assertTrue(lost.detail().startsWith("the network refused the datagram; RETH"), lost.detail());
            PacketEvent resent = events.stream().filter(e -> e.direction() == PacketEvent.Direction.SENT).findFirst()
                    .orElseThrow();
            assertTrue(resent.detail().startsWith("RETH"), resent.detail());
            assertEquals("127.0.0.1:4791", resent.source());
            assertEquals("127.0.0.2:4791", resent.destination());
        }
    }

    /** What a hears, as "OPCODE psn" (b has no listener: its new packets take the direct path). */
    private static List<String> heardBy(Peers.Side side) {
        List<String> lines = Collections.synchronizedList(new ArrayList<>());
        ((PacketObservable) side.context).subscribe(event -> {
            if (event.direction() == PacketEvent.Direction.RECEIVED) {
                lines.add(event.opcode() + " " + event.psn());
            }
        });
        return lines;
    }

    @Test
    void datagramsWaitingForRoomLeaveInOrderAheadOfNewOnes() throws Exception {
        try (Peers peers = peers()) {
            List<String> heard = heardBy(peers.a);
            TurnFabric.Port b = fabric.port(B);
            Duration aWhile = Duration.ofMillis(1); // far below a's retransmission timeout (67 ms)
            b.full = true;
            writeToB(peers, 1);
            b.holding = true; // a busy poller's turn: an ACK behind a waiting datagram waits with it, not held
            writeToB(peers, 2);
            assertFalse(holds(peers.b));
            b.holding = false;
            assertEquals(1, peers.b.counter(Counter.SEND_BLOCKED), "blocked once, however many wait");
            assertTrue(peers.b.soft().transportIfStarted().blocked());
            b.full = false; // room, but b has not heard of it yet
            writeToB(peers, 3);
            peers.net.advance(aWhile);
            assertEquals(List.of(), heard, "the newest waits behind the older ones");
            b.full = true;
            b.room(1); // room for one: the second fills the socket again and waits for more room
            peers.net.advance(aWhile);
            assertEquals(List.of("RC_ACKNOWLEDGE 0"), heard);
            assertTrue(peers.b.soft().transportIfStarted().blocked());
            b.room();
            peers.net.advance(aWhile);
            assertEquals(List.of("RC_ACKNOWLEDGE 0", "RC_ACKNOWLEDGE 1", "RC_ACKNOWLEDGE 2"), heard);
            assertFalse(peers.b.soft().transportIfStarted().blocked());
            assertEquals(3, peers.runUntilCompletions(peers.a, 3).size());
            assertEquals(1, peers.b.counter(Counter.SEND_BLOCKED), "one wait, though the socket filled again in it");
        }
    }

    @Test
    void atMost256DatagramsWaitForRoomAndTheNextIsLost() throws Exception {
        try (Peers peers = peers()) {
            List<PacketEvent> events = Collections.synchronizedList(new ArrayList<>());
            ((PacketObservable) peers.b.context).subscribe(events::add);
            TurnFabric.Port b = fabric.port(B);
            b.full = true;
            // 128 one-packet WRITEs (a's window), and their retransmissions: an ACK for each.
            for (int i = 0; i < 128; i++) {
                peers.writeFromA(i, 0, 8, SIGNALED);
            }
            assertTrue(peers.net.runUntil(() -> peers.b.counter(Counter.SEND_ERR) > 0, Duration.ofSeconds(10)));
            assertEquals(SoftTransport.BLOCKED_LIMIT + 1, peers.b.counter(Counter.SENT_PKTS),
                    "256 ACKs wait, the 257th is lost");
            PacketEvent lost = events.stream().filter(e -> e.direction() == PacketEvent.Direction.DROPPED)
                    .findFirst().orElseThrow();
            assertEquals("RC_ACKNOWLEDGE", lost.opcode());
            assertTrue(lost.detail().startsWith("256 datagrams already wait for room in the socket's send buffer"),
                    lost.detail());
            b.room();
            assertEquals(128, peers.runUntilCompletions(peers.a, 128).stream()
                    .filter(wc -> wc.status() == WcStatus.SUCCESS).count());
        }
    }

    @Test
    void atMost32QpsAcksAreHeldAndTheNextLeavesAtOnce() throws Exception {
        try (Peers peers = peers()) {
            Peers.Setup setup = new Peers.Setup();
            List<Peers.Side> senders = new ArrayList<>(List.of(peers.a));
            for (int i = 1; i <= AckCoalescer.LIMIT; i++) {
                Peers.Side a = another(peers.a, setup);
                Peers.Side b = another(peers.b, setup);
                Peers.connect(a, b, setup, 0, 0);
                Peers.connect(b, a, setup, 0, 0);
                senders.add(a);
            }
            fabric.port(B).holding = true;
            for (Peers.Side a : senders) {
                a.qp.postSend(SendWorkRequest.write(1, a.mr.sge(0, 8), peers.b.mr.address(), peers.b.mr.rkey(),
                        SIGNALED));
            }
            assertTrue(peers.net.runUntil(() -> peers.b.counter(Counter.RCVD_PKTS) == 33, SECOND));
            assertEquals(1, peers.b.counter(Counter.SENT_PKTS), "32 ACKs held, the 33rd QP's sent");
            fabric.port(B).holding = false;
            fabric.port(B).turn();
            assertEquals(33, peers.b.counter(Counter.SENT_PKTS));
            assertEquals(33, peers.runUntilCompletions(peers.a, 33).stream()
                    .filter(wc -> wc.status() == WcStatus.SUCCESS).count());
        }
    }

    /** Another RC QP on {@code side}'s device, PD, region and CQ. */
    private static Peers.Side another(Peers.Side side, Peers.Setup setup) throws Exception {
        Peers.Side more = new Peers.Side();
        more.context = side.context;
        more.pd = side.pd;
        more.mr = side.mr;
        more.cq = side.cq;
        more.qp = side.pd.createQp(new org.rdmalab.verbs.QpInitAttributes(setup.type, side.cq, side.cq,
                setup.capabilities, false));
        return more;
    }
}
