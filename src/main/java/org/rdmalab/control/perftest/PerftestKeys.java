package org.rdmalab.control.perftest;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.rdmalab.control.ConnectionData;
import org.rdmalab.control.ControlException;
import org.rdmalab.control.ControlText;
import org.rdmalab.verbs.Gid;

/**
 * perftest's per-QP message ({@code struct pingpong_dest} as ASCII): LID, outstanding reads, QPN,
 * PSN, rkey, the address of the buffer the peer may write, the GID and the SRQ number, each field in
 * lowercase hex and followed by a colon, then a NUL.
 *
 * <pre>
 * 0000:0010:000011:a1b2c3:00001234:00007f0011223000:00:00:00:00:00:00:00:00:00:00:ff:ff:c0:a8:01:64:00000000:\0
 * LID  OUT  QPN    PSN    RKEY     VADDR            GID (16 bytes, each "%02x:")                  SRQN
 * </pre>
 *
 * <p>That is the form with a GID (108 bytes with the NUL), used whenever the sides address each
 * other by GID, as on RoCE. Without a GID (InfiniBand, no {@code -x}) the message is
 * {@code "%04x:%04x:%06x:%06x:%08x:%016llx:%08x"} and a NUL, 59 bytes. Both sides use the same
 * form: a perftest side reads the peer's message in the form it writes its own.
 *
 * @param lid the port's LID (16 bits; 0 on RoCE)
 * @param outReads the RDMA READs this side lets the peer have in flight (perftest's {@code -o})
 * @param qpn the QP number (24 bits)
 * @param psn the first PSN (24 bits)
 * @param rkey the remote key of the peer-writable buffer
 * @param vaddr the address of the peer-writable buffer
 * @param gid the GID (all zero in the form without one)
 * @param srqn the SRQ number (XRC and DC only; 0 otherwise)
 */
public record PerftestKeys(int lid, int outReads, int qpn, int psn, int rkey, long vaddr, Gid gid, int srqn) {

    /** The wire size of the form with a GID, the NUL included. */
    public static final int LENGTH_WITH_GID = 108;
    /** The wire size of the form without a GID, the NUL included. */
    public static final int LENGTH_WITHOUT_GID = 59;

    private static final String HEAD = "([0-9a-fA-F]{4}):([0-9a-fA-F]{4}):([0-9a-fA-F]{6}):([0-9a-fA-F]{6}):"
            + "([0-9a-fA-F]{8}):([0-9a-fA-F]{16}):";
    private static final Pattern WITH_GID = Pattern.compile(HEAD + "((?:[0-9a-fA-F]{2}:){16})([0-9a-fA-F]{8}):\0");
    private static final Pattern WITHOUT_GID = Pattern.compile(HEAD + "([0-9a-fA-F]{8})\0");

    /** Validates the field widths. */
    public PerftestKeys {
        Objects.requireNonNull(gid, "gid");
        if (lid < 0 || lid > 0xffff) {
            throw new IllegalArgumentException("LID " + lid + " does not fit in 16 bits");
        }
        if (outReads < 0 || outReads > 0xffff) {
            throw new IllegalArgumentException("outstanding reads " + outReads + " do not fit in 16 bits");
        }
        if (qpn < 0 || qpn > ConnectionData.MAX_24_BIT) {
            throw new IllegalArgumentException("QP number " + qpn + " does not fit in 24 bits");
        }
        if (psn < 0 || psn > ConnectionData.MAX_24_BIT) {
            throw new IllegalArgumentException("PSN " + psn + " does not fit in 24 bits");
        }
    }

    /** The keys of {@code data} (LID, QPN, PSN, rkey, address, GID) with {@code outReads} and SRQ number 0. */
    public static PerftestKeys from(ConnectionData data, int outReads) {
        return new PerftestKeys(data.lid(), outReads, data.qpn(), data.psn(), data.rkey(), data.addr(), data.gid(), 0);
    }

    /** The text before the NUL, in the form with or without a GID. */
    public String text(boolean withGid) {
        String head = String.format("%04x:%04x:%06x:%06x:%08x:%016x:", lid, outReads, qpn, psn, rkey, vaddr);
        if (!withGid) {
            return head + String.format("%08x", srqn);
        }
        StringBuilder text = new StringBuilder(head);
        for (byte b : gid.raw()) {
            text.append(String.format("%02x:", b & 0xff));
        }
        return text.append(String.format("%08x:", srqn)).toString();
    }

    /** The wire bytes: {@link #LENGTH_WITH_GID} or {@link #LENGTH_WITHOUT_GID}. */
    public byte[] serialize(boolean withGid) {
        return (text(withGid) + "\0").getBytes(StandardCharsets.US_ASCII);
    }

    /** The wire size of the form. */
    public static int length(boolean withGid) {
        return withGid ? LENGTH_WITH_GID : LENGTH_WITHOUT_GID;
    }

    /** Parses a message of the form; anything else is an error that quotes what arrived. */
    public static PerftestKeys parse(byte[] bytes, boolean withGid) throws ControlException {
        String text = new String(bytes, StandardCharsets.ISO_8859_1);
        Matcher matcher = (withGid ? WITH_GID : WITHOUT_GID).matcher(text);
        if (bytes.length != length(withGid) || !matcher.matches()) {
            throw new ControlException(ControlException.Reason.PROTOCOL, "expected perftest's " + length(withGid)
                    + "-byte LID:OUT_READS:QPN:PSN:RKEY:VADDR:" + (withGid ? "GID:" : "") + "SRQN message, got "
                    + bytes.length + " bytes: " + ControlText.quote(bytes)
                    + (withGid ? "" : "; does the peer use a GID (give both sides the same -x)?"));
        }
        Gid gid = withGid ? Gid.of(HexFormat.of().parseHex(matcher.group(7).replace(":", ""))) : Gid.ZERO;
        return new PerftestKeys(Integer.parseInt(matcher.group(1), 16), Integer.parseInt(matcher.group(2), 16),
                Integer.parseInt(matcher.group(3), 16), Integer.parseInt(matcher.group(4), 16),
                Integer.parseUnsignedInt(matcher.group(5), 16), Long.parseUnsignedLong(matcher.group(6), 16), gid,
                Integer.parseUnsignedInt(matcher.group(withGid ? 8 : 7), 16));
    }
}
