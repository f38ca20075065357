package org.rdmalab.softroce;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.rdmalab.softroce.net.Fabric;
import org.rdmalab.verbs.QpAttrMask;
import org.rdmalab.verbs.QpAttributes;
import org.rdmalab.verbs.QpState;
import org.rdmalab.verbs.SendFlag;
import org.rdmalab.verbs.SendWorkRequest;
import org.rdmalab.verbs.WcStatus;
import org.rdmalab.verbs.WorkCompletion;
import org.rdmalab.verbs.spi.DeviceOptions;
import org.rdmalab.wire.RocePacket;

/**
 * A READ's responses leaving a few at a time while the socket has room, as rxe's responder sends
 * one per pass ({@code read_reply}): a request that arrives meanwhile waits until the last
 * response has left; the reply stops when the QP goes to ERR, and a region deregistered in the
 * middle ends it with a remote access error ({@code rxe_recheck_mr}).
 */
class ResponderReadReplyTest {

    private static final int B = Fabric.toInt(DeviceOptions.parseAddress("127.0.0.2"));
    private static final int SIGNALED = SendFlag.SIGNALED.value();
    private static final int MTU = 1024;

    /** Every packet b sends: its opcode name. */
    private static List<String> fromB(Peers peers) {
        List<String> opcodes = new ArrayList<>();
        peers.net.intercept((src, dst, datagram) -> {
            if (src == B) {
                RocePacket packet = SoftRoceTransportTest.decode(datagram);
                opcodes.add(packet.opcode().name().replace("RC_", "").replace("RDMA_READ_RESPONSE_", "READ_"));
            }
            return 1;
        });
        return opcodes;
    }

    private static void slowLink(Peers peers) {
        // Two datagrams of room, each leaving 50 µs after the one before.
        peers.net.limitSendBuffer(2, Duration.ofNanos(50_000));
    }

    @Test
    void aRequestArrivingDuringAReadReplyWaitsForItsLastResponse() throws Exception {
        try (Peers peers = Peers.simulated()) {
            List<String> sent = fromB(peers);
            slowLink(peers);
            byte[] data = new byte[10 * MTU];
            for (int i = 0; i < data.length; i++) {
                data[i] = (byte) (i / 7);
            }
            peers.b.mr.write(0, data);
            peers.readIntoA(1, 0, 10 * MTU, SIGNALED);
            peers.a.qp.postSend(SendWorkRequest.write(2, peers.a.mr.sge(0, 8), peers.b.mr.address() + 100_000,
                    peers.b.mr.rkey(), SIGNALED));
            List<WorkCompletion> done = peers.runUntilCompletions(peers.a, 2);
            assertEquals(List.of(WcStatus.SUCCESS, WcStatus.SUCCESS), done.stream().map(WorkCompletion::status).toList());
            List<String> expected = new ArrayList<>();
            expected.add("READ_FIRST");
            for (int i = 0; i < 8; i++) {
                expected.add("READ_MIDDLE");
            }
            expected.add("READ_LAST");
            expected.add("ACKNOWLEDGE");
            assertEquals(expected, sent, "the WRITE's ACK after the READ's last response");
            assertArrayEquals(data, peers.a.mr.read(0, 10 * MTU));
        }
    }

    /**
     * Starts a 20-packet READ from a over a slow link and returns what b sends, once b's reply
     * has sent 3 packets and has more to send.
     */
    private static List<String> replyUnderWay(Peers peers) throws Exception {
        List<String> sent = fromB(peers);
        slowLink(peers);
        peers.readIntoA(1, 0, 20 * MTU, SIGNALED);
        peers.net.runUntil(() -> sent.size() >= 3, Duration.ofSeconds(1));
        return sent;
    }

    @Test
    void aReplyStopsWhenTheQpGoesToErr() throws Exception {
        try (Peers peers = Peers.simulated()) {
            List<String> sent = replyUnderWay(peers);
            peers.b.qp.modify(new QpAttributes().state(QpState.ERR), QpAttrMask.STATE.value());
            int atError = sent.size();
            peers.net.advance(Duration.ofMillis(5));
            assertTrue(sent.size() <= atError + 2, "at most what the socket held already: " + sent);
            assertTrue(sent.size() < 20, sent.toString());
        }
    }

    @Test
    void aRegionDeregisteredDuringTheReplyEndsItWithARemoteAccessError() throws Exception {
        try (Peers peers = Peers.simulated()) {
            List<String> sent = replyUnderWay(peers);
            peers.b.mr.close();
            List<WorkCompletion> done = peers.runUntilCompletions(peers.a, 1);
            assertEquals(WcStatus.REM_ACCESS_ERR, done.get(0).status());
            assertEquals("ACKNOWLEDGE", sent.get(sent.size() - 1), "the NAK comes last: " + sent);
            assertTrue(sent.size() < 20, sent.toString());
            assertEquals(QpState.ERR, peers.b.qp.state());
        }
    }
}
