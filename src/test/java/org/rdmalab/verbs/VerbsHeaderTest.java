package org.rdmalab.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;

/**
 * Every constant of the verbs enums against verbs.h (rdma-core 44): its number, its C name, and the
 * lookup from the number a backend reads out of a C struct. The tables below are typed in from the
 * header, not from the enums, so a constant with a wrong number, or a number that maps back to the
 * wrong constant, fails here.
 */
class VerbsHeaderTest {

    /** Checks that {@code type} has exactly the constants of {@code header}, with those numbers, and that {@code of} finds each. */
    private static <E extends Enum<E> & Numbered> void matchesHeader(Class<E> type, Map<String, Integer> header,
            IntFunction<E> of) {
        assertEquals(header.keySet().stream().toList(),
                Arrays.stream(type.getEnumConstants()).map(Enum::name).toList(), type.getSimpleName());
        for (Map.Entry<String, Integer> entry : header.entrySet()) {
            E constant = Enum.valueOf(type, entry.getKey());
            assertEquals(entry.getValue().intValue(), constant.value(), entry.getKey());
            assertEquals(constant, of.apply(entry.getValue()), "lookup of " + entry.getValue());
        }
    }

    private static Map<String, Integer> header(Object... nameValue) {
        Map<String, Integer> map = new LinkedHashMap<>();
        for (int i = 0; i < nameValue.length; i += 2) {
            map.put((String) nameValue[i], (Integer) nameValue[i + 1]);
        }
        return map;
    }

    @Test
    void qpStatesAreIbvQpStateAndAnUnknownNumberIsRefused() {
        matchesHeader(QpState.class, header("RESET", 0, "INIT", 1, "RTR", 2, "RTS", 3, "SQD", 4, "SQE", 5, "ERR", 6,
                "UNKNOWN", 7), QpState::of);
        assertEquals("IBV_QPS_SQE", QpState.SQE.cName());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> QpState.of(8));
        assertEquals("no ibv_qp_state has value 8", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> QpState.of(-1));
    }

    @Test
    void aQpStateIsReadAsTheLabsFieldsAndCommandLineWriteIt() {
        assertEquals(QpState.RTR, QpState.parse("RTR"));
        assertEquals(QpState.RTS, QpState.parse(" rts "));
        assertEquals(QpState.ERR, QpState.parse("IBV_QPS_ERR"));
        assertEquals(QpState.INIT, QpState.parse("ibv_qps_init"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> QpState.parse("READY"));
        assertEquals("unknown QP state 'READY'; valid states: RESET, INIT, RTR, RTS, SQD, SQE, ERR", e.getMessage());
    }

    @Test
    void qpTypesAreIbvQpType() {
        matchesHeader(QpType.class, header("RC", 2, "UC", 3, "UD", 4, "RAW_PACKET", 8, "XRC_SEND", 9, "XRC_RECV", 10),
                QpType::of);
        assertEquals("IBV_QPT_RC", QpType.RC.cName());
        assertEquals("no ibv_qp_type has value 5",
                assertThrows(IllegalArgumentException.class, () -> QpType.of(5)).getMessage());
        assertEquals(QpType.UC, QpType.parse(" ibv_qpt_uc"));
        assertEquals(QpType.UD, QpType.parse("ud"));
        assertEquals("unknown QP type 'RD'; valid types: RC, UC, UD",
                assertThrows(IllegalArgumentException.class, () -> QpType.parse("RD")).getMessage());
    }

    @Test
    void mtusAreIbvMtuAndCarryTheirByteSize() {
        matchesHeader(Mtu.class, header("MTU_256", 1, "MTU_512", 2, "MTU_1024", 3, "MTU_2048", 4, "MTU_4096", 5),
                Mtu::of);
        int bytes = 256;
        for (Mtu mtu : Mtu.values()) {
            assertEquals(bytes, mtu.bytes(), mtu.name());
            assertEquals(mtu, Mtu.ofBytes(bytes));
            assertEquals(Integer.toString(bytes), mtu.toString());
            bytes *= 2;
        }
        assertEquals("IBV_MTU_4096", Mtu.MTU_4096.cName());
        assertEquals("no ibv_mtu has value 0 (valid: 1..5)",
                assertThrows(IllegalArgumentException.class, () -> Mtu.of(0)).getMessage());
        assertEquals("no ibv_mtu has value 6 (valid: 1..5)",
                assertThrows(IllegalArgumentException.class, () -> Mtu.of(6)).getMessage());
    }

    @Test
    void sendOpcodesAreIbvWrOpcodeWithTheCompletionEachReports() {
        matchesHeader(WrOpcode.class, header("RDMA_WRITE", 0, "RDMA_WRITE_WITH_IMM", 1, "SEND", 2, "SEND_WITH_IMM", 3,
                "RDMA_READ", 4, "ATOMIC_CMP_AND_SWP", 5, "ATOMIC_FETCH_AND_ADD", 6, "LOCAL_INV", 7, "BIND_MW", 8,
                "SEND_WITH_INV", 9), WrOpcode::of);
        assertEquals("IBV_WR_RDMA_WRITE_WITH_IMM", WrOpcode.RDMA_WRITE_WITH_IMM.cName());
        assertEquals("no ibv_wr_opcode has value 10",
                assertThrows(IllegalArgumentException.class, () -> WrOpcode.of(10)).getMessage());
        Map<WrOpcode, WcOpcode> completes = new LinkedHashMap<>();
        completes.put(WrOpcode.RDMA_WRITE, WcOpcode.RDMA_WRITE);
        completes.put(WrOpcode.RDMA_WRITE_WITH_IMM, WcOpcode.RDMA_WRITE);
        completes.put(WrOpcode.SEND, WcOpcode.SEND);
        completes.put(WrOpcode.SEND_WITH_IMM, WcOpcode.SEND);
        completes.put(WrOpcode.RDMA_READ, WcOpcode.RDMA_READ);
        completes.put(WrOpcode.ATOMIC_CMP_AND_SWP, WcOpcode.COMP_SWAP);
        completes.put(WrOpcode.ATOMIC_FETCH_AND_ADD, WcOpcode.FETCH_ADD);
        completes.put(WrOpcode.LOCAL_INV, WcOpcode.LOCAL_INV);
        completes.put(WrOpcode.BIND_MW, WcOpcode.BIND_MW);
        completes.put(WrOpcode.SEND_WITH_INV, WcOpcode.SEND);
        for (Map.Entry<WrOpcode, WcOpcode> entry : completes.entrySet()) {
            assertEquals(entry.getValue(), entry.getKey().completionOpcode(), entry.getKey().name());
        }
        EnumSet<WrOpcode> atomic = EnumSet.of(WrOpcode.ATOMIC_CMP_AND_SWP, WrOpcode.ATOMIC_FETCH_AND_ADD);
        EnumSet<WrOpcode> immediate = EnumSet.of(WrOpcode.RDMA_WRITE_WITH_IMM, WrOpcode.SEND_WITH_IMM);
        for (WrOpcode opcode : WrOpcode.values()) {
            assertEquals(atomic.contains(opcode), opcode.isAtomic(), opcode.name());
            assertEquals(immediate.contains(opcode), opcode.hasImmediate(), opcode.name());
        }
    }

    @Test
    void completionOpcodesAreIbvWcOpcodeAndTheGapsAreRefused() {
        matchesHeader(WcOpcode.class, header("SEND", 0, "RDMA_WRITE", 1, "RDMA_READ", 2, "COMP_SWAP", 3, "FETCH_ADD", 4,
                "BIND_MW", 5, "LOCAL_INV", 6, "TSO", 7, "RECV", 128, "RECV_RDMA_WITH_IMM", 129), WcOpcode::of);
        assertEquals("IBV_WC_RECV_RDMA_WITH_IMM", WcOpcode.RECV_RDMA_WITH_IMM.cName());
        for (int gap : new int[] {-1, 8, 127, 130}) {
            assertEquals("no ibv_wc_opcode has value " + gap,
                    assertThrows(IllegalArgumentException.class, () -> WcOpcode.of(gap)).getMessage());
        }
    }

    @Test
    void completionStatusesAreIbvWcStatusWithIbvWcStatusStrTexts() {
        matchesHeader(WcStatus.class, header("SUCCESS", 0, "LOC_LEN_ERR", 1, "LOC_QP_OP_ERR", 2, "LOC_EEC_OP_ERR", 3,
                "LOC_PROT_ERR", 4, "WR_FLUSH_ERR", 5, "MW_BIND_ERR", 6, "BAD_RESP_ERR", 7, "LOC_ACCESS_ERR", 8,
                "REM_INV_REQ_ERR", 9, "REM_ACCESS_ERR", 10, "REM_OP_ERR", 11, "RETRY_EXC_ERR", 12, "RNR_RETRY_EXC_ERR", 13,
                "LOC_RDD_VIOL_ERR", 14, "REM_INV_RD_REQ_ERR", 15, "REM_ABORT_ERR", 16, "INV_EECN_ERR", 17,
                "INV_EEC_STATE_ERR", 18, "FATAL_ERR", 19, "RESP_TIMEOUT_ERR", 20, "GENERAL_ERR", 21, "TM_ERR", 22,
                "TM_RNDV_INCOMPLETE", 23), WcStatus::of);
        String[] texts = {"success", "local length error", "local QP operation error",
            "local EE context operation error", "local protection error", "Work Request Flushed Error",
            "memory management operation error", "bad response error", "local access error",
            "remote invalid request error", "remote access error", "remote operation error",
            "transport retry counter exceeded", "RNR retry counter exceeded", "local RDD violation error",
            "remote invalid RD request", "aborted error", "invalid EE context number", "invalid EE context state",
            "fatal error", "response timeout error", "general error", "TM error", "TM software rendezvous"};
        for (int value = 0; value < texts.length; value++) {
            assertEquals(texts[value], WcStatus.of(value).text(), "status " + value);
        }
        assertEquals("IBV_WC_LOC_PROT_ERR", WcStatus.LOC_PROT_ERR.cName());
        assertEquals("no ibv_wc_status has value 24",
                assertThrows(IllegalArgumentException.class, () -> WcStatus.of(24)).getMessage());
        assertThrows(IllegalArgumentException.class, () -> WcStatus.of(-1));
    }

    @Test
    void portStatesLinkLayersGidTypesAndMigrationStates() {
        matchesHeader(PortState.class, header("NOP", 0, "DOWN", 1, "INIT", 2, "ARMED", 3, "ACTIVE", 4,
                "ACTIVE_DEFER", 5), PortState::of);
        assertEquals("IBV_PORT_ACTIVE", PortState.ACTIVE.cName());
        assertEquals("no ibv_port_state has value 6",
                assertThrows(IllegalArgumentException.class, () -> PortState.of(6)).getMessage());
        matchesHeader(LinkLayer.class, header("UNSPECIFIED", 0, "INFINIBAND", 1, "ETHERNET", 2), LinkLayer::of);
        assertEquals(java.util.List.of("Unspecified", "InfiniBand", "Ethernet"),
                Arrays.stream(LinkLayer.values()).map(LinkLayer::text).toList());
        assertEquals("no link layer has value 3",
                assertThrows(IllegalArgumentException.class, () -> LinkLayer.of(3)).getMessage());
        matchesHeader(GidType.class, header("IB", 0, "ROCE_V1", 1, "ROCE_V2", 2), GidType::of);
        assertEquals(java.util.List.of("IB", "RoCE v1", "RoCE v2"),
                Arrays.stream(GidType.values()).map(GidType::text).toList());
        assertThrows(IllegalArgumentException.class, () -> GidType.of(3));
        matchesHeader(MigState.class, header("MIGRATED", 0, "REARM", 1, "ARMED", 2),
                value -> Numbered.byValue(MigState.class, value, "ibv_mig_state"));
        assertEquals("IBV_MIG_REARM", MigState.REARM.cName());
    }

    /** The physical port states of ibv_devinfo's phys_state line (IB spec, PortPhysicalState). */
    @Test
    void physicalPortStatesAreNamedAsIbvDevinfoNamesThem() {
        String[] names = {"invalid physical state", "SLEEP", "POLLING", "DISABLED", "PORT_CONFIGURATION_TRAINING",
            "LINK_UP", "LINK_ERROR_RECOVERY", "PHY_TEST", "invalid physical state"};
        for (int phys = 0; phys < names.length; phys++) {
            PortAttributes port = new PortAttributes(PortState.ACTIVE, Mtu.MTU_4096, Mtu.MTU_1024, 16, 0, 1L << 31, 1,
                    0, 0, 1, 1, phys, LinkLayer.ETHERNET);
            assertEquals(names[phys], port.physStateText(), "phys_state " + phys);
        }
    }

    /** A bit enum's values, C names and the mask helpers, from the header's table. */
    private static <E extends Enum<E> & BitFlag> void bitsMatchHeader(Class<E> type, String prefix,
            Map<String, Integer> header) {
        assertEquals(header.keySet().stream().toList(),
                Arrays.stream(type.getEnumConstants()).map(Enum::name).toList(), type.getSimpleName());
        for (Map.Entry<String, Integer> entry : header.entrySet()) {
            E flag = Enum.valueOf(type, entry.getKey());
            assertEquals(entry.getValue().intValue(), flag.value(), entry.getKey());
            assertEquals(prefix + entry.getKey(), flag.cName());
            assertEquals(EnumSet.of(flag), BitFlag.decode(type, entry.getValue()));
        }
    }

    @Test
    void attributeMaskBitsAreIbvQpAttrMask() {
        bitsMatchHeader(QpAttrMask.class, "IBV_QP_", header("STATE", 0x1, "CUR_STATE", 0x2, "EN_SQD_ASYNC_NOTIFY", 0x4,
                "ACCESS_FLAGS", 0x8, "PKEY_INDEX", 0x10, "PORT", 0x20, "QKEY", 0x40, "AV", 0x80, "PATH_MTU", 0x100,
                "TIMEOUT", 0x200, "RETRY_CNT", 0x400, "RNR_RETRY", 0x800, "RQ_PSN", 0x1000, "MAX_QP_RD_ATOMIC", 0x2000,
                "ALT_PATH", 0x4000, "MIN_RNR_TIMER", 0x8000, "SQ_PSN", 0x10000, "MAX_DEST_RD_ATOMIC", 0x20000,
                "PATH_MIG_STATE", 0x40000, "CAP", 0x80000, "DEST_QPN", 0x100000, "RATE_LIMIT", 0x2000000));
    }

    @Test
    void accessSendAndCompletionFlagsAreTheirHeaderBits() {
        bitsMatchHeader(AccessFlag.class, "IBV_ACCESS_", header("LOCAL_WRITE", 0x1, "REMOTE_WRITE", 0x2,
                "REMOTE_READ", 0x4, "REMOTE_ATOMIC", 0x8, "MW_BIND", 0x10, "ZERO_BASED", 0x20, "ON_DEMAND", 0x40,
                "HUGETLB", 0x80, "RELAXED_ORDERING", 0x100000));
        bitsMatchHeader(SendFlag.class, "IBV_SEND_", header("FENCE", 1, "SIGNALED", 2, "SOLICITED", 4, "INLINE", 8,
                "IP_CSUM", 16));
        bitsMatchHeader(WcFlag.class, "IBV_WC_", header("GRH", 1, "WITH_IMM", 2, "IP_CSUM_OK", 4, "WITH_INV", 8));
    }

    @Test
    void aFlagIsSetOnlyWhenItsBitIs() {
        int remote = AccessFlag.of(AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_READ);
        assertEquals(0x6, remote);
        assertTrue(AccessFlag.has(remote, AccessFlag.REMOTE_READ));
        assertFalse(AccessFlag.has(remote, AccessFlag.LOCAL_WRITE));
        assertFalse(AccessFlag.has(remote, AccessFlag.REMOTE_ATOMIC));
        assertEquals("REMOTE_WRITE, REMOTE_READ", AccessFlag.names(remote));
        assertEquals("none", AccessFlag.names(0));
        int signaledInline = SendFlag.of(SendFlag.SIGNALED, SendFlag.INLINE);
        assertEquals(0xa, signaledInline);
        assertTrue(SendFlag.has(signaledInline, SendFlag.SIGNALED));
        assertTrue(SendFlag.has(signaledInline, SendFlag.INLINE));
        assertFalse(SendFlag.has(signaledInline, SendFlag.FENCE));
        assertFalse(SendFlag.has(signaledInline, SendFlag.SOLICITED));
        assertTrue(WcFlag.has(0x3, WcFlag.WITH_IMM));
        assertFalse(WcFlag.has(0x1, WcFlag.WITH_IMM));
        assertFalse(WcFlag.has(0x2, WcFlag.GRH));
    }

    @Test
    void masksAreNamedParsedAndWrittenAsC() {
        assertEquals("none", QpAttrMask.names(0));
        assertEquals("0", BitFlag.cExpression(QpAttrMask.class, 0));
        assertEquals("0x4000000", QpAttrMask.names(0x4000000));
        assertEquals("IBV_QP_AV | 0x4000000", BitFlag.cExpression(QpAttrMask.class, 0x4000080));
        assertEquals(0x4000000, BitFlag.unknownBits(QpAttrMask.class, 0x4000080));
        assertEquals(0, BitFlag.unknownBits(QpAttrMask.class, HeaderMasks.ALL_KNOWN));
        assertEquals(129, QpAttrMask.parse("129"));
        assertEquals(0xff, QpAttrMask.parse(" 0XFF "));
        assertEquals(0x1 | 0x20 | 0x10 | 0x8, QpAttrMask.parse("STATE + port|pkey_index, IBV_QP_ACCESS_FLAGS"));
        assertEquals(0x80000000, QpAttrMask.parse("0x80000000"));
        IllegalArgumentException empty = assertThrows(IllegalArgumentException.class, () -> QpAttrMask.parse("  "));
        assertTrue(empty.getMessage().startsWith("empty mask; give hex (0x81) or names (STATE, CUR_STATE,"),
                empty.getMessage());
        assertTrue(empty.getMessage().endsWith(", DEST_QPN, RATE_LIMIT)"), empty.getMessage());
        assertEquals("unknown name 'FENC'; valid names: FENCE, SIGNALED, SOLICITED, INLINE, IP_CSUM",
                assertThrows(IllegalArgumentException.class, () -> BitFlag.parse(SendFlag.class, "FENC")).getMessage());
    }

    /** Every bit the enum names, ORed by hand from the header's table. */
    private static final class HeaderMasks {
        static final int ALL_KNOWN = 0x1 | 0x2 | 0x4 | 0x8 | 0x10 | 0x20 | 0x40 | 0x80 | 0x100 | 0x200 | 0x400 | 0x800
                | 0x1000 | 0x2000 | 0x4000 | 0x8000 | 0x10000 | 0x20000 | 0x40000 | 0x80000 | 0x100000 | 0x2000000;
    }

    @Test
    void errnoNumbersAreLinuxsAndAnUnlistedOneIsKeptAsANumber() {
        Map<Errno, Integer> linux = new LinkedHashMap<>();
        linux.put(Errno.EPERM, 1);
        linux.put(Errno.ENOENT, 2);
        linux.put(Errno.EINTR, 4);
        linux.put(Errno.EIO, 5);
        linux.put(Errno.EAGAIN, 11);
        linux.put(Errno.ENOMEM, 12);
        linux.put(Errno.EACCES, 13);
        linux.put(Errno.EFAULT, 14);
        linux.put(Errno.EBUSY, 16);
        linux.put(Errno.EEXIST, 17);
        linux.put(Errno.ENODEV, 19);
        linux.put(Errno.EINVAL, 22);
        linux.put(Errno.ENOSPC, 28);
        linux.put(Errno.ENOSYS, 38);
        linux.put(Errno.EPROTO, 71);
        linux.put(Errno.EMSGSIZE, 90);
        linux.put(Errno.EOPNOTSUPP, 95);
        linux.put(Errno.EADDRINUSE, 98);
        linux.put(Errno.EADDRNOTAVAIL, 99);
        linux.put(Errno.ENETUNREACH, 101);
        linux.put(Errno.ECONNRESET, 104);
        linux.put(Errno.ETIMEDOUT, 110);
        linux.put(Errno.ECONNREFUSED, 111);
        linux.put(Errno.ECANCELED, 125);
        for (Map.Entry<Errno, Integer> entry : linux.entrySet()) {
            assertEquals(entry.getValue().intValue(), entry.getKey().value(), entry.getKey().name());
            assertEquals(entry.getKey(), Errno.of(entry.getValue()));
        }
        assertEquals("Cannot allocate memory", Errno.ENOMEM.text());
        assertEquals("Address already in use", Errno.EADDRINUSE.text());
        assertEquals(Errno.UNKNOWN, Errno.of(0));
        assertEquals(Errno.UNKNOWN, Errno.of(200));
        VerbsException e = new VerbsException("ibv_modify_qp", Errno.EINVAL, "missing: DEST_QPN");
        assertEquals("ibv_modify_qp failed: EINVAL (22, Invalid argument): missing: DEST_QPN", e.getMessage());
        assertEquals("ibv_modify_qp", e.verb());
        assertEquals(Errno.EINVAL, e.errno());
        assertEquals(22, e.errnoValue());
        assertEquals("missing: DEST_QPN", e.detail());
        VerbsException bare = new VerbsException("ibv_reg_mr", 12, null, null);
        assertEquals("ibv_reg_mr failed: ENOMEM (12, Cannot allocate memory)", bare.getMessage());
        assertEquals("", bare.detail());
        VerbsException odd = new VerbsException("ibv_poll_cq", 200, "", null);
        assertEquals(200, odd.errnoValue());
        assertEquals("ibv_poll_cq failed: errno (200, Unknown error 200)", odd.getMessage());
    }

    @Test
    void theNodeGuidIsWrittenAsIbvDevinfoWritesIt() {
        DeviceAttributes attributes = new DeviceAttributes("1.0", 0x02007fffFE000001L, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                0, 0, 0, 0, 0, 1);
        assertEquals("0200:7fff:fe00:0001", attributes.nodeGuidText());
        assertEquals("0000:0000:0000:00ab", new DeviceAttributes("", 0xab, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                0, 1).nodeGuidText());
    }

    @Test
    void aMaskThatStartsWithASeparatorIsStillItsNames() {
        assertEquals(0x81, QpAttrMask.parse(",STATE | AV"));
        assertEquals(0x81, QpAttrMask.parse("|state,,av"));
    }
}
