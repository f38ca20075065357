package org.rdmalab.verbs;

/** {@code enum ibv_qp_attr_mask}: which fields of {@link QpAttributes} a modify or query uses. */
public enum QpAttrMask implements BitFlag {
    STATE(0x1),
    CUR_STATE(0x2),
    EN_SQD_ASYNC_NOTIFY(0x4),
    ACCESS_FLAGS(0x8),
    PKEY_INDEX(0x10),
    PORT(0x20),
    QKEY(0x40),
    AV(0x80),
    PATH_MTU(0x100),
    TIMEOUT(0x200),
    RETRY_CNT(0x400),
    RNR_RETRY(0x800),
    RQ_PSN(0x1000),
    MAX_QP_RD_ATOMIC(0x2000),
    ALT_PATH(0x4000),
    MIN_RNR_TIMER(0x8000),
    SQ_PSN(0x10000),
    MAX_DEST_RD_ATOMIC(0x20000),
    PATH_MIG_STATE(0x40000),
    CAP(0x80000),
    DEST_QPN(0x100000),
    RATE_LIMIT(0x2000000);

    private final int value;

    QpAttrMask(int value) {
        this.value = value;
    }

    @Override
    public int value() {
        return value;
    }

    @Override
    public String cName() {
        return "IBV_QP_" + name();
    }

    /** ORs the given attributes. */
    public static int of(QpAttrMask... flags) {
        return BitFlag.mask(flags);
    }

    /** "STATE, AV, PATH_MTU". */
    public static String names(int mask) {
        return BitFlag.names(QpAttrMask.class, mask);
    }

    /** Parses hex or names; see {@link BitFlag#parse}. */
    public static int parse(String text) {
        return BitFlag.parse(QpAttrMask.class, text);
    }
}
