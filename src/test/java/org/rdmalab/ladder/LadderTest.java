package org.rdmalab.ladder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rdmalab.wire.Aeth;
import org.rdmalab.wire.Opcode;
import org.rdmalab.wire.Reth;

/** The ladder read from captures written here: pairs, messages, answers, retransmissions and their gaps. */
public class LadderTest {

    @TempDir
    Path dir;

    private static final Reth WRITE = new Reth(0x7f0000001000L, 0x1234, 3000);

    /** A WRITE of 3 packets, a NAK after a loss, a timeout, an RNR wait, a remote access error, a READ re-request. */
    public static Wire recovery() {
        Wire wire = new Wire();
        wire.request(Opcode.RC_RDMA_WRITE_FIRST, 1, false, WRITE, 1024)        // #1
                .request(Opcode.RC_RDMA_WRITE_MIDDLE, 2, false, null, 1024)    // #2 lost on the way
                .request(Opcode.RC_RDMA_WRITE_LAST, 3, true, null, 952)        // #3
                .response(Opcode.RC_ACKNOWLEDGE, 2, Aeth.nak(Aeth.NAK_PSN_SEQUENCE_ERROR, 0), 0) // #4
                .request(Opcode.RC_RDMA_WRITE_MIDDLE, 2, false, null, 1024)    // #5 resent
                .request(Opcode.RC_RDMA_WRITE_LAST, 3, true, null, 952)        // #6 resent
                .response(Opcode.RC_ACKNOWLEDGE, 3, Aeth.ack(1), 0)            // #7
                .request(Opcode.RC_RDMA_WRITE_ONLY, 4, true, new Reth(0x7f0000002000L, 0x1234, 8), 8) // #8 lost
                .after(67_000_000)
                .request(Opcode.RC_RDMA_WRITE_ONLY, 4, true, new Reth(0x7f0000002000L, 0x1234, 8), 8) // #9 timeout
                .response(Opcode.RC_ACKNOWLEDGE, 4, Aeth.ack(2), 0)            // #10
                .request(Opcode.RC_SEND_ONLY, 5, true, null, 10)               // #11
                .response(Opcode.RC_ACKNOWLEDGE, 5, Aeth.rnrNak(14, 2), 0)     // #12 RNR NAK 1.28 ms
                .after(1_280_000)
                .request(Opcode.RC_SEND_ONLY, 5, true, null, 10)               // #13 after the RNR wait
                .response(Opcode.RC_ACKNOWLEDGE, 5, Aeth.ack(3), 0)            // #14
                .request(Opcode.RC_RDMA_WRITE_ONLY, 6, true, new Reth(0x7f0000009000L, 0xbad, 8), 8) // #15
                .response(Opcode.RC_ACKNOWLEDGE, 6, Aeth.nak(Aeth.NAK_REMOTE_ACCESS_ERROR, 3), 0) // #16
                .request(Opcode.RC_RDMA_READ_REQUEST, 7, true, new Reth(0x7f0000003000L, 0x5678, 3000), 0) // #17
                .response(Opcode.RC_RDMA_READ_RESPONSE_FIRST, 7, Aeth.ack(4), 1024)  // #18; MIDDLE 8 lost
                .after(50_000_000)
                .request(Opcode.RC_RDMA_READ_REQUEST, 8, true, new Reth(0x7f0000003400L, 0x5678, 1976), 0) // #19
                .response(Opcode.RC_RDMA_READ_RESPONSE_FIRST, 8, Aeth.ack(4), 1024)  // #20
                .response(Opcode.RC_RDMA_READ_RESPONSE_LAST, 9, Aeth.ack(4), 952)    // #21
                .request(Opcode.RC_SEND_ONLY, 10, true, null, 4)               // #22
                .again(200)                                                     // #23 a network copy
                .response(Opcode.RC_ACKNOWLEDGE, 10, Aeth.ack(5), 0)           // #24
                .request(Opcode.RC_SEND_ONLY, 11, true, null, 4).corruptLast(14) // #25 ICRC bad
                .request(Opcode.RC_SEND_ONLY, 13, true, null, 4)               // #26
                .request(Opcode.RC_SEND_ONLY, 12, true, null, 4);              // #27 arrives after 13
        return wire;
    }

    private static Arrow arrow(Ladder ladder, long index) {
        return ladder.find(index);
    }

    @Test
    void aRecoveryReadFromPcapAndPcapngGivesTheSameLadder() throws Exception {
        Wire wire = recovery();
        Path pcap = dir.resolve("recovery.pcap");
        Path pcapng = dir.resolve("recovery.pcapng");
        wire.writePcap(pcap);
        wire.writePcapng(pcapng);
        Ladder fromPcap = CaptureLadder.read(pcap).ladder();
        Ladder fromPcapng = CaptureLadder.read(pcapng).ladder();
        assertEquals(27, fromPcap.size());
        List<String> pcapLines = LadderText.lines(fromPcap);
        List<String> pcapngLines = LadderText.lines(fromPcapng);
        // pcapng here has microsecond times and cooked frames: the same ladder, the times aside.
        assertEquals(pcapLines.stream().map(LadderTest::withoutTime).toList(),
                pcapngLines.stream().map(LadderTest::withoutTime).toList());
        assertEquals(fromPcap.summary(), fromPcapng.summary());
    }

    private static String withoutTime(String line) {
        return line.replaceFirst("^(#\\d+) +[0-9.]+ ", "$1 ").replaceAll("\\[([a-zA-Z -]+) [0-9.]+ (ms|s|\u00b5s)\\]", "[$1]");
    }

    @Test
    void pairsMessagesAndAnswers() throws Exception {
        Path pcap = dir.resolve("recovery.pcap");
        recovery().writePcap(pcap);
        Ladder ladder = CaptureLadder.read(pcap).ladder();

        assertEquals(1, ladder.pairs().size());
        QpPair pair = ladder.pairs().get(0);
        assertEquals("10.1.0.1", pair.hostA());
        assertEquals(Wire.QP_A, pair.qpA(), "learnt from the NAK sent to it");
        assertEquals(Wire.QP_B, pair.qpB());
        assertTrue(arrow(ladder, 1).fromA());
        assertFalse(arrow(ladder, 4).fromA());

        List<Message> messages = ladder.messages();
        assertEquals(List.of("WRITE", "WRITE", "SEND", "WRITE", "READ", "SEND", "SEND", "SEND", "SEND"),
                messages.stream().map(Message::operation).toList());
        Message write = messages.get(0);
        assertEquals(1, write.firstPsn());
        assertEquals(3, write.lastPsn());
        assertEquals(5, write.packets(), "3 sent, 2 resent");
        assertTrue(write.complete());
        assertTrue(write.inferred());
        assertEquals(7, write.answerIndex(), "the ACK of PSN 3 after the NAK");
        assertEquals(write, arrow(ladder, 4).message(), "the NAK of PSN 2 is the WRITE's");
        assertEquals(write, arrow(ladder, 6).message());

        Message badRkey = messages.get(3);
        assertEquals(16, badRkey.answerIndex());
        assertEquals(Aeth.nakSyndrome(Aeth.NAK_REMOTE_ACCESS_ERROR), badRkey.answerSyndrome());

        Message read = messages.get(4);
        assertEquals(7, read.firstPsn());
        assertEquals(9, read.lastPsn(), "its responses used PSNs 7 to 9");
        assertTrue(read.complete());
        assertEquals(21, read.answerIndex());
        assertEquals(read, arrow(ladder, 20).message());

        Summary summary = ladder.summary();
        assertEquals(9, summary.messages());
        assertEquals(Map.of("NAK PSN sequence error", 1, "NAK remote access error", 1, "RNR NAK", 1), summary.naks());
        assertEquals(3, summary.nakCount());
    }

    @Test
    void retransmissionsNameWhatTheyRepeatAndTheWaitBefore() throws Exception {
        Path pcap = dir.resolve("recovery.pcap");
        recovery().writePcap(pcap);
        Ladder ladder = CaptureLadder.read(pcap).ladder();

        // Go-back-N after the NAK: PSN 2 and 3 again, the first right after the NAK, the second at once.
        assertEquals(2, arrow(ladder, 5).repeats());
        assertEquals(3, arrow(ladder, 6).repeats());
        assertEquals(Gap.Kind.AFTER_NAK, arrow(ladder, 5).gap().kind());
        assertEquals(4, arrow(ladder, 5).gap().fromIndex());
        assertNull(arrow(ladder, 6).gap(), "the burst's next packet waited for nothing");

        Arrow timeout = arrow(ladder, 9);
        assertTrue(timeout.retransmission());
        assertEquals(8, timeout.repeats());
        assertEquals(Gap.Kind.RETRANSMIT_TIMEOUT, timeout.gap().kind());
        assertEquals(67_001_000, timeout.gap().durationNanos());

        Arrow rnr = arrow(ladder, 13);
        assertEquals(11, rnr.repeats());
        assertEquals(Gap.Kind.RNR_WAIT, rnr.gap().kind());
        assertEquals(12, rnr.gap().fromIndex());
        assertEquals(1_281_000, rnr.gap().durationNanos());

        Arrow reread = arrow(ladder, 19);
        assertTrue(reread.retransmission(), "a READ asking again for its missing responses");
        assertEquals(17, reread.repeats());
        assertEquals(Gap.Kind.READ_REREQUEST, reread.gap().kind());

        Arrow copy = arrow(ladder, 23);
        assertTrue(copy.duplicate());
        assertFalse(copy.retransmission(), "an identical copy 200 ns later is the network's");
        assertEquals(22, copy.repeats());

        assertFalse(arrow(ladder, 25).icrcOk());
        assertTrue(arrow(ladder, 26).icrcOk());
        assertTrue(arrow(ladder, 27).reordered());
        assertFalse(arrow(ladder, 27).retransmission());
        assertFalse(arrow(ladder, 26).reordered());

        for (Arrow each : ladder.arrows()) {
            if (!each.request()) {
                assertFalse(each.retransmission(), "an ACK or a response is never a retransmission: #" + each.index());
            }
        }
        Summary summary = ladder.summary();
        assertEquals(5, summary.retransmissions()); // #5 #6 #9 #13 #19 and none other
        assertEquals(1, summary.duplicates());
        assertEquals(1, summary.reordered());
        assertEquals(1, summary.icrcBad());
    }

    @Test
    void aTimeoutRightAfterTheOriginalIsStillARetransmission() throws Exception {
        // The same bytes again, but after a millisecond and one: the requester's, not the network's.
        Wire wire = new Wire().request(Opcode.RC_SEND_ONLY, 1, true, null, 4).again(Ladder.DUPLICATE_WINDOW_NANOS + 1)
                .request(Opcode.RC_SEND_ONLY, 2, true, null, 4).again(Ladder.DUPLICATE_WINDOW_NANOS);
        Path pcap = dir.resolve("edge.pcap");
        wire.writePcap(pcap);
        Ladder ladder = CaptureLadder.read(pcap).ladder();
        assertTrue(ladder.find(2).retransmission());
        assertFalse(ladder.find(2).duplicate());
        assertTrue(ladder.find(4).duplicate());
        assertFalse(ladder.find(4).retransmission());
    }

    @Test
    void anArrivalFromTheLabsOwnDeviceOnlyCompletesASendTheLadderHas() {
        Wire wire = new Wire().request(Opcode.RC_SEND_ONLY, 5, true, null, 4).request(Opcode.RC_SEND_ONLY, 6, true, null, 4);
        byte[] first = wire.packets.get(0).payload();
        byte[] second = wire.packets.get(1).payload();
        Ladder ladder = new Ladder(100);
        ladder.add(new WirePacket(10, "10.1.0.1:1", "10.1.0.2:4791", first, WirePacket.Seen.SENT, true, null, List.of()));
        Arrow arrived = ladder.addArrival(new WirePacket(25, "10.1.0.1:1", "10.1.0.2:4791", first,
                WirePacket.Seen.RECEIVED, true, null, List.of()));
        assertEquals(1, arrived.index());
        assertEquals(25, arrived.arrivalNanos());
        // PSN 6's send was never handed to the ladder: its arrival adds nothing.
        assertNull(ladder.addArrival(new WirePacket(30, "10.1.0.1:1", "10.1.0.2:4791", second,
                WirePacket.Seen.RECEIVED, true, null, List.of())));
        assertEquals(1, ladder.size());
        assertEquals(1, ladder.summary().packets());
        // The same report through add draws it, as a peer's packet is drawn.
        assertEquals(2, ladder.add(new WirePacket(30, "10.1.0.1:1", "10.1.0.2:4791", second,
                WirePacket.Seen.RECEIVED, true, null, List.of())).index());
        assertThrows(IllegalArgumentException.class, () -> ladder.addArrival(new WirePacket(40, "10.1.0.1:1",
                "10.1.0.2:4791", second, WirePacket.Seen.SENT, true, null, List.of())));
    }

    /**
     * A device stamps its sends from two threads, so the NAK that caused a quick resend can be
     * stamped after the resend. Live, the same bytes again within the window are a retransmission
     * unless the device says it made a copy; the capture's guess is for captures only.
     */
    @Test
    void liveRepeatsAreDuplicatesOnlyWhenTheDeviceSaysItCopiedThem() {
        Wire wire = new Wire().request(Opcode.RC_SEND_ONLY, 5, true, null, 4)
                .again(Ladder.DUPLICATE_WINDOW_NANOS / 4) // the resend, 250 us on
                .request(Opcode.RC_SEND_ONLY, 6, true, null, 4)
                .again(Ladder.DUPLICATE_WINDOW_NANOS / 4); // a copy the link made
        Ladder ladder = new Ladder(100);
        for (int i = 0; i < wire.packets.size(); i++) {
            Wire.Packet packet = wire.packets.get(i);
            List<String> faults = i == 3 ? List.of("dup") : List.of();
            ladder.add(new WirePacket(packet.nanos(), "10.1.0.1:1", "10.1.0.2:4791", packet.payload(),
                    WirePacket.Seen.SENT, true, null, faults));
        }
        Arrow resend = ladder.find(2);
        assertTrue(resend.retransmission(), "the requester's resend, though the bytes and the timing fit a copy");
        assertFalse(resend.duplicate());
        assertEquals(1, resend.repeats());
        Arrow copy = ladder.find(4);
        assertTrue(copy.duplicate(), "the device reported a dup fault");
        assertFalse(copy.retransmission());
        assertEquals(3, copy.repeats());
        assertEquals(1, ladder.summary().retransmissions());
        assertEquals(1, ladder.summary().duplicates());

        Ladder captured = new Ladder(100);
        for (Wire.Packet packet : wire.packets) {
            captured.add(new WirePacket(packet.nanos(), "10.1.0.1:1", "10.1.0.2:4791", packet.payload(),
                    WirePacket.Seen.CAPTURED, true, null, List.of()));
        }
        assertTrue(captured.find(2).duplicate(), "a capture has no fault record: the same bytes 250 us on look copied");
        assertTrue(captured.find(4).duplicate());
        assertEquals(2, captured.summary().duplicates());
        assertEquals(0, captured.summary().retransmissions());
    }

    /**
     * Go-back-N under random loss, simulated here: the capture is taken at the requester, so every
     * packet sent is in it, and a lost one never reaches the responder, which NAKs the first gap it
     * sees and ACKs each message's last packet. The ladder's counts agree with a count of repeated
     * PSNs and of NAK syndromes taken from the simulation itself.
     */
    @Test
    void lossCountsAgreeWithAnIndependentCount() throws Exception {
        for (long seed : new long[] {1, 2, 3, 4, 5}) {
            SplittableRandom random = new SplittableRandom(seed);
            Wire wire = new Wire();
            int messages = 40;
            int perMessage = 4;
            int last = messages * perMessage; // PSNs 0..last-1
            int next = 0; // next PSN the requester sends
            int expected = 0; // next PSN the responder accepts
            boolean nakSent = false;
            Set<Integer> sent = new HashSet<>();
            int repeats = 0;
            int naks = 0;
            int steps = 0;
            while (expected < last && steps++ < 100_000) {
                if (next >= last || next - expected >= 16) {
                    next = expected; // timeout: go back to the oldest unacknowledged PSN
                    wire.after(10_000_000);
                }
                int psn = next++;
                int inMessage = psn % perMessage;
                Opcode opcode = inMessage == 0 ? Opcode.RC_RDMA_WRITE_FIRST
                        : inMessage == perMessage - 1 ? Opcode.RC_RDMA_WRITE_LAST : Opcode.RC_RDMA_WRITE_MIDDLE;
                wire.request(opcode, psn, inMessage == perMessage - 1, inMessage == 0 ? WRITE : null, 256);
                if (!sent.add(psn)) {
                    repeats++;
                }
                if (random.nextDouble() < 0.1) {
                    continue; // lost
                }
                if (psn == expected) {
                    expected++;
                    nakSent = false;
                    if (inMessage == perMessage - 1) {
                        wire.response(Opcode.RC_ACKNOWLEDGE, psn, Aeth.ack(psn / perMessage + 1), 0);
                    }
                } else if (psn > expected && !nakSent) {
                    wire.response(Opcode.RC_ACKNOWLEDGE, expected, Aeth.nak(Aeth.NAK_PSN_SEQUENCE_ERROR, expected / perMessage), 0);
                    naks++;
                    nakSent = true;
                    next = expected; // go back at once
                }
            }
            Path pcap = dir.resolve("loss-" + seed + ".pcap");
            wire.writePcap(pcap);
            Summary summary = CaptureLadder.read(pcap).ladder().summary();
            assertTrue(repeats > 10, "seed " + seed + " lost too little to test: " + repeats);
            assertEquals(repeats, summary.retransmissions(), "seed " + seed);
            assertEquals(naks, summary.nakCount(), "seed " + seed);
            assertEquals(naks, summary.naks().get("NAK PSN sequence error"), "seed " + seed);
            assertEquals(messages, summary.messages(), "seed " + seed + ": a resent FIRST starts no new message");
        }
    }

    @Test
    void psnsWrapAt24Bits() throws Exception {
        Wire wire = new Wire().request(Opcode.RC_RDMA_WRITE_FIRST, 0xFFFFFE, false, WRITE, 1024)
                .request(Opcode.RC_RDMA_WRITE_MIDDLE, 0xFFFFFF, false, null, 1024)
                .request(Opcode.RC_RDMA_WRITE_LAST, 0, true, null, 952)
                .response(Opcode.RC_ACKNOWLEDGE, 0xFFFFFF, Aeth.nak(Aeth.NAK_PSN_SEQUENCE_ERROR, 0), 0)
                .request(Opcode.RC_RDMA_WRITE_MIDDLE, 0xFFFFFF, false, null, 1024)
                .request(Opcode.RC_RDMA_WRITE_LAST, 0, true, null, 952)
                .response(Opcode.RC_ACKNOWLEDGE, 0, Aeth.ack(1), 0);
        Path pcap = dir.resolve("wrap.pcap");
        wire.writePcap(pcap);
        Ladder ladder = CaptureLadder.read(pcap).ladder();
        assertFalse(ladder.find(3).retransmission(), "PSN 0 after 0xffffff is new");
        assertFalse(ladder.find(3).reordered());
        assertTrue(ladder.find(5).retransmission());
        assertTrue(ladder.find(6).retransmission());
        assertEquals(1, ladder.summary().messages());
        assertEquals(7, ladder.messages().get(0).answerIndex());
    }

    @Test
    void aBoundedLadderKeepsTheNewestArrows() throws Exception {
        Wire wire = new Wire();
        for (int psn = 0; psn < 50; psn++) {
            wire.request(Opcode.RC_SEND_ONLY, psn, true, null, 4).response(Opcode.RC_ACKNOWLEDGE, psn, Aeth.ack(psn + 1), 0);
        }
        Ladder ladder = new Ladder(10);
        for (Wire.Packet packet : wire.packets) {
            ladder.add(new WirePacket(packet.nanos(), packet.fromA() ? "10.1.0.1:1" : "10.1.0.2:1",
                    packet.fromA() ? "10.1.0.2:4791" : "10.1.0.1:4791", packet.payload(), WirePacket.Seen.CAPTURED, true,
                    null, List.of()));
        }
        assertEquals(10, ladder.size());
        assertEquals(91, ladder.firstIndex());
        assertNull(ladder.find(90));
        assertEquals(91, ladder.find(91).index());
        assertEquals(100, ladder.find(100).index());
        assertNull(ladder.find(101));
        assertTrue(ladder.messages().size() <= 10, "messages of forgotten arrows go too: " + ladder.messages().size());
        assertEquals(100, ladder.summary().packets(), "the counts keep every packet");
    }
}
