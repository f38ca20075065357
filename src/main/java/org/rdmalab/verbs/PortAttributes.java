package org.rdmalab.verbs;

/**
 * {@code struct ibv_port_attr} (the fields a lab needs).
 *
 * @param state port state
 * @param maxMtu the largest MTU the port supports
 * @param activeMtu the MTU in use (a QP's path MTU must not exceed it)
 * @param gidTableLength {@code gid_tbl_len}
 * @param portCapFlags {@code port_cap_flags}
 * @param maxMessageSize {@code max_msg_sz}
 * @param pkeyTableLength {@code pkey_tbl_len}
 * @param lid the port's LID (0 on RoCE)
 * @param smLid {@code sm_lid}
 * @param activeWidth {@code active_width} code
 * @param activeSpeed {@code active_speed} code
 * @param physState {@code phys_state} (5 = LinkUp)
 * @param linkLayer InfiniBand or Ethernet
 */
public record PortAttributes(
        PortState state,
        Mtu maxMtu,
        Mtu activeMtu,
        int gidTableLength,
        int portCapFlags,
        long maxMessageSize,
        int pkeyTableLength,
        int lid,
        int smLid,
        int activeWidth,
        int activeSpeed,
        int physState,
        LinkLayer linkLayer) {

    /** "LINK_UP" for 5, as ibv_devinfo prints {@code phys_state}. */
    public String physStateText() {
        return switch (physState) {
            case 1 -> "SLEEP";
            case 2 -> "POLLING";
            case 3 -> "DISABLED";
            case 4 -> "PORT_CONFIGURATION_TRAINING";
            case 5 -> "LINK_UP";
            case 6 -> "LINK_ERROR_RECOVERY";
            case 7 -> "PHY_TEST";
            default -> "invalid physical state";
        };
    }
}
