package org.rdmalab.lab.exercise;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rdmalab.lab.Role;
import org.rdmalab.lab.TrafficRequest;
import org.rdmalab.verbs.OneShotFault;
import org.rdmalab.verbs.WcStatus;
import org.rdmalab.verbs.WorkCompletion;
import org.rdmalab.verbs.WrOpcode;

/**
 * Every built-in exercise played through the lab as a student would: its correct solution meets
 * every check, and a wrong one (the untouched start, or a step short of the goal) leaves the check
 * it misses open. Only what the lab did counts: completions, buffers, QP states, packets.
 */
@Timeout(120)
class ExercisesTest {

    private static ExerciseLab lab(String name) {
        return new ExerciseLab(Exercises.named(name).orElseThrow());
    }

    private static boolean met(ExerciseLab lab, int index) {
        return lab.attempt.statuses().get(index).met();
    }

    private static WcStatus last(List<WorkCompletion> completions) {
        assertFalse(completions.isEmpty(), "no completion came");
        return completions.get(completions.size() - 1).status();
    }

    // ---- gid-for-roce ----

    @Test
    void gidForRoceIsDoneOnceBothSidesUseTheRoceV2Gid() throws Exception {
        try (ExerciseLab lab = lab("gid-for-roce")) {
            assertFalse(lab.runBoth(), "gid_idx -1 fails RTR");
            for (Role role : Role.values()) {
                lab.edit(role, "query-port", "gid_idx", "3");
            }
            lab.resetBoth();
            assertTrue(lab.runBoth(), () -> lab.lastRun + " " + lab.open());
            lab.awaitDone();
        }
    }

    @Test
    void gidForRoceStaysOpenWhileGidIndexIsMinusOne() throws Exception {
        try (ExerciseLab lab = lab("gid-for-roce")) {
            assertFalse(lab.runBoth());
            assertEquals(0, lab.attempt.metCount(), lab.attempt.statuses().toString());
            assertFalse(lab.attempt.done());
        }
    }

    // ---- access-error ----

    @Test
    void accessErrorIsDoneAfterTheErrorAndTheFix() throws Exception {
        try (ExerciseLab lab = lab("access-error")) {
            lab.edit(Role.SERVER, "reg-mr", "mr_flags", "LOCAL_WRITE");
            assertFalse(lab.runBoth(), "the WRITE fails");
            lab.awaitMet(0);
            assertFalse(met(lab, 1));
            lab.edit(Role.SERVER, "reg-mr", "mr_flags", "LOCAL_WRITE, REMOTE_READ, REMOTE_WRITE");
            lab.resetBoth();
            assertTrue(lab.runBoth(), () -> lab.lastRun + " " + lab.open());
            lab.awaitDone();
        }
    }

    @Test
    void accessErrorWantsTheErrorBeforeTheSuccess() throws Exception {
        try (ExerciseLab lab = lab("access-error")) {
            assertTrue(lab.runBoth(), "the start is a working flow");
            lab.edit(Role.SERVER, "reg-mr", "mr_flags", "LOCAL_WRITE");
            lab.resetBoth();
            assertFalse(lab.runBoth());
            lab.awaitMet(0);
            assertFalse(met(lab, 1), "the WRITE that succeeded came before the error");
            assertFalse(met(lab, 2), "HelloWorld after the error is not there: the WRITE failed");
        }
    }

    // ---- rnr-nak ----

    @Test
    void rnrNakIsDoneWithTheReceivePostedBeforeTheSecondSend() throws Exception {
        try (ExerciseLab lab = lab("rnr-nak")) {
            assertTrue(lab.runBoth());
            assertEquals(WcStatus.RNR_RETRY_EXC_ERR, last(lab.post(Role.CLIENT,
                    ExerciseLab.text(WrOpcode.SEND, "HelloWorld", 0))));
            lab.awaitMet(0);
            lab.awaitMet(1);
            lab.resetBoth();
            assertTrue(lab.runBoth());
            lab.postReceive(Role.SERVER, 11);
            assertEquals(WcStatus.SUCCESS, last(lab.post(Role.CLIENT, ExerciseLab.text(WrOpcode.SEND, "HelloWorld", 0))));
            assertEquals(WcStatus.SUCCESS, last(lab.poll(Role.SERVER)));
            lab.awaitDone();
        }
    }

    @Test
    void rnrNakStaysOpenWhenTheReceiveWasThereFromTheStart() throws Exception {
        try (ExerciseLab lab = lab("rnr-nak")) {
            assertTrue(lab.runBoth());
            lab.postReceive(Role.SERVER, 11);
            assertEquals(WcStatus.SUCCESS, last(lab.post(Role.CLIENT, ExerciseLab.text(WrOpcode.SEND, "HelloWorld", 0))));
            assertEquals(WcStatus.SUCCESS, last(lab.poll(Role.SERVER)));
            assertEquals(0, lab.attempt.metCount(), "no RNR NAK yet, and the clean SEND must come after one");
        }
    }

    // ---- qp-recover ----

    /** The client's QP: ERR and RESET by hand, then INIT, RTR and RTS run again on the same QP. */
    private static void recoverClient(ExerciseLab lab, String sqPsn) {
        assertTrue(lab.client.requestState(org.rdmalab.verbs.QpState.ERR));
        assertTrue(lab.client.requestState(org.rdmalab.verbs.QpState.RESET));
        int init = indexOf(lab.client, "modify-init");
        lab.edit(Role.CLIENT, "modify-rts", "sq_psn", sqPsn);
        lab.client.rewindTo(init);
        for (int i = 0; i < 3; i++) {
            assertTrue(lab.client.runNext().orElseThrow().ok());
        }
    }

    private static int indexOf(org.rdmalab.lab.LabSession session, String id) {
        for (int i = 0; i < session.steps().size(); i++) {
            if (session.steps().get(i).id().equals(id)) {
                return i;
            }
        }
        throw new AssertionError("no step " + id);
    }

    @Test
    void qpRecoverIsDoneWhenTheSameQpWritesAgainAtThePsnTheServerExpects() throws Exception {
        try (ExerciseLab lab = lab("qp-recover")) {
            assertTrue(lab.runBoth());
            int qpn = lab.client.resources().queuePair().orElseThrow().qpNum();
            recoverClient(lab, "1");
            lab.awaitMet(0);
            assertEquals(qpn, lab.client.resources().queuePair().orElseThrow().qpNum());
            assertEquals(WcStatus.SUCCESS, last(lab.post(Role.CLIENT, ExerciseLab.text(WrOpcode.RDMA_WRITE, "Recovered", 0))));
            lab.awaitDone();
        }
    }

    @Test
    void qpRecoverStaysOpenWhenTheRecoveredQpStartsOverAtPsnZero() throws Exception {
        try (ExerciseLab lab = lab("qp-recover")) {
            assertTrue(lab.runBoth());
            recoverClient(lab, "0");
            lab.awaitMet(0);
            assertEquals(WcStatus.SUCCESS, last(lab.post(Role.CLIENT, ExerciseLab.text(WrOpcode.RDMA_WRITE, "Recovered", 0))),
                    "the server acknowledges the duplicate");
            lab.awaitMet(1);
            assertFalse(met(lab, 2), "a duplicate is not written");
        }
    }

    @Test
    void qpRecoverStaysOpenForANewQpAfterAReset() throws Exception {
        try (ExerciseLab lab = lab("qp-recover")) {
            assertTrue(lab.runBoth());
            assertTrue(lab.client.requestState(org.rdmalab.verbs.QpState.ERR));
            lab.resetBoth();
            assertTrue(lab.runBoth());
            assertEquals(WcStatus.SUCCESS, last(lab.post(Role.CLIENT, ExerciseLab.text(WrOpcode.RDMA_WRITE, "Recovered", 0))));
            assertEquals(0, lab.attempt.metCount(), "a new QP is not the one that came back");
        }
    }

    // ---- read-back ----

    @Test
    void readBackIsDoneWhenTheReadAfterTheWriteBringsHelloWorld() throws Exception {
        try (ExerciseLab lab = lab("read-back")) {
            assertTrue(lab.runBoth());
            lab.awaitMet(0);
            assertFalse(met(lab, 1), "the flow's own READ came before the WRITE and brought ServerSend");
            assertEquals(WcStatus.SUCCESS, last(lab.post(Role.CLIENT,
                    TrafficRequest.of(WrOpcode.RDMA_READ, 2, 0, 11, 0))));
            lab.awaitDone();
        }
    }

    @Test
    void readBackStaysOpenForAReadOfTheWrongPlace() throws Exception {
        try (ExerciseLab lab = lab("read-back")) {
            assertTrue(lab.runBoth());
            assertEquals(WcStatus.SUCCESS, last(lab.post(Role.CLIENT,
                    TrafficRequest.of(WrOpcode.RDMA_READ, 2, 0, 6, 5))));
            assertFalse(met(lab, 1), "offset 5 brings World, not HelloWorld");
        }
    }

    // ---- fetch-add ----

    private static TrafficRequest fetchAdd(long add) {
        return new TrafficRequest(WrOpcode.ATOMIC_FETCH_AND_ADD, 3, 0, 8, Exercises.COUNTER_OFFSET, null, 0, true,
                add, 0);
    }

    @Test
    void fetchAddIsDoneWhenBothCountersReadThree() throws Exception {
        try (ExerciseLab lab = lab("fetch-add")) {
            assertTrue(lab.runBoth());
            assertTrue(last(lab.post(Role.CLIENT, fetchAdd(1))) != WcStatus.SUCCESS, "the seed has no REMOTE_ATOMIC");
            for (Role role : Role.values()) {
                lab.edit(role, "reg-mr", "mr_flags", "LOCAL_WRITE, REMOTE_READ, REMOTE_WRITE, REMOTE_ATOMIC");
                lab.edit(role, "modify-init", "qp_access_flags", "LOCAL_WRITE, REMOTE_READ, REMOTE_WRITE, REMOTE_ATOMIC");
            }
            lab.resetBoth();
            assertTrue(lab.runBoth());
            for (int i = 0; i < 3; i++) {
                assertEquals(WcStatus.SUCCESS, last(lab.post(Role.CLIENT, fetchAdd(1))));
            }
            assertEquals(WcStatus.SUCCESS, last(lab.post(Role.SERVER, fetchAdd(2))));
            assertFalse(met(lab, 3), "the client's counter reads 2");
            assertEquals(WcStatus.SUCCESS, last(lab.post(Role.SERVER, fetchAdd(1))));
            lab.awaitDone();
        }
    }

    @Test
    void fetchAddStaysOpenWithoutRemoteAtomic() throws Exception {
        try (ExerciseLab lab = lab("fetch-add")) {
            assertTrue(lab.runBoth());
            assertTrue(last(lab.post(Role.CLIENT, fetchAdd(3))) != WcStatus.SUCCESS);
            assertEquals(0, lab.attempt.metCount(), lab.attempt.statuses().toString());
        }
    }

    // ---- psn-mismatch ----

    @Test
    void psnMismatchIsDoneWhenRqPsnMatchesSqPsn() throws Exception {
        try (ExerciseLab lab = lab("psn-mismatch")) {
            assertFalse(lab.runBoth(), "PSN 0 lies behind rq_psn 0x10: a duplicate, acknowledged and not written");
            assertEquals(0, lab.attempt.metCount(), lab.attempt.statuses().toString());
            lab.edit(Role.SERVER, "modify-rtr", "rq_psn", "0");
            lab.resetBoth();
            assertTrue(lab.runBoth(), () -> lab.lastRun);
            lab.awaitDone();
        }
    }

    @Test
    void psnMismatchStaysOpenWhenTheClientMovesItsSqPsnAway() throws Exception {
        try (ExerciseLab lab = lab("psn-mismatch")) {
            lab.edit(Role.SERVER, "modify-rtr", "rq_psn", "0");
            lab.edit(Role.CLIENT, "modify-rts", "sq_psn", "0x20");
            lab.runBoth();
            assertFalse(met(lab, 1), "a PSN ahead of rq_psn is not written either");
        }
    }

    // ---- path-mtu ----

    @Test
    void pathMtuIsDoneWithTheActiveMtu() throws Exception {
        try (ExerciseLab lab = lab("path-mtu")) {
            assertFalse(lab.runBoth(), "4096 is above soft0's active MTU");
            for (Role role : Role.values()) {
                lab.edit(role, "modify-rtr", "path_mtu", "1024");
            }
            lab.resetBoth();
            assertTrue(lab.runBoth());
            lab.awaitDone();
        }
    }

    @Test
    void pathMtuStaysOpenWhenTheWriteTakesSixteenPackets() throws Exception {
        try (ExerciseLab lab = lab("path-mtu")) {
            for (Role role : Role.values()) {
                lab.edit(role, "modify-rtr", "path_mtu", "256");
            }
            assertTrue(lab.runBoth());
            lab.awaitMet(2);
            assertFalse(met(lab, 3), "256 bytes a packet: 16 packets, not the 4 the port allows");
        }
    }

    // ---- drop-ack ----

    @Test
    void dropAckIsDoneWhenTheWriteIsSentAgain() throws Exception {
        try (ExerciseLab lab = lab("drop-ack")) {
            runToWrite(lab);
            OneShotFault shot = lab.arm(OneShotFault.Kind.DROP_NEXT_ACK);
            assertTrue(lab.runBoth());
            assertTrue(shot.fired());
            lab.awaitDone();
        }
    }

    /** Both sides up to sync 'Q' (both QPs in RTS), with the client's WRITE still to come. */
    private static void runToWrite(ExerciseLab lab) throws Exception {
        java.util.concurrent.CompletableFuture<Void> server = java.util.concurrent.CompletableFuture.runAsync(() ->
                runUntil(lab.server, "sync-q"));
        runUntil(lab.client, "sync-q");
        server.get(60, java.util.concurrent.TimeUnit.SECONDS);
    }

    private static void runUntil(org.rdmalab.lab.LabSession session, String id) {
        while (session.nextStep().isPresent()) {
            String next = session.nextStep().get().id();
            assertTrue(session.runNext().orElseThrow().ok(), next);
            if (next.equals(id)) {
                return;
            }
        }
    }

    @Test
    void dropAckStaysOpenWithoutTheFault() throws Exception {
        try (ExerciseLab lab = lab("drop-ack")) {
            assertTrue(lab.runBoth());
            lab.awaitMet(3);
            assertFalse(met(lab, 0));
            assertFalse(met(lab, 1), "nothing was sent again");
            assertFalse(met(lab, 2), "the WRITE's success only counts after a retransmission");
        }
    }

    // ---- recv-too-small ----

    @Test
    void recvTooSmallIsDoneWithAReceiveOfElevenBytes() throws Exception {
        try (ExerciseLab lab = lab("recv-too-small")) {
            assertFalse(lab.runBoth(), "a 4-byte receive cannot take the 11-byte SEND");
            assertFalse(met(lab, 0));
            lab.edit(Role.CLIENT, "post-recv", "length", "11");
            lab.resetBoth();
            assertTrue(lab.runBoth());
            lab.awaitDone();
        }
    }

    @Test
    void recvTooSmallStaysOpenAsItStarts() throws Exception {
        try (ExerciseLab lab = lab("recv-too-small")) {
            assertFalse(lab.runBoth());
            assertEquals(0, lab.attempt.metCount(), lab.attempt.statuses().toString());
        }
    }

    // ---- write-imm ----

    private static TrafficRequest ping(WrOpcode opcode) {
        return new TrafficRequest(opcode, 4, 0, 4, 0, "Ping".getBytes(java.nio.charset.StandardCharsets.UTF_8), 0x1234,
                true, 0, 0);
    }

    @Test
    void writeImmIsDoneWhenTheServerPollsTheImmediate() throws Exception {
        try (ExerciseLab lab = lab("write-imm")) {
            assertTrue(lab.runBoth());
            lab.postReceive(Role.SERVER, 0);
            assertEquals(WcStatus.SUCCESS, last(lab.post(Role.CLIENT, ping(WrOpcode.RDMA_WRITE_WITH_IMM))));
            assertEquals(WcStatus.SUCCESS, last(lab.poll(Role.SERVER)));
            lab.awaitDone();
        }
    }

    @Test
    void writeImmStaysOpenForAPlainWrite() throws Exception {
        try (ExerciseLab lab = lab("write-imm")) {
            assertTrue(lab.runBoth());
            assertEquals(WcStatus.SUCCESS, last(lab.post(Role.CLIENT, ping(WrOpcode.RDMA_WRITE))));
            lab.awaitMet(2);
            assertFalse(met(lab, 0), "a plain WRITE leaves the server no completion");
        }
    }
}
