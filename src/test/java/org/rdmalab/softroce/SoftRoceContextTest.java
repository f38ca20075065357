package org.rdmalab.softroce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.rdmalab.softroce.net.SimulatedNetwork;
import org.rdmalab.verbs.AccessFlag;
import org.rdmalab.verbs.CompletionChannel;
import org.rdmalab.verbs.Context;
import org.rdmalab.verbs.Errno;
import org.rdmalab.verbs.GidType;
import org.rdmalab.verbs.MemoryRegion;
import org.rdmalab.verbs.PacketEvent;
import org.rdmalab.verbs.ProtectionDomain;
import org.rdmalab.verbs.VerbsException;
import org.rdmalab.verbs.spi.DeviceOptions;

/**
 * The device context's verbs on soft0 at each end of their ranges, as rxe answers them:
 * ibv_create_cq's cqe from 1 to max_cqe and its one completion vector and own channels,
 * ibv_query_gid_ex's table of 1024 entries of which four are populated, port 1 alone,
 * ibv_reg_mr's access rules and the regions' keys and page-aligned addresses with a guard page
 * between them, and the packet listeners.
 */
class SoftRoceContextTest {

    private SimulatedNetwork net;
    private Context context;

    @BeforeEach
    void open() throws Exception {
        net = new SimulatedNetwork();
        context = SoftRoceProvider.device(DeviceOptions.defaults(), net).open();
    }

    @AfterEach
    void close() {
        context.close();
    }

    private static VerbsException refused(Errno errno, Executable call) {
        VerbsException e = assertThrows(VerbsException.class, call);
        assertEquals(errno, e.errno(), e.getMessage());
        return e;
    }

    @Test
    void aCqHoldsFromOneToMaxCqeEntriesOnVectorZeroWithAChannelOfItsOwnContext() throws Exception {
        assertEquals(1, context.createCq(1, null, 0).capacity());
        assertEquals(SoftRoceProfile.MAX_CQE, context.createCq(SoftRoceProfile.MAX_CQE, null, 0).capacity());
        for (int cqe : new int[] {0, -1, SoftRoceProfile.MAX_CQE + 1}) {
            VerbsException e = refused(Errno.EINVAL, () -> context.createCq(cqe, null, 0));
            assertTrue(e.getMessage().contains("cqe " + cqe + " is outside 1..32767 (the device's max_cqe)"),
                    e.getMessage());
        }
        for (int vector : new int[] {1, -1}) {
            VerbsException e = refused(Errno.EINVAL, () -> context.createCq(4, null, vector));
            assertTrue(e.getMessage().contains("comp_vector " + vector + " does not exist"), e.getMessage());
        }
        CompletionChannel mine = context.createCompletionChannel();
        assertEquals(mine, context.createCq(4, mine, 0).channel());
        try (Context other = SoftRoceProvider.device(DeviceOptions.defaults(), net).open()) {
            CompletionChannel foreign = other.createCompletionChannel();
            VerbsException e = refused(Errno.EINVAL, () -> context.createCq(4, foreign, 0));
            assertTrue(e.getMessage().contains("the completion channel belongs to another context"), e.getMessage());
        }
    }

    @Test
    void theGidTableHasRoomFor1024AndFourArePopulatedOnPortOneAlone() throws Exception {
        assertEquals(GidType.ROCE_V1, context.queryGidEntry(1, 0).type());
        assertEquals(GidType.ROCE_V2, context.queryGidEntry(1, 3).type());
        assertEquals(3, context.queryGidEntry(1, 3).index());
        for (int index : new int[] {4, 1023}) {
            VerbsException e = refused(Errno.ENODATA, () -> context.queryGidEntry(1, index));
            assertTrue(e.getMessage().contains("GID index " + index + " is empty"), e.getMessage());
        }
        for (int index : new int[] {-1, 1024}) {
            VerbsException e = refused(Errno.EINVAL, () -> context.queryGidEntry(1, index));
            assertTrue(e.getMessage().contains("GID index " + index + " is outside 0..1023"), e.getMessage());
        }
        for (int port : new int[] {0, 2}) {
            VerbsException e = refused(Errno.EINVAL, () -> context.queryGidEntry(port, 0));
            assertTrue(e.getMessage().contains("port " + port + " does not exist (the device has port 1)"),
                    e.getMessage());
            refused(Errno.EINVAL, () -> context.queryPort(port));
        }
        assertEquals(1024, context.queryPort(1).gidTableLength());
        assertEquals(SoftRoceProfile.MAX_CQE, context.queryDevice().maxCqe());
    }

    @Test
    void regionsFollowTheKernelsAccessRulesAndGetFreshKeysAtPageAlignedAddresses() throws Exception {
        ProtectionDomain pd = context.allocatePd();
        ProtectionDomain second = context.allocatePd();
        assertNotEquals(pd.handle(), second.handle());
        int local = AccessFlag.LOCAL_WRITE.value();
        for (AccessFlag remote : List.of(AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_ATOMIC)) {
            VerbsException e = refused(Errno.EINVAL, () -> pd.registerMemory(16, remote.value()));
            assertTrue(e.getMessage().contains("REMOTE_WRITE and REMOTE_ATOMIC need LOCAL_WRITE too"), e.getMessage());
            pd.registerMemory(16, remote.value() | local).close();
        }
        pd.registerMemory(16, AccessFlag.REMOTE_READ.value()).close();
        VerbsException e = refused(Errno.EINVAL, () -> pd.registerMemory(16, local | 0x4000));
        assertTrue(e.getMessage().contains("access flags 0x4001 hold unknown bits 0x4000"), e.getMessage());
        refused(Errno.EOPNOTSUPP, () -> pd.registerMemory(16, local | AccessFlag.ON_DEMAND.value()));
        assertThrows(IllegalArgumentException.class, () -> pd.registerMemory(-1, local));

        List<MemoryRegion> regions = new ArrayList<>();
        for (int length : new int[] {0, 1, 4096, 4097, 100}) {
            regions.add(pd.registerMemory(length, local));
        }
        // Each region takes its pages rounded up (at least one) and a guard page after them.
        long[] expectedGaps = {2 * 4096, 2 * 4096, 2 * 4096, 3 * 4096};
        for (int i = 1; i < regions.size(); i++) {
            assertEquals(0, regions.get(i).address() & 0xfff);
            assertEquals(expectedGaps[i - 1], regions.get(i).address() - regions.get(i - 1).address(), "region " + i);
            int previous = regions.get(i - 1).lkey();
            int key = regions.get(i).lkey();
            assertEquals((previous >>> 8) + 1, key >>> 8, "the next index");
            assertEquals(((previous & 0xff) + 0x1d) & 0xff, key & 0xff, "a key byte 0x1d further");
            assertEquals(key, regions.get(i).rkey());
        }
    }

    @Test
    void listenersHearEveryPacketUntilTheyUnsubscribeAndAFailingOneStopsNoOther() throws Exception {
        SoftRoceContext soft = (SoftRoceContext) context;
        List<PacketEvent> heard = new ArrayList<>();
        AutoCloseable failing = soft.subscribe(event -> {
            throw new IllegalStateException("a listener's bug");
        });
        AutoCloseable listening = soft.subscribe(heard::add);
        assertTrue(soft.hasListeners());
        PacketEvent event = new PacketEvent(1, PacketEvent.Direction.DROPPED, "a", "b", "?", 0, 0, false, 0, "test",
                List.of(), new byte[0]);
        soft.publish(event);
        assertEquals(List.of(event), heard);
        listening.close();
        failing.close();
        assertTrue(!soft.hasListeners());
        soft.publish(event);
        assertEquals(1, heard.size());
        Map<String, Long> counters = context.queryCounters();
        assertEquals(Counter.values().length, counters.size());
        assertEquals(List.of(Counter.values()).stream().map(Counter::counterName).toList(), List.copyOf(counters.keySet()),
                "rxe's names, in order");
    }
    @Test
    void aClosedContextAndItsObjectsRefuseEveryVerb() throws Exception {
        ProtectionDomain pd = context.allocatePd();
        CompletionChannel channel = context.createCompletionChannel();
        org.rdmalab.verbs.CompletionQueue cq = context.createCq(4, channel, 0);
        org.rdmalab.verbs.QpInitAttributes init = new org.rdmalab.verbs.QpInitAttributes(org.rdmalab.verbs.QpType.RC,
                cq, cq, new org.rdmalab.verbs.QpCapabilities(1, 1, 1, 1, 0), false);
        context.close();
        List<Executable> verbs = List.of(
                context::queryDevice, () -> context.queryPort(1), () -> context.queryGidEntry(1, 0),
                context::queryCounters, () -> ((SoftRoceContext) context).subscribe(event -> { }), context::allocatePd,
                context::createCompletionChannel, () -> context.createCq(4, null, 0),
                () -> pd.registerMemory(8, 0), () -> pd.createQp(init),
                () -> channel.getEvent(java.time.Duration.ZERO),
                () -> ((SoftRoceContext) context).transport("ibv_create_qp"));
        for (int i = 0; i < verbs.size(); i++) {
            assertThrows(IllegalStateException.class, verbs.get(i), "verb " + i);
        }
    }

    @Test
    void theProfileDerivesTheActiveMtuNodeGuidAndNetdevFromTheAddressAndLink() throws Exception {
        java.net.Inet4Address loopback = (java.net.Inet4Address) java.net.InetAddress.getByName("127.0.0.1");
        java.net.Inet4Address lan = (java.net.Inet4Address) java.net.InetAddress.getByName("192.168.3.4");
        int[][] mtus = {{1104, 1024}, {1103, 512}, {4176, 4096}, {4175, 2048}, {336, 256}, {100, 256}};
        for (int[] mtu : mtus) {
            assertEquals(mtu[1], new SoftRoceProfile(lan, 4791, mtu[0]).activeMtu().bytes(), "link MTU " + mtu[0]);
        }
        SoftRoceProfile profile = new SoftRoceProfile(lan, 4791, 1500);
        assertEquals(1500, profile.linkMtu());
        assertEquals(List.of(0x02, 0x00, 192, 168, 3, 4), java.util.stream.IntStream.range(0, 6)
                .map(i -> profile.mac()[i] & 0xff).boxed().toList());
        profile.mac()[0] = 9;
        assertEquals(0x02, profile.mac()[0], "a copy");
        assertEquals(0x0000C0FFFEA80304L, profile.nodeGuid(), "the MAC's EUI-64, U/L bit flipped");
        assertEquals(List.of("soft0", "soft0", "soft0", "soft0"), profile.gidTable().stream()
                .map(org.rdmalab.verbs.GidEntry::netdev).toList());
        assertEquals("lo", new SoftRoceProfile(loopback, 4791, 1500).gidTable().get(3).netdev());
        assertEquals("software", new SoftRoceProvider().name());
        SoftRoceDevice device = SoftRoceProvider.device(DeviceOptions.defaults(), net);
        assertEquals("software", device.backend());
        assertTrue(device.description().endsWith(" UDP 4791 (simulated network)"), device.description());
        String text = "software RoCE v2 on " + device.profile().address().getHostAddress() + " UDP 4791";
        assertEquals(text, device.description(new org.rdmalab.softroce.net.WireSocket.Setup(true, 64, true, null)));
        assertEquals(text + "; wire interop with kernel rxe off: no raw socket",
                device.description(new org.rdmalab.softroce.net.WireSocket.Setup(false, 64, false, "no raw socket")));
    }
    @Test
    void closingAContextUnbindsItsAddressAndForgetsItsListeners() throws Exception {
        SoftRoceContext soft = (SoftRoceContext) context;
        soft.transport("ibv_create_qp");
        try (Context other = SoftRoceProvider.device(DeviceOptions.defaults(), net).open()) {
            VerbsException e = refused(Errno.EADDRINUSE, () -> ((SoftRoceContext) other).transport("ibv_create_qp"));
            assertTrue(e.getMessage().contains("already in use"), e.getMessage());
        }
        soft.subscribe(event -> { });
        assertTrue(soft.hasListeners());
        assertEquals(SoftRoceProvider.DEVICE_NAME, context.device().name());
        ProtectionDomain pd = context.allocatePd();
        assertEquals(context, pd.context());
        context.close();
        assertTrue(!soft.hasListeners(), "the listeners are let go of");
        try (Context again = SoftRoceProvider.device(DeviceOptions.defaults(), net).open()) {
            ((SoftRoceContext) again).transport("ibv_create_qp");
        }
    }
}
