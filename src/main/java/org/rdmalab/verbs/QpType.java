package org.rdmalab.verbs;

/** {@code enum ibv_qp_type}. */
public enum QpType implements Numbered {
    RC(2),
    UC(3),
    UD(4),
    RAW_PACKET(8),
    XRC_SEND(9),
    XRC_RECV(10);

    private final int value;

    QpType(int value) {
        this.value = value;
    }

    /** The verbs.h value. */
    @Override
    public int value() {
        return value;
    }

    /** {@code IBV_QPT_RC}. */
    public String cName() {
        return "IBV_QPT_" + name();
    }

    /** The type with verbs.h value {@code value}. */
    public static QpType of(int value) {
        return Numbered.byValue(QpType.class, value, "ibv_qp_type");
    }

    /** Parses RC, rc or IBV_QPT_RC. */
    public static QpType parse(String text) {
        String upper = text.trim().toUpperCase(java.util.Locale.ROOT).replaceFirst("^IBV_QPT_", "");
        for (QpType type : values()) {
            if (type.name().equals(upper)) {
                return type;
            }
        }
        throw new IllegalArgumentException("unknown QP type '" + text + "'; valid types: RC, UC, UD");
    }
}
