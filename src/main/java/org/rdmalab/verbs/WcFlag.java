package org.rdmalab.verbs;

/** {@code enum ibv_wc_flags}. */
public enum WcFlag implements BitFlag {
    GRH(1),
    WITH_IMM(2),
    IP_CSUM_OK(4),
    WITH_INV(8);

    private final int value;

    WcFlag(int value) {
        this.value = value;
    }

    @Override
    public int value() {
        return value;
    }

    @Override
    public String cName() {
        return "IBV_WC_" + name();
    }

    /** True when {@code flag} is set in {@code mask}. */
    public static boolean has(int mask, WcFlag flag) {
        return (mask & flag.value) != 0;
    }
}
