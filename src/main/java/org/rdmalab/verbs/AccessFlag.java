package org.rdmalab.verbs;

/** {@code enum ibv_access_flags}: rights of a memory region or of a QP's remote peer. */
public enum AccessFlag implements BitFlag {
    LOCAL_WRITE(0x1),
    REMOTE_WRITE(0x2),
    REMOTE_READ(0x4),
    REMOTE_ATOMIC(0x8),
    MW_BIND(0x10),
    ZERO_BASED(0x20),
    ON_DEMAND(0x40),
    HUGETLB(0x80),
    RELAXED_ORDERING(0x100000);

    private final int value;

    AccessFlag(int value) {
        this.value = value;
    }

    @Override
    public int value() {
        return value;
    }

    @Override
    public String cName() {
        return "IBV_ACCESS_" + name();
    }

    /** ORs the given flags. */
    public static int of(AccessFlag... flags) {
        return BitFlag.mask(flags);
    }

    /** True when every bit of {@code flag} is set in {@code mask}. */
    public static boolean has(int mask, AccessFlag flag) {
        return (mask & flag.value) == flag.value;
    }

    /** "LOCAL_WRITE, REMOTE_READ". */
    public static String names(int mask) {
        return BitFlag.names(AccessFlag.class, mask);
    }
}
