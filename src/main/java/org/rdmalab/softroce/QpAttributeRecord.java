package org.rdmalab.softroce;

import static org.rdmalab.softroce.QpAttributeChecks.has;

import org.rdmalab.verbs.QpAttrMask;
import org.rdmalab.verbs.QpAttributes;
import org.rdmalab.verbs.QpCapabilities;
import org.rdmalab.verbs.QpState;

/**
 * A QP's attributes as they were last set, which {@code ibv_query_qp} reports ({@code
 * rxe_qp_to_attr}): each modify records the attributes its mask names once they are applied, and
 * an error records the ERR state.
 *
 * <p>Threads: every method is synchronized; a modify records on the caller's thread, the loop
 * records an error, and any thread queries.
 */
final class QpAttributeRecord {

    private final QpAttributes attributes = new QpAttributes();
    private final QpCapabilities capabilities;

    QpAttributeRecord(QpCapabilities capabilities) {
        this.capabilities = capabilities;
        attributes.capabilities(capabilities).portNum(1);
    }

    /** Records the attributes {@code mask} names, and the state the modify moved the QP to. */
    synchronized void record(QpAttributes attr, int mask, QpState target) {
        attributes.state(target).currentState(target);
        if (has(mask, QpAttrMask.PATH_MTU)) {
            attributes.pathMtu(attr.pathMtu());
        }
        if (has(mask, QpAttrMask.PATH_MIG_STATE)) {
            attributes.pathMigState(attr.pathMigState());
        }
        if (has(mask, QpAttrMask.QKEY)) {
            attributes.qkey(attr.qkey());
        }
        if (has(mask, QpAttrMask.RQ_PSN)) {
            attributes.rqPsn(attr.rqPsn());
        }
        if (has(mask, QpAttrMask.SQ_PSN)) {
            attributes.sqPsn(attr.sqPsn());
        }
        if (has(mask, QpAttrMask.DEST_QPN)) {
            attributes.destQpNum(attr.destQpNum());
        }
        if (has(mask, QpAttrMask.ACCESS_FLAGS)) {
            attributes.accessFlags(attr.accessFlags());
        }
        if (has(mask, QpAttrMask.AV)) {
            attributes.addressVector(attr.addressVector());
        }
        if (has(mask, QpAttrMask.PKEY_INDEX)) {
            attributes.pkeyIndex(attr.pkeyIndex());
        }
        if (has(mask, QpAttrMask.EN_SQD_ASYNC_NOTIFY)) {
            attributes.sqdAsyncNotify(attr.sqdAsyncNotify());
        }
        if (has(mask, QpAttrMask.MAX_QP_RD_ATOMIC)) {
            attributes.maxRdAtomic(attr.maxRdAtomic());
        }
        if (has(mask, QpAttrMask.MAX_DEST_RD_ATOMIC)) {
            attributes.maxDestRdAtomic(attr.maxDestRdAtomic());
        }
        if (has(mask, QpAttrMask.MIN_RNR_TIMER)) {
            attributes.minRnrTimer(attr.minRnrTimer());
        }
        if (has(mask, QpAttrMask.PORT)) {
            attributes.portNum(attr.portNum());
        }
        if (has(mask, QpAttrMask.TIMEOUT)) {
            attributes.timeout(attr.timeout());
        }
        if (has(mask, QpAttrMask.RETRY_CNT)) {
            attributes.retryCount(attr.retryCount());
        }
        if (has(mask, QpAttrMask.RNR_RETRY)) {
            attributes.rnrRetry(attr.rnrRetry());
        }
    }

    /** The QP went to ERR on its own (a failed completion, a fatal error). */
    synchronized void enteredError() {
        attributes.state(QpState.ERR).currentState(QpState.ERR);
    }

    /** Every attribute as last set, with the QP's state now and its granted capabilities. */
    synchronized QpAttributes now(QpConfig config) {
        QpState now = config.state;
        return attributes.copy().state(now).currentState(now).capabilities(capabilities);
    }
}
