package org.rdmalab.verbs;

/** {@code enum ibv_mig_state}. */
public enum MigState implements Numbered {
    MIGRATED(0),
    REARM(1),
    ARMED(2);

    private final int value;

    MigState(int value) {
        this.value = value;
    }

    /** The verbs.h value. */
    @Override
    public int value() {
        return value;
    }

    /** {@code IBV_MIG_MIGRATED}. */
    public String cName() {
        return "IBV_MIG_" + name();
    }
}
