package org.rdmalab.control;

import java.util.Objects;
import org.rdmalab.verbs.Gid;
import org.rdmalab.verbs.Mtu;
import org.rdmalab.verbs.QpType;

/**
 * What one peer tells the other about its queue pair before the two can talk: the common form that
 * the seed's block, ibv_rc_pingpong's text and RDMA Lab's protocol map to and from. Each format
 * carries only some fields and documents the defaults it fills in for the rest.
 *
 * <p>Unsigned C fields are held in Java ints and longs: {@code rkey} is a {@code uint32_t} (compare
 * with {@link Integer#toUnsignedString}), {@code addr} a {@code uint64_t}.
 *
 * @param qpType the QP's transport type
 * @param qpn the QP number (24 bits)
 * @param psn the first packet sequence number the peer should expect (24 bits)
 * @param lid the port's LID (16 bits; 0 on RoCE)
 * @param gid the GID the peer should address (all zero when no GRH is used)
 * @param addr the virtual address of the registered buffer the peer may read or write
 * @param rkey the remote key of that buffer's memory region
 * @param length the buffer's length in bytes
 * @param pathMtu the path MTU this side will use
 */
public record ConnectionData(QpType qpType, int qpn, int psn, int lid, Gid gid, long addr, int rkey, long length,
        Mtu pathMtu) {

    /** The largest QP number or PSN (both are 24-bit fields on the wire of the RDMA transport). */
    public static final int MAX_24_BIT = 0xff_ffff;

    /** Validates the ranges. */
    public ConnectionData {
        Objects.requireNonNull(qpType, "qpType");
        Objects.requireNonNull(gid, "gid");
        Objects.requireNonNull(pathMtu, "pathMtu");
        if (qpn < 0 || qpn > MAX_24_BIT) {
            throw new IllegalArgumentException("QP number 0x" + Integer.toHexString(qpn) + " does not fit in 24 bits");
        }
        if (psn < 0 || psn > MAX_24_BIT) {
            throw new IllegalArgumentException("PSN 0x" + Integer.toHexString(psn) + " does not fit in 24 bits");
        }
        if (lid < 0 || lid > 0xffff) {
            throw new IllegalArgumentException("LID " + lid + " does not fit in 16 bits");
        }
        if (length < 0) {
            throw new IllegalArgumentException("buffer length " + length + " is negative");
        }
    }

    /** An RC QP with PSN 0, no buffer (address, rkey and length 0) and path MTU 1024. */
    public static ConnectionData rc(int qpn, int lid, Gid gid) {
        return new ConnectionData(QpType.RC, qpn, 0, lid, gid, 0, 0, 0, Mtu.MTU_1024);
    }

    /** A copy with another QP type. */
    public ConnectionData withQpType(QpType value) {
        return new ConnectionData(value, qpn, psn, lid, gid, addr, rkey, length, pathMtu);
    }

    /** A copy with another QP number. */
    public ConnectionData withQpn(int value) {
        return new ConnectionData(qpType, value, psn, lid, gid, addr, rkey, length, pathMtu);
    }

    /** A copy with another PSN. */
    public ConnectionData withPsn(int value) {
        return new ConnectionData(qpType, qpn, value, lid, gid, addr, rkey, length, pathMtu);
    }

    /** A copy with another LID. */
    public ConnectionData withLid(int value) {
        return new ConnectionData(qpType, qpn, psn, value, gid, addr, rkey, length, pathMtu);
    }

    /** A copy with another GID. */
    public ConnectionData withGid(Gid value) {
        return new ConnectionData(qpType, qpn, psn, lid, value, addr, rkey, length, pathMtu);
    }

    /** A copy describing another buffer. */
    public ConnectionData withBuffer(long newAddr, int newRkey, long newLength) {
        return new ConnectionData(qpType, qpn, psn, lid, gid, newAddr, newRkey, newLength, pathMtu);
    }

    /** A copy with another path MTU. */
    public ConnectionData withPathMtu(Mtu value) {
        return new ConnectionData(qpType, qpn, psn, lid, gid, addr, rkey, length, value);
    }

    /** {@code RC qpn 0x000011 psn 0x000000 lid 0x0000 gid ::ffff:192.168.1.100 addr 0x... rkey 0x... length 11 mtu 256}. */
    @Override
    public String toString() {
        return String.format("%s qpn 0x%06x psn 0x%06x lid 0x%04x gid %s addr 0x%016x rkey 0x%08x length %d mtu %s",
                qpType.name(), qpn, psn, lid, gid, addr, rkey, length, pathMtu);
    }
}
