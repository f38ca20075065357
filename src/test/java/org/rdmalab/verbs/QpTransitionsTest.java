package org.rdmalab.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The QP state table checked against a table written out by hand from the IBTA state diagram
 * (Vol. 1, 10.3.1 and 11.2.5) as the kernel applies it; raw numeric masks on purpose, so a wrong
 * constant in production code cannot hide.
 */
class QpTransitionsTest {

    // verbs.h values, typed in here independently of QpAttrMask.
    private static final int STATE = 0x1;
    private static final int CUR_STATE = 0x2;
    private static final int EN_SQD = 0x4;
    private static final int ACCESS = 0x8;
    private static final int PKEY = 0x10;
    private static final int PORT = 0x20;
    private static final int QKEY = 0x40;
    private static final int AV = 0x80;
    private static final int MTU = 0x100;
    private static final int TIMEOUT = 0x200;
    private static final int RETRY = 0x400;
    private static final int RNR_RETRY = 0x800;
    private static final int RQ_PSN = 0x1000;
    private static final int MAX_QP_RD = 0x2000;
    private static final int ALT_PATH = 0x4000;
    private static final int MIN_RNR = 0x8000;
    private static final int SQ_PSN = 0x10000;
    private static final int MAX_DEST_RD = 0x20000;
    private static final int MIG = 0x40000;
    private static final int DEST_QPN = 0x100000;

    /** type, from, to, required, optional: the transitions that exist. */
    static List<Arguments> table() {
        List<Arguments> rows = new ArrayList<>();
        for (String type : new String[] {"RC", "UC", "UD"}) {
            rows.add(Arguments.of(type, "RESET", "RESET", 0, 0));
            for (String from : new String[] {"INIT", "RTR", "RTS", "SQD", "SQE", "ERR"}) {
                rows.add(Arguments.of(type, from, "RESET", 0, 0));
                rows.add(Arguments.of(type, from, "ERR", 0, 0));
            }
            rows.add(Arguments.of(type, "RTS", "SQD", 0, EN_SQD));
        }
        rows.add(Arguments.of("RC", "RESET", "INIT", PKEY | PORT | ACCESS, 0));
        rows.add(Arguments.of("RC", "INIT", "INIT", 0, PKEY | PORT | ACCESS));
        rows.add(Arguments.of("RC", "INIT", "RTR", AV | MTU | DEST_QPN | RQ_PSN | MAX_DEST_RD | MIN_RNR,
                ALT_PATH | ACCESS | PKEY));
        rows.add(Arguments.of("RC", "RTR", "RTS", TIMEOUT | RETRY | RNR_RETRY | SQ_PSN | MAX_QP_RD,
                CUR_STATE | ALT_PATH | ACCESS | MIN_RNR | MIG));
        rows.add(Arguments.of("RC", "RTS", "RTS", 0, CUR_STATE | ACCESS | ALT_PATH | MIG | MIN_RNR));
        rows.add(Arguments.of("RC", "SQD", "RTS", 0, CUR_STATE | ALT_PATH | ACCESS | MIN_RNR | MIG));
        rows.add(Arguments.of("RC", "SQD", "SQD", 0, PORT | AV | TIMEOUT | RETRY | RNR_RETRY | MAX_QP_RD
                | MAX_DEST_RD | ALT_PATH | ACCESS | PKEY | MIN_RNR | MIG));
        rows.add(Arguments.of("RC", "SQE", "RTS", 0, 0));
        rows.add(Arguments.of("UC", "RESET", "INIT", PKEY | PORT | ACCESS, 0));
        rows.add(Arguments.of("UC", "INIT", "INIT", 0, PKEY | PORT | ACCESS));
        rows.add(Arguments.of("UC", "INIT", "RTR", AV | MTU | DEST_QPN | RQ_PSN, ALT_PATH | ACCESS | PKEY));
        rows.add(Arguments.of("UC", "RTR", "RTS", SQ_PSN, CUR_STATE | ALT_PATH | ACCESS | MIG));
        rows.add(Arguments.of("UC", "RTS", "RTS", 0, CUR_STATE | ACCESS | ALT_PATH | MIG));
        rows.add(Arguments.of("UC", "SQD", "RTS", 0, CUR_STATE | ALT_PATH | ACCESS | MIG));
        rows.add(Arguments.of("UC", "SQD", "SQD", 0, AV | ALT_PATH | ACCESS | PKEY | MIG));
        rows.add(Arguments.of("UC", "SQE", "RTS", 0, CUR_STATE | ACCESS));
        rows.add(Arguments.of("UD", "RESET", "INIT", PKEY | PORT | QKEY, 0));
        rows.add(Arguments.of("UD", "INIT", "INIT", 0, PKEY | PORT | QKEY));
        rows.add(Arguments.of("UD", "INIT", "RTR", 0, PKEY | QKEY));
        rows.add(Arguments.of("UD", "RTR", "RTS", SQ_PSN, CUR_STATE | QKEY));
        rows.add(Arguments.of("UD", "RTS", "RTS", 0, CUR_STATE | QKEY));
        rows.add(Arguments.of("UD", "SQD", "RTS", 0, CUR_STATE | QKEY));
        rows.add(Arguments.of("UD", "SQD", "SQD", 0, PKEY | QKEY));
        rows.add(Arguments.of("UD", "SQE", "RTS", 0, CUR_STATE | QKEY));
        return rows;
    }

    @ParameterizedTest(name = "{0} {1} -> {2}")
    @MethodSource("table")
    void existingTransitionsAcceptExactlyTheirAttributes(String type, String from, String to, int required,
                                                        int optional) {
        QpType qpType = QpType.parse(type);
        QpState fromState = QpState.parse(from);
        QpState toState = QpState.parse(to);
        boolean curStateAllowed = from.equals("RTR") || from.equals("RTS") || from.equals("SQD") || from.equals("SQE");

        assertTrue(QpTransitions.check(qpType, fromState, toState, STATE | required).valid(), "required only");
        assertTrue(QpTransitions.check(qpType, fromState, toState, STATE | required | optional).valid(),
                "required and optional");
        for (int bit = 1; bit <= DEST_QPN; bit <<= 1) {
            if ((required & bit) != 0) {
                QpTransitions.Check check = QpTransitions.check(qpType, fromState, toState, (STATE | required) & ~bit);
                assertFalse(check.valid(), "without required bit 0x" + Integer.toHexString(bit));
                assertEquals(bit, check.missing());
            } else if ((optional & bit) == 0 && bit != STATE && bit != 0x80000 /* CAP */) {
                QpTransitions.Check check = QpTransitions.check(qpType, fromState, toState, STATE | required | bit);
                assertFalse(check.valid(), "with disallowed bit 0x" + Integer.toHexString(bit));
                if (bit == CUR_STATE && !curStateAllowed) {
                    assertTrue(check.curStateMisused());
                } else {
                    assertEquals(bit, check.notAllowed());
                }
            }
        }
    }

    @Test
    void pairsOutsideTheTableAreNotTransitions() {
        List<String> existing = new ArrayList<>();
        for (Arguments row : table()) {
            Object[] values = row.get();
            existing.add(values[0] + " " + values[1] + " " + values[2]);
        }
        int checked = 0;
        for (String type : new String[] {"RC", "UC", "UD"}) {
            for (QpState from : QpState.values()) {
                for (QpState to : QpState.values()) {
                    if (from == QpState.UNKNOWN || to == QpState.UNKNOWN
                            || existing.contains(type + " " + from + " " + to)) {
                        continue;
                    }
                    QpTransitions.Check check = QpTransitions.check(QpType.parse(type), from, to, STATE);
                    assertFalse(check.isTransition(), type + " " + from + " -> " + to);
                    checked++;
                }
            }
        }
        assertTrue(checked > 50, "checked " + checked);
    }

    @Test
    void explainsTheSeedsRtrWithoutPsnAndQpn() {
        QpTransitions.Check check = QpTransitions.check(QpType.RC, QpState.INIT, QpState.RTR,
                STATE | AV | MTU | MAX_DEST_RD | MIN_RNR | TIMEOUT);
        assertFalse(check.valid());
        assertEquals(List.of("missing: RQ_PSN, DEST_QPN", "not allowed: TIMEOUT"), check.problems());
    }

    @Test
    void resetToRtrIsNotATransition() {
        QpTransitions.Check check = QpTransitions.check(QpType.RC, QpState.RESET, QpState.RTR, STATE | AV);
        assertEquals(List.of("RESET → RTR is not a transition of a RC QP (from RESET a QP can go to RESET, INIT)"),
                check.problems());
    }

    @Test
    void changingStateNeedsTheStateBit() {
        QpTransitions.Check check = QpTransitions.check(QpType.RC, QpState.RESET, QpState.INIT, PKEY | PORT | ACCESS);
        assertFalse(check.valid());
        assertEquals(List.of("missing: STATE"), check.problems());
        assertTrue(QpTransitions.check(QpType.RC, QpState.RTS, QpState.RTS, MIN_RNR).valid(),
                "an attribute change without STATE keeps the state, as the kernel allows");
    }

    @Test
    void curStateOnlyFromRtrOnwards() {
        QpTransitions.Check check = QpTransitions.check(QpType.RC, QpState.INIT, QpState.INIT, STATE | CUR_STATE);
        assertEquals(List.of("CUR_STATE is allowed only when the QP is in RTR, RTS, SQD or SQE"), check.problems());
    }

    @Test
    void aQpTypeWithoutATableIsNamedInTheRefusal() {
        IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> QpTransitions.targets(QpType.RAW_PACKET, QpState.RESET));
        assertEquals("no transition table for RAW_PACKET QPs (RC, UC and UD have one)", e.getMessage());
    }
}
