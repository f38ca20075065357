package org.rdmalab.softroce;

import java.net.Inet4Address;
import java.util.List;
import org.rdmalab.verbs.DeviceAttributes;
import org.rdmalab.verbs.Gid;
import org.rdmalab.verbs.GidEntry;
import org.rdmalab.verbs.GidType;
import org.rdmalab.verbs.LinkLayer;
import org.rdmalab.verbs.Mtu;
import org.rdmalab.verbs.PortAttributes;
import org.rdmalab.verbs.PortState;

/**
 * What the software device reports about itself, modelled on Linux rxe bound to a netdev whose
 * IPv4 address is the device's address: device and port attributes with rxe's limits, and a GID
 * table with the link-local GID and the IPv4-mapped GID, each as RoCE v1 and RoCE v2, in the order
 * rxe fills it.
 *
 * <p>The netdev's MAC address is made up from the IPv4 address ({@code 02:00:a:b:c:d}, a locally
 * administered address), so the link-local GID and the node GUID are stable for an address.
 */
public final class SoftRoceProfile {

    /** rxe's GID table length per port. */
    public static final int GID_TABLE_LENGTH = 1024;
    /** rxe's largest message. */
    public static final long MAX_MESSAGE_SIZE = 0x8000_0000L;
    /** rxe's work request limit per queue. */
    public static final int MAX_QP_WR = 0x4000;
    /** rxe's SGE limit. */
    public static final int MAX_SGE = 32;
    /** rxe's CQ entry limit. */
    public static final int MAX_CQE = (1 << 15) - 1;
    /** rxe's inline data limit. */
    public static final int MAX_INLINE_DATA = 256;
    /** rxe's outstanding RDMA READ / atomic limit. */
    public static final int MAX_RD_ATOMIC = 128;

    /**
     * The usable depth of a queue asked for {@code requested} entries, as rxe grants it: its
     * queues ({@code rxe_queue_init}) have a power-of-two number of slots, at least
     * {@code requested + 1}, and one slot stays empty, so the depth is {@code 2^k - 1}
     * (1 gives 1, 2 gives 3, 16 gives 31, 0 gives 0). {@code ibv_create_qp} returns it as
     * {@code max_send_wr} / {@code max_recv_wr}, {@code ibv_query_qp} reports it, and
     * {@code ibv_create_cq} returns it as {@code cqe}.
     */
    static int queueDepth(int requested) {
        int slots = requested + 1;
        int power = Integer.highestOneBit(slots);
        if (power < slots) {
            power <<= 1;
        }
        return power - 1;
    }

    /** The largest header rxe puts in front of a payload, taken off the link MTU. */
    static final int MAX_HEADER_LENGTH = 80;

    private final Inet4Address address;
    private final int udpPort;
    private final int peerUdpPort;
    private final int linkMtu;
    private final byte[] mac;

    /** The profile of a device bound to {@code address}, sending to UDP {@code udpPort}, on a link with MTU {@code linkMtu}. */
    public SoftRoceProfile(Inet4Address address, int udpPort, int linkMtu) {
        this(address, udpPort, udpPort, linkMtu);
    }

    /**
     * The profile of a device bound to {@code address:udpPort} that sends to UDP {@code peerUdpPort}
     * (two devices on one address: {@link org.rdmalab.verbs.spi.DeviceOptions#peerUdpPort()}).
     */
    public SoftRoceProfile(Inet4Address address, int udpPort, int peerUdpPort, int linkMtu) {
        this.address = address;
        this.udpPort = udpPort;
        this.peerUdpPort = peerUdpPort;
        this.linkMtu = linkMtu;
        byte[] ip = address.getAddress();
        this.mac = new byte[] {0x02, 0x00, ip[0], ip[1], ip[2], ip[3]};
    }

    /** The bound IPv4 address. */
    public Inet4Address address() {
        return address;
    }

    /** The RoCEv2 UDP port the device listens on. */
    public int udpPort() {
        return udpPort;
    }

    /** The UDP port the device sends to: its own, unless two devices share an address. */
    public int peerUdpPort() {
        return peerUdpPort;
    }

    /** The made-up MAC address of the device's netdev. */
    public byte[] mac() {
        return mac.clone();
    }

    /** {@code ibv_query_device} as rxe answers it. */
    public DeviceAttributes deviceAttributes() {
        long guid = nodeGuid();
        return new DeviceAttributes("0.0.0", guid, guid, -1L, 0xffffff, 0, 0,
                0x10000, MAX_QP_WR, MAX_SGE, 0x4000, MAX_CQE, 0x40000, 0x7ffc,
                MAX_RD_ATOMIC, MAX_RD_ATOMIC, 1, 1);
    }

    /** The node GUID: the MAC's EUI-64. */
    public long nodeGuid() {
        return Gid.linkLocal(mac).interfaceId();
    }

    /** The link MTU the device sits on. */
    public int linkMtu() {
        return linkMtu;
    }

    /**
     * The active MTU as rxe derives it from its netdev: the link MTU less the largest RoCE header,
     * rounded down to an InfiniBand MTU (1500 → 1024, 9000 → 4096).
     */
    public Mtu activeMtu() {
        int payload = linkMtu - MAX_HEADER_LENGTH;
        Mtu active = Mtu.MTU_256;
        for (Mtu mtu : Mtu.values()) {
            if (mtu.bytes() <= payload) {
                active = mtu;
            }
        }
        return active;
    }

    /** {@code ibv_query_port(1)} as rxe answers it (active MTU from the link MTU). */
    public PortAttributes portAttributes() {
        return new PortAttributes(PortState.ACTIVE, Mtu.MTU_4096, activeMtu(), GID_TABLE_LENGTH,
                0x00890000, MAX_MESSAGE_SIZE, 1, 0, 0, 1, 1, 5, LinkLayer.ETHERNET);
    }

    /** The populated GID table of port 1. */
    public List<GidEntry> gidTable() {
        Gid linkLocal = Gid.linkLocal(mac);
        Gid mapped = Gid.ipv4Mapped(address);
        String netdev = address.isLoopbackAddress() ? "lo" : "soft0";
        String ip = address.getHostAddress();
        return List.of(
                new GidEntry(0, 1, linkLocal, GidType.ROCE_V1, netdev, ""),
                new GidEntry(1, 1, linkLocal, GidType.ROCE_V2, netdev, ""),
                new GidEntry(2, 1, mapped, GidType.ROCE_V1, netdev, ip),
                new GidEntry(3, 1, mapped, GidType.ROCE_V2, netdev, ip));
    }
}
