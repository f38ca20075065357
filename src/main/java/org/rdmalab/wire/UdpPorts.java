package org.rdmalab.wire;

/**
 * UDP ports of RoCEv2 (IBTA Annex A17.3; rocev2.md "Packet on the wire"): the destination is always
 * 4791; the source port carries entropy for ECMP and is ignored by receivers. As rxe does, it is
 * derived from the flow label, and a zero flow label is first derived from the two QP numbers, so
 * both ends of a connection use the same source port. Stateless.
 */
public final class UdpPorts {

    /** The RoCEv2 destination port. */
    public static final int ROCE_V2 = 4791;

    private UdpPorts() {
    }

    /** The 20-bit flow label both ends derive from their QP numbers (commutative). */
    public static int flowLabel(int localQpn, int remoteQpn) {
        long v = (localQpn & 0xFFFFFFFFL) * (remoteQpn & 0xFFFFFFFFL);
        v ^= v >>> 20;
        v ^= v >>> 40;
        return (int) (v & 0xFFFFF);
    }

    /**
     * The source port in 0xC000..0xFFFF: from {@code flowLabel} when it is not 0, otherwise from the
     * flow label {@link #flowLabel(int, int)} gives for the QP numbers.
     */
    public static int sourcePort(int localQpn, int remoteQpn, int flowLabel) {
        int label = (flowLabel & 0xFFFFF) != 0 ? flowLabel & 0xFFFFF : flowLabel(localQpn, remoteQpn);
        return 0xC000 | ((label & 0x3FFF) ^ (label >>> 14));
    }
}
