package org.rdmalab.verbs;

import static org.rdmalab.verbs.QpAttrMask.ACCESS_FLAGS;
import static org.rdmalab.verbs.QpAttrMask.ALT_PATH;
import static org.rdmalab.verbs.QpAttrMask.AV;
import static org.rdmalab.verbs.QpAttrMask.CUR_STATE;
import static org.rdmalab.verbs.QpAttrMask.DEST_QPN;
import static org.rdmalab.verbs.QpAttrMask.EN_SQD_ASYNC_NOTIFY;
import static org.rdmalab.verbs.QpAttrMask.MAX_DEST_RD_ATOMIC;
import static org.rdmalab.verbs.QpAttrMask.MAX_QP_RD_ATOMIC;
import static org.rdmalab.verbs.QpAttrMask.MIN_RNR_TIMER;
import static org.rdmalab.verbs.QpAttrMask.PATH_MIG_STATE;
import static org.rdmalab.verbs.QpAttrMask.PATH_MTU;
import static org.rdmalab.verbs.QpAttrMask.PKEY_INDEX;
import static org.rdmalab.verbs.QpAttrMask.PORT;
import static org.rdmalab.verbs.QpAttrMask.QKEY;
import static org.rdmalab.verbs.QpAttrMask.RETRY_CNT;
import static org.rdmalab.verbs.QpAttrMask.RNR_RETRY;
import static org.rdmalab.verbs.QpAttrMask.RQ_PSN;
import static org.rdmalab.verbs.QpAttrMask.SQ_PSN;
import static org.rdmalab.verbs.QpAttrMask.STATE;
import static org.rdmalab.verbs.QpAttrMask.TIMEOUT;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * The QP state machine as data: for each QP type and (current, next) pair, the attributes a
 * modify must carry and those it may carry. The same table validates a modify and explains a bare
 * EINVAL. It follows the IBTA's QP state table (Vol. 1, 11.2.5) as Linux encodes it in
 * {@code ib_modify_qp_is_ok} for the RC, UC and UD columns.
 */
public final class QpTransitions {

    /** Required and optional attribute masks of one transition. */
    public record Rule(int required, int optional) {
    }

    /**
     * The verdict on one modify.
     *
     * @param type QP type
     * @param from current state
     * @param to target state
     * @param mask the mask given
     * @param isTransition false when from → to is not in the table at all
     * @param missing required bits absent from the mask
     * @param notAllowed bits present that are neither required nor optional
     * @param curStateMisused true when CUR_STATE was given from a state that does not allow it
     */
    public record Check(QpType type, QpState from, QpState to, int mask, boolean isTransition,
                        int missing, int notAllowed, boolean curStateMisused) {

        /** True when the modify is allowed. */
        public boolean valid() {
            return isTransition && missing == 0 && notAllowed == 0 && !curStateMisused;
        }

        /** One line per problem; empty when valid. */
        public List<String> problems() {
            List<String> lines = new ArrayList<>();
            if (!isTransition) {
                lines.add(from + " → " + to + " is not a transition of a " + type + " QP (from " + from
                        + " a QP can go to " + String.join(", ", targets(type, from)) + ")");
                return lines;
            }
            if (missing != 0) {
                lines.add("missing: " + QpAttrMask.names(missing));
            }
            if (notAllowed != 0) {
                lines.add("not allowed: " + QpAttrMask.names(notAllowed));
            }
            if (curStateMisused) {
                lines.add("CUR_STATE is allowed only when the QP is in RTR, RTS, SQD or SQE");
            }
            return lines;
        }

        /** The problems joined with "; " (for an exception detail). */
        public String explanation() {
            return String.join("; ", problems());
        }
    }

    private static final Map<QpType, Map<QpState, Map<QpState, Rule>>> TABLE = new EnumMap<>(QpType.class);

    static {
        for (QpType type : new QpType[] {QpType.RC, QpType.UC, QpType.UD}) {
            Map<QpState, Map<QpState, Rule>> rows = new EnumMap<>(QpState.class);
            for (QpState state : QpState.values()) {
                rows.put(state, new EnumMap<>(QpState.class));
            }
            TABLE.put(type, rows);
            rule(type, QpState.RESET, QpState.RESET, 0, 0);
            for (QpState state : new QpState[] {QpState.INIT, QpState.RTR, QpState.RTS, QpState.SQD, QpState.SQE,
                    QpState.ERR}) {
                rule(type, state, QpState.RESET, 0, 0);
                rule(type, state, QpState.ERR, 0, 0);
            }
            rule(type, QpState.RTS, QpState.SQD, 0, QpAttrMask.of(EN_SQD_ASYNC_NOTIFY));
        }

        // RC
        rule(QpType.RC, QpState.RESET, QpState.INIT, QpAttrMask.of(PKEY_INDEX, PORT, ACCESS_FLAGS), 0);
        rule(QpType.RC, QpState.INIT, QpState.INIT, 0, QpAttrMask.of(PKEY_INDEX, PORT, ACCESS_FLAGS));
        rule(QpType.RC, QpState.INIT, QpState.RTR,
                QpAttrMask.of(AV, PATH_MTU, DEST_QPN, RQ_PSN, MAX_DEST_RD_ATOMIC, MIN_RNR_TIMER),
                QpAttrMask.of(ALT_PATH, ACCESS_FLAGS, PKEY_INDEX));
        rule(QpType.RC, QpState.RTR, QpState.RTS,
                QpAttrMask.of(TIMEOUT, RETRY_CNT, RNR_RETRY, SQ_PSN, MAX_QP_RD_ATOMIC),
                QpAttrMask.of(CUR_STATE, ALT_PATH, ACCESS_FLAGS, MIN_RNR_TIMER, PATH_MIG_STATE));
        rule(QpType.RC, QpState.RTS, QpState.RTS, 0,
                QpAttrMask.of(CUR_STATE, ACCESS_FLAGS, ALT_PATH, PATH_MIG_STATE, MIN_RNR_TIMER));
        rule(QpType.RC, QpState.SQD, QpState.RTS, 0,
                QpAttrMask.of(CUR_STATE, ALT_PATH, ACCESS_FLAGS, MIN_RNR_TIMER, PATH_MIG_STATE));
        rule(QpType.RC, QpState.SQD, QpState.SQD, 0,
                QpAttrMask.of(PORT, AV, TIMEOUT, RETRY_CNT, RNR_RETRY, MAX_QP_RD_ATOMIC, MAX_DEST_RD_ATOMIC,
                        ALT_PATH, ACCESS_FLAGS, PKEY_INDEX, MIN_RNR_TIMER, PATH_MIG_STATE));
        rule(QpType.RC, QpState.SQE, QpState.RTS, 0, 0);

        // UC
        rule(QpType.UC, QpState.RESET, QpState.INIT, QpAttrMask.of(PKEY_INDEX, PORT, ACCESS_FLAGS), 0);
        rule(QpType.UC, QpState.INIT, QpState.INIT, 0, QpAttrMask.of(PKEY_INDEX, PORT, ACCESS_FLAGS));
        rule(QpType.UC, QpState.INIT, QpState.RTR, QpAttrMask.of(AV, PATH_MTU, DEST_QPN, RQ_PSN),
                QpAttrMask.of(ALT_PATH, ACCESS_FLAGS, PKEY_INDEX));
        rule(QpType.UC, QpState.RTR, QpState.RTS, QpAttrMask.of(SQ_PSN),
                QpAttrMask.of(CUR_STATE, ALT_PATH, ACCESS_FLAGS, PATH_MIG_STATE));
        rule(QpType.UC, QpState.RTS, QpState.RTS, 0,
                QpAttrMask.of(CUR_STATE, ACCESS_FLAGS, ALT_PATH, PATH_MIG_STATE));
        rule(QpType.UC, QpState.SQD, QpState.RTS, 0,
                QpAttrMask.of(CUR_STATE, ALT_PATH, ACCESS_FLAGS, PATH_MIG_STATE));
        rule(QpType.UC, QpState.SQD, QpState.SQD, 0,
                QpAttrMask.of(AV, ALT_PATH, ACCESS_FLAGS, PKEY_INDEX, PATH_MIG_STATE));
        rule(QpType.UC, QpState.SQE, QpState.RTS, 0, QpAttrMask.of(CUR_STATE, ACCESS_FLAGS));

        // UD
        rule(QpType.UD, QpState.RESET, QpState.INIT, QpAttrMask.of(PKEY_INDEX, PORT, QKEY), 0);
        rule(QpType.UD, QpState.INIT, QpState.INIT, 0, QpAttrMask.of(PKEY_INDEX, PORT, QKEY));
        rule(QpType.UD, QpState.INIT, QpState.RTR, 0, QpAttrMask.of(PKEY_INDEX, QKEY));
        rule(QpType.UD, QpState.RTR, QpState.RTS, QpAttrMask.of(SQ_PSN), QpAttrMask.of(CUR_STATE, QKEY));
        rule(QpType.UD, QpState.RTS, QpState.RTS, 0, QpAttrMask.of(CUR_STATE, QKEY));
        rule(QpType.UD, QpState.SQD, QpState.RTS, 0, QpAttrMask.of(CUR_STATE, QKEY));
        rule(QpType.UD, QpState.SQD, QpState.SQD, 0, QpAttrMask.of(PKEY_INDEX, QKEY));
        rule(QpType.UD, QpState.SQE, QpState.RTS, 0, QpAttrMask.of(CUR_STATE, QKEY));
    }

    private QpTransitions() {
    }

    private static void rule(QpType type, QpState from, QpState to, int required, int optional) {
        TABLE.get(type).get(from).put(to, new Rule(required, optional));
    }

    private static Map<QpState, Map<QpState, Rule>> rows(QpType type) {
        Map<QpState, Map<QpState, Rule>> rows = TABLE.get(type);
        if (rows == null) {
            throw new IllegalArgumentException("no transition table for " + type + " QPs (RC, UC and UD have one)");
        }
        return rows;
    }

    /** The rule for {@code from → to}, or null when it is not a transition. */
    public static Rule rule(QpType type, QpState from, QpState to) {
        return rows(type).get(from).get(to);
    }

    /** The states a QP of {@code type} in {@code from} can move to. */
    public static List<String> targets(QpType type, QpState from) {
        List<String> names = new ArrayList<>();
        for (QpState to : rows(type).get(from).keySet()) {
            names.add(to.name());
        }
        return names.isEmpty() ? List.of("nothing") : names;
    }

    /**
     * Checks a modify as the kernel does: the target is {@code attr.qp_state} when the mask has
     * STATE, otherwise the current state.
     *
     * @param to the state the caller wants; when it differs from {@code from}, STATE must be in the mask
     */
    public static Check check(QpType type, QpState from, QpState to, int mask) {
        int state = STATE.value();
        if ((mask & state) == 0 && from != to) {
            // Without STATE the kernel keeps the current state, so the requested move cannot happen.
            return new Check(type, from, to, mask, true, state, 0, false);
        }
        boolean curStateMisused = (mask & CUR_STATE.value()) != 0
                && !(from == QpState.RTR || from == QpState.RTS || from == QpState.SQD || from == QpState.SQE);
        Rule rule = rule(type, from, to);
        if (rule == null) {
            return new Check(type, from, to, mask, false, 0, 0, curStateMisused);
        }
        int missing = rule.required() & ~mask;
        int notAllowed = mask & ~(rule.required() | rule.optional() | state);
        if (curStateMisused) {
            notAllowed &= ~CUR_STATE.value();
        }
        return new Check(type, from, to, mask, true, missing, notAllowed, curStateMisused);
    }
}
