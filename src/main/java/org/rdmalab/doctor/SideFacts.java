package org.rdmalab.doctor;

import java.util.LinkedHashMap;
import java.util.Map;
import org.rdmalab.control.lab.Facts;

/**
 * What one side found about its own setup and tells the peer: the device and how it was reached,
 * the address and its netdev, the MTUs and the GID entry it will use. Unknown numbers are -1,
 * unknown texts empty.
 *
 * @param device the RDMA device ({@code soft0}, {@code rxe0})
 * @param backend {@code software}, {@code libibverbs}, or {@code sysfs} when only sysfs could be read
 * @param ip the side's IPv4 address ({@code <local_ip>})
 * @param netdev the network interface under the device
 * @param prefixLength the IPv4 prefix length of {@code ip} on the netdev, or -1
 * @param netdevMtu the netdev's MTU, or -1
 * @param activeMtu the port's active MTU in bytes, or -1
 * @param pathMtu the path MTU this side asked for in bytes ({@code --mtu}), or -1 for "the largest both allow"
 * @param linkLayer {@code Ethernet} or {@code InfiniBand}
 * @param portState {@code ACTIVE}, {@code DOWN}, ...
 * @param gidIndex the GID index this side will use, or -1 when none fits
 * @param gid that GID in IPv6 notation
 * @param gidType {@code RoCE v2}, {@code RoCE v1} or {@code IB}
 */
public record SideFacts(String device, String backend, String ip, String netdev, int prefixLength, int netdevMtu,
        int activeMtu, int pathMtu, String linkLayer, String portState, int gidIndex, String gid, String gidType) {

    /** As named values for a {@link Facts} message. */
    public Map<String, String> toMap() {
        Map<String, String> values = new LinkedHashMap<>();
        values.put("device", device);
        values.put("backend", backend);
        values.put("ip", ip);
        values.put("netdev", netdev);
        values.put("prefix_length", Integer.toString(prefixLength));
        values.put("netdev_mtu", Integer.toString(netdevMtu));
        values.put("active_mtu", Integer.toString(activeMtu));
        values.put("path_mtu", Integer.toString(pathMtu));
        values.put("link_layer", linkLayer);
        values.put("port_state", portState);
        values.put("gid_index", Integer.toString(gidIndex));
        values.put("gid", gid);
        values.put("gid_type", gidType);
        return values;
    }

    /** Reads the facts a peer sent; a missing or unreadable number is -1. */
    public static SideFacts from(Facts facts) {
        return new SideFacts(facts.get("device", ""), facts.get("backend", ""), facts.get("ip", ""),
                facts.get("netdev", ""), number(facts, "prefix_length"), number(facts, "netdev_mtu"),
                number(facts, "active_mtu"), number(facts, "path_mtu"), facts.get("link_layer", ""),
                facts.get("port_state", ""), number(facts, "gid_index"), facts.get("gid", ""),
                facts.get("gid_type", ""));
    }

    private static int number(Facts facts, String key) {
        try {
            return Integer.parseInt(facts.get(key, "-1"));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** "GID[3] ::ffff:10.0.2.15 (RoCE v2)", or "no GID" when none was chosen. */
    public String gidText() {
        return gidIndex < 0 ? "no GID" : "GID[" + gidIndex + "] " + gid + " (" + gidType + ")";
    }
}
