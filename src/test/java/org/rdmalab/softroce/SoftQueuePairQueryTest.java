package org.rdmalab.softroce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.rdmalab.softroce.net.SimulatedNetwork;
import org.rdmalab.verbs.AccessFlag;
import org.rdmalab.verbs.AddressVector;
import org.rdmalab.verbs.Context;
import org.rdmalab.verbs.GlobalRoute;
import org.rdmalab.verbs.MigState;
import org.rdmalab.verbs.Mtu;
import org.rdmalab.verbs.QpAttrMask;
import org.rdmalab.verbs.QpAttributes;
import org.rdmalab.verbs.QpCapabilities;
import org.rdmalab.verbs.QpInitAttributes;
import org.rdmalab.verbs.QpState;
import org.rdmalab.verbs.QpType;
import org.rdmalab.verbs.QueuePair;
import org.rdmalab.verbs.spi.DeviceOptions;

/**
 * {@code ibv_query_qp} on soft0 ({@code rxe_query_qp}, {@code rxe_qp_to_attr}): each attribute a
 * modify names is reported as it was set, each value distinct from the others and from the
 * attribute bag's defaults; an attribute a modify carries but leaves out of its mask is neither
 * applied nor reported, so an earlier value stays.
 */
class SoftQueuePairQueryTest {

    private static final int INIT_MASK = QpAttrMask.of(QpAttrMask.STATE, QpAttrMask.PKEY_INDEX, QpAttrMask.PORT,
            QpAttrMask.ACCESS_FLAGS);
    private static final int RTR_MASK = QpAttrMask.of(QpAttrMask.STATE, QpAttrMask.AV, QpAttrMask.PATH_MTU,
            QpAttrMask.DEST_QPN, QpAttrMask.RQ_PSN, QpAttrMask.MAX_DEST_RD_ATOMIC, QpAttrMask.MIN_RNR_TIMER);
    private static final int RTS_MASK = QpAttrMask.of(QpAttrMask.STATE, QpAttrMask.TIMEOUT, QpAttrMask.RETRY_CNT,
            QpAttrMask.RNR_RETRY, QpAttrMask.SQ_PSN, QpAttrMask.MAX_QP_RD_ATOMIC, QpAttrMask.PATH_MIG_STATE);
    private static final int REMOTE_RW = AccessFlag.of(AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_READ);

    private static QueuePair qp(Context context) throws Exception {
        return context.allocatePd().createQp(new QpInitAttributes(QpType.RC, context.createCq(16, null, 0),
                context.createCq(16, null, 0), new QpCapabilities(8, 4, 2, 1, 0), false));
    }

    /** An address vector to soft0's own IPv4 GID with a route whose fields all differ from the defaults. */
    private static AddressVector route(Context context) throws Exception {
        GlobalRoute grh = new GlobalRoute(context.queryGid(1, 3), 0x12345, 3, 17, 0x28);
        return AddressVector.global(grh, 1);
    }

    /** RESET → INIT → RTR → RTS, every attribute of the modifies distinct. */
    private static void connect(Context context, QueuePair qp) throws Exception {
        qp.modify(new QpAttributes().state(QpState.INIT).pkeyIndex(0).portNum(1).accessFlags(REMOTE_RW), INIT_MASK);
        qp.modify(new QpAttributes().state(QpState.RTR).addressVector(route(context)).pathMtu(Mtu.MTU_512)
                .destQpNum(0x4321).rqPsn(0xABCDE).maxDestRdAtomic(5).minRnrTimer(19), RTR_MASK);
        qp.modify(new QpAttributes().state(QpState.RTS).timeout(9).retryCount(6).rnrRetry(4).sqPsn(0x7F00F)
                .maxRdAtomic(3).pathMigState(MigState.ARMED), RTS_MASK);
    }

    private static void assertConnected(Context context, QpAttributes now, String when) throws Exception {
        assertEquals(0, now.pkeyIndex(), when);
        assertEquals(1, now.portNum(), when);
        assertEquals(route(context), now.addressVector(), when);
        assertEquals(Mtu.MTU_512, now.pathMtu(), when);
        assertEquals(0x4321, now.destQpNum(), when);
        assertEquals(0xABCDE, now.rqPsn(), when);
        assertEquals(5, now.maxDestRdAtomic(), when);
        assertEquals(9, now.timeout(), when);
        assertEquals(6, now.retryCount(), when);
        assertEquals(4, now.rnrRetry(), when);
        assertEquals(0x7F00F, now.sqPsn(), when);
        assertEquals(3, now.maxRdAtomic(), when);
        assertEquals(MigState.ARMED, now.pathMigState(), when);
        assertEquals(0, now.qkey(), when + ": an RC QP has no Q_Key");
        assertFalse(now.sqdAsyncNotify(), when);
    }

    @Test
    void everyAttributeAModifyNamesIsReportedAsSet() throws Exception {
        try (Context context = SoftRoceProvider.device(DeviceOptions.defaults(), new SimulatedNetwork()).open()) {
            QueuePair qp = qp(context);
            connect(context, qp);
            QpAttributes now = qp.query(0);
            assertEquals(QpState.RTS, now.state());
            assertEquals(QpState.RTS, now.currentState());
            assertEquals(REMOTE_RW, now.accessFlags());
            assertEquals(19, now.minRnrTimer());
            assertConnected(context, now, "at RTS");

            // RTS → RTS with new access flags and min_rnr_timer: those two change, nothing else.
            qp.modify(new QpAttributes().state(QpState.RTS).accessFlags(AccessFlag.REMOTE_ATOMIC.value())
                    .minRnrTimer(7), QpAttrMask.of(QpAttrMask.STATE, QpAttrMask.ACCESS_FLAGS, QpAttrMask.MIN_RNR_TIMER));
            now = qp.query(0);
            assertEquals(AccessFlag.REMOTE_ATOMIC.value(), now.accessFlags());
            assertEquals(7, now.minRnrTimer());
            assertConnected(context, now, "after RTS → RTS");

            // RTS → SQD asking for the drained event: recorded.
            qp.modify(new QpAttributes().state(QpState.SQD).sqdAsyncNotify(true),
                    QpAttrMask.of(QpAttrMask.STATE, QpAttrMask.EN_SQD_ASYNC_NOTIFY));
            now = qp.query(0);
            assertEquals(QpState.SQD, now.state());
            assertTrue(now.sqdAsyncNotify());
        }
    }

    @Test
    void anAttributeLeftOutOfTheMaskIsNeitherAppliedNorReported() throws Exception {
        try (Context context = SoftRoceProvider.device(DeviceOptions.defaults(), new SimulatedNetwork()).open()) {
            QueuePair qp = qp(context);
            connect(context, qp);
            // Every field of the bag set to something else (or left at the bag's defaults:
            // MTU 1024, MIGRATED, port 0, no address vector), the mask naming only min_rnr_timer.
            QpAttributes others = new QpAttributes().state(QpState.RTS).pkeyIndex(1).qkey(0x11111111)
                    .accessFlags(AccessFlag.REMOTE_ATOMIC.value()).sqdAsyncNotify(true).minRnrTimer(2)
                    .rqPsn(1).sqPsn(2).destQpNum(3).timeout(4).retryCount(5).rnrRetry(6).maxRdAtomic(7)
                    .maxDestRdAtomic(8);
            qp.modify(others, QpAttrMask.of(QpAttrMask.STATE, QpAttrMask.MIN_RNR_TIMER));
            QpAttributes now = qp.query(0);
            assertEquals(2, now.minRnrTimer());
            assertEquals(REMOTE_RW, now.accessFlags(), "access flags not in the mask");
            assertConnected(context, now, "after a modify naming only min_rnr_timer");

            // And the reverse: a modify naming the access flags keeps min_rnr_timer.
            qp.modify(new QpAttributes().state(QpState.RTS).accessFlags(AccessFlag.REMOTE_READ.value()).minRnrTimer(30),
                    QpAttrMask.of(QpAttrMask.STATE, QpAttrMask.ACCESS_FLAGS));
            now = qp.query(0);
            assertEquals(AccessFlag.REMOTE_READ.value(), now.accessFlags());
            assertEquals(2, now.minRnrTimer(), "min_rnr_timer not in the mask");

            // RTS → SQD without EN_SQD_ASYNC_NOTIFY: no drained event asked for.
            qp.modify(new QpAttributes().state(QpState.SQD).sqdAsyncNotify(true), QpAttrMask.STATE.value());
            assertFalse(qp.query(0).sqdAsyncNotify());
            assertEquals(QpState.SQD, qp.query(0).state());
        }
    }
}
