package org.rdmalab.verbs;

/** {@code enum ibv_wc_status}, with the texts of {@code ibv_wc_status_str}. */
public enum WcStatus implements Numbered {
    SUCCESS(0, "success"),
    LOC_LEN_ERR(1, "local length error"),
    LOC_QP_OP_ERR(2, "local QP operation error"),
    LOC_EEC_OP_ERR(3, "local EE context operation error"),
    LOC_PROT_ERR(4, "local protection error"),
    WR_FLUSH_ERR(5, "Work Request Flushed Error"),
    MW_BIND_ERR(6, "memory management operation error"),
    BAD_RESP_ERR(7, "bad response error"),
    LOC_ACCESS_ERR(8, "local access error"),
    REM_INV_REQ_ERR(9, "remote invalid request error"),
    REM_ACCESS_ERR(10, "remote access error"),
    REM_OP_ERR(11, "remote operation error"),
    RETRY_EXC_ERR(12, "transport retry counter exceeded"),
    RNR_RETRY_EXC_ERR(13, "RNR retry counter exceeded"),
    LOC_RDD_VIOL_ERR(14, "local RDD violation error"),
    REM_INV_RD_REQ_ERR(15, "remote invalid RD request"),
    REM_ABORT_ERR(16, "aborted error"),
    INV_EECN_ERR(17, "invalid EE context number"),
    INV_EEC_STATE_ERR(18, "invalid EE context state"),
    FATAL_ERR(19, "fatal error"),
    RESP_TIMEOUT_ERR(20, "response timeout error"),
    GENERAL_ERR(21, "general error"),
    TM_ERR(22, "TM error"),
    TM_RNDV_INCOMPLETE(23, "TM software rendezvous");

    /**
     * The constants indexed by their verbs.h value, for {@link #of}, which runs for every polled
     * completion: one array load, where a search through {@code Numbered.value()} makes an
     * interface call per constant that the JIT cannot inline (many enums go through it).
     */
    private static final WcStatus[] BY_VALUE = Numbered.indexedByValue(values());

    private final int value;
    private final String text;

    WcStatus(int value, String text) {
        this.value = value;
        this.text = text;
    }

    /** The verbs.h value. */
    @Override
    public int value() {
        return value;
    }

    /** What {@code ibv_wc_status_str} returns. */
    public String text() {
        return text;
    }

    /** {@code IBV_WC_REM_ACCESS_ERR}. */
    public String cName() {
        return "IBV_WC_" + name();
    }

    /** The status with verbs.h value {@code value}. */
    public static WcStatus of(int value) {
        return Numbered.byIndex(BY_VALUE, value, "ibv_wc_status");
    }
}
