package org.rdmalab.softroce;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.rdmalab.softroce.net.SimulatedNetwork;
import org.rdmalab.verbs.AccessFlag;
import org.rdmalab.verbs.AddressVector;
import org.rdmalab.verbs.CompletionQueue;
import org.rdmalab.verbs.Context;
import org.rdmalab.verbs.Errno;
import org.rdmalab.verbs.Gid;
import org.rdmalab.verbs.GlobalRoute;
import org.rdmalab.verbs.Mtu;
import org.rdmalab.verbs.QpAttrMask;
import org.rdmalab.verbs.QpAttributes;
import org.rdmalab.verbs.QpCapabilities;
import org.rdmalab.verbs.QpState;
import org.rdmalab.verbs.QpType;
import org.rdmalab.verbs.VerbsException;
import org.rdmalab.verbs.spi.DeviceOptions;

/**
 * The checks ibv_create_qp and ibv_modify_qp make on soft0 before anything changes, as rxe's
 * {@code rxe_qp_chk_cap}, {@code rxe_qp_chk_init}, {@code rxe_qp_chk_attr} and
 * {@code rxe_av_chk_attr} make them: each capability at 0 and at the device's limit and one
 * beyond either end, the CQs' owner, {@code cur_qp_state}, the QP access flags bit by bit, the
 * path MTU at the port's active MTU and one step above, and the address vector field by field
 * (port, each GID index of the table, the destination GID, hop limit, traffic class and flow
 * label at both ends of their ranges).
 */
class QpAttributeChecksTest {

    private static final Gid PEER = Gid.parse("::ffff:10.1.2.3");

    private static SoftRoceProfile profile(int linkMtu) throws Exception {
        return new SoftRoceProfile((Inet4Address) InetAddress.getByName("127.0.0.1"), 4791, linkMtu);
    }

    private static VerbsException einval(Executable call) {
        VerbsException e = assertThrows(VerbsException.class, call);
        assertEquals(Errno.EINVAL, e.errno(), e.getMessage());
        return e;
    }

    private static void assertMessage(VerbsException e, String expected) {
        assertTrue(e.getMessage().contains(expected), "expected '" + expected + "' in: " + e.getMessage());
    }

    // ---- ibv_create_qp: capabilities and CQs ----

    @Test
    void eachCapabilityIsAcceptedFromZeroToTheDevicesLimitAndRefusedBeyondEitherEnd() {
        record Cap(String name, int limit, Function<Integer, QpCapabilities> with) {
        }
        Cap[] caps = {
            new Cap("max_send_wr", SoftRoceProfile.MAX_QP_WR, v -> new QpCapabilities(v, 1, 1, 1, 0)),
            new Cap("max_recv_wr", SoftRoceProfile.MAX_QP_WR, v -> new QpCapabilities(1, v, 1, 1, 0)),
            new Cap("max_send_sge", SoftRoceProfile.MAX_SGE, v -> new QpCapabilities(1, 1, v, 1, 0)),
            new Cap("max_recv_sge", SoftRoceProfile.MAX_SGE, v -> new QpCapabilities(1, 1, 1, v, 0)),
            new Cap("max_inline_data", SoftRoceProfile.MAX_INLINE_DATA, v -> new QpCapabilities(1, 1, 1, 1, v)),
        };
        assertEquals(16384, SoftRoceProfile.MAX_QP_WR, "rxe's max_qp_wr");
        assertEquals(32, SoftRoceProfile.MAX_SGE, "rxe's max_sge");
        assertEquals(256, SoftRoceProfile.MAX_INLINE_DATA, "rxe's max_inline_data");
        for (Cap cap : caps) {
            for (int value : new int[] {0, cap.limit()}) {
                assertDoesNotThrow(() -> QpAttributeChecks.checkCapabilities(cap.with().apply(value)),
                        cap.name() + " " + value);
            }
            for (int value : new int[] {-1, cap.limit() + 1}) {
                VerbsException e = einval(() -> QpAttributeChecks.checkCapabilities(cap.with().apply(value)));
                assertEquals("ibv_create_qp", e.verb());
                assertMessage(e, cap.name() + " " + value + " is outside 0.." + cap.limit() + " (the device's limit)");
            }
        }
    }

    @Test
    void aQpsCqsMustBeOpenAndOfItsOwnContext() throws Exception {
        SimulatedNetwork net = new SimulatedNetwork();
        try (Context mine = SoftRoceProvider.device(DeviceOptions.defaults(), net).open();
             Context other = SoftRoceProvider.device(DeviceOptions.defaults(), net).open()) {
            SoftRoceContext context = (SoftRoceContext) mine;
            CompletionQueue own = mine.createCq(4, null, 0);
            assertSame(own, QpAttributeChecks.ownCq(context, own, "send_cq"));
            CompletionQueue foreign = other.createCq(4, null, 0);
            VerbsException e = einval(() -> QpAttributeChecks.ownCq(context, foreign, "recv_cq"));
            assertEquals("ibv_create_qp", e.verb());
            assertMessage(e, "recv_cq belongs to another device context");
            einval(() -> QpAttributeChecks.ownCq(context, null, "send_cq"));
            own.close();
            IllegalStateException closed = assertThrows(IllegalStateException.class,
                    () -> QpAttributeChecks.ownCq(context, own, "send_cq"));
            assertEquals("send_cq is closed", closed.getMessage());
        }
    }

    // ---- ibv_modify_qp: the transition ----

    @Test
    void theTargetStateIsTheMaskedStateOrTheCurrentOneAndNeverUnknown() throws Exception {
        int init = QpAttrMask.of(QpAttrMask.STATE, QpAttrMask.PKEY_INDEX, QpAttrMask.PORT, QpAttrMask.ACCESS_FLAGS);
        assertEquals(QpState.INIT, QpAttributeChecks.checkTransition(QpType.RC, QpState.RESET,
                new QpAttributes().state(QpState.INIT), init));
        // Without STATE in the mask the QP stays where it is (INIT → INIT), whatever attr.qp_state says.
        assertEquals(QpState.INIT, QpAttributeChecks.checkTransition(QpType.RC, QpState.INIT,
                new QpAttributes().state(QpState.RTS), QpAttrMask.PKEY_INDEX.value()));
        VerbsException e = einval(() -> QpAttributeChecks.checkTransition(QpType.RC, QpState.RESET,
                new QpAttributes().state(QpState.UNKNOWN), init));
        assertEquals("ibv_modify_qp", e.verb());
        assertMessage(e, "qp_state UNKNOWN is not a state a QP can be moved to");
        e = einval(() -> QpAttributeChecks.checkTransition(QpType.RC, QpState.RESET,
                new QpAttributes().state(null), init));
        assertMessage(e, "qp_state null is not a state");
        e = einval(() -> QpAttributeChecks.checkTransition(QpType.RC, QpState.RESET,
                new QpAttributes().state(QpState.RTS), QpAttrMask.STATE.value()));
        assertMessage(e, "RESET → RTS is not a transition");
    }

    @Test
    void curQpStateMustMatchTheQpsStateWhenMasked() throws Exception {
        int rts = QpAttrMask.of(QpAttrMask.STATE, QpAttrMask.TIMEOUT, QpAttrMask.RETRY_CNT, QpAttrMask.RNR_RETRY,
                QpAttrMask.SQ_PSN, QpAttrMask.MAX_QP_RD_ATOMIC);
        int withCur = rts | QpAttrMask.CUR_STATE.value();
        assertEquals(QpState.RTS, QpAttributeChecks.checkTransition(QpType.RC, QpState.RTR,
                new QpAttributes().state(QpState.RTS).currentState(QpState.RTR), withCur));
        VerbsException e = einval(() -> QpAttributeChecks.checkTransition(QpType.RC, QpState.RTR,
                new QpAttributes().state(QpState.RTS).currentState(QpState.INIT), withCur));
        assertMessage(e, "cur_qp_state INIT does not match the QP's state RTR");
        // Not masked: the field is not read.
        assertEquals(QpState.RTS, QpAttributeChecks.checkTransition(QpType.RC, QpState.RTR,
                new QpAttributes().state(QpState.RTS).currentState(QpState.INIT), rts));
    }

    // ---- ibv_modify_qp: the values ----

    @Test
    void theQpAccessFlagsMayHoldTheFiveRemoteAndLocalRightsOnly() throws Exception {
        SoftRoceProfile profile = profile(1500);
        int mask = QpAttrMask.ACCESS_FLAGS.value();
        AccessFlag[] allowed = {AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_READ,
            AccessFlag.REMOTE_ATOMIC, AccessFlag.MW_BIND};
        for (AccessFlag flag : allowed) {
            assertEquals(0, QpAttributeChecks.checkValues(profile, new QpAttributes().accessFlags(flag.value()), mask),
                    flag.name());
        }
        assertEquals(0, QpAttributeChecks.checkValues(profile,
                new QpAttributes().accessFlags(AccessFlag.of(allowed)), mask));
        assertEquals(0, QpAttributeChecks.checkValues(profile, new QpAttributes().accessFlags(0), mask));
        for (AccessFlag flag : new AccessFlag[] {AccessFlag.ZERO_BASED, AccessFlag.ON_DEMAND, AccessFlag.HUGETLB,
            AccessFlag.RELAXED_ORDERING}) {
            int flags = AccessFlag.REMOTE_WRITE.value() | flag.value();
            VerbsException e = einval(() -> QpAttributeChecks.checkValues(profile,
                    new QpAttributes().accessFlags(flags), mask));
            assertMessage(e, String.format("qp_access_flags 0x%x hold bits a QP does not use", flags));
            assertDoesNotThrow(() -> QpAttributeChecks.checkValues(profile, new QpAttributes().accessFlags(flags), 0),
                    "not masked: not read");
        }
        einval(() -> QpAttributeChecks.checkValues(profile, new QpAttributes().accessFlags(1 << 31), mask));
    }

    @Test
    void thePathMtuMayBeAnyUpToThePortsActiveMtu() throws Exception {
        int mask = QpAttrMask.PATH_MTU.value();
        SoftRoceProfile ethernet = profile(1500);
        assertEquals(Mtu.MTU_1024, ethernet.portAttributes().activeMtu());
        for (Mtu mtu : new Mtu[] {Mtu.MTU_256, Mtu.MTU_512, Mtu.MTU_1024}) {
            assertDoesNotThrow(() -> QpAttributeChecks.checkValues(ethernet, new QpAttributes().pathMtu(mtu), mask));
        }
        VerbsException e = einval(() -> QpAttributeChecks.checkValues(ethernet,
                new QpAttributes().pathMtu(Mtu.MTU_2048), mask));
        assertMessage(e, "path_mtu IBV_MTU_2048 is above the port's active MTU 1024 (ibv_query_port's active_mtu); "
                + "use IBV_MTU_1024 or less");
        e = einval(() -> QpAttributeChecks.checkValues(ethernet, new QpAttributes().pathMtu(null), mask));
        assertMessage(e, "path_mtu is not set");
        assertDoesNotThrow(() -> QpAttributeChecks.checkValues(ethernet, new QpAttributes().pathMtu(Mtu.MTU_4096), 0));

        SoftRoceProfile jumbo = profile(9000);
        assertDoesNotThrow(() -> QpAttributeChecks.checkValues(jumbo, new QpAttributes().pathMtu(Mtu.MTU_4096), mask));
        SoftRoceProfile small = profile(1100);
        assertEquals(Mtu.MTU_512, small.portAttributes().activeMtu(), "1100 - 80 bytes of headers");
        e = einval(() -> QpAttributeChecks.checkValues(small, new QpAttributes().pathMtu(Mtu.MTU_1024), mask));
        assertMessage(e, "use IBV_MTU_512 or less");
    }

    // ---- ibv_modify_qp: the address vector ----

    private static QpAttributes av(GlobalRoute grh, int port) {
        return new QpAttributes().addressVector(AddressVector.global(grh, port));
    }

    private static GlobalRoute route(Gid dgid, int sgidIndex, int hopLimit, int trafficClass, int flowLabel) {
        return new GlobalRoute(dgid, flowLabel, sgidIndex, hopLimit, trafficClass);
    }

    @Test
    void aGoodAddressVectorGivesThePeersIpv4AddressAndWithoutAvNothingIsRead() throws Exception {
        SoftRoceProfile profile = profile(1500);
        int mask = QpAttrMask.AV.value();
        assertEquals(0x0A010203, QpAttributeChecks.checkValues(profile, av(GlobalRoute.of(PEER, 3), 1), mask));
        assertEquals(0xC0A80AFE, QpAttributeChecks.checkValues(profile,
                av(GlobalRoute.of(Gid.parse("::ffff:192.168.10.254"), 3), 1), mask), "every byte in its place, unsigned");
        assertEquals(0, QpAttributeChecks.checkValues(profile, av(GlobalRoute.of(PEER, 3), 1), 0));
        assertEquals(0, QpAttributeChecks.checkValues(profile, new QpAttributes(), 0));
        VerbsException e = einval(() -> QpAttributeChecks.checkValues(profile, new QpAttributes(), mask));
        assertMessage(e, "ah_attr is not set although the mask has AV");
        e = einval(() -> QpAttributeChecks.checkValues(profile,
                new QpAttributes().addressVector(AddressVector.local(3, 1)), mask));
        assertMessage(e, "ah_attr.is_global is 0, but RoCE routes by GID");
    }

    @Test
    void theAddressVectorsPortIsOneOrZero() throws Exception {
        SoftRoceProfile profile = profile(1500);
        int mask = QpAttrMask.AV.value();
        for (int port : new int[] {0, 1}) {
            assertEquals(0x0A010203, QpAttributeChecks.checkValues(profile, av(GlobalRoute.of(PEER, 3), port), mask));
        }
        for (int port : new int[] {-1, 2}) {
            VerbsException e = einval(() -> QpAttributeChecks.checkValues(profile, av(GlobalRoute.of(PEER, 3), port),
                    mask));
            assertMessage(e, "ah_attr.port_num " + port + " does not exist (the device has port 1)");
        }
    }

    @Test
    void onlyTheIpv4RoceV2GidOfTheTableMayBeTheSourceAndEachOtherIndexSaysWhy() throws Exception {
        SoftRoceProfile profile = profile(1500);
        int mask = QpAttrMask.AV.value();
        String hint = "; use index 3 (::ffff:127.0.0.1, RoCE v2)";
        VerbsException e = einval(() -> QpAttributeChecks.checkValues(profile, av(GlobalRoute.of(PEER, 0), 1), mask));
        assertMessage(e, "grh.sgid_index 0 is a RoCE v1 GID (fe80:");
        assertTrue(e.getMessage().endsWith(hint), e.getMessage());
        e = einval(() -> QpAttributeChecks.checkValues(profile, av(GlobalRoute.of(PEER, 1), 1), mask));
        assertMessage(e, "grh.sgid_index 1 is the link-local GID fe80:");
        assertMessage(e, "this device sends over IPv4 only");
        assertTrue(e.getMessage().endsWith(hint), e.getMessage());
        e = einval(() -> QpAttributeChecks.checkValues(profile, av(GlobalRoute.of(PEER, 2), 1), mask));
        assertMessage(e, "grh.sgid_index 2 is a RoCE v1 GID (::ffff:127.0.0.1); this device speaks RoCE v2");
        assertTrue(e.getMessage().endsWith(hint), e.getMessage());
        for (int index : new int[] {-1, 4, 1023}) {
            e = einval(() -> QpAttributeChecks.checkValues(profile, av(GlobalRoute.of(PEER, index), 1), mask));
            assertMessage(e, "grh.sgid_index " + index + " is not a populated GID of port 1 (indexes 0..3 are)" + hint);
        }
    }

    @Test
    void theDestinationGidIsTheIpv4MappedGidOfThePeer() throws Exception {
        SoftRoceProfile profile = profile(1500);
        int mask = QpAttrMask.AV.value();
        for (Gid dgid : new Gid[] {null, Gid.ZERO}) {
            VerbsException e = einval(() -> QpAttributeChecks.checkValues(profile, av(GlobalRoute.of(dgid, 3), 1), mask));
            assertMessage(e, "grh.dgid is all zeros");
        }
        VerbsException e = einval(() -> QpAttributeChecks.checkValues(profile,
                av(GlobalRoute.of(Gid.parse("fe80::1"), 3), 1), mask));
        assertMessage(e, "grh.dgid fe80::1 is not an IPv4-mapped GID");
    }

    @Test
    void hopLimitTrafficClassAndFlowLabelAreCheckedAtBothEnds() throws Exception {
        SoftRoceProfile profile = profile(1500);
        int mask = QpAttrMask.AV.value();
        int[][] good = {{0, 0, 0}, {255, 255, 0xFFFFF}, {64, 0, 0}, {1, 1, 1}};
        for (int[] g : good) {
            assertEquals(0x0A010203, QpAttributeChecks.checkValues(profile, av(route(PEER, 3, g[0], g[1], g[2]), 1), mask),
                    java.util.Arrays.toString(g));
        }
        record Bad(int hopLimit, int trafficClass, int flowLabel, String message) {
        }
        Bad[] bad = {
            new Bad(-1, 0, 0, "grh.hop_limit -1 is outside 0..255"),
            new Bad(256, 0, 0, "grh.hop_limit 256 is outside 0..255"),
            new Bad(64, -1, 0, "grh.traffic_class -1 is outside 0..255"),
            new Bad(64, 256, 0, "grh.traffic_class 256 is outside 0..255"),
            new Bad(64, 0, -1, "grh.flow_label -1 does not fit in 20 bits"),
            new Bad(64, 0, 0x100000, "grh.flow_label 1048576 does not fit in 20 bits"),
        };
        for (Bad b : bad) {
            VerbsException e = einval(() -> QpAttributeChecks.checkValues(profile,
                    av(route(PEER, 3, b.hopLimit(), b.trafficClass(), b.flowLabel()), 1), mask));
            assertMessage(e, b.message());
        }
    }
}
