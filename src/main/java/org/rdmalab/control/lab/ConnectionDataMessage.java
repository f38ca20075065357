package org.rdmalab.control.lab;

import java.nio.ByteBuffer;
import java.util.Objects;
import org.rdmalab.control.ConnectionData;
import org.rdmalab.verbs.Gid;
import org.rdmalab.verbs.Mtu;
import org.rdmalab.verbs.QpType;

/**
 * A side's QP and buffer: every field of {@link ConnectionData}. Body, 48 bytes:
 *
 * <pre>
 * offset size field
 *      0    1 qp_type  ibv_qp_type value (RC = 2)
 *      1    1 path_mtu ibv_mtu value (IBV_MTU_1024 = 3)
 *      2    2 lid
 *      4    4 qpn      (24 bits used)
 *      8    4 psn      (24 bits used)
 *     12    4 rkey
 *     16    8 addr
 *     24    8 length
 *     32   16 gid      raw bytes
 * </pre>
 *
 * @param data the connection data
 */
public record ConnectionDataMessage(ConnectionData data) implements LabMessage {

    /** The body's fixed length. */
    public static final int LENGTH = 48;

    /** Requires the data. */
    public ConnectionDataMessage {
        Objects.requireNonNull(data, "data");
    }

    @Override
    public MessageType type() {
        return MessageType.CONNECTION_DATA;
    }

    @Override
    public int bodyLength() {
        return LENGTH;
    }

    @Override
    public void serializeBody(ByteBuffer buffer) {
        buffer.put((byte) data.qpType().value()).put((byte) data.pathMtu().value()).putShort((short) data.lid())
                .putInt(data.qpn()).putInt(data.psn()).putInt(data.rkey()).putLong(data.addr())
                .putLong(data.length()).put(data.gid().raw());
    }

    static ConnectionDataMessage parseBody(ByteBuffer buffer) throws Body.Malformed {
        int qpType = buffer.get() & 0xff;
        int mtu = buffer.get() & 0xff;
        int lid = buffer.getShort() & 0xffff;
        int qpn = buffer.getInt();
        int psn = buffer.getInt();
        int rkey = buffer.getInt();
        long addr = buffer.getLong();
        long length = buffer.getLong();
        byte[] gid = new byte[16];
        buffer.get(gid);
        try {
            return new ConnectionDataMessage(new ConnectionData(QpType.of(qpType), qpn, psn, lid, Gid.of(gid), addr,
                    rkey, length, Mtu.of(mtu)));
        } catch (IllegalArgumentException e) {
            throw new Body.Malformed(e.getMessage());
        }
    }
}
