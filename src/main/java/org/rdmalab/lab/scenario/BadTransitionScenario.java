package org.rdmalab.lab.scenario;

import org.rdmalab.verbs.AddressVector;
import org.rdmalab.verbs.Errno;
import org.rdmalab.verbs.GlobalRoute;
import org.rdmalab.verbs.QpAttrMask;
import org.rdmalab.verbs.QpAttributes;
import org.rdmalab.verbs.QpState;
import org.rdmalab.verbs.QpTransitions;
import org.rdmalab.verbs.QpType;
import org.rdmalab.verbs.VerbsException;

/** ibv_modify_qp from RESET straight to RTR: EINVAL, explained by the QP state table. */
final class BadTransitionScenario implements Scenario {

    @Override
    public String name() {
        return "bad-transition";
    }

    @Override
    public String description() {
        return "ibv_modify_qp RESET -> RTR (skipping INIT) fails with EINVAL; the QP state table says why";
    }

    @Override
    public ScenarioResult run(LoopbackLab lab) throws VerbsException {
        Checks checks = lab.checks();
        Peer server = lab.open(PeerRole.SERVER);
        server.createResources(PeerSetup.seed(16));
        ConnectionData self = server.connectionData();
        int mask = QpAttrMask.of(QpAttrMask.STATE, QpAttrMask.AV, QpAttrMask.PATH_MTU, QpAttrMask.DEST_QPN,
                QpAttrMask.RQ_PSN, QpAttrMask.MAX_DEST_RD_ATOMIC, QpAttrMask.MIN_RNR_TIMER);
        QpAttributes rtr = new QpAttributes().state(QpState.RTR).pathMtu(lab.settings().pathMtu())
                .destQpNum(self.qpNum()).rqPsn(0).maxDestRdAtomic(1).minRnrTimer(0x12)
                .addressVector(AddressVector.global(GlobalRoute.of(self.gid(), server.gid().index()), Peer.PORT));
        lab.note("the QP is in RESET; the seed's INIT -> RTR attributes are given without going through INIT");
        VerbsException refused = null;
        try {
            server.modify(rtr, mask, "RESET -> RTR", "mask " + QpAttrMask.names(mask));
        } catch (VerbsException e) {
            refused = e;
        }
        if (refused == null) {
            checks.that(false, "", "ibv_modify_qp RESET -> RTR succeeded; it must fail with EINVAL");
        } else {
            checks.that(refused.errno() == Errno.EINVAL, "ibv_modify_qp returned EINVAL",
                    "expected EINVAL, got " + refused.errno().name() + " (" + refused.errnoValue() + ")");
        }
        QpTransitions.Check table = QpTransitions.check(QpType.RC, QpState.RESET, QpState.RTR, mask);
        lab.note("QP state table: " + table.explanation());
        lab.note("RESET -> INIT needs " + QpAttrMask.names(QpTransitions.rule(QpType.RC, QpState.RESET,
                QpState.INIT).required()) + "; only then may INIT -> RTR give the path");
        checks.that(server.queryState() == QpState.RESET, "the QP stayed in IBV_QPS_RESET",
                "a refused modify must leave the QP in RESET");
        server.toInit();
        server.modify(rtr, mask, "INIT -> RTR", "the same attributes, now accepted");
        checks.that(server.queryState() == QpState.RTR, "after INIT the same modify reaches IBV_QPS_RTR",
                "the QP should be in RTR after INIT -> RTR");
        return checks.result("RESET -> RTR was refused with EINVAL; RESET -> INIT -> RTR worked");
    }
}
