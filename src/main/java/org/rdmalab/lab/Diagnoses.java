package org.rdmalab.lab;

import java.util.List;
import java.util.Optional;
import org.rdmalab.control.ControlException;
import org.rdmalab.text.Phrase;
import org.rdmalab.verbs.Context;
import org.rdmalab.verbs.Errno;
import org.rdmalab.verbs.GidEntry;
import org.rdmalab.verbs.GidSelection;
import org.rdmalab.verbs.LinkLayer;
import org.rdmalab.verbs.Mtu;
import org.rdmalab.verbs.QpAttrMask;
import org.rdmalab.verbs.QpState;
import org.rdmalab.verbs.QpTransitions;
import org.rdmalab.verbs.QueuePair;
import org.rdmalab.verbs.VerbsException;

/**
 * Turns a failed step into a {@link Diagnosis}: which parameter caused it and what fixes it. The
 * verdict comes from the session's own state (the QP, the port, the GID table) and the verbs'
 * rules, not from the backend's message, so a bare EINVAL from libibverbs is explained the same
 * way as soft0's worded one. When several things are wrong the first in the kernel's order is
 * named: the transition's mask ({@code ib_modify_qp_is_ok}), then the address vector's GRH
 * ({@code rdma_check_ah_attr}), then the values.
 */
final class Diagnoses {

    private Diagnoses() {
    }

    /** The diagnosis of {@code failure} in {@code step}, if one parameter can be blamed. */
    static Optional<Diagnosis> of(LabSession session, Step step, Exception failure) {
        try {
            if (failure instanceof VerbsException verbs) {
                if (step instanceof ModifySteps.Modify modify) {
                    return modify(session, modify, verbs);
                }
                if (step instanceof DeviceSteps.QueryPort query) {
                    return gidIndex(session, query, verbs);
                }
            }
            if (failure instanceof ControlException control && step instanceof ConnectSteps.Connect) {
                return connect(session, control);
            }
        } catch (VerbsException | RuntimeException e) {
            // Looking for the cause must never hide the failure itself: no diagnosis then.
        }
        return Optional.empty();
    }

    private static Optional<Diagnosis> modify(LabSession session, ModifySteps.Modify step, VerbsException failure)
            throws VerbsException {
        QueuePair qp = session.resources().qp();
        if (qp == null || failure.errno() != Errno.EINVAL) {
            return Optional.empty();
        }
        int mask = step.mask();
        QpTransitions.Check check = QpTransitions.check(qp.type(), qp.state(), step.target(), mask);
        if (!check.isTransition()) {
            return Optional.of(new Diagnosis(step.id(), "", Errno.EINVAL,
                    LabPhrase.of("diag.movedByHand", check.explanation()), Optional.empty()));
        }
        if (!check.valid()) {
            int fixed = (mask | check.missing()) & ~check.notAllowed()
                    & ~(check.curStateMisused() ? QpAttrMask.CUR_STATE.value() : 0);
            Phrase label = check.missing() != 0 ? LabPhrase.of("fix.addToMask", QpAttrMask.names(check.missing()))
                    : LabPhrase.of("fix.dropFromMask", QpAttrMask.names(mask & ~fixed));
            return Optional.of(new Diagnosis(step.id(), "flags", Errno.EINVAL, Phrase.literal(check.explanation()),
                    Optional.of(new Diagnosis.Fix(step.id(), "flags", QpAttrMask.names(fixed), label))));
        }
        if (step instanceof ModifySteps.ToRtr rtr) {
            return rtr(session, rtr, mask, failure);
        }
        return Optional.empty();
    }

    private static Optional<Diagnosis> rtr(LabSession session, ModifySteps.ToRtr step, int mask,
                                           VerbsException failure) throws VerbsException {
        boolean ethernet = session.resources().portAttributes() != null
                && session.resources().portAttributes().linkLayer() == LinkLayer.ETHERNET;
        Optional<Step> query = session.steps().stream().filter(s -> s instanceof DeviceSteps.QueryPort).findFirst();
        if ((mask & QpAttrMask.AV.value()) != 0 && ethernet && query.isPresent()) {
            Optional<GidEntry> chosen = session.resources().gidEntry();
            if (chosen.isEmpty()) {
                return Optional.of(new Diagnosis(query.get().id(), "gid_idx", Errno.EINVAL, LabPhrase.of("diag.noGrh"),
                        recommended(session, query.get())));
            }
            if (failure.detail().contains("sgid_index")) {
                // soft0 speaks RoCE v2 over IPv4 only and says which entry it cannot use.
                return Optional.of(new Diagnosis(query.get().id(), "gid_idx", Errno.EINVAL,
                        Phrase.literal(failure.detail()),
                        recommended(session, query.get())));
            }
        }
        if ((mask & QpAttrMask.PATH_MTU.value()) != 0 && session.resources().portAttributes() != null) {
            Mtu active = session.resources().portAttributes().activeMtu();
            int chosen = Integer.parseInt(step.parameter("path_mtu").value());
            if (chosen > active.bytes()) {
                return Optional.of(new Diagnosis(step.id(), "path_mtu", Errno.EINVAL,
                        LabPhrase.of("diag.pathMtu", chosen, active.bytes()),
                        Optional.of(new Diagnosis.Fix(step.id(), "path_mtu", Integer.toString(active.bytes()),
                                LabPhrase.of("fix.activeMtu", active.bytes())))));
            }
        }
        return Optional.empty();
    }

    private static Optional<Diagnosis> gidIndex(LabSession session, DeviceSteps.QueryPort step,
                                                VerbsException failure) throws VerbsException {
        if (!failure.verb().startsWith("ibv_query_gid")) {
            return Optional.empty();
        }
        String choice = step.parameter("gid_idx").value().trim();
        Context context = session.resources().context().orElseThrow();
        int length = context.queryPort(step.port()).gidTableLength();
        Phrase explanation = failure.errno() == Errno.ENODATA
                ? LabPhrase.of("diag.gidEmpty", choice, step.port())
                : LabPhrase.of("diag.gidOutside", choice, step.port(), length - 1);
        return Optional.of(new Diagnosis(step.id(), "gid_idx", failure.errno(), explanation,
                recommended(session, step)));
    }

    /** The GID {@link GidSelection} picks on the port {@code query} names, as a fix of its {@code gid_idx}. */
    static Optional<Diagnosis.Fix> recommended(LabSession session, Step query) throws VerbsException {
        Optional<Context> context = session.resources().context();
        if (context.isEmpty()) {
            return Optional.empty();
        }
        List<GidEntry> table = context.get().gidTable(query.parameter("ib_port").asInt());
        return GidSelection.best(table).map(best -> new Diagnosis.Fix(query.id(), "gid_idx",
                Integer.toString(best.index()), LabPhrase.of("fix.recommendedGid", best.index(), best.gid(),
                        best.type().text())));
    }

    private static Optional<Diagnosis> connect(LabSession session, ControlException failure) {
        Errno errno = switch (failure.reason()) {
            case REFUSED -> Errno.ECONNREFUSED;
            case TIMEOUT -> Errno.ETIMEDOUT;
            case PORT_IN_USE -> Errno.EADDRINUSE;
            case BAD_ADDRESS -> Errno.EADDRNOTAVAIL;
            default -> null;
        };
        if (errno == null) {
            return Optional.empty();
        }
        String parameter = failure.reason() == ControlException.Reason.PORT_IN_USE || session.role() == Role.SERVER
                ? "tcp_port" : "server_ip";
        return Optional.of(new Diagnosis("connect", parameter, errno, Phrase.literal(failure.getMessage()),
                Optional.empty()));
    }

    /** Used by requestState: the kernel's reason for refusing {@code from → to} with a bare STATE mask. */
    static String refusal(QueuePair qp, QpState from, QpState to, VerbsException failure) {
        QpTransitions.Check check = QpTransitions.check(qp.type(), from, to, QpAttrMask.STATE.value());
        return check.valid() ? failure.detail() : check.explanation();
    }
}
