package org.rdmalab.verbs;

/** {@code enum ibv_wr_opcode}: what a send work request asks for. */
public enum WrOpcode implements Numbered {
    RDMA_WRITE(0),
    RDMA_WRITE_WITH_IMM(1),
    SEND(2),
    SEND_WITH_IMM(3),
    RDMA_READ(4),
    ATOMIC_CMP_AND_SWP(5),
    ATOMIC_FETCH_AND_ADD(6),
    LOCAL_INV(7),
    BIND_MW(8),
    SEND_WITH_INV(9);

    private final int value;

    WrOpcode(int value) {
        this.value = value;
    }

    /** The verbs.h value. */
    @Override
    public int value() {
        return value;
    }

    /** {@code IBV_WR_RDMA_WRITE}. */
    public String cName() {
        return "IBV_WR_" + name();
    }

    /** True for the two atomic opcodes. */
    public boolean isAtomic() {
        return this == ATOMIC_CMP_AND_SWP || this == ATOMIC_FETCH_AND_ADD;
    }

    /** True for opcodes that carry immediate data. */
    public boolean hasImmediate() {
        return this == RDMA_WRITE_WITH_IMM || this == SEND_WITH_IMM;
    }

    /** The completion opcode a successful request of this kind reports. */
    public WcOpcode completionOpcode() {
        return switch (this) {
            case RDMA_WRITE, RDMA_WRITE_WITH_IMM -> WcOpcode.RDMA_WRITE;
            case SEND, SEND_WITH_IMM, SEND_WITH_INV -> WcOpcode.SEND;
            case RDMA_READ -> WcOpcode.RDMA_READ;
            case ATOMIC_CMP_AND_SWP -> WcOpcode.COMP_SWAP;
            case ATOMIC_FETCH_AND_ADD -> WcOpcode.FETCH_ADD;
            case LOCAL_INV -> WcOpcode.LOCAL_INV;
            case BIND_MW -> WcOpcode.BIND_MW;
        };
    }

    /** The opcode with verbs.h value {@code value}. */
    public static WrOpcode of(int value) {
        return Numbered.byValue(WrOpcode.class, value, "ibv_wr_opcode");
    }
}
