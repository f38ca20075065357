package org.rdmalab.verbs;

/** {@code enum ibv_port_state}. */
public enum PortState implements Numbered {
    NOP(0),
    DOWN(1),
    INIT(2),
    ARMED(3),
    ACTIVE(4),
    ACTIVE_DEFER(5);

    private final int value;

    PortState(int value) {
        this.value = value;
    }

    /** The verbs.h value. */
    @Override
    public int value() {
        return value;
    }

    /** {@code IBV_PORT_ACTIVE}. */
    public String cName() {
        return "IBV_PORT_" + name();
    }

    /** The state with verbs.h value {@code value}. */
    public static PortState of(int value) {
        return Numbered.byValue(PortState.class, value, "ibv_port_state");
    }
}
