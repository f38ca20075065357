package org.rdmalab.bench;

import org.rdmalab.control.ConnectionData;
import org.rdmalab.verbs.LinkLayer;
import org.rdmalab.verbs.Mtu;

/**
 * The facts perftest prints above its table, as this run has them.
 *
 * @param settings what runs
 * @param deviceName the device ({@code soft0}, {@code rxe0})
 * @param backend the backend that provides it ("software", "libibverbs")
 * @param linkLayer the port's link layer (Ethernet for RoCE)
 * @param mtu the path MTU in use
 * @param gidIndex the GID index this side sends from
 * @param maxInlineData the QP's inline limit (0: this tool posts no inline data)
 * @param outstandingReads READ / atomic requests one QP may have in flight ({@code max_rd_atomic})
 * @param local this side's connection data
 * @param remote the peer's connection data
 * @param exchange how the connection data travelled ("in process" or "Ethernet" for TCP, as perftest says)
 */
public record BenchInfo(BenchSettings settings, String deviceName, String backend, LinkLayer linkLayer, Mtu mtu,
                        int gidIndex, int maxInlineData, int outstandingReads, ConnectionData local,
                        ConnectionData remote, String exchange) {
}
