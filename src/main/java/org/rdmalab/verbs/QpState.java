package org.rdmalab.verbs;

/** {@code enum ibv_qp_state}. */
public enum QpState implements Numbered {
    RESET(0),
    INIT(1),
    RTR(2),
    RTS(3),
    SQD(4),
    SQE(5),
    ERR(6),
    UNKNOWN(7);

    private final int value;

    QpState(int value) {
        this.value = value;
    }

    /** The verbs.h value. */
    @Override
    public int value() {
        return value;
    }

    /** {@code IBV_QPS_RTS}. */
    public String cName() {
        return "IBV_QPS_" + name();
    }

    /** The state with verbs.h value {@code value}. */
    public static QpState of(int value) {
        return Numbered.byValue(QpState.class, value, "ibv_qp_state");
    }

    /** Parses RTS, rts or IBV_QPS_RTS. */
    public static QpState parse(String text) {
        String upper = text.trim().toUpperCase(java.util.Locale.ROOT).replaceFirst("^IBV_QPS_", "");
        for (QpState state : values()) {
            if (state.name().equals(upper)) {
                return state;
            }
        }
        throw new IllegalArgumentException("unknown QP state '" + text
                + "'; valid states: RESET, INIT, RTR, RTS, SQD, SQE, ERR");
    }
}
