package org.rdmalab.softroce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.rdmalab.wire.Opcode;
import org.rdmalab.wire.RocePacket;
import org.rdmalab.verbs.QpType;
import org.rdmalab.verbs.ReceiveWorkRequest;
import org.rdmalab.verbs.SendFlag;
import org.rdmalab.verbs.SendWorkRequest;
import org.rdmalab.verbs.WcStatus;
import org.rdmalab.verbs.WorkCompletion;

/** The counters that carry rxe's hw_counters names count what rxe counts, where rxe counts it. */
class SoftRoceCounterTest {

    private static final int SIGNALED = SendFlag.SIGNALED.value();

    /**
     * rdma_sends: SEND work requests the completer retires, signaled or not (rxe_comp.c
     * do_complete); rdma_recvs: receives completed successfully (rxe_resp.c do_complete). WRITEs,
     * READs and atomics count in neither.
     */
    @Test
    void rdmaSendsCountsSendWorkRequestsAndRdmaRecvsCountsReceiveCompletions() throws Exception {
        try (Peers peers = Peers.simulated()) {
            for (int i = 0; i < 4; i++) {
                peers.b.qp.postRecv(ReceiveWorkRequest.of(100 + i, peers.b.mr.sge(i * 4096, 4096)));
            }
            peers.a.qp.postSend(SendWorkRequest.send(1, peers.a.mr.sge(0, 3000), SIGNALED));
            peers.a.qp.postSend(SendWorkRequest.send(2, peers.a.mr.sge(0, 10), 0));
            peers.a.qp.postSend(new SendWorkRequest(3, List.of(peers.a.mr.sge(0, 10)),
                    org.rdmalab.verbs.WrOpcode.SEND_WITH_IMM, SIGNALED, 7, 0, 0, 0, 0));
            peers.a.qp.postSend(SendWorkRequest.writeWithImm(4, peers.a.mr.sge(0, 10), peers.b.mr.address() + 65_536,
                    peers.b.mr.rkey(), 8, SIGNALED));
            peers.a.qp.postSend(SendWorkRequest.write(5, peers.a.mr.sge(0, 5000), peers.b.mr.address() + 65_536,
                    peers.b.mr.rkey(), SIGNALED));
            peers.a.qp.postSend(SendWorkRequest.read(6, peers.a.mr.sge(0, 5000), peers.b.mr.address() + 65_536,
                    peers.b.mr.rkey(), SIGNALED));
            peers.a.qp.postSend(SendWorkRequest.fetchAdd(7, peers.a.mr.sge(8192, 8), peers.b.mr.address() + 131_072,
                    peers.b.mr.rkey(), 1, SIGNALED));
            peers.run();
            assertEquals(6, Peers.drain(peers.a).stream().filter(WorkCompletion::isSuccess).count());
            assertEquals(4, Peers.drain(peers.b).stream().filter(WorkCompletion::isSuccess).count());
            assertEquals(3, peers.a.counter(Counter.RDMA_SENDS), "the three SENDs, the unsignaled one included");
            assertEquals(4, peers.b.counter(Counter.RDMA_RECVS), "three SENDs and the WRITE_WITH_IMM");
            assertEquals(0, peers.b.counter(Counter.RDMA_SENDS));
            assertEquals(0, peers.a.counter(Counter.RDMA_RECVS));
        }
    }

    /**
     * A SEND that fails counts in rdma_sends (do_complete retires it with its error), one flushed
     * behind it does not, and its receive side counts no rdma_recvs. Error completions are not
     * send_err, which rxe keeps for packets it could not transmit.
     */
    @Test
    void aFailedSendCountsAFlushedOneDoesNotAndErrorsAreNotSendErr() throws Exception {
        Peers.Setup setup = new Peers.Setup();
        setup.rnrRetry = 0;
        try (Peers peers = Peers.simulated(setup)) {
            peers.a.qp.postSend(SendWorkRequest.send(1, peers.a.mr.sge(0, 16), SIGNALED));
            peers.a.qp.postSend(SendWorkRequest.send(2, peers.a.mr.sge(0, 16), SIGNALED));
            peers.run();
            List<WcStatus> statuses = Peers.drain(peers.a).stream().map(WorkCompletion::status).toList();
            assertEquals(List.of(WcStatus.RNR_RETRY_EXC_ERR, WcStatus.WR_FLUSH_ERR), statuses);
            assertEquals(1, peers.a.counter(Counter.RDMA_SENDS), "the failed SEND, not the flushed one");
            assertEquals(0, peers.a.counter(Counter.SEND_ERR));
        }
        try (Peers peers = Peers.simulated()) {
            peers.b.qp.postRecv(ReceiveWorkRequest.of(5, peers.b.mr.sge(0, 100)));
            peers.a.qp.postSend(SendWorkRequest.send(1, peers.a.mr.sge(0, 200), SIGNALED));
            peers.run();
            assertEquals(WcStatus.REM_OP_ERR, Peers.drain(peers.a).get(0).status());
            assertEquals(WcStatus.LOC_QP_OP_ERR, Peers.drain(peers.b).get(0).status());
            assertEquals(0, peers.b.counter(Counter.RDMA_RECVS), "a receive completed in error");
            assertEquals(1, peers.a.counter(Counter.RDMA_SENDS));
            assertEquals(0, peers.a.counter(Counter.SEND_ERR));
            assertEquals(0, peers.b.counter(Counter.SEND_ERR));
        }
    }

    /**
     * out_of_seq_request counts sequence NAKs (one per gap, however many packets arrive ahead);
     * rcvd_seq_err counts only a NAK that acknowledges something new: a NAK for the oldest
     * unacknowledged PSN itself still starts a retry but is not counted (rxe_comp.c check_ack).
     */
    @Test
    void sequenceErrorsCountOncePerNakAndOnlyWhenTheNakAcknowledgesSomething() throws Exception {
        for (int lost : new int[] {0, 1}) {
            try (Peers peers = Peers.simulated()) {
                AtomicInteger dropped = new AtomicInteger();
                peers.net.intercept((src, dst, datagram) -> {
                    RocePacket p = SoftRoceTransportTest.decode(datagram);
                    return p.opcode().isRequest() && p.bth().psn() == lost && dropped.getAndIncrement() == 0 ? 0 : 1;
                });
                peers.a.qp.postSend(SendWorkRequest.write(1, peers.a.mr.sge(0, 5 * 1024), peers.b.mr.address(),
                        peers.b.mr.rkey(), SIGNALED));
                peers.run();
                String what = "PSN " + lost + " lost";
                assertTrue(Peers.drain(peers.a).get(0).isSuccess(), what);
                assertEquals(1, peers.b.counter(Counter.OUT_OF_SEQ_REQUEST), what + ": one NAK for four packets ahead");
                assertEquals(lost == 0 ? 0 : 1, peers.a.counter(Counter.RCVD_SEQ_ERR), what);
                assertEquals(1, peers.a.counter(Counter.COMPLETER_RETRY_ERR), what + ": the NAK starts the retry");
            }
        }
    }

    /** UC drops a message after a gap and counts nothing, as rxe's check_psn for UC. */
    @Test
    void ucCountsNoSequenceErrors() throws Exception {
        Peers.Setup setup = new Peers.Setup();
        setup.type = QpType.UC;
        try (Peers peers = Peers.simulated(setup)) {
            AtomicInteger dropped = new AtomicInteger();
            peers.net.intercept((src, dst, datagram) -> SoftRoceTransportTest.decode(datagram).opcode()
                    == Opcode.UC_RDMA_WRITE_FIRST && dropped.getAndIncrement() == 0 ? 0 : 1);
            peers.a.qp.postSend(SendWorkRequest.write(1, peers.a.mr.sge(0, 3000), peers.b.mr.address(),
                    peers.b.mr.rkey(), SIGNALED));
            peers.a.qp.postSend(SendWorkRequest.write(2, peers.a.mr.sge(0, 10), peers.b.mr.address(),
                    peers.b.mr.rkey(), SIGNALED));
            peers.run();
            assertEquals(2, Peers.drain(peers.a).size());
            assertEquals(0, peers.b.counter(Counter.OUT_OF_SEQ_REQUEST));
            assertEquals(0, peers.b.counter(Counter.DUPLICATE_REQUEST));
        }
    }
}
