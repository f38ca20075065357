package org.rdmalab.verbs;

/** {@code enum ibv_wc_opcode}: what a completion reports. */
public enum WcOpcode implements Numbered {
    SEND(0),
    RDMA_WRITE(1),
    RDMA_READ(2),
    COMP_SWAP(3),
    FETCH_ADD(4),
    BIND_MW(5),
    LOCAL_INV(6),
    TSO(7),
    RECV(128),
    RECV_RDMA_WITH_IMM(129);

    /**
     * The constants indexed by their verbs.h value, for {@link #of}, which runs for every polled
     * completion: one array load, where a search through {@code Numbered.value()} makes an
     * interface call per constant that the JIT cannot inline (many enums go through it).
     */
    private static final WcOpcode[] BY_VALUE = Numbered.indexedByValue(values());

    private final int value;

    WcOpcode(int value) {
        this.value = value;
    }

    /** The verbs.h value. */
    @Override
    public int value() {
        return value;
    }

    /** {@code IBV_WC_RDMA_WRITE}. */
    public String cName() {
        return "IBV_WC_" + name();
    }

    /** The opcode with verbs.h value {@code value}. */
    public static WcOpcode of(int value) {
        return Numbered.byIndex(BY_VALUE, value, "ibv_wc_opcode");
    }
}
