package org.rdmalab.wire;

import java.net.Inet4Address;
import java.nio.ByteBuffer;

/**
 * The canonical 20-byte IPv4 header of the software device (RFC 791; rocev2.md "A limit that
 * shapes the design"): version 4, IHL 5, identification 0, DF set, fragment offset 0, protocol 17
 * (UDP), the given TOS and TTL, and a correct header checksum. The ICRC is computed over this
 * header and captures contain it, so a capture's ICRCs verify. Stateless.
 */
public final class Ipv4Header {

    /** Bytes of a header without options. */
    public static final int LENGTH = 20;
    /** IP protocol number of UDP. */
    public static final byte PROTOCOL_UDP = 17;
    /** Don't-fragment bit in the flags/fragment-offset word. */
    public static final int FLAG_DF = 0x4000;

    private Ipv4Header() {
    }

    /**
     * A new 20-byte canonical header.
     *
     * @param payloadLength bytes after the IPv4 header (UDP header + UDP payload)
     * @param tos type of service (DSCP and ECN), 0..255
     * @param ttl time to live, 0..255
     */
    public static byte[] canonical(Inet4Address src, Inet4Address dst, int payloadLength, int tos, int ttl) {
        byte[] header = new byte[LENGTH];
        write(ByteBuffer.wrap(header), toInt(src), toInt(dst), payloadLength, tos, ttl);
        return header;
    }

    /** Writes the canonical header at the buffer's position and advances it; addresses as ints. */
    public static void write(ByteBuffer out, int src, int dst, int payloadLength, int tos, int ttl) {
        write(out, src, dst, payloadLength, tos, ttl, 0);
    }

    /**
     * Writes the canonical header with identification {@code id} instead of 0 (a received packet
     * whose sender chose one, see {@code Icrc#recoverIpv4Id}).
     */
    public static void write(ByteBuffer out, int src, int dst, int payloadLength, int tos, int ttl, int id) {
        int totalLength = LENGTH + payloadLength;
        if (payloadLength < 0 || totalLength > 0xFFFF) {
            throw new IllegalArgumentException("IPv4 payload length " + payloadLength + " is outside 0..65515");
        }
        if ((tos & ~0xFF) != 0 || (ttl & ~0xFF) != 0 || (id & ~0xFFFF) != 0) {
            throw new IllegalArgumentException("TOS " + tos + ", TTL " + ttl + " or ID " + id + " is out of range");
        }
        int checksum = checksum(0x4500 | tos, totalLength, id, FLAG_DF, ttl << 8 | PROTOCOL_UDP, src, dst);
        out.putShort((short) (0x4500 | tos));
        out.putShort((short) totalLength);
        out.putShort((short) id);
        out.putShort((short) FLAG_DF);
        out.putShort((short) (ttl << 8 | PROTOCOL_UDP));
        out.putShort((short) checksum);
        out.putInt(src);
        out.putInt(dst);
    }

    /** Writes the canonical header; see {@link #canonical}. */
    public static void write(ByteBuffer out, Inet4Address src, Inet4Address dst, int payloadLength, int tos,
                             int ttl) {
        write(out, toInt(src), toInt(dst), payloadLength, tos, ttl);
    }

    /** The RFC 791 checksum of {@code length} header bytes: ones' complement of the ones'-complement sum. */
    public static int checksum(byte[] header, int offset, int length) {
        int sum = 0;
        for (int i = 0; i + 1 < length; i += 2) {
            sum += (header[offset + i] & 0xFF) << 8 | (header[offset + i + 1] & 0xFF);
        }
        if ((length & 1) != 0) {
            sum += (header[offset + length - 1] & 0xFF) << 8;
        }
        return fold(sum);
    }

    private static int checksum(int word0, int word1, int word2, int word3, int word4, int src, int dst) {
        int sum = word0 + word1 + word2 + word3 + word4 + (src >>> 16) + (src & 0xFFFF) + (dst >>> 16) + (dst & 0xFFFF);
        return fold(sum);
    }

    private static int fold(int sum) {
        while ((sum >>> 16) != 0) {
            sum = (sum & 0xFFFF) + (sum >>> 16);
        }
        return ~sum & 0xFFFF;
    }

    /** The address as a big-endian int. */
    public static int toInt(Inet4Address address) {
        byte[] bytes = address.getAddress();
        return (bytes[0] & 0xFF) << 24 | (bytes[1] & 0xFF) << 16 | (bytes[2] & 0xFF) << 8 | (bytes[3] & 0xFF);
    }
}
