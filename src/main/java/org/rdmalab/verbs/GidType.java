package org.rdmalab.verbs;

/** {@code enum ibv_gid_type} as {@code ibv_query_gid_ex} reports it. */
public enum GidType implements Numbered {
    IB(0, "IB"),
    ROCE_V1(1, "RoCE v1"),
    ROCE_V2(2, "RoCE v2");

    private final int value;
    private final String text;

    GidType(int value, String text) {
        this.value = value;
        this.text = text;
    }

    /** The verbs.h value. */
    @Override
    public int value() {
        return value;
    }

    /** "RoCE v2", as ibv_devinfo prints it. */
    public String text() {
        return text;
    }

    /** The type with verbs.h value {@code value}. */
    public static GidType of(int value) {
        return Numbered.byValue(GidType.class, value, "ibv_gid_type");
    }
}
