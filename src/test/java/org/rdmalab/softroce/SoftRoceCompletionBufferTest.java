package org.rdmalab.softroce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.rdmalab.verbs.CompletionBuffer;
import org.rdmalab.verbs.Errno;
import org.rdmalab.verbs.QpCapabilities;
import org.rdmalab.verbs.QpState;
import org.rdmalab.verbs.ReceiveWorkRequest;
import org.rdmalab.verbs.SendFlag;
import org.rdmalab.verbs.SendWorkRequest;
import org.rdmalab.verbs.VerbsException;
import org.rdmalab.verbs.WcFlag;
import org.rdmalab.verbs.WcOpcode;
import org.rdmalab.verbs.WcStatus;
import org.rdmalab.verbs.WorkCompletion;

/**
 * soft0's non-allocating path: {@code CompletionQueue.poll(CompletionBuffer)} takes the same
 * completions as {@code poll(int)}, and the one-request posts fail as their list forms do.
 */
class SoftRoceCompletionBufferTest {

    private static final int SIGNALED = SendFlag.SIGNALED.value();

    @Test
    void aBufferIsRefilledWithTheCompletionsAListPollWouldReturn() throws Exception {
        try (Peers peers = Peers.simulated()) {
            CompletionBuffer buffer = new CompletionBuffer(2);
            assertEquals(0, peers.b.cq.poll(buffer));
            peers.b.qp.postRecv(ReceiveWorkRequest.of(70, peers.b.mr.sge(0, 64)));
            for (int i = 0; i < 3; i++) {
                peers.a.qp.postSend(SendWorkRequest.write(i, peers.a.mr.sge(0, 8), peers.b.mr.address() + 128,
                        peers.b.mr.rkey(), SIGNALED));
            }
            peers.a.qp.postSend(SendWorkRequest.sendWithImm(3, peers.a.mr.sge(0, 16), 0xcafe, SIGNALED));
            peers.run();

            assertEquals(2, peers.a.cq.poll(buffer), "at most the buffer's capacity");
            assertEquals(List.of(0L, 1L), List.of(buffer.wrId(0), buffer.wrId(1)));
            assertEquals(WcOpcode.RDMA_WRITE, buffer.opcode(1));
            assertEquals(2, peers.a.cq.poll(buffer), "refilled from the start");
            assertEquals(List.of(2L, 3L), List.of(buffer.wrId(0), buffer.wrId(1)));
            assertEquals(WcOpcode.SEND, buffer.opcode(1));
            assertEquals(0, peers.a.cq.poll(buffer));
            assertTrue(buffer.isEmpty());

            assertEquals(1, peers.b.cq.poll(buffer));
            assertEquals(new WorkCompletion(70, WcStatus.SUCCESS, WcOpcode.RECV, 0, 16, 0xcafe, peers.b.qp.qpNum(),
                    peers.a.qp.qpNum(), buffer.wcFlags(0)), buffer.get(0));
            assertTrue(WcFlag.has(buffer.wcFlags(0), WcFlag.WITH_IMM));
        }
    }

    @Test
    void theBufferAndTheListCarryEqualCompletions() throws Exception {
        try (Peers peers = Peers.simulated()) {
            for (int i = 0; i < 4; i++) {
                peers.b.qp.postRecv(ReceiveWorkRequest.of(80 + i, peers.b.mr.sge(64 * i, 64)));
                peers.a.qp.postSend(SendWorkRequest.sendWithImm(i, peers.a.mr.sge(0, 8 + i), 0x100 + i, SIGNALED));
            }
            peers.run();
            List<WorkCompletion> listed = peers.b.cq.poll(2);
            CompletionBuffer buffer = new CompletionBuffer(8);
            assertEquals(2, peers.b.cq.poll(buffer));
            List<WorkCompletion> all = new ArrayList<>(listed);
            all.addAll(buffer.toList());
            assertEquals(List.of(80L, 81L, 82L, 83L), all.stream().map(WorkCompletion::wrId).toList());
            assertEquals(new WorkCompletion(83, WcStatus.SUCCESS, WcOpcode.RECV, 0, 11, 0x103, peers.b.qp.qpNum(),
                    peers.a.qp.qpNum(), buffer.wcFlags(1)), buffer.get(1));
            assertTrue(WcFlag.has(buffer.wcFlags(1), WcFlag.WITH_IMM));
            assertEquals(listed.get(1).srcQp(), buffer.srcQp(1));
        }
    }

    @Test
    void anOverflowedCqFailsABufferPollAsItFailsAListPoll() throws Exception {
        Peers.Setup setup = new Peers.Setup();
        setup.cqEntries = 2;
        try (Peers peers = Peers.simulated(setup)) {
            for (int i = 0; i < 4; i++) {
                peers.a.qp.postSend(SendWorkRequest.write(i, peers.a.mr.sge(0, 8), peers.b.mr.address(),
                        peers.b.mr.rkey(), SIGNALED));
            }
            peers.run();
            assertEquals(QpState.ERR, peers.a.qp.state());
            CompletionBuffer buffer = new CompletionBuffer(16);
            assertEquals(3, peers.a.cq.poll(buffer), "the CQ holds its granted 3 entries");
            VerbsException fromBuffer = assertThrows(VerbsException.class, () -> peers.a.cq.poll(buffer));
            VerbsException fromList = assertThrows(VerbsException.class, () -> peers.a.cq.poll(16));
            assertEquals(Errno.EOVERFLOW, fromBuffer.errno());
            assertEquals(fromList.getMessage(), fromBuffer.getMessage());
            assertTrue(buffer.isEmpty(), "a failed poll leaves the buffer empty");
        }
    }

    @Test
    void aFullSendQueueAndAClosedQpRefuseOneRequestAsTheyRefuseAList() throws Exception {
        Peers.Setup setup = new Peers.Setup();
        setup.capabilities = new QpCapabilities(2, 2, 1, 1, 0);
        try (Peers peers = Peers.simulated(setup)) {
            int depth = peers.a.qp.capabilities().maxSendWr();
            SendWorkRequest write = SendWorkRequest.write(1, peers.a.mr.sge(0, 8), peers.b.mr.address(),
                    peers.b.mr.rkey(), SIGNALED);
            for (int i = 0; i < depth; i++) {
                peers.a.qp.postSend(write);
            }
            VerbsException one = assertThrows(VerbsException.class, () -> peers.a.qp.postSend(write));
            VerbsException list = assertThrows(VerbsException.class, () -> peers.a.qp.postSend(List.of(write)));
            assertEquals(Errno.ENOMEM, one.errno());
            assertEquals(list.getMessage(), one.getMessage());
            peers.run();
            assertEquals(depth, peers.a.cq.poll(new CompletionBuffer(depth + 1)), "the posted ones completed");

            peers.a.qp.close();
            IllegalStateException closed = assertThrows(IllegalStateException.class, () -> peers.a.qp.postSend(write));
            assertEquals(assertThrows(IllegalStateException.class, () -> peers.a.qp.postSend(List.of(write)))
                    .getMessage(), closed.getMessage());
        }
    }

    @Test
    void oneRequestPostsFailAsTheirListFormsAndAClosedCqRefusesABufferPoll() throws Exception {
        try (Peers peers = Peers.simulated()) {
            SendWorkRequest tooLong = new SendWorkRequest(1, List.of(peers.a.mr.sge(0, 8), peers.a.mr.sge(8, 8),
                    peers.a.mr.sge(16, 8), peers.a.mr.sge(24, 8), peers.a.mr.sge(32, 8)),
                    org.rdmalab.verbs.WrOpcode.SEND, 0, 0, 0, 0, 0, 0);
            VerbsException one = assertThrows(VerbsException.class, () -> peers.a.qp.postSend(tooLong));
            VerbsException list = assertThrows(VerbsException.class, () -> peers.a.qp.postSend(List.of(tooLong)));
            assertEquals(Errno.EINVAL, one.errno());
            assertEquals(list.getMessage(), one.getMessage());

            peers.a.cq.close();
            CompletionBuffer buffer = new CompletionBuffer(1);
            IllegalStateException closed = assertThrows(IllegalStateException.class, () -> peers.a.cq.poll(buffer));
            assertEquals(assertThrows(IllegalStateException.class, () -> peers.a.cq.poll(1)).getMessage(),
                    closed.getMessage());
        }
    }

    /**
     * The CQ keeps its completions in a ring that starts small and grows (issue 8): many more than
     * its first size, taken by both polls in turns while more arrive, come out whole and in order,
     * and the send queue's slots are reused many times over on the way.
     */
    @Test
    void completionsComeOutInOrderAcrossTheRingsGrowthAndWrapAround() throws Exception {
        try (Peers peers = Peers.simulated()) {
            CompletionBuffer buffer = new CompletionBuffer(7);
            long next = 0;
            long posted = 0;
            for (int round = 0; round < 8; round++) {
                int count = round % 2 == 0 ? 300 : 90;
                for (int i = 0; i < count; i++) {
                    peers.a.qp.postSend(SendWorkRequest.write(posted, peers.a.mr.sge(0, 8 + (int) (posted++ % 5)),
                            peers.b.mr.address() + 128, peers.b.mr.rkey(), SIGNALED));
                }
                peers.run();
                int keep = round == 7 ? 0 : 40;
                while (posted - next > keep) {
                    if (next % 3 == 0) {
                        for (WorkCompletion wc : peers.a.cq.poll(5)) {
                            assertEquals(next++, wc.wrId());
                            assertEquals(8 + wc.wrId() % 5, wc.byteLength());
                        }
                    } else {
                        int polled = peers.a.cq.poll(buffer);
                        for (int i = 0; i < polled; i++) {
                            assertEquals(next++, buffer.wrId(i));
                            assertTrue(buffer.isSuccess(i));
                            assertEquals(8 + buffer.wrId(i) % 5, buffer.byteLength(i));
                        }
                    }
                }
            }
            assertEquals(posted, next);
            assertEquals(0, peers.a.cq.poll(buffer));
        }
    }
}
