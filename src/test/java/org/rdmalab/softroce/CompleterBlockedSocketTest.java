package org.rdmalab.softroce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.rdmalab.verbs.RnrTimer;
import org.rdmalab.verbs.SendFlag;
import org.rdmalab.verbs.SendWorkRequest;
import org.rdmalab.verbs.WcStatus;
import org.rdmalab.verbs.WorkCompletion;

/**
 * The retransmission timer against a full socket, on the simulated network's virtual clock: a
 * packet that waits in this host for room in the socket was not lost, so its ACK timeout counts
 * from when the socket took it (rxe arms the timer only once a packet is sent). A link far slower
 * than the timeout then costs no retransmission; a lost packet is still resent one timeout after
 * the socket took the last one.
 */
class CompleterBlockedSocketTest {

    @Test
    void packetsWaitingForRoomInTheSocketAreNotTimedOut() throws Exception {
        Peers.Setup setup = new Peers.Setup();
        setup.timeout = 8; // 1.05 ms
        setup.retryCount = 0;
        try (Peers peers = Peers.simulated(setup)) {
            // Two datagrams of room, each taking 0.1 ms to leave: 40 packets wait about 4 ms in all, while a
            // packet the socket took leaves, and its ACK comes back, well within the timeout.
            peers.net.limitSendBuffer(2, Duration.ofNanos(100_000));
            peers.a.qp.postSend(SendWorkRequest.write(1, peers.a.mr.sge(0, 40 * 1024), peers.b.mr.address(),
                    peers.b.mr.rkey(), SendFlag.SIGNALED.value()));
            List<WorkCompletion> done = peers.runUntilCompletions(peers.a, 1);
            assertEquals(WcStatus.SUCCESS, done.get(0).status(), "retry_cnt 0: a single timeout would have failed it");
            assertEquals(0, peers.a.counter(Counter.COMPLETER_RETRY_ERR));
            assertTrue(peers.net.nanoTime() > 3 * RnrTimer.ackTimeoutNanos(8), "the link was that slow");
        }
    }

    @Test
    void aLostPacketIsStillResentOneTimeoutAfterTheSocketTookTheLast() throws Exception {
        Peers.Setup setup = new Peers.Setup();
        setup.timeout = 8;
        setup.retryCount = 1;
        try (Peers peers = Peers.simulated(setup)) {
            peers.net.limitSendBuffer(2, Duration.ofNanos(100_000));
            int a = org.rdmalab.softroce.net.Fabric.toInt(org.rdmalab.verbs.spi.DeviceOptions.parseAddress("127.0.0.1"));
            boolean[] dropped = {false};
            peers.net.intercept((src, dst, datagram) -> {
                if (src == a && !dropped[0] && SoftRoceTransportTest.decode(datagram).psn() == 39) {
                    dropped[0] = true;
                    return 0;
                }
                return 1;
            });
            peers.a.qp.postSend(SendWorkRequest.write(1, peers.a.mr.sge(0, 40 * 1024), peers.b.mr.address(),
                    peers.b.mr.rkey(), SendFlag.SIGNALED.value()));
            List<WorkCompletion> done = peers.runUntilCompletions(peers.a, 1);
            assertEquals(WcStatus.SUCCESS, done.get(0).status());
            assertEquals(1, peers.a.counter(Counter.COMPLETER_RETRY_ERR), "the last packet, once");
        }
    }
}
