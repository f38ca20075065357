package org.rdmalab.softroce;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.rdmalab.softroce.net.Fabric;
import org.rdmalab.verbs.QpState;
import org.rdmalab.verbs.ReceiveWorkRequest;
import org.rdmalab.verbs.SendFlag;
import org.rdmalab.verbs.SendWorkRequest;
import org.rdmalab.verbs.WcOpcode;
import org.rdmalab.verbs.WcStatus;
import org.rdmalab.verbs.WorkCompletion;
import org.rdmalab.verbs.spi.DeviceOptions;
import org.rdmalab.wire.Aeth;
import org.rdmalab.wire.Opcode;
import org.rdmalab.wire.RocePacketEncoder;

/**
 * What the requester's work request completes with for each NAK a responder can send, for every
 * opcode it applies to, as rxe's completer ({@code check_ack}) maps them: invalid request
 * IBV_WC_REM_INV_REQ_ERR, remote access error IBV_WC_REM_ACCESS_ERR, remote operational error
 * and any code IBA reserves IBV_WC_REM_OP_ERR; the QP goes to ERR and what follows is flushed. A
 * NAK of a later PSN first acknowledges everything before it. The NAKs are injected: a's
 * requests never reach b.
 */
class CompleterNakTest {

    private static final int A = Fabric.toInt(DeviceOptions.parseAddress("127.0.0.1"));
    private static final int B = Fabric.toInt(DeviceOptions.parseAddress("127.0.0.2"));
    private static final int SIGNALED = SendFlag.SIGNALED.value();

    private static byte[] nak(Peers peers, int psn, int syndrome, int msn) {
        ByteBuffer out = ByteBuffer.allocate(64);
        int length = RocePacketEncoder.encodeResponse(out, Opcode.RC_ACKNOWLEDGE, peers.a.qp.qpNum(), psn, syndrome, msn,
                null, 0, 0);
        return SoftRoceVerbsTest.resign(Arrays.copyOf(out.array(), length + 4), B, A);
    }

    private static SendWorkRequest request(Peers peers, String op, long wrId) {
        long remote = peers.b.mr.address();
        int rkey = peers.b.mr.rkey();
        return switch (op) {
            case "WRITE" -> SendWorkRequest.write(wrId, peers.a.mr.sge(0, 8), remote, rkey, SIGNALED);
            case "READ" -> SendWorkRequest.read(wrId, peers.a.mr.sge(0, 8), remote, rkey, SIGNALED);
            case "CAS" -> SendWorkRequest.compareSwap(wrId, peers.a.mr.sge(0, 8), remote, rkey, 0, 1, SIGNALED);
            case "FAA" -> SendWorkRequest.fetchAdd(wrId, peers.a.mr.sge(0, 8), remote, rkey, 1, SIGNALED);
            default -> SendWorkRequest.send(wrId, peers.a.mr.sge(0, 8), SIGNALED);
        };
    }

    @Test
    void eachNakCodeGivesItsStatusForEveryOpcode() throws Exception {
        int[][] codes = {
            {Aeth.NAK_INVALID_REQUEST, 0}, {Aeth.NAK_REMOTE_ACCESS_ERROR, 1}, {Aeth.NAK_REMOTE_OPERATIONAL_ERROR, 2},
            {4, 2}, {31, 2},
        };
        WcStatus[] statuses = {WcStatus.REM_INV_REQ_ERR, WcStatus.REM_ACCESS_ERR, WcStatus.REM_OP_ERR};
        for (String op : List.of("WRITE", "READ", "CAS", "FAA", "SEND")) {
            for (int[] code : codes) {
                try (Peers peers = Peers.simulated()) {
                    peers.net.intercept((src, dst, datagram) -> src == A ? 0 : 1);
                    peers.a.qp.postSend(request(peers, op, 1));
                    peers.a.qp.postSend(request(peers, op, 2));
                    peers.net.inject(B, 4791, A, 4791, nak(peers, 0, Aeth.nakSyndrome(code[0]), 0));
                    List<WorkCompletion> done = peers.runUntilCompletions(peers.a, 2);
                    String what = op + ", NAK code " + code[0];
                    assertEquals(List.of(statuses[code[1]], WcStatus.WR_FLUSH_ERR),
                            done.stream().map(WorkCompletion::status).toList(), what);
                    assertEquals(1, done.get(0).wrId(), what);
                    assertEquals(QpState.ERR, peers.a.qp.state(), what);
                }
            }
        }
    }

    @Test
    void aNakOfALaterPsnFirstCompletesTheRequestsBeforeIt() throws Exception {
        for (String op : List.of("WRITE", "SEND")) {
            try (Peers peers = Peers.simulated()) {
                peers.net.intercept((src, dst, datagram) -> src == A ? 0 : 1);
                for (int i = 1; i <= 3; i++) {
                    peers.a.qp.postSend(request(peers, op, i));
                }
                peers.net.inject(B, 4791, A, 4791, nak(peers, 1, Aeth.nakSyndrome(Aeth.NAK_REMOTE_ACCESS_ERROR), 1));
                List<WorkCompletion> done = peers.runUntilCompletions(peers.a, 3);
                assertEquals(List.of("1 SUCCESS", "2 REM_ACCESS_ERR", "3 WR_FLUSH_ERR"),
                        done.stream().map(w -> w.wrId() + " " + w.status()).toList(), op);
                WcOpcode expected = op.equals("WRITE") ? WcOpcode.RDMA_WRITE : WcOpcode.SEND;
                assertEquals(List.of(expected, expected, expected), done.stream().map(WorkCompletion::opcode).toList());
            }
        }
    }

    @Test
    void aNakOfAPsnAlreadyAcknowledgedOrNotYetSentChangesNothing() throws Exception {
        try (Peers peers = Peers.simulated()) {
            peers.b.qp.postRecv(ReceiveWorkRequest.of(1, peers.b.mr.sge(0, 64)));
            peers.a.qp.postSend(request(peers, "SEND", 1));
            assertEquals(WcStatus.SUCCESS, peers.runUntilCompletions(peers.a, 1).get(0).status());
            peers.net.intercept((src, dst, datagram) -> src == A ? 0 : 1);
            peers.a.qp.postSend(request(peers, "WRITE", 2));
            // PSN 0 was acknowledged; PSN 2 was never sent.
            peers.net.inject(B, 4791, A, 4791, nak(peers, 0, Aeth.nakSyndrome(Aeth.NAK_INVALID_REQUEST), 1));
            peers.net.inject(B, 4791, A, 4791, nak(peers, 2, Aeth.nakSyndrome(Aeth.NAK_INVALID_REQUEST), 1));
            peers.net.advance(java.time.Duration.ofMillis(1));
            assertEquals(List.of(), Peers.drain(peers.a));
            assertEquals(QpState.RTS, peers.a.qp.state());
            peers.net.inject(B, 4791, A, 4791, nak(peers, 1, Aeth.nakSyndrome(Aeth.NAK_INVALID_REQUEST), 1));
            assertEquals(List.of(WcStatus.REM_INV_REQ_ERR),
                    peers.runUntilCompletions(peers.a, 1).stream().map(WorkCompletion::status).toList());
        }
    }
}
