package org.rdmalab.lab.scenario;

import org.rdmalab.lab.Flows;
import org.rdmalab.verbs.AddressVector;
import org.rdmalab.verbs.Errno;
import org.rdmalab.verbs.GlobalRoute;
import org.rdmalab.verbs.QpAttrMask;
import org.rdmalab.verbs.QpAttributes;
import org.rdmalab.verbs.QpState;
import org.rdmalab.verbs.QpTransitions;
import org.rdmalab.verbs.QpType;
import org.rdmalab.verbs.RcPath;
import org.rdmalab.verbs.VerbsException;

/** ibv_modify_qp from RESET straight to RTR: EINVAL, explained by the QP state table. */
final class BadTransitionScenario implements Scenario {

    @Override
    public String name() {
        return "bad-transition";
    }


    @Override
    public Plan plan(LoopbackSettings settings) {
        return Plan.serverAlone(PeerSetup.seed(16));
    }

    @Override
    public ScenarioResult traffic(ScenarioRun run) throws VerbsException {
        Checks checks = run.checks();
        ScenarioSide server = run.server();
        int mask = QpAttrMask.of(QpAttrMask.STATE, QpAttrMask.AV, QpAttrMask.PATH_MTU, QpAttrMask.DEST_QPN,
                QpAttrMask.RQ_PSN, QpAttrMask.MAX_DEST_RD_ATOMIC, QpAttrMask.MIN_RNR_TIMER);
        QpAttributes rtr = new QpAttributes().state(QpState.RTR).pathMtu(run.settings().pathMtu())
                .destQpNum(server.qpNum()).rqPsn(0).maxDestRdAtomic(1).minRnrTimer(0x12)
                .addressVector(AddressVector.global(GlobalRoute.of(server.gid().gid(), server.gid().index()), Flows.IB_PORT));
        run.note("the QP is in RESET; the seed's INIT -> RTR attributes are given without going through INIT");
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
        run.note("QP state table: " + table.explanation());
        run.note("RESET -> INIT needs " + QpAttrMask.names(QpTransitions.rule(QpType.RC, QpState.RESET,
                QpState.INIT).required()) + "; only then may INIT -> RTR give the path");
        checks.that(server.queryState() == QpState.RESET, "the QP stayed in IBV_QPS_RESET",
                "a refused modify must leave the QP in RESET");
        QpAttributes init = RcPath.init(Flows.IB_PORT, 0, server.setup().qpAccess());
        server.modify(init, RcPath.INIT_MASK, "RESET -> INIT", ScenarioSide.init(init));
        server.modify(rtr, mask, "INIT -> RTR", "the same attributes, now accepted");
        checks.that(server.queryState() == QpState.RTR, "after INIT the same modify reaches IBV_QPS_RTR",
                "the QP should be in RTR after INIT -> RTR");
        return checks.result("RESET -> RTR was refused with EINVAL; RESET -> INIT -> RTR worked");
    }
}
