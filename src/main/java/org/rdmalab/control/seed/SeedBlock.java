package org.rdmalab.control.seed;

import java.nio.ByteBuffer;
import java.util.Objects;
import org.rdmalab.control.ConnectionData;
import org.rdmalab.control.ControlException;
import org.rdmalab.control.ControlText;
import org.rdmalab.verbs.Gid;
import org.rdmalab.verbs.Mtu;
import org.rdmalab.verbs.QpType;

/**
 * The seed's connection block, {@code struct cm_con_data_t} declared packed: 34 bytes, integers
 * big-endian, no length, magic or version.
 *
 * <pre>
 * offset size field
 *      0    8 addr    virtual address of the sender's registered buffer
 *      8    4 rkey    rkey of that buffer's MR
 *     12    4 qp_num  the sender's QP number
 *     16    2 lid     the port's LID (0 on RoCE)
 *     18   16 gid     raw GID bytes (all zero when the seed runs with gid_idx -1)
 * </pre>
 *
 * <p>{@code rkey} and {@code qpNum} are {@code uint32_t} on the wire, held in ints.
 *
 * @param addr the buffer's virtual address
 * @param rkey the buffer's remote key
 * @param qpNum the QP number exactly as sent (a real one fits in 24 bits)
 * @param lid the LID, 0..65535
 * @param gid the GID
 */
public record SeedBlock(long addr, int rkey, int qpNum, int lid, Gid gid) {

    /** The packed size; an unpacked struct would be 40 bytes and cannot talk to the seed. */
    public static final int LENGTH = 34;

    /** The seed does not send a PSN: both sides use 0 for sq_psn and rq_psn. */
    public static final int PSN = 0;

    /** The seed does not send its buffer's length: both sides use MSG_SIZE, strlen("HelloWorld") + 1. */
    public static final int MESSAGE_SIZE = 11;

    /** The seed does not send the path MTU: it sets IBV_MTU_256 on both sides. */
    public static final Mtu PATH_MTU = Mtu.MTU_256;

    /** Validates the LID range and the GID. */
    public SeedBlock {
        Objects.requireNonNull(gid, "gid");
        if (lid < 0 || lid > 0xffff) {
            throw new IllegalArgumentException("LID " + lid + " does not fit in 16 bits");
        }
    }

    /** The block for {@code data}: carries address, rkey, QPN, LID and GID; the other fields are dropped. */
    public static SeedBlock from(ConnectionData data) {
        return new SeedBlock(data.addr(), data.rkey(), data.qpn(), data.lid(), data.gid());
    }

    /**
     * The common form: an RC QP with {@link #PSN} 0, buffer length {@link #MESSAGE_SIZE} and path MTU
     * {@link #PATH_MTU}, which is what the seed assumes for both sides.
     *
     * @throws ControlException when {@code qp_num} does not fit in 24 bits: no real QP has such a
     *     number, so the peer is not sending this block
     */
    public ConnectionData toConnectionData() throws ControlException {
        if ((qpNum & ~ConnectionData.MAX_24_BIT) != 0) {
            throw new ControlException(ControlException.Reason.PROTOCOL, String.format(
                    "the peer's connection block has qp_num 0x%08x, which no QP has; is the peer sending the"
                            + " seed's packed 34-byte block (try another --protocol)? block: %s",
                    qpNum, ControlText.quote(serialize())));
        }
        return new ConnectionData(QpType.RC, qpNum, PSN, lid, gid, addr, rkey, MESSAGE_SIZE, PATH_MTU);
    }

    /** The 34 wire bytes. */
    public byte[] serialize() {
        ByteBuffer buffer = ByteBuffer.allocate(LENGTH);
        serialize(buffer);
        return buffer.array();
    }

    /** Writes the 34 wire bytes at the buffer's position (ByteBuffer's default order is big-endian). */
    public void serialize(ByteBuffer buffer) {
        buffer.putLong(addr).putInt(rkey).putInt(qpNum).putShort((short) lid).put(gid.raw());
    }

    /** Reads a block from exactly 34 bytes. */
    public static SeedBlock parse(byte[] bytes) throws ControlException {
        if (bytes.length != LENGTH) {
            throw new ControlException(ControlException.Reason.PROTOCOL, "a connection block is " + LENGTH
                    + " bytes, got " + bytes.length + ": " + ControlText.quote(bytes));
        }
        return parse(ByteBuffer.wrap(bytes));
    }

    /** Reads a block at the buffer's position (34 bytes must remain). */
    public static SeedBlock parse(ByteBuffer buffer) {
        long addr = buffer.getLong();
        int rkey = buffer.getInt();
        int qpNum = buffer.getInt();
        int lid = buffer.getShort() & 0xffff;
        byte[] gid = new byte[16];
        buffer.get(gid);
        return new SeedBlock(addr, rkey, qpNum, lid, Gid.of(gid));
    }

    /** {@code addr 0x00007f1234567890 rkey 0x00001234 qp_num 0x00000011 lid 0x0000 gid ::ffff:192.168.1.100}. */
    @Override
    public String toString() {
        return String.format("addr 0x%016x rkey 0x%08x qp_num 0x%08x lid 0x%04x gid %s", addr, rkey, qpNum, lid, gid);
    }
}
