package org.rdmalab.ladder;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.rdmalab.verbs.WrOpcode;
import org.rdmalab.wire.Aeth;
import org.rdmalab.wire.Opcode;
import org.rdmalab.wire.Reth;

/**
 * Work requests tied to their packets and completions: each state and what moves it on (and what
 * does not), flushed and failed completions, PSN ranges across the 24-bit wrap, retransmissions, a
 * packet heard before its post, and the bounds.
 */
class WorkRequestTrackerTest {

    private static final String REQUESTER = "10.1.0.1";
    private static final String A = REQUESTER + ":49458";
    private static final String B = "10.1.0.2:53412";
    private static final Reth RETH = new Reth(0x7f0000001000L, 0x1234, 3000);

    private final Wire wire = new Wire();
    private final Ladder ladder = new Ladder(10_000);
    private WorkRequestTracker tracker = new WorkRequestTracker(100, 1_000);
    private int fed;
    private long lastIndex;

    /** Hands the wire's new packets to the ladder, then its new arrows to the tracker as one batch. */
    private void feed() {
        for (; fed < wire.packets.size(); fed++) {
            Wire.Packet packet = wire.packets.get(fed);
            ladder.add(WirePacket.captured(packet.nanos(), packet.fromA() ? A : B, packet.fromA() ? B : A,
                    packet.payload(), true));
        }
        List<Arrow> added = ladder.arrowsAfter(lastIndex);
        if (!added.isEmpty()) {
            lastIndex = added.get(added.size() - 1).index();
        }
        tracker.seen(added);
    }

    private WorkRequest post(long wrId, WrOpcode opcode, long length) {
        return tracker.posted("client", REQUESTER, 0x11, wrId, opcode, length, true);
    }

    private long[] indices(long... values) {
        return values;
    }

    @Test
    void aWriteGoesFromPostedThroughInFlightAndAcknowledgedToCompleted() {
        WorkRequest write = post(1, WrOpcode.RDMA_WRITE, 3000);
        assertEquals(WorkRequest.State.POSTED, write.state());
        assertEquals("", write.psnRange());
        assertNull(write.message());
        wire.request(Opcode.RC_RDMA_WRITE_FIRST, 1, false, RETH, 1024);      // #1
        feed();
        assertEquals(WorkRequest.State.IN_FLIGHT, write.state());
        assertEquals("1", write.psnRange());
        assertSame(write, write.message().workRequest());
        assertFalse(write.message().inferred());
        wire.request(Opcode.RC_RDMA_WRITE_MIDDLE, 2, false, null, 1024)     // #2
                .response(Opcode.RC_ACKNOWLEDGE, 2, Aeth.ack(0), 0);       // #3 an ACK before the last packet went out
        feed();
        assertEquals(WorkRequest.State.IN_FLIGHT, write.state(), "its last PSN is not sent yet");
        wire.request(Opcode.RC_RDMA_WRITE_LAST, 3, true, null, 952);       // #4
        feed();
        assertEquals("1..3", write.psnRange());
        wire.response(Opcode.RC_ACKNOWLEDGE, 2, Aeth.ack(0), 0);            // #5 one PSN short
        feed();
        assertEquals(WorkRequest.State.IN_FLIGHT, write.state(), "an ACK of PSN 2 leaves PSN 3 unacknowledged");
        wire.response(Opcode.RC_ACKNOWLEDGE, 3, Aeth.ack(1), 0);            // #6
        feed();
        assertEquals(WorkRequest.State.ACKNOWLEDGED, write.state());
        assertNull(write.status());
        assertTrue(tracker.completed("client", 0x12, 1, "IBV_WC_SUCCESS").isEmpty(), "another QP's completion is not its");
        assertTrue(tracker.completed("server", 0x11, 1, "IBV_WC_SUCCESS").isEmpty(), "nor another side's");
        assertTrue(tracker.completed("client", 0x11, 2, "IBV_WC_SUCCESS").isEmpty(), "nor another wr_id's");
        assertSame(write, tracker.completed("client", 0x11, 1, "IBV_WC_SUCCESS").orElseThrow());
        assertEquals(WorkRequest.State.COMPLETED, write.state());
        assertEquals("IBV_WC_SUCCESS", write.status());
        assertFalse(write.failed());
        assertTrue(tracker.completed("client", 0x11, 1, "IBV_WC_SUCCESS").isEmpty(), "one completion per request");
        assertArrayEquals(indices(1, 2, 3, 4, 5, 6), write.packets());
        assertEquals(6, write.packetsSeen());
    }

    @Test
    void aCompletionBeforeThePacketsReachTheLadderStaysCompleted() {
        WorkRequest write = post(4, WrOpcode.RDMA_WRITE, 8);
        tracker.completed("client", 0x11, 4, "IBV_WC_SUCCESS");
        assertEquals(WorkRequest.State.COMPLETED, write.state());
        wire.request(Opcode.RC_RDMA_WRITE_ONLY, 9, true, RETH, 8).response(Opcode.RC_ACKNOWLEDGE, 9, Aeth.ack(1), 0);
        feed();
        assertEquals(WorkRequest.State.COMPLETED, write.state(), "a state only moves forward");
        assertEquals("9", write.psnRange());
        assertArrayEquals(indices(1, 2), write.packets());
    }

    @Test
    void aCoalescedAckAcknowledgesEveryRequestUpToItsPsnAndNoFurther() {
        WorkRequest first = post(1, WrOpcode.RDMA_WRITE, 8);
        WorkRequest second = post(2, WrOpcode.SEND, 8);
        WorkRequest third = post(3, WrOpcode.RDMA_WRITE, 8);
        wire.request(Opcode.RC_RDMA_WRITE_ONLY, 10, false, RETH, 8)        // #1
                .request(Opcode.RC_SEND_ONLY, 11, true, null, 8)           // #2
                .request(Opcode.RC_RDMA_WRITE_ONLY, 12, true, RETH, 8)     // #3
                .response(Opcode.RC_ACKNOWLEDGE, 11, Aeth.ack(2), 0);      // #4
        feed();
        assertEquals(WorkRequest.State.ACKNOWLEDGED, first.state());
        assertEquals(WorkRequest.State.ACKNOWLEDGED, second.state());
        assertEquals(WorkRequest.State.IN_FLIGHT, third.state(), "PSN 12 lies past the ACK's 11");
        assertArrayEquals(indices(1, 4), first.packets(), "the coalesced ACK answered it too");
        assertArrayEquals(indices(2, 4), second.packets());
        assertArrayEquals(indices(3), third.packets());
        assertEquals(List.of(first, second, third), tracker.requests());
    }

    @Test
    void aNakDoesNotAcknowledgeAndTheErrorCompletionShowsItsStatus() {
        WorkRequest write = post(7, WrOpcode.RDMA_WRITE, 11);
        WorkRequest read = post(8, WrOpcode.RDMA_READ, 11);
        wire.request(Opcode.RC_RDMA_WRITE_ONLY, 1, true, new Reth(0x7f0000001000L, 0x1334, 11), 11)    // #1
                .response(Opcode.RC_ACKNOWLEDGE, 1, Aeth.nak(Aeth.NAK_REMOTE_ACCESS_ERROR, 0), 0);   // #2
        feed();
        assertEquals(WorkRequest.State.IN_FLIGHT, write.state(), "a NAK acknowledges nothing");
        assertEquals(WorkRequest.State.POSTED, read.state());
        tracker.completed("client", 0x11, 7, "IBV_WC_REM_ACCESS_ERR");
        tracker.completed("client", 0x11, 8, "IBV_WC_WR_FLUSH_ERR");
        assertEquals(WorkRequest.State.COMPLETED, write.state());
        assertEquals("IBV_WC_REM_ACCESS_ERR", write.status());
        assertTrue(write.failed());
        assertEquals(WorkRequest.State.FLUSHED, read.state());
        assertEquals("IBV_WC_WR_FLUSH_ERR", read.status());
        assertTrue(read.failed());
        assertEquals("", read.psnRange(), "the flushed READ never went out");
        assertArrayEquals(indices(1, 2), write.packets(), "the WRITE and its NAK");
        assertEquals(write, tracker.ofPacket(2).orElseThrow());
        // The QP is brought back; the next WRITE's message is not the flushed READ's.
        WorkRequest again = post(9, WrOpcode.RDMA_WRITE, 11);
        wire.request(Opcode.RC_RDMA_WRITE_ONLY, 2, true, RETH, 11).response(Opcode.RC_ACKNOWLEDGE, 2, Aeth.ack(1), 0);
        feed();
        assertEquals("2", again.psnRange());
        assertEquals(WorkRequest.State.ACKNOWLEDGED, again.state());
        assertEquals(WorkRequest.State.COMPLETED, write.state(), "a failed request is never acknowledged");
        assertNull(read.message());
    }

    @Test
    void aFlushedRequestThatWentOutIsTiedToItsPackets() {
        WorkRequest read = post(8, WrOpcode.RDMA_READ, 11);
        tracker.completed("client", 0x11, 8, "IBV_WC_WR_FLUSH_ERR");
        wire.request(Opcode.RC_RDMA_READ_REQUEST, 2, true, RETH, 0);
        feed();
        assertEquals("2", read.psnRange());
        assertEquals(WorkRequest.State.FLUSHED, read.state());
        assertArrayEquals(indices(1), read.packets());
    }

    @Test
    void aResetDiscardsWhatTheQpHadNotSent() {
        WorkRequest lost = post(1, WrOpcode.RDMA_WRITE, 8);
        tracker.reset("server");
        tracker.reset("client");
        WorkRequest next = post(2, WrOpcode.RDMA_WRITE, 8);
        wire.request(Opcode.RC_RDMA_WRITE_ONLY, 0, true, RETH, 8);
        feed();
        assertNull(lost.message());
        assertEquals(WorkRequest.State.POSTED, lost.state());
        assertEquals(WorkRequest.State.IN_FLIGHT, next.state());
    }

    @Test
    void aReadIsAcknowledgedByItsLastResponseAndItsRangeRunsToIt() {
        WorkRequest read = post(2, WrOpcode.RDMA_READ, 2000);
        wire.request(Opcode.RC_RDMA_READ_REQUEST, 7, true, RETH, 0)
                .response(Opcode.RC_RDMA_READ_RESPONSE_FIRST, 7, Aeth.ack(0), 1024);
        feed();
        assertEquals(WorkRequest.State.IN_FLIGHT, read.state(), "one response of two");
        assertEquals("7", read.psnRange());
        wire.response(Opcode.RC_RDMA_READ_RESPONSE_LAST, 8, Aeth.ack(1), 976);
        feed();
        assertEquals(WorkRequest.State.ACKNOWLEDGED, read.state());
        assertEquals("7..8", read.psnRange());
        assertArrayEquals(indices(1, 2, 3), read.packets());
    }

    @Test
    void anRnrNakLeavesASendInFlightUntilItsAck() {
        WorkRequest send = post(5, WrOpcode.SEND, 8);
        wire.request(Opcode.RC_SEND_ONLY, 3, true, null, 8)                  // #1
                .response(Opcode.RC_ACKNOWLEDGE, 3, Aeth.rnrNak(14, 0), 0);  // #2
        feed();
        assertEquals(WorkRequest.State.IN_FLIGHT, send.state(), "an RNR NAK acknowledges nothing");
        wire.after(1_280_000).request(Opcode.RC_SEND_ONLY, 3, true, null, 8)  // #3
                .response(Opcode.RC_ACKNOWLEDGE, 3, Aeth.ack(1), 0);          // #4
        feed();
        assertEquals(WorkRequest.State.ACKNOWLEDGED, send.state());
        assertEquals(Gap.Kind.RNR_WAIT, send.resent().get(0).gap().kind());
        assertArrayEquals(indices(1, 2, 3, 4), send.packets());
    }

    @Test
    void psnRangesAndAcknowledgementsCrossThe24BitWrap() {
        WorkRequest write = post(1, WrOpcode.RDMA_WRITE, 3000);
        wire.request(Opcode.RC_RDMA_WRITE_FIRST, 0xFFFFFF, false, RETH, 1024)
                .request(Opcode.RC_RDMA_WRITE_MIDDLE, 0, false, null, 1024)
                .request(Opcode.RC_RDMA_WRITE_LAST, 1, true, null, 952)
                .response(Opcode.RC_ACKNOWLEDGE, 0xFFFFFF, Aeth.ack(0), 0)
                .response(Opcode.RC_ACKNOWLEDGE, 0, Aeth.ack(0), 0);
        feed();
        assertEquals("16777215..1", write.psnRange());
        assertEquals(WorkRequest.State.IN_FLIGHT, write.state(), "PSN 0 comes before PSN 1 across the wrap");
        wire.response(Opcode.RC_ACKNOWLEDGE, 1, Aeth.ack(1), 0);
        feed();
        assertEquals(WorkRequest.State.ACKNOWLEDGED, write.state());
        assertEquals(6, write.packets().length);
    }

    @Test
    void retransmissionsAreItsPacketsAndSayWhyTheyWentOutAgain() {
        WorkRequest write = post(1, WrOpcode.RDMA_WRITE, 3000);
        WorkRequest later = post(2, WrOpcode.RDMA_WRITE, 8);
        wire.request(Opcode.RC_RDMA_WRITE_FIRST, 1, false, RETH, 1024)        // #1
                .request(Opcode.RC_RDMA_WRITE_MIDDLE, 2, false, null, 1024)    // #2 lost
                .request(Opcode.RC_RDMA_WRITE_LAST, 3, true, null, 952)        // #3
                .response(Opcode.RC_ACKNOWLEDGE, 2, Aeth.nak(Aeth.NAK_PSN_SEQUENCE_ERROR, 0), 0) // #4
                .request(Opcode.RC_RDMA_WRITE_MIDDLE, 2, false, null, 1024)    // #5 resent
                .request(Opcode.RC_RDMA_WRITE_LAST, 3, true, null, 952)        // #6 resent
                .response(Opcode.RC_ACKNOWLEDGE, 3, Aeth.ack(1), 0)            // #7
                .request(Opcode.RC_RDMA_WRITE_ONLY, 4, true, RETH, 8)          // #8 lost
                .after(67_000_000)
                .request(Opcode.RC_RDMA_WRITE_ONLY, 4, true, RETH, 8)          // #9 after the timeout
                .response(Opcode.RC_ACKNOWLEDGE, 4, Aeth.ack(2), 0);           // #10
        feed();
        assertArrayEquals(indices(1, 2, 3, 4, 5, 6, 7), write.packets(), "its NAK, its resent PSNs and its ACK");
        assertEquals(List.of(2, 3), write.resent().stream().map(WorkRequest.Resent::psn).toList());
        assertEquals(Gap.Kind.AFTER_NAK, write.resent().get(0).gap().kind());
        assertNull(write.resent().get(1).gap(), "the rest of the go-back-N burst");
        assertArrayEquals(indices(8, 9, 10), later.packets());
        assertEquals(1, later.resent().size());
        assertEquals(Gap.Kind.RETRANSMIT_TIMEOUT, later.resent().get(0).gap().kind());
        assertEquals(9, later.resent().get(0).index());
        assertEquals(WorkRequest.State.ACKNOWLEDGED, write.state());
        assertEquals(WorkRequest.State.ACKNOWLEDGED, later.state());
        assertEquals(later, tracker.ofPacket(9).orElseThrow());
        assertTrue(tracker.ofPacket(11).isEmpty());
    }

    @Test
    void aRequestKeepsItsFirstRetransmissionsAndCountsThoseAfter() {
        WorkRequest kept = post(1, WrOpcode.RDMA_WRITE, 8);
        wire.request(Opcode.RC_RDMA_WRITE_ONLY, 1, true, RETH, 8);
        for (int again = 0; again < WorkRequest.RESENT_KEPT; again++) {
            wire.after(67_000_000).request(Opcode.RC_RDMA_WRITE_ONLY, 1, true, RETH, 8);
        }
        wire.response(Opcode.RC_ACKNOWLEDGE, 1, Aeth.ack(1), 0);
        feed();
        assertEquals(WorkRequest.RESENT_KEPT, kept.resent().size(), "exactly as many as it keeps");
        assertEquals(0, kept.resentForgotten());

        WorkRequest over = post(2, WrOpcode.RDMA_WRITE, 8);
        wire.request(Opcode.RC_RDMA_WRITE_ONLY, 2, true, RETH, 8);
        for (int again = 0; again < WorkRequest.RESENT_KEPT + 1; again++) {
            wire.after(67_000_000).request(Opcode.RC_RDMA_WRITE_ONLY, 2, true, RETH, 8);
        }
        wire.response(Opcode.RC_ACKNOWLEDGE, 2, Aeth.ack(2), 0);
        feed();
        assertEquals(WorkRequest.RESENT_KEPT, over.resent().size(), "one more than it keeps: the first ones kept");
        assertEquals(1, over.resentForgotten(), "and the last one counted");
        assertEquals(WorkRequest.State.ACKNOWLEDGED, over.state());
    }

    @Test
    void aMessageSeenBeforeItsPostIsClaimedWithinAFewBatchesOnly() {
        wire.request(Opcode.RC_RDMA_WRITE_ONLY, 1, true, RETH, 8).response(Opcode.RC_ACKNOWLEDGE, 1, Aeth.ack(1), 0);
        feed();
        WorkRequest write = post(1, WrOpcode.RDMA_WRITE, 8);
        assertEquals(WorkRequest.State.ACKNOWLEDGED, write.state(), "it takes what its message saw");
        assertArrayEquals(indices(1, 2), write.packets());
        assertSame(write, write.message().workRequest());
        // A message no post claims stays claimable for a few batches, then is inferred.
        wire.request(Opcode.RC_SEND_ONLY, 2, true, null, 8);
        feed();
        for (int batch = 1; batch < WorkRequestTracker.UNCLAIMED_BATCHES; batch++) {
            feed();
        }
        WorkRequest send = tracker.posted("client", REQUESTER, 0x11, 3, WrOpcode.SEND, 8, true);
        assertEquals("2", send.psnRange(), "still within the batches a message waits");
        wire.request(Opcode.RC_SEND_ONLY, 3, true, null, 8);
        feed();
        for (int batch = 0; batch < WorkRequestTracker.UNCLAIMED_BATCHES; batch++) {
            feed();
        }
        WorkRequest late = post(4, WrOpcode.SEND, 8);
        assertEquals(WorkRequest.State.POSTED, late.state(), "too late: that message is inferred");
        assertTrue(ladder.messages().get(2).inferred());
    }

    @Test
    void aMessageOfAnotherOpcodeIsNotTheRequests() {
        WorkRequest send = post(1, WrOpcode.SEND, 8);
        wire.request(Opcode.RC_RDMA_WRITE_ONLY, 1, true, RETH, 8);
        feed();
        assertEquals(WorkRequest.State.POSTED, send.state());
        assertEquals(0, send.packets().length);
        wire.request(Opcode.RC_SEND_ONLY, 2, true, null, 8);
        feed();
        assertEquals("2", send.psnRange());
    }

    @Test
    void anotherHostsMessagesAreNotThisSidesRequests() {
        WorkRequest write = tracker.posted("server", "10.1.0.2", 0x12, 1, WrOpcode.RDMA_WRITE, 8, true);
        wire.request(Opcode.RC_RDMA_WRITE_ONLY, 1, true, RETH, 8);
        feed();
        assertEquals(WorkRequest.State.POSTED, write.state());
    }

    @Test
    void theTrackerKeepsItsNewestRequestsAndEachItsNewestPackets() {
        tracker = new WorkRequestTracker(2, 4);
        WorkRequest first = post(1, WrOpcode.RDMA_WRITE, 8);
        WorkRequest second = post(2, WrOpcode.RDMA_WRITE, 6000);
        assertEquals(List.of(first, second), tracker.requests());
        WorkRequest third = post(3, WrOpcode.RDMA_WRITE, 8);
        assertEquals(List.of(second, third), tracker.requests());
        assertTrue(tracker.completed("client", 0x11, 1, "IBV_WC_SUCCESS").isEmpty(), "the first was let go");
        wire.request(Opcode.RC_RDMA_WRITE_FIRST, 1, false, RETH, 1024);
        for (int psn = 2; psn <= 5; psn++) {
            wire.request(Opcode.RC_RDMA_WRITE_MIDDLE, psn, false, null, 1024);
        }
        feed();
        assertEquals("1..5", second.psnRange(), "the first was let go before its message: the second carries it");
        assertArrayEquals(indices(4, 5), second.packets(), "over 4 indices: the newest half kept");
        assertEquals(5, second.packetsSeen());
        assertFalse(second.hasPacket(1));
        assertTrue(second.hasPacket(5));
        assertThrows(IllegalArgumentException.class, () -> new WorkRequestTracker(0, 4));
        assertThrows(IllegalArgumentException.class, () -> new WorkRequestTracker(1, 1));
    }
}
