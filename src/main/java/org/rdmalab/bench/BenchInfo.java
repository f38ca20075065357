package org.rdmalab.bench;

import java.util.List;
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
 * @param exchange how the connection data travelled ("in process" or "Ethernet" for TCP, as perftest says)
 * @param locals this side's connection data, one per QP ({@code -q}); empty where not known
 * @param remotes the peer's, one per QP
 */
public record BenchInfo(BenchSettings settings, String deviceName, String backend, LinkLayer linkLayer, Mtu mtu,
                        int gidIndex, int maxInlineData, int outstandingReads, String exchange,
                        List<ConnectionData> locals, List<ConnectionData> remotes) {

    public BenchInfo {
        locals = List.copyOf(locals);
        remotes = List.copyOf(remotes);
    }

    /** One QP on each side (none where {@code local} or {@code remote} is not known). */
    public BenchInfo(BenchSettings settings, String deviceName, String backend, LinkLayer linkLayer, Mtu mtu,
                     int gidIndex, int maxInlineData, int outstandingReads, ConnectionData local,
                     ConnectionData remote, String exchange) {
        this(settings, deviceName, backend, linkLayer, mtu, gidIndex, maxInlineData, outstandingReads, exchange,
                local == null ? List.of() : List.of(local), remote == null ? List.of() : List.of(remote));
    }

    /** This side's first QP's connection data (the only QP's without {@code -q}); null where not known. */
    public ConnectionData local() {
        return locals.isEmpty() ? null : locals.get(0);
    }

    /** The peer's first QP's connection data; null where not known. */
    public ConnectionData remote() {
        return remotes.isEmpty() ? null : remotes.get(0);
    }
}
