package org.rdmalab.verbs;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.HexFormat;

/** {@code union ibv_gid}: 16 raw bytes, shown in IPv6 notation as {@code ibv_devinfo} does. */
public final class Gid {

    /** The all-zero GID (what the seed sends when it uses no GID). */
    public static final Gid ZERO = new Gid(new byte[16]);

    private final byte[] raw;

    private Gid(byte[] raw) {
        this.raw = raw;
    }

    /** A GID from its 16 raw bytes (copied). */
    public static Gid of(byte[] raw) {
        if (raw.length != 16) {
            throw new IllegalArgumentException("a GID is 16 bytes, got " + raw.length);
        }
        return new Gid(raw.clone());
    }

    /** The IPv4-mapped GID {@code ::ffff:a.b.c.d} that RoCE derives from an IPv4 address. */
    public static Gid ipv4Mapped(Inet4Address address) {
        byte[] raw = new byte[16];
        raw[10] = (byte) 0xff;
        raw[11] = (byte) 0xff;
        System.arraycopy(address.getAddress(), 0, raw, 12, 4);
        return new Gid(raw);
    }

    /** The link-local GID {@code fe80::<EUI-64>} derived from a 6-byte MAC address. */
    public static Gid linkLocal(byte[] mac) {
        if (mac.length != 6) {
            throw new IllegalArgumentException("a MAC address is 6 bytes, got " + mac.length);
        }
        byte[] raw = new byte[16];
        raw[0] = (byte) 0xfe;
        raw[1] = (byte) 0x80;
        raw[8] = (byte) (mac[0] ^ 0x02);
        raw[9] = mac[1];
        raw[10] = mac[2];
        raw[11] = (byte) 0xff;
        raw[12] = (byte) 0xfe;
        raw[13] = mac[3];
        raw[14] = mac[4];
        raw[15] = mac[5];
        return new Gid(raw);
    }

    /** Parses IPv6 notation ({@code fe80::1}, {@code ::ffff:10.0.0.1}) or 32 hex digits. */
    public static Gid parse(String text) {
        String trimmed = text.trim();
        if (trimmed.matches("[0-9a-fA-F]{32}")) {
            return new Gid(HexFormat.of().parseHex(trimmed));
        }
        if (!trimmed.contains(":")) {
            throw new IllegalArgumentException("'" + text + "' is not a GID (use IPv6 notation or 32 hex digits)");
        }
        try {
            InetAddress address = InetAddress.getByName(trimmed);
            byte[] bytes = address.getAddress();
            if (bytes.length == 4) {
                return ipv4Mapped((Inet4Address) address);
            }
            return new Gid(bytes);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("'" + text + "' is not a GID (use IPv6 notation or 32 hex digits)", e);
        }
    }

    /** A copy of the 16 raw bytes. */
    public byte[] raw() {
        return raw.clone();
    }

    /** Copies the raw bytes into {@code target} at {@code offset}. */
    public void copyTo(byte[] target, int offset) {
        System.arraycopy(raw, 0, target, offset, 16);
    }

    /** The upper 8 bytes ({@code subnet_prefix}), big-endian. */
    public long subnetPrefix() {
        return readLong(0);
    }

    /** The lower 8 bytes ({@code interface_id}), big-endian. */
    public long interfaceId() {
        return readLong(8);
    }

    private long readLong(int offset) {
        long value = 0;
        for (int i = 0; i < 8; i++) {
            value = (value << 8) | (raw[offset + i] & 0xff);
        }
        return value;
    }

    /** True for {@code ::ffff:a.b.c.d}. */
    public boolean isIpv4Mapped() {
        for (int i = 0; i < 10; i++) {
            if (raw[i] != 0) {
                return false;
            }
        }
        return raw[10] == (byte) 0xff && raw[11] == (byte) 0xff;
    }

    /** True for {@code fe80::/64}. */
    public boolean isLinkLocal() {
        return raw[0] == (byte) 0xfe && (raw[1] & 0xc0) == 0x80;
    }

    /** True when all 16 bytes are zero. */
    public boolean isZero() {
        return Arrays.equals(raw, ZERO.raw);
    }

    /** The IPv4 address of an IPv4-mapped GID. */
    public Inet4Address ipv4() {
        if (!isIpv4Mapped()) {
            throw new IllegalStateException(this + " is not an IPv4-mapped GID");
        }
        try {
            return (Inet4Address) InetAddress.getByAddress(Arrays.copyOfRange(raw, 12, 16));
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    /** 32 lowercase hex digits (ibv_rc_pingpong's wire form). */
    public String toHex() {
        return HexFormat.of().formatHex(raw);
    }

    /** IPv6 text with the longest zero run compressed; IPv4-mapped GIDs end in dotted quad. */
    @Override
    public String toString() {
        if (isIpv4Mapped()) {
            return "::ffff:" + (raw[12] & 0xff) + "." + (raw[13] & 0xff) + "." + (raw[14] & 0xff) + "." + (raw[15] & 0xff);
        }
        int[] groups = new int[8];
        for (int i = 0; i < 8; i++) {
            groups[i] = ((raw[2 * i] & 0xff) << 8) | (raw[2 * i + 1] & 0xff);
        }
        int bestStart = -1;
        int bestLength = 0;
        for (int i = 0; i < 8; ) {
            if (groups[i] != 0) {
                i++;
                continue;
            }
            int j = i;
            while (j < 8 && groups[j] == 0) {
                j++;
            }
            if (j - i > bestLength && j - i >= 2) {
                bestStart = i;
                bestLength = j - i;
            }
            i = j;
        }
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            if (i == bestStart) {
                text.append("::");
                i += bestLength - 1;
                continue;
            }
            if (text.length() > 0 && text.charAt(text.length() - 1) != ':') {
                text.append(':');
            }
            text.append(Integer.toHexString(groups[i]));
        }
        return text.toString();
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Gid gid && Arrays.equals(raw, gid.raw);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(raw);
    }
}
