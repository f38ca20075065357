package org.rdmalab.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** Numeric values and names as verbs.h and libibverbs define them (typed in from verbs-abi.md). */
class VerbsValuesTest {

    @Test
    void qpStatesAndTypes() {
        assertEquals(0, QpState.RESET.value());
        assertEquals(3, QpState.RTS.value());
        assertEquals(6, QpState.ERR.value());
        assertEquals("IBV_QPS_RTR", QpState.RTR.cName());
        assertEquals(2, QpType.RC.value());
        assertEquals(3, QpType.UC.value());
        assertEquals(4, QpType.UD.value());
        assertEquals(QpType.UD, QpType.of(4));
    }

    @Test
    void mtuEnumIsNotTheByteCount() {
        assertEquals(1, Mtu.MTU_256.value());
        assertEquals(3, Mtu.MTU_1024.value());
        assertEquals(5, Mtu.MTU_4096.value());
        assertEquals(Mtu.MTU_2048, Mtu.ofBytes(2048));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Mtu.ofBytes(1500));
        assertEquals("MTU 1500 is not one of 256, 512, 1024, 2048, 4096", e.getMessage());
    }

    @Test
    void attributeMaskParsesHexAndNames() {
        assertEquals(0x1 | 0x80 | 0x100, QpAttrMask.parse("STATE,AV,PATH_MTU"));
        assertEquals(0x1 | 0x80, QpAttrMask.parse("IBV_QP_STATE | ibv_qp_av"));
        assertEquals(0x129181, QpAttrMask.parse("0x129181"));
        assertEquals("STATE, AV, PATH_MTU, RQ_PSN, MIN_RNR_TIMER, MAX_DEST_RD_ATOMIC, DEST_QPN",
                QpAttrMask.names(0x129181));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> QpAttrMask.parse("STATE,MTU"));
        assertEquals(true, e.getMessage().startsWith("unknown name 'MTU'; valid names: STATE, CUR_STATE"));
        assertEquals("IBV_QP_STATE | IBV_QP_PKEY_INDEX", BitFlag.cExpression(QpAttrMask.class, 0x11));
        assertEquals("STATE, 0x4000000", QpAttrMask.names(0x4000001));
    }

    @Test
    void accessAndSendFlags() {
        assertEquals(0x7, AccessFlag.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_READ));
        assertEquals(0x8, AccessFlag.REMOTE_ATOMIC.value());
        assertEquals(0x100000, AccessFlag.RELAXED_ORDERING.value());
        assertEquals(2, SendFlag.SIGNALED.value());
        assertEquals(8, SendFlag.INLINE.value());
    }

    @Test
    void opcodesAndCompletionStatuses() {
        assertEquals(0, WrOpcode.RDMA_WRITE.value());
        assertEquals(4, WrOpcode.RDMA_READ.value());
        assertEquals(6, WrOpcode.ATOMIC_FETCH_AND_ADD.value());
        assertEquals(128, WcOpcode.RECV.value());
        assertEquals(129, WcOpcode.RECV_RDMA_WITH_IMM.value());
        assertEquals(WcOpcode.COMP_SWAP, WrOpcode.ATOMIC_CMP_AND_SWP.completionOpcode());
        assertEquals(5, WcStatus.WR_FLUSH_ERR.value());
        assertEquals("Work Request Flushed Error", WcStatus.WR_FLUSH_ERR.text());
        assertEquals(10, WcStatus.REM_ACCESS_ERR.value());
        assertEquals("remote access error", WcStatus.REM_ACCESS_ERR.text());
        assertEquals("IBV_WC_RNR_RETRY_EXC_ERR", WcStatus.RNR_RETRY_EXC_ERR.cName());
        assertEquals(13, WcStatus.RNR_RETRY_EXC_ERR.value());
        assertEquals(21, WcStatus.GENERAL_ERR.value());
    }

    @Test
    void portAndGidTypes() {
        assertEquals(4, PortState.ACTIVE.value());
        assertEquals(2, LinkLayer.ETHERNET.value());
        assertEquals(2, GidType.ROCE_V2.value());
        assertEquals("RoCE v1", GidType.ROCE_V1.text());
    }

    @Test
    void rnrTimerAndAckTimeout() {
        assertEquals(655_360_000L, RnrTimer.nanos(0));
        assertEquals(10_000L, RnrTimer.nanos(1));
        assertEquals(5_120_000L, RnrTimer.nanos(18));
        assertEquals(491_520_000L, RnrTimer.nanos(31));
        assertEquals(0, RnrTimer.ackTimeoutNanos(0));
        assertEquals(4096L * (1 << 18), RnrTimer.ackTimeoutNanos(18));
    }

    @Test
    void exceptionMessageCarriesVerbErrnoAndDetail() {
        VerbsException e = new VerbsException("ibv_dealloc_pd", Errno.EBUSY, "");
        assertEquals("ibv_dealloc_pd failed: EBUSY (16, Device or resource busy)", e.getMessage());
        VerbsException unknown = new VerbsException("ibv_open_device", 200, "odd", null);
        assertEquals(Errno.UNKNOWN, unknown.errno());
        assertEquals("ibv_open_device failed: errno (200, Unknown error 200): odd", unknown.getMessage());
        assertEquals(38, Errno.ENOSYS.value());
        assertEquals("Function not implemented", Errno.ENOSYS.text());
    }
}
