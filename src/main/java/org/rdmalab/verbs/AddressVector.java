package org.rdmalab.verbs;

/**
 * {@code struct ibv_ah_attr}: how to reach the peer.
 *
 * @param grh the global route, or {@code null} when {@code is_global} is 0
 * @param dlid destination LID (0 on RoCE)
 * @param serviceLevel {@code sl}
 * @param srcPathBits {@code src_path_bits}
 * @param staticRate {@code static_rate}
 * @param portNum the local port
 */
public record AddressVector(GlobalRoute grh, int dlid, int serviceLevel, int srcPathBits, int staticRate, int portNum) {

    /** True when a GRH is present ({@code is_global = 1}). */
    public boolean isGlobal() {
        return grh != null;
    }

    /** An address vector with a GRH (RoCE). */
    public static AddressVector global(GlobalRoute grh, int portNum) {
        return new AddressVector(grh, 0, 0, 0, 0, portNum);
    }

    /** An address vector without GRH (InfiniBand LID routing; refused on RoCE). */
    public static AddressVector local(int dlid, int portNum) {
        return new AddressVector(null, dlid, 0, 0, 0, portNum);
    }
}
