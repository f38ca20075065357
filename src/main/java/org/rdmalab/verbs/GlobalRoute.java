package org.rdmalab.verbs;

/**
 * {@code struct ibv_global_route}: the GRH part of an address vector (required on RoCE).
 *
 * @param dgid the peer's GID
 * @param flowLabel 20-bit flow label
 * @param sgidIndex index of the local GID to send from
 * @param hopLimit IPv4 TTL / IPv6 hop limit
 * @param trafficClass IPv4 TOS / IPv6 traffic class
 */
public record GlobalRoute(Gid dgid, int flowLabel, int sgidIndex, int hopLimit, int trafficClass) {

    /** The seed's GRH: hop_limit 1, flow label and traffic class 0. */
    public static GlobalRoute of(Gid dgid, int sgidIndex) {
        return new GlobalRoute(dgid, 0, sgidIndex, 1, 0);
    }
}
