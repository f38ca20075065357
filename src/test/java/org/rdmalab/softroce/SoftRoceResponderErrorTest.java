package org.rdmalab.softroce;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.rdmalab.wire.Opcode;
import org.rdmalab.wire.RocePacket;
import org.rdmalab.verbs.AccessFlag;
import org.rdmalab.verbs.MemoryRegion;
import org.rdmalab.verbs.QpState;
import org.rdmalab.verbs.ReceiveWorkRequest;
import org.rdmalab.verbs.ScatterGatherElement;
import org.rdmalab.verbs.SendFlag;
import org.rdmalab.verbs.SendWorkRequest;
import org.rdmalab.verbs.WcStatus;
import org.rdmalab.verbs.WorkCompletion;

/**
 * What the responder's receive and the requester's work request complete with when the responder
 * refuses a SEND or a WRITE_WITH_IMM, as rxe's rxe_resp.c does (a NIC differs in places; see
 * docs/softroce.md).
 */
class SoftRoceResponderErrorTest {

    private static final int SIGNALED = SendFlag.SIGNALED.value();

    /** Runs the exchange and returns "requester | receives | NAK syndromes". */
    private static String outcome(Peers peers) throws Exception {
        List<String> naks = new ArrayList<>();
        peers.net.intercept((src, dst, datagram) -> {
            RocePacket p = SoftRoceTransportTest.decode(datagram);
            if (p.opcode() == Opcode.RC_ACKNOWLEDGE && !p.aeth().isAck()) {
                naks.add(String.format("0x%x", p.aeth().syndrome()));
            }
            return 1;
        });
        peers.run();
        List<String> sent = Peers.drain(peers.a).stream().map(w -> w.wrId() + " " + w.status()).toList();
        List<String> received = Peers.drain(peers.b).stream().map(w -> w.wrId() + " " + w.status()).toList();
        assertEquals(QpState.ERR, peers.a.qp.state());
        assertEquals(QpState.ERR, peers.b.qp.state());
        return sent + " | " + received + " | " + naks;
    }

    /**
     * A receive whose scatter list fails its check when the SEND's data arrives (an unknown lkey,
     * or a region without LOCAL_WRITE): rxe's copy_data fails, send_data_in calls it a malformed
     * receive (class A): IBV_WC_LOC_QP_OP_ERR for the receive, NAK remote operational error,
     * IBV_WC_REM_OP_ERR for the SEND.
     */
    @Test
    void aReceiveWhoseScatterListFailsItsCheckIsAMalformedReceive() throws Exception {
        for (String variant : List.of("unknown lkey", "no LOCAL_WRITE", "outside its region")) {
            try (Peers peers = Peers.simulated()) {
                MemoryRegion mr = peers.b.mr;
                ScatterGatherElement sge = switch (variant) {
                    case "unknown lkey" -> new ScatterGatherElement(mr.address(), 64, mr.lkey() + 1);
                    case "no LOCAL_WRITE" -> peers.b.pd.registerMemory(4096, AccessFlag.REMOTE_READ.value()).sge(0, 64);
                    default -> new ScatterGatherElement(mr.address() + mr.length() - 8, 64, mr.lkey());
                };
                peers.b.qp.postRecv(ReceiveWorkRequest.of(5, sge));
                peers.b.qp.postRecv(ReceiveWorkRequest.of(6, mr.sge(0, 64)));
                peers.a.qp.postSend(SendWorkRequest.send(1, peers.a.mr.sge(0, 16), SIGNALED));
                peers.a.qp.postSend(SendWorkRequest.send(2, peers.a.mr.sge(0, 16), SIGNALED));
                assertEquals("[1 REM_OP_ERR, 2 WR_FLUSH_ERR] | [5 LOC_QP_OP_ERR, 6 WR_FLUSH_ERR] | [0x63]",
                        outcome(peers), variant);
            }
        }
    }

    /**
     * A one-packet WRITE_WITH_IMM with a bad rkey: rxe takes the receive (check_resource) before
     * it checks the rkey (check_rkey), so the receive completes with IBV_WC_REM_ACCESS_ERR, the
     * NAK is a remote access error and the WRITE completes with IBV_WC_REM_ACCESS_ERR.
     */
    @Test
    void aOnePacketWriteWithImmediateAndABadRkeyCompletesItsReceiveWithTheAccessError() throws Exception {
        try (Peers peers = Peers.simulated()) {
            peers.b.qp.postRecv(ReceiveWorkRequest.of(5, peers.b.mr.sge(0, 64)));
            peers.b.qp.postRecv(ReceiveWorkRequest.of(6, peers.b.mr.sge(0, 64)));
            peers.a.qp.postSend(SendWorkRequest.writeWithImm(1, peers.a.mr.sge(0, 16), peers.b.mr.address(),
                    peers.b.mr.rkey() ^ 0x80, 9, SIGNALED));
            assertEquals("[1 REM_ACCESS_ERR] | [5 REM_ACCESS_ERR, 6 WR_FLUSH_ERR] | [0x62]", outcome(peers));
        }
    }

    /**
     * A WRITE_WITH_IMM of several packets carries its rkey on the FIRST packet and its immediate
     * on the LAST: the rkey fails before any receive is taken, so every receive is flushed.
     */
    @Test
    void aLongWriteWithImmediateAndABadRkeyFlushesTheReceives() throws Exception {
        try (Peers peers = Peers.simulated()) {
            peers.b.qp.postRecv(ReceiveWorkRequest.of(5, peers.b.mr.sge(0, 64)));
            peers.a.qp.postSend(SendWorkRequest.writeWithImm(1, peers.a.mr.sge(0, 3000), peers.b.mr.address(),
                    peers.b.mr.rkey() ^ 0x80, 9, SIGNALED));
            assertEquals("[1 REM_ACCESS_ERR] | [5 WR_FLUSH_ERR] | [0x62]", outcome(peers));
        }
    }

    /** With no receive posted, a WRITE_WITH_IMM gets an RNR NAK before its rkey is looked at. */
    @Test
    void aWriteWithImmediateWithoutAReceiveIsRnrBeforeItsRkeyIsChecked() throws Exception {
        Peers.Setup setup = new Peers.Setup();
        setup.rnrRetry = 0;
        try (Peers peers = Peers.simulated(setup)) {
            peers.a.qp.postSend(SendWorkRequest.writeWithImm(1, peers.a.mr.sge(0, 16), peers.b.mr.address(),
                    peers.b.mr.rkey() ^ 0x80, 9, SIGNALED));
            peers.run();
            WorkCompletion done = Peers.drain(peers.a).get(0);
            assertEquals(WcStatus.RNR_RETRY_EXC_ERR, done.status());
            assertEquals(QpState.RTS, peers.b.qp.state(), "the responder saw no access error");
        }
    }
}
