package org.rdmalab.softroce;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.rdmalab.softroce.net.Fabric;
import org.rdmalab.softroce.net.SimulatedNetwork;
import org.rdmalab.verbs.AccessFlag;
import org.rdmalab.verbs.AddressVector;
import org.rdmalab.verbs.CompletionChannel;
import org.rdmalab.verbs.CompletionQueue;
import org.rdmalab.verbs.Context;
import org.rdmalab.verbs.Device;
import org.rdmalab.verbs.Errno;
import org.rdmalab.verbs.Gid;
import org.rdmalab.verbs.GlobalRoute;
import org.rdmalab.verbs.MemoryRegion;
import org.rdmalab.verbs.Mtu;
import org.rdmalab.verbs.ProtectionDomain;
import org.rdmalab.verbs.QpAttrMask;
import org.rdmalab.verbs.QpAttributes;
import org.rdmalab.verbs.QpCapabilities;
import org.rdmalab.verbs.QpInitAttributes;
import org.rdmalab.verbs.QpState;
import org.rdmalab.verbs.QpType;
import org.rdmalab.verbs.QueuePair;
import org.rdmalab.verbs.ReceiveWorkRequest;
import org.rdmalab.verbs.SendFlag;
import org.rdmalab.verbs.SendWorkRequest;
import org.rdmalab.verbs.VerbsException;
import org.rdmalab.verbs.spi.Backends;
import org.rdmalab.verbs.spi.DeviceOptions;

/** The verbs objects of the software device: validation, errno and sentences, lifetimes. */
class SoftRoceVerbsTest {

    private static final int INIT_MASK = QpAttrMask.of(QpAttrMask.STATE, QpAttrMask.PKEY_INDEX, QpAttrMask.PORT,
            QpAttrMask.ACCESS_FLAGS);
    private static final int RTR_MASK = QpAttrMask.of(QpAttrMask.STATE, QpAttrMask.AV, QpAttrMask.PATH_MTU,
            QpAttrMask.DEST_QPN, QpAttrMask.RQ_PSN, QpAttrMask.MAX_DEST_RD_ATOMIC, QpAttrMask.MIN_RNR_TIMER);
    private static final int RTS_MASK = QpAttrMask.of(QpAttrMask.STATE, QpAttrMask.TIMEOUT, QpAttrMask.RETRY_CNT,
            QpAttrMask.RNR_RETRY, QpAttrMask.SQ_PSN, QpAttrMask.MAX_QP_RD_ATOMIC);

    private static Device simulatedDevice(SimulatedNetwork net) {
        return SoftRoceProvider.device(DeviceOptions.defaults(), net);
    }

    private static QueuePair qp(Context context) throws VerbsException {
        ProtectionDomain pd = context.allocatePd();
        CompletionQueue cq = context.createCq(16, null, 0);
        return pd.createQp(new QpInitAttributes(QpType.RC, cq, cq, new QpCapabilities(2, 2, 1, 1, 0), false));
    }

    private static QpAttributes rtr(Gid dgid, int sgidIndex) {
        return new QpAttributes().state(QpState.RTR)
                .addressVector(AddressVector.global(GlobalRoute.of(dgid, sgidIndex), 1)).pathMtu(Mtu.MTU_1024)
                .destQpNum(0x12).rqPsn(0).maxDestRdAtomic(1).minRnrTimer(12);
    }

    private static VerbsException refused(QueuePair qp, QpAttributes attributes, int mask) {
        return assertThrows(VerbsException.class, () -> qp.modify(attributes, mask));
    }

    @Test
    void modifyRefusalsNameTheAttribute() throws Exception {
        SimulatedNetwork net = new SimulatedNetwork();
        try (Context context = simulatedDevice(net).open()) {
            QueuePair qp = qp(context);
            VerbsException e = refused(qp, new QpAttributes().state(QpState.RTR), RTR_MASK);
            assertEquals(Errno.EINVAL, e.errno());
            assertTrue(e.getMessage().contains("RESET → RTR is not a transition"), e.getMessage());
            e = refused(qp, new QpAttributes().state(QpState.INIT).portNum(2), INIT_MASK);
            assertTrue(e.getMessage().contains("port_num 2"), e.getMessage());
            e = refused(qp, new QpAttributes().state(QpState.INIT).portNum(1).pkeyIndex(3), INIT_MASK);
            assertTrue(e.getMessage().contains("pkey_index 3"), e.getMessage());
            qp.modify(new QpAttributes().state(QpState.INIT).portNum(1).accessFlags(AccessFlag.REMOTE_WRITE.value()),
                    INIT_MASK);
            Gid peer = Gid.parse("::ffff:127.0.0.2");
            e = refused(qp, rtr(peer, 3).pathMtu(Mtu.MTU_2048), RTR_MASK);
            assertTrue(e.getMessage().contains("path_mtu IBV_MTU_2048 is above the port's active MTU 1024"), e.getMessage());
            e = refused(qp, rtr(peer, 3).addressVector(AddressVector.local(3, 1)), RTR_MASK);
            assertTrue(e.getMessage().contains("is_global is 0"), e.getMessage());
            e = refused(qp, rtr(peer, 2), RTR_MASK);
            assertTrue(e.getMessage().contains("sgid_index 2 is a RoCE v1 GID")
                    && e.getMessage().contains("speaks RoCE v2") && e.getMessage().contains("use index 3"), e.getMessage());
            e = refused(qp, rtr(peer, 7), RTR_MASK);
            assertTrue(e.getMessage().contains("sgid_index 7 is not a populated GID"), e.getMessage());
            e = refused(qp, rtr(Gid.ZERO, 3), RTR_MASK);
            assertTrue(e.getMessage().contains("dgid is all zeros"), e.getMessage());
            e = refused(qp, rtr(Gid.parse("fe80::1"), 3), RTR_MASK);
            assertTrue(e.getMessage().contains("not an IPv4-mapped GID"), e.getMessage());
            e = refused(qp, rtr(peer, 3).rqPsn(1 << 24), RTR_MASK);
            assertTrue(e.getMessage().contains("rq_psn 16777216 (0x1000000) does not fit in 24 bits"), e.getMessage());
            e = refused(qp, rtr(peer, 3).minRnrTimer(32), RTR_MASK);
            assertTrue(e.getMessage().contains("min_rnr_timer 32 is outside 0..31"), e.getMessage());
            e = refused(qp, rtr(peer, 3).maxDestRdAtomic(129), RTR_MASK);
            assertTrue(e.getMessage().contains("max_dest_rd_atomic 129"), e.getMessage());
            e = refused(qp, rtr(peer, 3), RTR_MASK & ~QpAttrMask.RQ_PSN.value());
            assertTrue(e.getMessage().endsWith("missing: RQ_PSN"), e.getMessage());
            assertEquals(QpState.INIT, qp.state(), "a refused modify changes nothing");
            qp.modify(rtr(peer, 3), RTR_MASK);
            QpAttributes rts = new QpAttributes().state(QpState.RTS).timeout(14).retryCount(7).rnrRetry(7).sqPsn(0)
                    .maxRdAtomic(1);
            e = refused(qp, rts.copy().timeout(32), RTS_MASK);
            assertTrue(e.getMessage().contains("timeout 32 is outside 0..31"), e.getMessage());
            e = refused(qp, rts.copy().retryCount(8), RTS_MASK);
            assertTrue(e.getMessage().contains("retry_cnt 8 is outside 0..7"), e.getMessage());
            e = refused(qp, rts.copy().rnrRetry(-1), RTS_MASK);
            assertTrue(e.getMessage().contains("rnr_retry -1 is outside 0..7"), e.getMessage());
            e = refused(qp, rts.copy().sqPsn(-1), RTS_MASK);
            assertTrue(e.getMessage().contains("sq_psn 4294967295 (0xffffffff) does not fit in 24 bits"), e.getMessage());
            qp.modify(rts, RTS_MASK);
            QpAttributes queried = qp.query(0);
            assertEquals(QpState.RTS, queried.state());
            assertEquals(0x12, queried.destQpNum());
            assertEquals(14, queried.timeout());
            assertEquals(Mtu.MTU_1024, queried.pathMtu());
            assertEquals(peer, queried.addressVector().grh().dgid());
            assertEquals(16, queried.capabilities().maxInlineData(), "rxe grows inline data to fill the WQE");
        }
    }

    @Test
    void postingFollowsRxesStateRulesAndQueueLimits() throws Exception {
        SimulatedNetwork net = new SimulatedNetwork();
        try (Context context = simulatedDevice(net).open()) {
            QueuePair qp = qp(context);
            MemoryRegion mr = qp.pd().registerMemory(64, AccessFlag.LOCAL_WRITE.value());
            VerbsException e = assertThrows(VerbsException.class, () -> qp.postRecv(ReceiveWorkRequest.of(1, mr.sge())));
            assertEquals(Errno.EINVAL, e.errno());
            assertTrue(e.getMessage().startsWith("ibv_post_recv failed: EINVAL (22, Invalid argument): the QP is in RESET"));
            qp.modify(new QpAttributes().state(QpState.INIT).portNum(1), INIT_MASK);
            assertEquals(3, qp.capabilities().maxRecvWr(), "max_recv_wr 2 is granted as 3, as rxe rounds it");
            for (int i = 1; i <= 3; i++) {
                qp.postRecv(ReceiveWorkRequest.of(i, mr.sge()));
            }
            e = assertThrows(VerbsException.class, () -> qp.postRecv(ReceiveWorkRequest.of(4, mr.sge())));
            assertEquals(Errno.ENOMEM, e.errno());
            assertTrue(e.getMessage().contains("max_recv_wr 3 work requests are posted"), e.getMessage());
            e = assertThrows(VerbsException.class, () -> qp.postSend(SendWorkRequest.send(1, mr.sge(), 0)));
            assertEquals(Errno.EINVAL, e.errno());
            assertTrue(e.getMessage().contains("the QP is in INIT"), e.getMessage());
            qp.modify(rtr(Gid.parse("::ffff:127.0.0.1"), 3), RTR_MASK);
            qp.modify(new QpAttributes().state(QpState.RTS).timeout(14).retryCount(7).rnrRetry(7).sqPsn(0).maxRdAtomic(1),
                    RTS_MASK);
            e = assertThrows(VerbsException.class, () -> qp.postSend(new SendWorkRequest(1,
                    java.util.List.of(mr.sge(0, 8), mr.sge(8, 8)), org.rdmalab.verbs.WrOpcode.SEND, 0, 0, 0, 0, 0, 0)));
            assertTrue(e.getMessage().contains("num_sge 2 is above the QP's max_send_sge 1"), e.getMessage());
            e = assertThrows(VerbsException.class, () -> qp.postSend(SendWorkRequest.fetchAdd(1, mr.sge(0, 8),
                    0x1004, 1, 1, 0)));
            assertTrue(e.getMessage().contains("8-byte aligned"), e.getMessage());
            e = assertThrows(VerbsException.class, () -> qp.postSend(SendWorkRequest.send(1, mr.sge(0, 32),
                    SendFlag.INLINE.value())));
            assertTrue(e.getMessage().contains("above the QP's max_inline_data 16"), e.getMessage());
            e = assertThrows(VerbsException.class, () -> qp.postSend(java.util.List.of(
                    SendWorkRequest.send(1, mr.sge(0, 8), 0), SendWorkRequest.send(2, mr.sge(0, 8), 0),
                    SendWorkRequest.send(3, mr.sge(0, 8), 0), SendWorkRequest.send(4, mr.sge(0, 8), 0))));
            assertEquals(Errno.ENOMEM, e.errno());
            assertTrue(e.getMessage().contains("max_send_wr 3 work requests are outstanding"), e.getMessage());
        }
    }

    /**
     * rxe's queues have 2^k slots with one kept free (rxe_queue_init): the depths ibv_create_qp and
     * ibv_create_cq grant, and ibv_query_qp reports, are the request rounded up to 2^k - 1.
     */
    @Test
    void queueDepthsAreRoundedUpAsRxeGrantsThem() throws Exception {
        SimulatedNetwork net = new SimulatedNetwork();
        try (Context context = simulatedDevice(net).open()) {
            ProtectionDomain pd = context.allocatePd();
            int[][] cqes = {{1, 1}, {2, 3}, {3, 3}, {4, 7}, {16, 31}, {31, 31}, {4096, 8191}, {32767, 32767}};
            for (int[] cqe : cqes) {
                assertEquals(cqe[1], context.createCq(cqe[0], null, 0).capacity(), "cqe " + cqe[0]);
            }
            CompletionQueue cq = context.createCq(1, null, 0);
            int[][] depths = {{0, 0}, {1, 1}, {2, 3}, {7, 7}, {8, 15}, {100, 127}, {16384, 32767}};
            for (int[] depth : depths) {
                QueuePair qp = pd.createQp(new QpInitAttributes(QpType.RC, cq, cq,
                        new QpCapabilities(depth[0], depth[0], 1, 1, 0), false));
                String what = "max_send_wr/max_recv_wr " + depth[0];
                assertEquals(depth[1], qp.capabilities().maxSendWr(), what);
                assertEquals(depth[1], qp.capabilities().maxRecvWr(), what);
                assertEquals(depth[1], qp.query(0).capabilities().maxSendWr(), what + ", ibv_query_qp");
                assertEquals(depth[1], qp.query(0).capabilities().maxRecvWr(), what + ", ibv_query_qp");
                qp.close();
            }
            VerbsException e = assertThrows(VerbsException.class, () -> pd.createQp(new QpInitAttributes(QpType.RC,
                    cq, cq, new QpCapabilities(16385, 1, 1, 1, 0), false)));
            assertTrue(e.getMessage().contains("max_send_wr 16385 is outside 0..16384"), e.getMessage());
            e = assertThrows(VerbsException.class, () -> context.createCq(32768, null, 0));
            assertEquals(Errno.EINVAL, e.errno());
        }
    }

    @Test
    void memoryRegionsHaveNicLikeKeysAndAddresses() throws Exception {
        SimulatedNetwork net = new SimulatedNetwork();
        try (Context context = simulatedDevice(net).open()) {
            ProtectionDomain pd = context.allocatePd();
            MemoryRegion first = pd.registerMemory(100, AccessFlag.LOCAL_WRITE.value());
            MemoryRegion second = pd.registerMemory(100, AccessFlag.LOCAL_WRITE.value());
            assertEquals(first.lkey(), first.rkey());
            assertEquals(1, first.lkey() >>> 8);
            assertEquals(2, second.lkey() >>> 8);
            assertNotEquals(first.lkey() & 0xff, second.lkey() & 0xff, "the key byte changes per registration");
            assertEquals(0x7f, first.address() >>> 40);
            assertEquals(0, first.address() % 4096);
            VerbsException e = assertThrows(VerbsException.class, () -> pd.registerMemory(8, AccessFlag.REMOTE_WRITE.value()));
            assertTrue(e.getMessage().contains("need LOCAL_WRITE"), e.getMessage());
            e = assertThrows(VerbsException.class, () -> context.createCq(0, null, 0));
            assertEquals(Errno.EINVAL, e.errno());
            first.close();
            first.close();
            assertTrue(((SoftRoceContext) context).regionByKey(first.lkey()) == null, "a deregistered key stops working");
        }
    }

    @Test
    void completionChannelWaitsWithATimeout() throws Exception {
        Peers.Setup setup = new Peers.Setup();
        try (Peers peers = Peers.simulated(setup)) {
            CompletionChannel channel = peers.a.context.createCompletionChannel();
            CompletionQueue cq = peers.a.context.createCq(4, channel, 0);
            VerbsException e = assertThrows(VerbsException.class, () -> channel.getEvent(Duration.ofMillis(20)));
            assertEquals(Errno.ETIMEDOUT, e.errno());
            QueuePair qp = peers.a.pd.createQp(new QpInitAttributes(QpType.RC, cq, cq, setup.capabilities, false));
            QueuePair remote = peers.b.pd.createQp(new QpInitAttributes(QpType.RC, peers.b.cq, peers.b.cq,
                    setup.capabilities, false));
            Peers.Side local = new Peers.Side();
            local.context = peers.a.context;
            local.qp = qp;
            Peers.Side far = new Peers.Side();
            far.context = peers.b.context;
            far.qp = remote;
            Peers.connect(local, far, setup, 0, 0);
            Peers.connect(far, local, setup, 0, 0);
            cq.requestNotify(false);
            qp.postSend(SendWorkRequest.write(1, peers.a.mr.sge(0, 8), peers.b.mr.address(), peers.b.mr.rkey(),
                    SendFlag.SIGNALED.value()));
            peers.run();
            assertEquals(cq, channel.getEvent(Duration.ofMillis(100)));
            cq.ackEvents(1);
            assertEquals(1, cq.poll(4).size());
        }
    }

    @Test
    void openingBindsNothingAndABusyAddressIsExplained() throws Exception {
        try (DatagramSocket probe = new DatagramSocket(new InetSocketAddress("127.0.0.1", 0))) {
            int port = probe.getLocalPort();
            DeviceOptions options = DeviceOptions.defaults().withUdpPort(port);
            Device device = Backends.installed().find("soft0", options);
            try (Context context = device.open()) {
                assertEquals(3, context.queryGidEntry(1, 3).index(), "queries work without a socket");
                VerbsException e = assertThrows(VerbsException.class, () -> qp(context));
                assertEquals(Errno.EADDRINUSE, e.errno());
                assertTrue(e.getMessage().startsWith("ibv_create_qp failed: EADDRINUSE"), e.getMessage());
                assertTrue(e.getMessage().contains("127.0.0.1:" + port), e.getMessage());
            }
        }
        SimulatedNetwork net = new SimulatedNetwork();
        try (Context one = simulatedDevice(net).open(); Context two = simulatedDevice(net).open()) {
            qp(one);
            assertEquals(Errno.EADDRINUSE, assertThrows(VerbsException.class, () -> qp(two)).errno());
        }
    }

    @Test
    void closingAContextClosesItsChildrenOnceAndReleasesTheAddress() throws Exception {
        SimulatedNetwork net = new SimulatedNetwork();
        Context context = simulatedDevice(net).open();
        QueuePair qp = qp(context);
        context.close();
        context.close();
        assertThrows(IllegalStateException.class, () -> qp.query(0));
        try (Context again = simulatedDevice(net).open()) {
            qp(again); // the address is free again
        }
    }

    @Test
    void badFaultSpecsAreRefusedWithOneLine() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> FaultInjector.parse("drop=0.1,jitter=3ms"));
        assertEquals("fault spec: unknown key 'jitter'; valid keys: drop, dup, reorder, corrupt, delay, seed", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> FaultInjector.parse("drop=2"));
        assertEquals("fault spec: drop 2 is outside 0..1", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> FaultInjector.parse("delay=5"));
        assertTrue(e.getMessage().contains("needs a unit"));
        assertThrows(IllegalArgumentException.class, () -> SoftRoceProvider.device(
                DeviceOptions.defaults().withFaults("seed=x"), new SimulatedNetwork()));
        assertEquals(7, FaultInjector.parse("drop=0.05,dup=0.01,reorder=0.02,corrupt=0.001,delay=2ms,seed=7").seed());
    }

    /** The datagram with an ICRC that is right for {@code source} → {@code destination} (port 4791 both ways). */
    static byte[] resign(byte[] datagram, int source, int destination) {
        byte[] copy = datagram.clone();
        int icrc = org.rdmalab.wire.Icrc.forCanonicalIpv4(source, destination, 4791, 4791, copy, 0,
                copy.length - 4);
        org.rdmalab.wire.Icrc.write(copy, copy.length - 4, icrc);
        return copy;
    }

    @Test
    void packetsFromStrangersCorruptedPacketsAndUnknownQpsAreDroppedAndCounted() throws Exception {
        try (Peers peers = Peers.simulated()) {
            java.util.List<org.rdmalab.verbs.PacketEvent> events = new java.util.ArrayList<>();
            Consumer<org.rdmalab.verbs.PacketEvent> listener = events::add;
            ((SoftRoceContext) peers.b.context).subscribe(listener);
            byte[][] captured = new byte[1][];
            peers.net.intercept((src, dst, datagram) -> {
                if (captured[0] == null) {
                    captured[0] = datagram.clone();
                }
                return 1;
            });
            peers.a.qp.postSend(SendWorkRequest.write(1, peers.a.mr.sge(0, 8), peers.b.mr.address(), peers.b.mr.rkey(),
                    SendFlag.SIGNALED.value()));
            peers.run();
            int b = Fabric.toInt(DeviceOptions.parseAddress("127.0.0.2"));
            int a = Fabric.toInt(DeviceOptions.parseAddress("127.0.0.1"));
            int stranger = Fabric.toInt(DeviceOptions.parseAddress("127.0.0.9"));
            byte[] corrupted = captured[0].clone();
            corrupted[corrupted.length - 6] ^= 1;
            peers.net.inject(a, 4791, b, 4791, corrupted);
            peers.net.inject(stranger, 4791, b, 4791, resign(captured[0], stranger, b));
            byte[] otherQp = captured[0].clone();
            otherQp[7] = 0x77;
            peers.net.inject(a, 4791, b, 4791, resign(otherQp, a, b));
            peers.run();
            assertEquals(1, peers.b.counter(Counter.RCVD_ICRC_ERR));
            assertEquals(1, peers.b.counter(Counter.RCVD_UNKNOWN_QP));
            assertEquals(1, peers.b.counter(Counter.RCVD_WRONG_PEER));
            assertEquals(0, peers.b.counter(Counter.DUPLICATE_REQUEST), "no stranger's packet reached the responder");
            assertTrue(events.stream().anyMatch(ev -> ev.direction() == org.rdmalab.verbs.PacketEvent.Direction.DROPPED
                    && ev.detail().startsWith("ICRC mismatch")), events.toString());
            assertTrue(events.stream().anyMatch(ev -> ev.direction() == org.rdmalab.verbs.PacketEvent.Direction.RECEIVED
                    && ev.opcode().equals("RC_RDMA_WRITE_ONLY")), events.toString());
        }
    }

    /** A read into the caller's array copies exactly the range asked for, and refuses a range outside either. */
    @Test
    void aRegionReadsIntoTheCallersArray() throws Exception {
        try (Context context = simulatedDevice(new SimulatedNetwork()).open()) {
            MemoryRegion mr = context.allocatePd().registerMemory(64, AccessFlag.LOCAL_WRITE.value());
            mr.write(54, new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
            byte[] into = {-1, -1, -1, -1, -1, -1};
            mr.read(60, into, 1, 4);
            assertArrayEquals(new byte[] {-1, 7, 8, 9, 10, -1}, into, "the region's last 4 bytes, at index 1, nothing else");
            mr.read(54, into, 0, 6);
            assertArrayEquals(new byte[] {1, 2, 3, 4, 5, 6}, into, "a range that fills the array to its end");
            mr.read(0, into, 6, 0);

            assertThrows(IllegalArgumentException.class, () -> mr.read(61, into, 0, 4), "one byte past the region");
            assertThrows(IllegalArgumentException.class, () -> mr.read(-1, into, 0, 1));
            assertThrows(IndexOutOfBoundsException.class, () -> mr.read(0, into, 3, 4), "one byte past the array");
            assertThrows(IndexOutOfBoundsException.class, () -> mr.read(0, into, -1, 1));
            assertArrayEquals(new byte[] {1, 2, 3, 4, 5, 6}, into, "a refused read leaves the array as it was");
            mr.close();
            assertThrows(IllegalStateException.class, () -> mr.read(0, into, 0, 1));
        }
    }
}
