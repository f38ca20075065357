package org.rdmalab.control.pingpong;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.rdmalab.control.ConnectionData;
import org.rdmalab.control.ControlException;
import org.rdmalab.control.ControlText;
import org.rdmalab.verbs.Gid;
import org.rdmalab.verbs.Mtu;
import org.rdmalab.verbs.QpType;

/**
 * ibv_rc_pingpong's connection message: the ASCII text {@code "%04x:%06x:%06x:%s"} of LID, QPN, PSN
 * and the GID's 16 raw bytes as 32 lowercase hex digits, followed by a NUL: exactly 52 bytes.
 *
 * <pre>
 * 0000:000011:a1b2c3:00000000000000000000ffffc0a80164\0
 * LID  QPN    PSN    GID                             NUL
 * </pre>
 *
 * <p>Parsing is strict about the shape (lengths, colons, the NUL, hex digits) and accepts either
 * case of hex digit; anything else is reported with the bytes that arrived.
 *
 * @param lid the LID (16 bits)
 * @param qpn the QP number (24 bits)
 * @param psn the first PSN (24 bits)
 * @param gid the GID (all zero when the program runs without -g)
 */
public record PingpongMessage(int lid, int qpn, int psn, Gid gid) {

    /** The wire size, trailing NUL included. */
    public static final int LENGTH = 52;

    /** ibv_rc_pingpong's TCP port. */
    public static final int PORT = 18515;

    /** The message size ibv_rc_pingpong uses by default; not carried on the wire. */
    public static final int DEFAULT_SIZE = 4096;

    /** ibv_rc_pingpong's default path MTU; not carried on the wire. */
    public static final Mtu DEFAULT_MTU = Mtu.MTU_1024;

    private static final Pattern FORMAT = Pattern.compile(
            "([0-9a-fA-F]{4}):([0-9a-fA-F]{6}):([0-9a-fA-F]{6}):([0-9a-fA-F]{32})\0");

    /** Validates the field widths. */
    public PingpongMessage {
        Objects.requireNonNull(gid, "gid");
        if (lid < 0 || lid > 0xffff) {
            throw new IllegalArgumentException("LID " + lid + " does not fit in 16 bits");
        }
        if (qpn < 0 || qpn > ConnectionData.MAX_24_BIT) {
            throw new IllegalArgumentException("QP number " + qpn + " does not fit in 24 bits");
        }
        if (psn < 0 || psn > ConnectionData.MAX_24_BIT) {
            throw new IllegalArgumentException("PSN " + psn + " does not fit in 24 bits");
        }
    }

    /** The message for {@code data}: carries LID, QPN, PSN and GID; address, rkey, length and MTU are dropped. */
    public static PingpongMessage from(ConnectionData data) {
        return new PingpongMessage(data.lid(), data.qpn(), data.psn(), data.gid());
    }

    /**
     * The common form: an RC QP without a remote buffer (address, rkey 0; ibv_rc_pingpong uses only
     * SEND/RECV), length {@link #DEFAULT_SIZE} and path MTU {@link #DEFAULT_MTU}, the program's defaults.
     */
    public ConnectionData toConnectionData() {
        return new ConnectionData(QpType.RC, qpn, psn, lid, gid, 0, 0, DEFAULT_SIZE, DEFAULT_MTU);
    }

    /** The 51 characters before the NUL. */
    public String text() {
        return String.format("%04x:%06x:%06x:%s", lid, qpn, psn, gid.toHex());
    }

    /** The 52 wire bytes. */
    public byte[] serialize() {
        return (text() + "\0").getBytes(StandardCharsets.US_ASCII);
    }

    /** Parses exactly 52 bytes; anything else is an error that quotes what arrived. */
    public static PingpongMessage parse(byte[] bytes) throws ControlException {
        String text = new String(bytes, StandardCharsets.ISO_8859_1);
        Matcher matcher = FORMAT.matcher(text);
        if (bytes.length != LENGTH || !matcher.matches()) {
            throw new ControlException(ControlException.Reason.PROTOCOL, "expected ibv_rc_pingpong's 52-byte"
                    + " LID:QPN:PSN:GID message, got " + bytes.length + " bytes: " + ControlText.quote(bytes)
                    + "; is the peer ibv_rc_pingpong (try another --protocol)?");
        }
        return new PingpongMessage(Integer.parseInt(matcher.group(1), 16), Integer.parseInt(matcher.group(2), 16),
                Integer.parseInt(matcher.group(3), 16), Gid.of(HexFormat.of().parseHex(matcher.group(4))));
    }

    @Override
    public String toString() {
        return text();
    }
}
