package org.rdmalab.softroce;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.rdmalab.softroce.net.Fabric;
import org.rdmalab.verbs.QpState;
import org.rdmalab.verbs.SendFlag;
import org.rdmalab.verbs.SendWorkRequest;
import org.rdmalab.verbs.WorkCompletion;
import org.rdmalab.verbs.spi.DeviceOptions;
import org.rdmalab.wire.Aeth;
import org.rdmalab.wire.AtomicAckEth;
import org.rdmalab.wire.Opcode;
import org.rdmalab.wire.RocePacket;
import org.rdmalab.wire.RocePacketEncoder;

/**
 * The completer's handling of each response, as rxe's {@code rxe_comp.c} does it ({@code check_psn},
 * {@code check_ack}, {@code do_read}, {@code do_atomic}), with a's requests kept from b and the
 * responses injected: READ responses in order, past a gap, again, beyond what was sent, with a
 * wrong length, opcode or AETH; atomic ACKs for the right and the wrong work request; implicit
 * acknowledgement of the requests before a response; and an ACK past a READ whose response was
 * lost, which asks for the READ again.
 */
class CompleterResponsesTest {

    private static final int A = Fabric.toInt(DeviceOptions.parseAddress("127.0.0.1"));
    private static final int B = Fabric.toInt(DeviceOptions.parseAddress("127.0.0.2"));
    private static final int SIGNALED = SendFlag.SIGNALED.value();
    private static final int MTU = 1024;

    /** a's requests, decoded; none reaches b. */
    private static List<RocePacket> keepFromB(Peers peers) {
        List<RocePacket> requests = new ArrayList<>();
        peers.net.intercept((src, dst, datagram) -> {
            if (src == A) {
                requests.add(SoftRoceTransportTest.decode(datagram));
                return 0;
            }
            return 1;
        });
        return requests;
    }

    private static byte[] response(Peers peers, Opcode op, int psn, int syndrome, int payload, int fill) {
        ByteBuffer out = ByteBuffer.allocate(payload + 128);
        byte[] data = new byte[payload];
        Arrays.fill(data, (byte) fill);
        int length = RocePacketEncoder.encodeResponse(out, op, peers.a.qp.qpNum(), psn, syndrome, 0,
                payload == 0 ? null : data, 0, payload);
        return SoftRoceVerbsTest.resign(Arrays.copyOf(out.array(), length + 4), B, A);
    }

    private static byte[] atomicAck(Peers peers, int psn, int syndrome, long original) {
        ByteBuffer out = ByteBuffer.allocate(128);
        int length = RocePacketEncoder.encode(out, Opcode.RC_ATOMIC_ACKNOWLEDGE, peers.a.qp.qpNum(), psn, false, false,
                null, new Aeth(syndrome, 0), null, new AtomicAckEth(original), 0, null, 0, 0);
        return SoftRoceVerbsTest.resign(Arrays.copyOf(out.array(), length + 4), B, A);
    }

    private static void deliver(Peers peers, byte[]... datagrams) {
        for (byte[] datagram : datagrams) {
            peers.net.inject(B, 4791, A, 4791, datagram);
        }
        peers.net.advance(Duration.ofMillis(1));
    }

    private static long unexpected(Peers peers) {
        return peers.a.counter(Counter.RCVD_UNEXPECTED_RESPONSE);
    }

    private static String completions(Peers peers) throws Exception {
        return Peers.drain(peers.a).stream().map(w -> w.wrId() + " " + w.status()).toList() + " " + peers.a.qp.state();
    }

    @Test
    void readResponsesInOrderFillTheReadAndOthersAreDroppedAndCounted() throws Exception {
        try (Peers peers = Peers.simulated()) {
            keepFromB(peers);
            peers.readIntoA(1, 0, 3 * MTU, SIGNALED);
            int ack = Aeth.ACK_SYNDROME;
            deliver(peers, response(peers, Opcode.RC_RDMA_READ_RESPONSE_MIDDLE, 1, 0, MTU, 2));
            assertEquals(0, unexpected(peers), "past a gap: dropped, not counted (the timer asks again)");
            deliver(peers, response(peers, Opcode.RC_RDMA_READ_RESPONSE_FIRST, 0, ack, MTU, 1));
            deliver(peers, response(peers, Opcode.RC_RDMA_READ_RESPONSE_FIRST, 0, ack, MTU, 9));
            assertEquals(1, unexpected(peers), "again: counted");
            deliver(peers, response(peers, Opcode.RC_RDMA_READ_RESPONSE_MIDDLE, 1, 0, MTU - 1, 9));
            assertEquals(2, unexpected(peers), "one byte short");
            deliver(peers, response(peers, Opcode.RC_RDMA_READ_RESPONSE_LAST, 3, ack, MTU, 9));
            assertEquals(3, unexpected(peers), "beyond the last PSN sent");
            assertEquals("[] RTS", completions(peers));
            deliver(peers, response(peers, Opcode.RC_RDMA_READ_RESPONSE_MIDDLE, 1, 0, MTU, 2),
                    response(peers, Opcode.RC_RDMA_READ_RESPONSE_LAST, 2, ack, MTU, 3));
            assertEquals("[1 SUCCESS] RTS", completions(peers));
            byte[] expected = new byte[3 * MTU];
            Arrays.fill(expected, 0, MTU, (byte) 1);
            Arrays.fill(expected, MTU, 2 * MTU, (byte) 2);
            Arrays.fill(expected, 2 * MTU, 3 * MTU, (byte) 3);
            assertArrayEquals(expected, peers.a.mr.read(0, 3 * MTU));
            assertEquals(3, unexpected(peers));
            deliver(peers, response(peers, Opcode.RC_RDMA_READ_RESPONSE_LAST, 2, ack, MTU, 3));
            assertEquals(4, unexpected(peers), "nothing outstanding any more");
        }
    }

    @Test
    void aReadResponseWithTheWrongOpcodeOrANakEndsTheReadWithoutAStatusOfItsOwn() throws Exception {
        record Case(String what, Opcode op, int syndrome) {
        }
        for (Case c : List.of(new Case("MIDDLE where FIRST belongs", Opcode.RC_RDMA_READ_RESPONSE_MIDDLE, 0),
                new Case("LAST where FIRST belongs", Opcode.RC_RDMA_READ_RESPONSE_LAST, Aeth.ACK_SYNDROME),
                new Case("ONLY where FIRST belongs", Opcode.RC_RDMA_READ_RESPONSE_ONLY, Aeth.ACK_SYNDROME),
                new Case("FIRST with a NAK", Opcode.RC_RDMA_READ_RESPONSE_FIRST, Aeth.nakSyndrome(1)),
                new Case("FIRST with an RNR NAK", Opcode.RC_RDMA_READ_RESPONSE_FIRST, Aeth.rnrNakSyndrome(3)))) {
            try (Peers peers = Peers.simulated()) {
                keepFromB(peers);
                peers.readIntoA(1, 0, 2 * MTU, SIGNALED);
                peers.writeFromA(2, 0, 8, SIGNALED);
                deliver(peers, response(peers, c.op(), 0, c.syndrome(), MTU, 1));
                assertEquals("[1 SUCCESS, 2 WR_FLUSH_ERR] ERR", completions(peers), c.what());
            }
        }
        try (Peers peers = Peers.simulated()) {
            keepFromB(peers);
            peers.readIntoA(1, 0, 8, SIGNALED);
            deliver(peers, response(peers, Opcode.RC_RDMA_READ_RESPONSE_FIRST, 0, Aeth.ACK_SYNDROME, 8, 1));
            assertEquals("[1 SUCCESS] ERR", completions(peers), "a FIRST for a one-packet READ");
        }
    }

    @Test
    void anEmptyReadTakesAnEmptyResponseOnly() throws Exception {
        try (Peers peers = Peers.simulated()) {
            keepFromB(peers);
            peers.readIntoA(1, 0, 0, SIGNALED);
            deliver(peers, response(peers, Opcode.RC_RDMA_READ_RESPONSE_ONLY, 0, Aeth.ACK_SYNDROME, 1, 1));
            assertEquals(1, unexpected(peers));
            assertEquals("[] RTS", completions(peers));
            deliver(peers, response(peers, Opcode.RC_RDMA_READ_RESPONSE_ONLY, 0, Aeth.ACK_SYNDROME, 0, 0));
            assertEquals("[1 SUCCESS] RTS", completions(peers));
        }
    }

    @Test
    void aReadResponseForAnotherKindOfRequestIsDroppedAndCounted() throws Exception {
        try (Peers peers = Peers.simulated()) {
            keepFromB(peers);
            peers.a.qp.postSend(SendWorkRequest.fetchAdd(1, peers.a.mr.sge(0, 8), peers.b.mr.address(),
                    peers.b.mr.rkey(), 1, SIGNALED));
            deliver(peers, response(peers, Opcode.RC_RDMA_READ_RESPONSE_ONLY, 0, Aeth.ACK_SYNDROME, 8, 1));
            assertEquals(1, unexpected(peers), "a READ response for an atomic");
            peers.readIntoA(2, 8, 8, SIGNALED);
            deliver(peers, atomicAck(peers, 1, Aeth.ACK_SYNDROME, 5));
            assertEquals(2, unexpected(peers), "an atomic ACK for a READ");
            deliver(peers, atomicAck(peers, 0, Aeth.ACK_SYNDROME, 0x1122334455667788L));
            assertArrayEquals(new byte[] {(byte) 0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11}, peers.a.mr.read(0, 8),
                    "the original value in host (little-endian) order");
            assertEquals("[1 SUCCESS] RTS", completions(peers));
            deliver(peers, atomicAck(peers, 0, Aeth.ACK_SYNDROME, 6));
            assertEquals(3, unexpected(peers), "the atomic again, once done");
            assertArrayEquals(new byte[] {(byte) 0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11}, peers.a.mr.read(0, 8));
        }
    }

    @Test
    void anAtomicAckWithANakEndsTheAtomicWithoutAStatusOfItsOwn() throws Exception {
        try (Peers peers = Peers.simulated()) {
            keepFromB(peers);
            peers.a.qp.postSend(SendWorkRequest.compareSwap(1, peers.a.mr.sge(0, 8), peers.b.mr.address(),
                    peers.b.mr.rkey(), 0, 1, SIGNALED));
            peers.a.qp.postSend(SendWorkRequest.send(2, peers.a.mr.sge(8, 8), SIGNALED));
            deliver(peers, atomicAck(peers, 0, Aeth.nakSyndrome(2), 5));
            assertEquals("[1 SUCCESS, 2 WR_FLUSH_ERR] ERR", completions(peers));
            assertArrayEquals(new byte[8], peers.a.mr.read(0, 8), "no value written back");
        }
    }

    @Test
    void aResponseCompletesTheSendsAndWritesBeforeIt() throws Exception {
        try (Peers peers = Peers.simulated()) {
            keepFromB(peers);
            peers.writeFromA(1, 0, 2 * MTU, SIGNALED);
            peers.writeFromA(2, 0, 8, 0);
            peers.readIntoA(3, 4096, 8, SIGNALED);
            peers.a.qp.postSend(SendWorkRequest.fetchAdd(4, peers.a.mr.sge(8192, 8), peers.b.mr.address(),
                    peers.b.mr.rkey(), 1, SIGNALED));
            deliver(peers, response(peers, Opcode.RC_RDMA_READ_RESPONSE_ONLY, 3, Aeth.ACK_SYNDROME, 8, 4));
            assertEquals("[1 SUCCESS, 3 SUCCESS] RTS", completions(peers), "WRITEs at PSNs 0..2, the READ at 3");
            deliver(peers, atomicAck(peers, 4, Aeth.ACK_SYNDROME, 9));
            assertEquals("[4 SUCCESS] RTS", completions(peers));
        }
    }

    @Test
    void anAckPastAReadWhoseResponseWasLostAsksForTheReadAgain() throws Exception {
        try (Peers peers = Peers.simulated()) {
            List<RocePacket> requests = keepFromB(peers);
            peers.writeFromA(1, 0, 8, SIGNALED);
            peers.readIntoA(2, 4096, 2 * MTU, SIGNALED);
            peers.writeFromA(3, 0, 8, SIGNALED);
            peers.net.advance(Duration.ofMillis(1));
            requests.clear();
            long retries = peers.a.counter(Counter.COMPLETER_RETRY_ERR);
            deliver(peers, response(peers, Opcode.RC_ACKNOWLEDGE, 3, Aeth.ACK_SYNDROME, 0, 0));
            assertEquals("[1 SUCCESS] RTS", completions(peers), "the WRITE before the READ");
            assertEquals(retries + 1, peers.a.counter(Counter.COMPLETER_RETRY_ERR));
            assertEquals(Opcode.RC_RDMA_READ_REQUEST, requests.get(0).opcode(), "the READ again, from its first PSN");
            assertEquals(1, requests.get(0).psn());
            requests.clear();
            deliver(peers, response(peers, Opcode.RC_ACKNOWLEDGE, 3, Aeth.ACK_SYNDROME, 0, 0));
            assertEquals(retries + 1, peers.a.counter(Counter.COMPLETER_RETRY_ERR), "not again for the same gap");
            // Half the READ arrives; the next ACK past it asks for the rest only.
            deliver(peers, response(peers, Opcode.RC_RDMA_READ_RESPONSE_FIRST, 1, Aeth.ACK_SYNDROME, MTU, 5));
            requests.clear();
            deliver(peers, response(peers, Opcode.RC_ACKNOWLEDGE, 3, Aeth.ACK_SYNDROME, 0, 0));
            assertEquals(retries + 2, peers.a.counter(Counter.COMPLETER_RETRY_ERR));
            RocePacket rest = requests.get(0);
            assertEquals(Opcode.RC_RDMA_READ_REQUEST, rest.opcode());
            assertEquals(2, rest.psn());
            assertEquals(MTU, rest.rethDmaLength(), "the second half");
            assertEquals(peers.b.mr.address() + MTU, rest.rethVirtualAddress());
            deliver(peers, response(peers, Opcode.RC_RDMA_READ_RESPONSE_LAST, 2, Aeth.ACK_SYNDROME, MTU, 6),
                    response(peers, Opcode.RC_ACKNOWLEDGE, 3, Aeth.ACK_SYNDROME, 0, 0));
            assertEquals("[2 SUCCESS, 3 SUCCESS] RTS", completions(peers));
            assertEquals(QpState.RTS, peers.a.qp.state());
        }
    }

    @Test
    void aSequenceNakCountsOnlyWhenItAcknowledgesSomethingNewAndResendsFromItsPsn() throws Exception {
        try (Peers peers = Peers.simulated()) {
            List<RocePacket> requests = keepFromB(peers);
            for (int i = 1; i <= 3; i++) {
                peers.writeFromA(i, 0, 8, SIGNALED);
            }
            peers.net.advance(Duration.ofMillis(1));
            requests.clear();
            int sequence = Aeth.nakSyndrome(Aeth.NAK_PSN_SEQUENCE_ERROR);
            deliver(peers, response(peers, Opcode.RC_ACKNOWLEDGE, 0, sequence, 0, 0));
            assertEquals(0, peers.a.counter(Counter.RCVD_SEQ_ERR), "it acknowledges nothing new");
            assertEquals(List.of(0, 1, 2), requests.stream().map(RocePacket::psn).toList(), "go back to PSN 0");
            requests.clear();
            deliver(peers, response(peers, Opcode.RC_ACKNOWLEDGE, 2, sequence, 0, 0));
            assertEquals(1, peers.a.counter(Counter.RCVD_SEQ_ERR));
            assertEquals(List.of(2), requests.stream().map(RocePacket::psn).toList(), "go back to PSN 2");
            assertEquals("[1 SUCCESS, 2 SUCCESS] RTS", completions(peers));
            List<WorkCompletion> none = Peers.drain(peers.a);
            assertEquals(List.of(), none);
        }
    }

    @Test
    void aSequenceNakDuringAnRnrWaitDoesNotResendBeforeTheRnrTimer() throws Exception {
        try (Peers peers = Peers.simulated()) {
            List<RocePacket> requests = keepFromB(peers);
            peers.a.qp.postSend(SendWorkRequest.send(1, peers.a.mr.sge(0, 8), SIGNALED));
            peers.net.advance(Duration.ofMillis(1));
            requests.clear();
            int code = 14; // 1.28 ms
            deliver(peers, response(peers, Opcode.RC_ACKNOWLEDGE, 0, Aeth.rnrNakSyndrome(code), 0, 0),
                    response(peers, Opcode.RC_ACKNOWLEDGE, 0, Aeth.nakSyndrome(Aeth.NAK_PSN_SEQUENCE_ERROR), 0, 0));
            assertEquals(List.of(), requests, "waiting for the RNR timer: no resend yet");
            assertEquals(0, peers.a.counter(Counter.COMPLETER_RETRY_ERR));
            deliver(peers, response(peers, Opcode.RC_ACKNOWLEDGE, 0, Aeth.rnrNakSyndrome(code), 0, 0));
            assertEquals(2, peers.a.counter(Counter.RCVD_RNR_ERR), "counted, but the wait is not started again");
            peers.net.advance(Duration.ofMillis(1));
            assertEquals(1, requests.size(), "one resend when the RNR timer fires");
            deliver(peers, response(peers, Opcode.RC_ACKNOWLEDGE, 0, Aeth.ACK_SYNDROME, 0, 0));
            assertEquals("[1 SUCCESS] RTS", completions(peers));
        }
    }

    @Test
    void anOlderAckAfterANewerOneChangesNothing() throws Exception {
        try (Peers peers = Peers.simulated()) {
            List<RocePacket> requests = keepFromB(peers);
            for (int i = 1; i <= 3; i++) {
                peers.writeFromA(i, 0, 8, SIGNALED);
            }
            peers.net.advance(Duration.ofMillis(1));
            requests.clear();
            deliver(peers, response(peers, Opcode.RC_ACKNOWLEDGE, 1, Aeth.ACK_SYNDROME, 0, 0));
            assertEquals("[1 SUCCESS, 2 SUCCESS] RTS", completions(peers));
            deliver(peers, response(peers, Opcode.RC_ACKNOWLEDGE, 0, Aeth.ACK_SYNDROME, 0, 0),
                    response(peers, Opcode.RC_ACKNOWLEDGE, 1, Aeth.ACK_SYNDROME, 0, 0));
            assertEquals("[] RTS", completions(peers));
            assertEquals(List.of(), requests, "nothing resent");
            deliver(peers, response(peers, Opcode.RC_ACKNOWLEDGE, 2, Aeth.ACK_SYNDROME, 0, 0));
            assertEquals("[3 SUCCESS] RTS", completions(peers));
        }
    }

    @Test
    void aGoBackNRetryResendsAReadFromItsFirstMissingResponseAndAnAtomicWhole() throws Exception {
        try (Peers peers = Peers.simulated()) {
            List<RocePacket> requests = keepFromB(peers);
            peers.writeFromA(1, 0, 8, SIGNALED);
            peers.readIntoA(2, 4096, 3 * MTU, SIGNALED);
            peers.a.qp.postSend(SendWorkRequest.fetchAdd(3, peers.a.mr.sge(8192, 8), peers.b.mr.address(),
                    peers.b.mr.rkey(), 1, SIGNALED));
            peers.writeFromA(4, 0, 8, SIGNALED);
            peers.net.advance(Duration.ofMillis(1));
            // PSNs: WRITE 0, READ 1..3, FETCH_ADD 4, WRITE 5. The READ's first response arrives.
            deliver(peers, response(peers, Opcode.RC_RDMA_READ_RESPONSE_FIRST, 1, Aeth.ACK_SYNDROME, MTU, 1));
            requests.clear();
            int sequence = Aeth.nakSyndrome(Aeth.NAK_PSN_SEQUENCE_ERROR);
            deliver(peers, response(peers, Opcode.RC_ACKNOWLEDGE, 2, sequence, 0, 0));
            assertEquals(List.of("RC_RDMA_READ_REQUEST 2", "RC_FETCH_ADD 4", "RC_RDMA_WRITE_ONLY 5"),
                    requests.stream().map(p -> p.opcode().name() + " " + p.psn()).toList());
            assertEquals(peers.b.mr.address() + MTU, requests.get(0).rethVirtualAddress(), "the READ's rest");
            assertEquals(2 * MTU, requests.get(0).rethDmaLength());
            // The READ's last two responses and the atomic's ACK come; then a NAK asking for the atomic again.
            deliver(peers, response(peers, Opcode.RC_RDMA_READ_RESPONSE_MIDDLE, 2, 0, MTU, 2),
                    response(peers, Opcode.RC_RDMA_READ_RESPONSE_LAST, 3, Aeth.ACK_SYNDROME, MTU, 3));
            assertEquals("[1 SUCCESS, 2 SUCCESS] RTS", completions(peers));
            requests.clear();
            deliver(peers, response(peers, Opcode.RC_ACKNOWLEDGE, 4, sequence, 0, 0));
            assertEquals(List.of("RC_FETCH_ADD 4", "RC_RDMA_WRITE_ONLY 5"),
                    requests.stream().map(p -> p.opcode().name() + " " + p.psn()).toList(), "the atomic whole");
        }
    }

    @Test
    void aReadResponseOutsideTheReadsPsnsIsCounted() throws Exception {
        try (Peers peers = Peers.simulated()) {
            keepFromB(peers);
            peers.readIntoA(1, 0, 2 * MTU, SIGNALED);
            peers.writeFromA(2, 0, 8, SIGNALED);
            deliver(peers, response(peers, Opcode.RC_RDMA_READ_RESPONSE_LAST, 2, Aeth.ACK_SYNDROME, MTU, 1));
            assertEquals(1, unexpected(peers), "PSN 2 is the WRITE's, past the READ's two");
            assertEquals("[] RTS", completions(peers));
        }
    }

    @Test
    void anRnrWaitLongerThanTheAckTimeoutIsNoTimeout() throws Exception {
        Peers.Setup setup = new Peers.Setup();
        setup.timeout = 10; // 4.2 ms
        setup.retryCount = 0;
        setup.rnrRetry = 1;
        try (Peers peers = Peers.simulated(setup)) {
            List<RocePacket> requests = keepFromB(peers);
            peers.a.qp.postSend(SendWorkRequest.send(1, peers.a.mr.sge(0, 8), SIGNALED));
            peers.net.advance(Duration.ofMillis(1));
            requests.clear();
            int code = 0; // 655.36 ms
            deliver(peers, response(peers, Opcode.RC_ACKNOWLEDGE, 0, Aeth.rnrNakSyndrome(code), 0, 0));
            peers.net.advance(Duration.ofMillis(600));
            assertEquals(List.of(), requests, "still waiting for the RNR timer");
            assertEquals(0, peers.a.counter(Counter.COMPLETER_RETRY_ERR));
            assertEquals("[] RTS", completions(peers));
            peers.net.runUntil(() -> !requests.isEmpty(), Duration.ofMillis(60));
            assertEquals(1, requests.size(), "resent when the RNR timer fired");
            assertTrue(peers.net.nanoTime() >= 1_000_000 + org.rdmalab.verbs.RnrTimer.nanos(code));
            deliver(peers, response(peers, Opcode.RC_ACKNOWLEDGE, 0, Aeth.ACK_SYNDROME, 0, 0));
            assertEquals("[1 SUCCESS] RTS", completions(peers));
        }
    }

    @Test
    void nothingNewIsSentDuringAnRnrWait() throws Exception {
        try (Peers peers = Peers.simulated()) {
            List<RocePacket> requests = keepFromB(peers);
            peers.a.qp.postSend(SendWorkRequest.send(1, peers.a.mr.sge(0, 8), SIGNALED));
            peers.net.advance(Duration.ofMillis(1));
            requests.clear();
            deliver(peers, response(peers, Opcode.RC_ACKNOWLEDGE, 0, Aeth.rnrNakSyndrome(18), 0, 0)); // 5.12 ms
            peers.writeFromA(2, 0, 8, SIGNALED);
            peers.net.advance(Duration.ofNanos(800_000));
            assertEquals(List.of(), requests, "the WRITE waits with the SEND");
            peers.net.advance(Duration.ofMillis(4));
            assertEquals(List.of("RC_SEND_ONLY 0", "RC_RDMA_WRITE_ONLY 1"),
                    requests.stream().map(p -> p.opcode().name() + " " + p.psn()).toList());
        }
    }
}
