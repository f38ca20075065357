package org.rdmalab.verbs;

/**
 * {@code struct ibv_gid_entry}: one row of a port's GID table.
 *
 * @param index the GID index (what {@code sgid_index} and the seed's {@code gid_idx} select)
 * @param port the port number
 * @param gid the GID
 * @param type IB, RoCE v1 or RoCE v2
 * @param netdev the network device the GID belongs to ("lo", "eth0"), or empty
 * @param ipAddress the IP address behind the GID in text form, or empty
 */
public record GidEntry(int index, int port, Gid gid, GidType type, String netdev, String ipAddress) {
}
