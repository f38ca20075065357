package org.rdmalab.softroce;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.rdmalab.softroce.net.UdpFabric;
import org.rdmalab.testing.Ports;
import org.rdmalab.verbs.Device;
import org.rdmalab.verbs.SendFlag;
import org.rdmalab.verbs.SendWorkRequest;
import org.rdmalab.verbs.VerbsException;
import org.rdmalab.verbs.WcOpcode;
import org.rdmalab.verbs.WcStatus;
import org.rdmalab.verbs.WorkCompletion;
import org.rdmalab.verbs.spi.DeviceOptions;

/**
 * A software device sends to its own UDP port, as RoCE v2 devices all send to 4791, unless its
 * options name a peer port: then two devices share one address (the ping-pong warm-up's twins).
 */
class SoftRocePeerPortTest {

    @Test
    void aDeviceSendsToItsOwnPortUnlessOptionsNameAnother() {
        DeviceOptions options = DeviceOptions.defaults().withUdpPort(18_000);
        assertEquals(18_000, SoftRoceProvider.device(options, UdpFabric.INSTANCE).profile().peerUdpPort());
        assertEquals(18_001, SoftRoceProvider.device(options.withPeerUdpPort(18_001), UdpFabric.INSTANCE).profile()
                .peerUdpPort());
        assertEquals(18_000, SoftRoceProvider.device(options.withPeerUdpPort(18_001).withPeerUdpPort(0),
                UdpFabric.INSTANCE).profile().peerUdpPort());
        assertEquals(4791, DeviceOptions.defaults().destinationUdpPort());
    }

    @Test
    void twoDevicesOnOneAddressSendingToEachOthersPortCompleteAWriteAndItsAck() throws Exception {
        int one = Ports.freeUdpPort();
        int other = Ports.freeUdpPort();
        while (other == one) {
            other = Ports.freeUdpPort();
        }
        DeviceOptions base = DeviceOptions.defaults();
        Device a = SoftRoceProvider.device(base.withUdpPort(one).withPeerUdpPort(other), UdpFabric.INSTANCE);
        Device b = SoftRoceProvider.device(base.withUdpPort(other).withPeerUdpPort(one), UdpFabric.INSTANCE);
        Peers.Setup setup = new Peers.Setup();
        Peers.Side sa = Peers.open(a, setup);
        Peers.Side sb = Peers.open(b, setup);
        try {
            Peers.connect(sa, sb, setup, 0x100, 0x200);
            Peers.connect(sb, sa, setup, 0x200, 0x100);
            byte[] text = "two on one address".getBytes(StandardCharsets.US_ASCII);
            sa.mr.write(0, text);
            sa.qp.postSend(SendWorkRequest.write(7, sa.mr.sge(0, text.length), sb.mr.address(), sb.mr.rkey(),
                    SendFlag.SIGNALED.value()));
            List<WorkCompletion> completions = poll(sa, Duration.ofSeconds(10));
            assertEquals(1, completions.size(), completions::toString);
            assertEquals(WcStatus.SUCCESS, completions.get(0).status(), completions::toString);
            assertEquals(WcOpcode.RDMA_WRITE, completions.get(0).opcode());
            assertArrayEquals(text, sb.mr.read(0, text.length));
            assertEquals(1, sb.counter(Counter.RCVD_PKTS), "b took the WRITE on its own port");
            assertEquals(1, sa.counter(Counter.RCVD_PKTS), "a took the ACK on its own port");
        } finally {
            sa.context.close();
            sb.context.close();
        }
    }

    private static List<WorkCompletion> poll(Peers.Side side, Duration limit) throws VerbsException {
        List<WorkCompletion> all = new ArrayList<>();
        long deadline = System.nanoTime() + limit.toNanos();
        while (all.isEmpty() && System.nanoTime() - deadline < 0) {
            all.addAll(side.cq.poll(4));
            Thread.onSpinWait();
        }
        return all;
    }
}
