package org.rdmalab.wire;

import java.nio.ByteBuffer;
import java.util.Locale;

/**
 * Opens a RoCE v2 packet field by field ({@link Dissection}): a captured frame (its link header,
 * when the capture has one, then IP, UDP and the RoCE headers) or the UDP payload a software
 * device reported, whose IPv4 and UDP headers are rebuilt from its addresses as that device puts
 * them on the wire (the canonical header of {@link Ipv4Header}; the kernel's TTL and checksums are
 * not known and say so). The ICRC is computed over the IP and UDP headers and compared; the IPv4
 * header checksum is checked. Layouts are IBTA Vol. 1 §9.2-9.3 (BTH and extension headers), Annex
 * A17 (RoCE v2, ICRC), RFC 791, RFC 8200 and RFC 768; each field's offset is where its
 * specification puts it, counted from the header's start.
 *
 * <p>Stateless and thread-safe.
 */
public final class Dissector {

    /** TTL written into a rebuilt IPv4 header (the kernel's default); the field says it is not known. */
    static final int REBUILT_TTL = 64;
    private static final int UDP_HEADER = FrameHeaders.UDP_HEADER;

    private Dissector() {
    }

    /**
     * A captured frame: {@code ipOffset} bytes of link header (0 for a raw IP capture, 14 Ethernet
     * II, 18 Ethernet with an 802.1Q tag, 16 Linux cooked capture, 20 Linux cooked capture v2),
     * then an IPv4 or IPv6 header, a UDP header and its payload (a capture cut at its snap length
     * holds less: what is missing is said, not invented).
     */
    public static Dissection frame(byte[] frame, int ipOffset) {
        if (ipOffset < 0 || ipOffset > frame.length) {
            throw new IllegalArgumentException("IP offset " + ipOffset + " is outside the " + frame.length
                    + "-byte frame");
        }
        FrameHeaders parse = new FrameHeaders(frame, false);
        parse.link(ipOffset);
        parse.ip(ipOffset);
        return parse.done();
    }

    /**
     * A packet a software device reported: the UDP payload {@code roce} (BTH to ICRC) sent from
     * {@code source} to {@code destination} ("ip:port"). The IPv4 and UDP headers are rebuilt as
     * the device sends them (identification 0, DF; TOS 0 and TTL 64, which the ICRC masks), so the
     * ICRC is checked as the receiving device checks it. When the ICRC matches only with another
     * identification (a kernel rxe peer counts its IDs), that identification is recovered from the
     * ICRC and shown. An address that is not IPv4 gets no IP header and an ICRC that cannot be
     * checked.
     */
    public static Dissection udpPayload(byte[] roce, String source, String destination) {
        int[] from = endpoint(source);
        int[] to = endpoint(destination);
        if (from == null || to == null || Ipv4Header.LENGTH + UDP_HEADER + roce.length > 0xFFFF) {
            FrameHeaders parse = new FrameHeaders(roce, true);
            parse.roce(0, roce.length, roce.length, null);
            return parse.done();
        }
        int id = 0;
        if (roce.length >= Bth.LENGTH + Icrc.LENGTH) {
            int recovered = Icrc.recoverIpv4Id(from[0], to[0], from[1], to[1], roce, 0, roce.length);
            id = Math.max(recovered, 0);
        }
        ByteBuffer packet = ByteBuffer.allocate(Ipv4Header.LENGTH + UDP_HEADER + roce.length);
        Ipv4Header.write(packet, from[0], to[0], UDP_HEADER + roce.length, 0, REBUILT_TTL, id);
        packet.putShort((short) from[1]).putShort((short) to[1]).putShort((short) (UDP_HEADER + roce.length))
                .putShort((short) 0);
        packet.put(roce);
        FrameHeaders parse = new FrameHeaders(packet.array(), true);
        parse.recoveredId = id;
        parse.ip(0);
        return parse.done();
    }

    /** {address, port} of "a.b.c.d:port", or null for anything else. */
    private static int[] endpoint(String endpoint) {
        if (endpoint == null) {
            return null;
        }
        int colon = endpoint.lastIndexOf(':');
        if (colon < 0 || endpoint.indexOf(':') != colon) {
            return null;
        }
        String[] parts = endpoint.substring(0, colon).split("\\.", -1);
        if (parts.length != 4) {
            return null;
        }
        try {
            int address = 0;
            for (String part : parts) {
                int value = Integer.parseInt(part);
                if (value < 0 || value > 255 || part.isEmpty()) {
                    return null;
                }
                address = address << 8 | value;
            }
            int port = Integer.parseInt(endpoint.substring(colon + 1));
            return port < 0 || port > 0xFFFF ? null : new int[] {address, port};
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /**
     * The RNR NAK timer of code 0..31 in microseconds, as the AETH encodes it (IBTA Vol. 1 table 45;
     * code 0 is the longest, 655.36 ms).
     */
    public static long rnrTimerMicros(int code) {
        if (code < 0 || code > 31) {
            throw new IllegalArgumentException("RNR timer code " + code + " is outside 0..31");
        }
        return RNR_TENS_OF_MICROS[code] * 10L;
    }

    private static final int[] RNR_TENS_OF_MICROS = {
        65536, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768,
        1024, 1536, 2048, 3072, 4096, 6144, 8192, 12288, 16384, 24576, 32768, 49152,
    };

    /** "0.01", "1.28", "655.36": microseconds as milliseconds without trailing zeros. */
    static String millis(long micros) {
        String text = String.format(Locale.ROOT, "%d.%02d", micros / 1000, micros % 1000 / 10);
        return text.endsWith(".00") ? text.substring(0, text.length() - 3)
                : text.endsWith("0") ? text.substring(0, text.length() - 1) : text;
    }
}
