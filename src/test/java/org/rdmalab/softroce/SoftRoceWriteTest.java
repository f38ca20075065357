package org.rdmalab.softroce;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.rdmalab.verbs.SendFlag;
import org.rdmalab.verbs.SendWorkRequest;
import org.rdmalab.verbs.WcOpcode;
import org.rdmalab.verbs.WcStatus;
import org.rdmalab.verbs.WorkCompletion;

class SoftRoceWriteTest {

    @Test
    void writeBetweenTwoSimulatedDevices() throws Exception {
        try (Peers peers = Peers.simulated()) {
            byte[] hello = "HelloWorld".getBytes(StandardCharsets.US_ASCII);
            peers.a.mr.write(0, hello);
            peers.a.qp.postSend(SendWorkRequest.write(7, peers.a.mr.sge(0, hello.length), peers.b.mr.address() + 100,
                    peers.b.mr.rkey(), SendFlag.SIGNALED.value()));
            peers.run();
            List<WorkCompletion> done = Peers.drain(peers.a);
            assertEquals(1, done.size());
            assertEquals(WcStatus.SUCCESS, done.get(0).status(), done.get(0).toString());
            assertEquals(WcOpcode.RDMA_WRITE, done.get(0).opcode());
            assertEquals(7, done.get(0).wrId());
            assertArrayEquals(hello, peers.b.mr.read(100, hello.length));
            assertEquals(2, peers.a.counter(Counter.RCVD_PKTS) + peers.a.counter(Counter.SENT_PKTS));
        }
    }

    @Test
    void largeWriteIsSegmentedAndAcknowledged() throws Exception {
        try (Peers peers = Peers.simulated()) {
            byte[] data = new byte[300_000];
            new java.util.Random(3).nextBytes(data);
            peers.a.mr.write(5, data);
            peers.a.qp.postSend(SendWorkRequest.write(1, peers.a.mr.sge(5, data.length), peers.b.mr.address() + 9,
                    peers.b.mr.rkey(), SendFlag.SIGNALED.value()));
            peers.run();
            List<WorkCompletion> done = Peers.drain(peers.a);
            assertEquals(1, done.size());
            assertEquals(WcStatus.SUCCESS, done.get(0).status(), done.get(0).toString());
            assertArrayEquals(data, peers.b.mr.read(9, data.length));
            assertEquals((300_000 + 1023) / 1024, peers.b.counter(Counter.RCVD_PKTS));
        }
    }
}
