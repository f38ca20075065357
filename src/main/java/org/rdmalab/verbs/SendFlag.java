package org.rdmalab.verbs;

/** {@code enum ibv_send_flags}. */
public enum SendFlag implements BitFlag {
    FENCE(1),
    SIGNALED(2),
    SOLICITED(4),
    INLINE(8),
    IP_CSUM(16);

    private final int value;

    SendFlag(int value) {
        this.value = value;
    }

    @Override
    public int value() {
        return value;
    }

    @Override
    public String cName() {
        return "IBV_SEND_" + name();
    }

    /** ORs the given flags. */
    public static int of(SendFlag... flags) {
        return BitFlag.mask(flags);
    }

    /** True when {@code flag} is set in {@code mask}. */
    public static boolean has(int mask, SendFlag flag) {
        return (mask & flag.value) != 0;
    }
}
