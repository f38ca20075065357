package org.rdmalab.wire;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.rdmalab.wire.Dissection.Check;
import org.rdmalab.wire.Dissection.Field;
import org.rdmalab.wire.Dissection.Header;
import org.rdmalab.wire.Dissection.Layer;
import org.rdmalab.wire.Dissection.Meaning;

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
    private static final int UDP_HEADER = 8;
    private static final int ETHERTYPE_IPV4 = 0x0800;
    private static final int ETHERTYPE_IPV6 = 0x86DD;
    private static final int ETHERTYPE_VLAN = 0x8100;

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
        Parse parse = new Parse(frame, false);
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
            Parse parse = new Parse(roce, true);
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
        Parse parse = new Parse(packet.array(), true);
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

    /** One dissection in progress. */
    private static final class Parse {
        final byte[] bytes;
        final boolean rebuilt;
        final List<Header> headers = new ArrayList<>();
        String problem;
        int recoveredId;

        Parse(byte[] bytes, boolean rebuilt) {
            this.bytes = bytes;
            this.rebuilt = rebuilt;
        }

        Dissection done() {
            return new Dissection(bytes, headers, rebuilt, problem);
        }

        int u8(int at) {
            return bytes[at] & 0xFF;
        }

        int u16(int at) {
            return u8(at) << 8 | u8(at + 1);
        }

        int u24(int at) {
            return u8(at) << 16 | u16(at + 1);
        }

        long u32(int at) {
            return (long) u16(at) << 16 | u16(at + 2);
        }

        long u64(int at) {
            return u32(at) << 32 | u32(at + 4);
        }

        String hex(int at, int length, String separator) {
            StringBuilder text = new StringBuilder(length * 3);
            for (int i = 0; i < length; i++) {
                if (i > 0) {
                    text.append(separator);
                }
                text.append(String.format("%02x", u8(at + i)));
            }
            return text.toString();
        }

        /** Bytes {@code from..to} as plain data that could not be read as what they should be. */
        void data(String name, int from, int to, Meaning why, Check check) {
            if (to <= from) {
                return;
            }
            Field field = new Field("Data", from, to - from, 0, (to - from) + " bytes", why, check);
            headers.add(new Header(Layer.DATA, name, from, to - from, why, check, List.of(field)));
        }

        void fail(String reason, int from, int to) {
            if (problem == null) {
                problem = reason;
            }
            data("Malformed", from, to, Meaning.of("malformed", reason), Check.BAD);
        }

        // ------------------------------------------------------------------ link

        void link(int ipOffset) {
            if (ipOffset == 0) {
                return;
            }
            int type = ipOffset >= 14 ? u16(12) : -1;
            if (ipOffset == 14 && (type == ETHERTYPE_IPV4 || type == ETHERTYPE_IPV6)
                    || ipOffset == 18 && type == ETHERTYPE_VLAN) {
                ethernet(ipOffset);
            } else if (ipOffset == 16) {
                linuxCooked();
            } else if (ipOffset == 20) {
                linuxCookedV2();
            } else {
                data("Link header", 0, ipOffset, Meaning.of("link.unknown", ipOffset), Check.NONE);
            }
        }

        void ethernet(int length) {
            List<Field> fields = new ArrayList<>();
            fields.add(new Field("Destination", 0, 6, 0, mac(0), null, Check.NONE));
            fields.add(new Field("Source", 6, 6, 0, mac(6), null, Check.NONE));
            int typeAt = 12;
            if (length == 18) {
                fields.add(new Field("Type", 12, 2, 0, String.format("0x%04x", u16(12)), Meaning.of("eth.vlan"),
                        Check.NONE));
                fields.add(new Field("Priority", 14, 2, 0xE000, Integer.toString(u16(14) >>> 13),
                        Meaning.of("eth.pcp"), Check.NONE));
                fields.add(new Field("DEI", 14, 2, 0x1000, Integer.toString(u16(14) >>> 12 & 1), null, Check.NONE));
                fields.add(new Field("ID", 14, 2, 0x0FFF, Integer.toString(u16(14) & 0xFFF), Meaning.of("eth.vlanId"),
                        Check.NONE));
                typeAt = 16;
            }
            fields.add(etherType("Type", typeAt));
            headers.add(new Header(Layer.ETHERNET, length == 18 ? "Ethernet II, 802.1Q" : "Ethernet II", 0, length,
                    Meaning.of("eth", mac(6), mac(0)), Check.NONE, fields));
        }

        Field etherType(String name, int at) {
            int type = u16(at);
            String value = String.format("0x%04x", type);
            Meaning meaning = type == ETHERTYPE_IPV4 ? Meaning.of("ethertype.ipv4")
                    : type == ETHERTYPE_IPV6 ? Meaning.of("ethertype.ipv6") : Meaning.of("ethertype.other");
            return new Field(name, at, 2, 0, value, meaning, Check.NONE);
        }

        String mac(int at) {
            return hex(at, 6, ":");
        }

        void linuxCooked() {
            List<Field> fields = new ArrayList<>();
            fields.add(new Field("Packet type", 0, 2, 0, Integer.toString(u16(0)), packetType(u16(0)), Check.NONE));
            fields.add(new Field("Link-layer address type", 2, 2, 0, Integer.toString(u16(2)), null, Check.NONE));
            int addressLength = u16(4);
            fields.add(new Field("Link-layer address length", 4, 2, 0, Integer.toString(addressLength), null,
                    Check.NONE));
            fields.add(new Field("Source", 6, 8, 0, hex(6, Math.min(Math.max(addressLength, 0), 8), ":"), null,
                    Check.NONE));
            fields.add(etherType("Protocol", 14));
            headers.add(new Header(Layer.LINK, "Linux cooked capture", 0, 16, Meaning.of("sll"), Check.NONE, fields));
        }

        void linuxCookedV2() {
            List<Field> fields = new ArrayList<>();
            fields.add(etherType("Protocol", 0));
            fields.add(new Field("Reserved", 2, 2, 0, String.format("0x%04x", u16(2)), null, Check.NONE));
            fields.add(new Field("Interface index", 4, 4, 0, Long.toString(u32(4)), null, Check.NONE));
            fields.add(new Field("Link-layer address type", 8, 2, 0, Integer.toString(u16(8)), null, Check.NONE));
            fields.add(new Field("Packet type", 10, 1, 0, Integer.toString(u8(10)), packetType(u8(10)), Check.NONE));
            int addressLength = u8(11);
            fields.add(new Field("Link-layer address length", 11, 1, 0, Integer.toString(addressLength), null,
                    Check.NONE));
            fields.add(new Field("Source", 12, 8, 0, hex(12, Math.min(addressLength, 8), ":"), null, Check.NONE));
            headers.add(new Header(Layer.LINK, "Linux cooked capture v2", 0, 20, Meaning.of("sll"), Check.NONE, fields));
        }

        Meaning packetType(int type) {
            return switch (type) {
                case 0 -> Meaning.of("sll.toUs");
                case 4 -> Meaning.of("sll.outgoing");
                default -> Meaning.of("sll.other");
            };
        }

        // ------------------------------------------------------------------ IP and UDP

        void ip(int at) {
            if (at >= bytes.length) {
                fail("no IP header", at, bytes.length);
                return;
            }
            int version = u8(at) >>> 4;
            if (version == 4) {
                ipv4(at);
            } else if (version == 6) {
                ipv6(at);
            } else {
                fail("IP version " + version + " is neither 4 nor 6", at, bytes.length);
            }
        }

        void ipv4(int at) {
            int ihl = (u8(at) & 0xF) * 4;
            if (ihl < Ipv4Header.LENGTH || at + ihl > bytes.length) {
                fail("IPv4 header of " + ihl + " bytes does not fit", at, bytes.length);
                return;
            }
            List<Field> fields = new ArrayList<>();
            fields.add(new Field("Version", at, 1, 0xF0, "4", null, Check.NONE));
            fields.add(new Field("Header Length", at, 1, 0x0F, ihl + " bytes (" + (ihl / 4) + ")",
                    Meaning.of("ip.hl"), Check.NONE));
            int tos = u8(at + 1);
            Meaning masked = rebuilt ? Meaning.of("rebuilt.masked") : Meaning.of("icrc.masked");
            fields.add(new Field("Differentiated Services Codepoint", at + 1, 1, 0xFC, Integer.toString(tos >>> 2),
                    masked, Check.NONE));
            fields.add(new Field("Explicit Congestion Notification", at + 1, 1, 0x03, Integer.toString(tos & 3),
                    rebuilt ? Meaning.of("rebuilt.masked") : ecn(tos & 3), Check.NONE));
            int total = u16(at + 2);
            fields.add(new Field("Total Length", at + 2, 2, 0, Integer.toString(total), Meaning.of("ip.len"),
                    Check.NONE));
            int id = u16(at + 4);
            fields.add(new Field("Identification", at + 4, 2, 0, String.format("0x%04x (%d)", id, id),
                    rebuilt ? Meaning.of(recoveredId != 0 ? "ip.id.recovered" : "ip.id.zero")
                            : Meaning.of("ip.id"), Check.NONE));
            int flags = u16(at + 6);
            fields.add(new Field("Flags", at + 6, 2, 0xE000, String.format("0x%x", flags >>> 13),
                    Meaning.of((flags & 0x4000) != 0 ? "ip.df" : (flags & 0x2000) != 0 ? "ip.mf" : "ip.noFlags"),
                    Check.NONE));
            fields.add(new Field("Fragment Offset", at + 6, 2, 0x1FFF, Integer.toString(flags & 0x1FFF), null,
                    Check.NONE));
            fields.add(new Field("Time to Live", at + 8, 1, 0, Integer.toString(u8(at + 8)), masked, Check.NONE));
            int protocol = u8(at + 9);
            fields.add(new Field("Protocol", at + 9, 1, 0, protocol + (protocol == 17 ? " (UDP)" : ""),
                    protocol == 17 ? null : Meaning.of("ip.notUdp"), protocol == 17 ? Check.NONE : Check.BAD));
            int checksum = u16(at + 10);
            Check checksumCheck = Check.NONE;
            Meaning checksumMeaning = masked;
            if (!rebuilt) {
                boolean good = Ipv4Header.checksum(bytes, at, ihl) == 0;
                checksumCheck = good ? Check.GOOD : Check.BAD;
                checksumMeaning = Meaning.of(good ? "ip.checksum.good" : "ip.checksum.bad");
            }
            fields.add(new Field("Header Checksum", at + 10, 2, 0, String.format("0x%04x", checksum), checksumMeaning,
                    checksumCheck));
            String source = address(at + 12, 4);
            String destination = address(at + 16, 4);
            fields.add(new Field("Source Address", at + 12, 4, 0, source, null, Check.NONE));
            fields.add(new Field("Destination Address", at + 16, 4, 0, destination, null, Check.NONE));
            if (ihl > Ipv4Header.LENGTH) {
                fields.add(new Field("Options", at + 20, ihl - 20, 0, (ihl - 20) + " bytes", null, Check.NONE));
            }
            Check check = fields.stream().anyMatch(field -> field.check() == Check.BAD) ? Check.BAD : Check.NONE;
            headers.add(new Header(Layer.IPV4, "Internet Protocol Version 4", at, ihl,
                    rebuilt ? Meaning.of("rebuilt.ip", source, destination) : Meaning.of("ip", source, destination),
                    check, fields));
            if (protocol != 17) {
                fail("IP protocol " + protocol + " is not UDP", at + ihl, bytes.length);
                return;
            }
            // A capture may hold Ethernet padding after the IP packet: the IP length says where it ends.
            int end = Math.min(bytes.length, Math.max(at + ihl, at + total));
            udp(at + ihl, end, at, ihl);
        }

        Meaning ecn(int ecn) {
            return switch (ecn) {
                case 0 -> Meaning.of("ecn.notEct");
                case 3 -> Meaning.of("ecn.ce");
                default -> Meaning.of("ecn.ect", ecn == 2 ? "ECT(0)" : "ECT(1)");
            };
        }

        void ipv6(int at) {
            if (at + 40 > bytes.length) {
                fail("IPv6 header cut short", at, bytes.length);
                return;
            }
            List<Field> fields = new ArrayList<>();
            long first = u32(at);
            fields.add(new Field("Version", at, 4, 0xF0000000L, "6", null, Check.NONE));
            int trafficClass = (int) (first >>> 20 & 0xFF);
            fields.add(new Field("Traffic Class", at, 4, 0x0FF00000L, String.format("0x%02x", trafficClass),
                    Meaning.of("ip6.tc", trafficClass >>> 2, trafficClass & 3), Check.NONE));
            fields.add(new Field("Flow Label", at, 4, 0x000FFFFFL, String.format("0x%05x", first & 0xFFFFF),
                    Meaning.of("ip6.flow"), Check.NONE));
            int payloadLength = u16(at + 4);
            fields.add(new Field("Payload Length", at + 4, 2, 0, Integer.toString(payloadLength), null, Check.NONE));
            int next = u8(at + 6);
            fields.add(new Field("Next Header", at + 6, 1, 0, next + (next == 17 ? " (UDP)" : ""),
                    next == 17 ? null : Meaning.of("ip.notUdp"), next == 17 ? Check.NONE : Check.BAD));
            fields.add(new Field("Hop Limit", at + 7, 1, 0, Integer.toString(u8(at + 7)), Meaning.of("icrc.masked"),
                    Check.NONE));
            String source = address(at + 8, 16);
            String destination = address(at + 24, 16);
            fields.add(new Field("Source Address", at + 8, 16, 0, source, null, Check.NONE));
            fields.add(new Field("Destination Address", at + 24, 16, 0, destination, null, Check.NONE));
            headers.add(new Header(Layer.IPV6, "Internet Protocol Version 6", at, 40,
                    Meaning.of("ip", source, destination), next == 17 ? Check.NONE : Check.BAD, fields));
            if (next != 17) {
                fail("IPv6 next header " + next + " is not UDP", at + 40, bytes.length);
                return;
            }
            int end = Math.min(bytes.length, at + 40 + payloadLength);
            udp(at + 40, end, at, 40);
        }

        String address(int at, int length) {
            byte[] raw = new byte[length];
            System.arraycopy(bytes, at, raw, 0, length);
            try {
                return InetAddress.getByAddress(raw).getHostAddress();
            } catch (UnknownHostException e) {
                return hex(at, length, ":"); // cannot happen for 4 or 16 bytes
            }
        }

        void udp(int at, int end, int ipAt, int ipLength) {
            if (at + UDP_HEADER > end) {
                fail("UDP header cut short", at, bytes.length);
                return;
            }
            List<Field> fields = new ArrayList<>();
            int sourcePort = u16(at);
            int destinationPort = u16(at + 2);
            int length = u16(at + 4);
            int checksum = u16(at + 6);
            fields.add(new Field("Source Port", at, 2, 0, Integer.toString(sourcePort), Meaning.of("udp.srcport"),
                    Check.NONE));
            fields.add(new Field("Destination Port", at + 2, 2, 0, Integer.toString(destinationPort),
                    Meaning.of(destinationPort == UdpPorts.ROCE_V2 ? "udp.roce" : "udp.otherPort"), Check.NONE));
            fields.add(new Field("Length", at + 4, 2, 0, Integer.toString(length), Meaning.of("udp.len"), Check.NONE));
            fields.add(new Field("Checksum", at + 6, 2, 0, String.format("0x%04x", checksum),
                    Meaning.of(rebuilt ? "rebuilt.masked" : checksum == 0 ? "udp.checksum.none" : "udp.checksum"),
                    Check.NONE));
            boolean lengthBad = length < UDP_HEADER;
            headers.add(new Header(Layer.UDP, "User Datagram Protocol", at, UDP_HEADER,
                    rebuilt ? Meaning.of("rebuilt.udp", sourcePort, destinationPort)
                            : Meaning.of("udp", sourcePort, destinationPort),
                    lengthBad ? Check.BAD : Check.NONE, fields));
            int payloadAt = at + UDP_HEADER;
            int declared = lengthBad ? 0 : length - UDP_HEADER;
            int present = Math.min(declared, bytes.length - payloadAt);
            roce(payloadAt, present, declared, new int[] {ipAt, ipLength, at});
            int after = payloadAt + Math.max(present, 0);
            data("Trailer", after, bytes.length, Meaning.of("trailer"), Check.NONE);
        }

        // ------------------------------------------------------------------ RoCE

        /**
         * The RoCE bytes at {@code at}: {@code present} of the {@code declared} the UDP header
         * says. {@code ip} is {IP header offset, its length, UDP header offset}, or null when the
         * packet has no IP header.
         */
        void roce(int at, int present, int declared, int[] ip) {
            boolean cut = present < declared;
            if (present < Bth.LENGTH) {
                fail("packet too short: " + declared + " bytes, a BTH and an ICRC need 16", at, at + present);
                return;
            }
            int end = at + present;
            int icrcAt = cut ? -1 : end - Icrc.LENGTH;
            Opcode opcode = Opcode.of(u8(at));
            bth(at, opcode);
            int next = at + Bth.LENGTH;
            int limit = icrcAt >= 0 ? icrcAt : end;
            if (!cut && present < Bth.LENGTH + Icrc.LENGTH) {
                fail("packet too short: " + present + " bytes, a BTH and an ICRC need 16", next, end);
                return;
            }
            if (!opcode.isKnown()) {
                fail(String.format("unknown opcode 0x%02x", opcode.value()), next, limit);
                icrc(icrcAt, at, ip);
                return;
            }
            int transportVersion = u8(at + 1) & 0xF;
            if (transportVersion != 0 && problem == null) {
                problem = opcode.name() + ": unsupported transport header version " + transportVersion;
            }
            if (opcode.hasDeth()) {
                next = extension(next, limit, Deth.LENGTH, opcode, this::deth);
            }
            if (next >= 0 && opcode.hasReth()) {
                next = extension(next, limit, Reth.LENGTH, opcode, this::reth);
            }
            if (next >= 0 && opcode.hasAeth()) {
                next = extension(next, limit, Aeth.LENGTH, opcode, this::aeth);
            }
            if (next >= 0 && opcode.hasAtomicEth()) {
                next = extension(next, limit, AtomicEth.LENGTH, opcode, from -> atomicEth(from, opcode));
            }
            if (next >= 0 && opcode.hasAtomicAckEth()) {
                next = extension(next, limit, AtomicAckEth.LENGTH, opcode, this::atomicAckEth);
            }
            if (next >= 0 && opcode.hasImmDt()) {
                next = extension(next, limit, ImmDt.LENGTH, opcode, this::immDt);
            }
            if (next < 0) {
                icrc(icrcAt, at, ip);
                return;
            }
            int afterHeaders = limit - next;
            int pad = u8(at + 1) >>> 4 & 3;
            if (!opcode.hasPayload() && afterHeaders > 0) {
                fail(opcode.name() + " carries no payload but " + afterHeaders + " bytes follow its headers", next,
                        limit);
            } else if (!cut && pad > afterHeaders) {
                fail(opcode.name() + ": pad count " + pad + " exceeds the " + afterHeaders
                        + " bytes after the headers", next, limit);
            } else if (opcode.hasPayload()) {
                int payload = cut ? afterHeaders : afterHeaders - pad;
                payload(next, payload, opcode, cut ? declared - (next - at) - Icrc.LENGTH - pad : payload);
                if (!cut && pad > 0) {
                    headers.add(new Header(Layer.PAD, "Pad", next + payload, pad, null, Check.NONE,
                            List.of(new Field("Pad Bytes", next + payload, pad, 0, pad + " bytes",
                                    Meaning.of("pad", pad), Check.NONE))));
                }
            }
            if (cut) {
                if (problem == null) {
                    problem = "the capture holds " + present + " of the " + declared + " bytes; no ICRC to check";
                }
                return;
            }
            icrc(icrcAt, at, ip);
        }

        interface HeaderAt {
            void read(int at);
        }

        /** A {@code length}-byte extension header at {@code at}, or a malformed rest when it does not fit. */
        int extension(int at, int limit, int length, Opcode opcode, HeaderAt reader) {
            if (at + length > limit) {
                fail(opcode.name() + " too short: its headers need " + length + " more bytes than the "
                        + (limit - at) + " before the ICRC", at, limit);
                return -1;
            }
            reader.read(at);
            return at + length;
        }

        void bth(int at, Opcode opcode) {
            List<Field> fields = new ArrayList<>();
            fields.add(new Field("Opcode", at, 1, 0, opcode.name() + String.format(" (0x%02x)", opcode.value()),
                    opcodeMeaning(opcode), opcode.isKnown() ? Check.NONE : Check.BAD));
            int flags = u8(at + 1);
            boolean se = (flags & 0x80) != 0;
            fields.add(new Field("Solicited Event", at + 1, 1, 0x80, se ? "1" : "0",
                    Meaning.of(se ? "bth.se.set" : "bth.se.clear"), Check.NONE));
            boolean mig = (flags & 0x40) != 0;
            fields.add(new Field("MigReq", at + 1, 1, 0x40, mig ? "1" : "0",
                    Meaning.of(mig ? "bth.mig.set" : "bth.mig.clear"), Check.NONE));
            int pad = flags >>> 4 & 3;
            fields.add(new Field("Pad Count", at + 1, 1, 0x30, Integer.toString(pad), Meaning.of("bth.pad", pad),
                    Check.NONE));
            int tver = flags & 0xF;
            fields.add(new Field("Header Version", at + 1, 1, 0x0F, Integer.toString(tver),
                    Meaning.of(tver == 0 ? "bth.tver" : "bth.tver.bad"), tver == 0 ? Check.NONE : Check.BAD));
            int pkey = u16(at + 2);
            fields.add(new Field("Partition Key", at + 2, 2, 0, String.format("0x%04x", pkey),
                    pkey == Bth.DEFAULT_PKEY ? Meaning.of("bth.pkey.default")
                            : Meaning.of((pkey & 0x8000) != 0 ? "bth.pkey.full" : "bth.pkey.limited",
                                    String.format("0x%04x", pkey & 0x7FFF)), Check.NONE));
            int resv8a = u8(at + 4);
            boolean fecn = (resv8a & Bth.FECN) != 0;
            boolean becn = (resv8a & Bth.BECN) != 0;
            fields.add(new Field("FECN", at + 4, 1, Bth.FECN, fecn ? "1" : "0",
                    Meaning.of(fecn ? "bth.fecn.set" : "bth.fecn.clear"), Check.NONE));
            fields.add(new Field("BECN", at + 4, 1, Bth.BECN, becn ? "1" : "0",
                    Meaning.of(becn ? "bth.becn.set" : "bth.becn.clear"), Check.NONE));
            fields.add(new Field("Reserved", at + 4, 1, 0x3F, Integer.toString(resv8a & 0x3F), Meaning.of("icrc.masked"),
                    Check.NONE));
            int qp = u24(at + 5);
            fields.add(new Field("Destination Queue Pair", at + 5, 3, 0, String.format("0x%06x (%d)", qp, qp),
                    Meaning.of(qp == 1 ? "bth.qp1" : "bth.destqp"), Check.NONE));
            boolean ackReq = (u8(at + 8) & 0x80) != 0;
            fields.add(new Field("Acknowledge Request", at + 8, 1, 0x80, ackReq ? "1" : "0",
                    Meaning.of(!opcode.isRequest() ? "bth.ackreq.response" : ackReq ? "bth.ackreq.set"
                            : "bth.ackreq.clear"), Check.NONE));
            fields.add(new Field("Reserved", at + 8, 1, 0x7F, Integer.toString(u8(at + 8) & 0x7F), null, Check.NONE));
            int psn = u24(at + 9);
            String psnKey = opcode.isAcknowledge() ? "bth.psn.ack" : opcode.isReadResponse() ? "bth.psn.readResponse"
                    : opcode.isRequest() ? "bth.psn.request" : "bth.psn";
            fields.add(new Field("Packet Sequence Number", at + 9, 3, 0, Integer.toString(psn), Meaning.of(psnKey),
                    Check.NONE));
            Check check = fields.stream().anyMatch(field -> field.check() == Check.BAD) ? Check.BAD : Check.NONE;
            headers.add(new Header(Layer.BTH, "Base Transport Header", at, Bth.LENGTH,
                    Meaning.of("bth", opcode.name(), String.format("0x%06x", qp), psn), check, fields));
        }

        Meaning opcodeMeaning(Opcode opcode) {
            if (!opcode.isKnown()) {
                return Meaning.of("opcode.unknown");
            }
            List<String> follow = new ArrayList<>();
            if (opcode.hasDeth()) {
                follow.add("DETH");
            }
            if (opcode.hasReth()) {
                follow.add("RETH");
            }
            if (opcode.hasAeth()) {
                follow.add("AETH");
            }
            if (opcode.hasAtomicEth()) {
                follow.add("AtomicETH");
            }
            if (opcode.hasAtomicAckEth()) {
                follow.add("AtomicAckETH");
            }
            if (opcode.hasImmDt()) {
                follow.add("ImmDt");
            }
            if (opcode.isCnp()) {
                return Meaning.of("opcode.cnp");
            }
            if (opcode.hasPayload()) {
                follow.add("payload");
            }
            String transport = opcode.isRc() ? "opcode.rc" : opcode.isUc() ? "opcode.uc" : "opcode.ud";
            return Meaning.of(transport, String.join(", ", follow));
        }

        void deth(int at) {
            long qkey = u32(at);
            int srcQp = u24(at + 5);
            headers.add(new Header(Layer.DETH, "Datagram Extended Transport Header", at, Deth.LENGTH, null, Check.NONE,
                    List.of(new Field("Queue Key", at, 4, 0, String.format("0x%08x", qkey), Meaning.of("deth.qkey"),
                                    Check.NONE),
                            new Field("Reserved", at + 4, 1, 0, Integer.toString(u8(at + 4)), null, Check.NONE),
                            new Field("Source Queue Pair", at + 5, 3, 0, String.format("0x%06x (%d)", srcQp, srcQp),
                                    Meaning.of("deth.srcqp"), Check.NONE))));
        }

        void reth(int at) {
            long va = u64(at);
            long rkey = u32(at + 8);
            long length = u32(at + 12);
            headers.add(new Header(Layer.RETH, "RDMA Extended Transport Header", at, Reth.LENGTH,
                    Meaning.of("reth", String.format("0x%016x", va), String.format("0x%08x", rkey), length),
                    Check.NONE,
                    List.of(new Field("Virtual Address", at, 8, 0, String.format("0x%016x", va), Meaning.of("reth.va"),
                                    Check.NONE),
                            new Field("Remote Key", at + 8, 4, 0, String.format("0x%08x", rkey),
                                    Meaning.of("reth.rkey"), Check.NONE),
                            new Field("DMA Length", at + 12, 4, 0, Long.toString(length),
                                    Meaning.of("reth.dmalen"), Check.NONE))));
        }

        void aeth(int at) {
            int syndrome = u8(at);
            int code = syndrome & 0x1F;
            int msn = u24(at + 1);
            Meaning verdict;
            String codeName;
            Meaning codeMeaning;
            Check check = Check.NONE;
            switch (syndrome & 0x60) {
                case 0x00 -> {
                    verdict = Meaning.of(code == 0x1F ? "aeth.ack.noCredits" : "aeth.ack", code);
                    codeName = "Credit Count";
                    codeMeaning = Meaning.of(code == 0x1F ? "aeth.credits.invalid" : "aeth.credits", code);
                }
                case 0x20 -> {
                    String millis = millis(rnrTimerMicros(code));
                    verdict = Meaning.of("aeth.rnr", code, millis);
                    codeName = "RNR Timer";
                    codeMeaning = Meaning.of("aeth.rnrTimer", millis);
                }
                case 0x60 -> {
                    String key = switch (code) {
                        case Aeth.NAK_PSN_SEQUENCE_ERROR -> "aeth.nak.psnSequenceError";
                        case Aeth.NAK_INVALID_REQUEST -> "aeth.nak.invalidRequest";
                        case Aeth.NAK_REMOTE_ACCESS_ERROR -> "aeth.nak.remoteAccessError";
                        case Aeth.NAK_REMOTE_OPERATIONAL_ERROR -> "aeth.nak.remoteOperationalError";
                        default -> "aeth.nak.reserved";
                    };
                    verdict = Meaning.of(key, code);
                    codeName = "NAK Code";
                    codeMeaning = Meaning.of("aeth.nakCode", code, Aeth.nakName(code));
                    if (code > Aeth.NAK_REMOTE_OPERATIONAL_ERROR) {
                        check = Check.BAD;
                    }
                }
                default -> {
                    verdict = Meaning.of("aeth.reserved");
                    codeName = "Reserved";
                    codeMeaning = null;
                    check = Check.BAD;
                }
            }
            headers.add(new Header(Layer.AETH, "ACK Extended Transport Header", at, Aeth.LENGTH, verdict, check,
                    List.of(new Field("Syndrome", at, 1, 0, String.format("0x%02x", syndrome), verdict, check),
                            new Field("Reserved", at, 1, 0x80, Integer.toString(syndrome >>> 7), null, Check.NONE),
                            new Field("Syndrome Type", at, 1, 0x60, Integer.toString(syndrome >>> 5 & 3),
                                    Meaning.of("aeth.type." + (syndrome >>> 5 & 3)), check),
                            new Field(codeName, at, 1, 0x1F, Integer.toString(code), codeMeaning, check),
                            new Field("Message Sequence Number", at + 1, 3, 0, Integer.toString(msn),
                                    Meaning.of("aeth.msn", msn), Check.NONE))));
        }

        void atomicEth(int at, Opcode opcode) {
            long va = u64(at);
            long rkey = u32(at + 8);
            long swap = u64(at + 12);
            long compare = u64(at + 20);
            boolean add = opcode.value() == Opcode.RC_FETCH_ADD.value();
            headers.add(new Header(Layer.ATOMIC_ETH, "Atomic Extended Transport Header", at, AtomicEth.LENGTH,
                    Meaning.of(add ? "atomic.add" : "atomic.swap", String.format("0x%016x", va)), Check.NONE,
                    List.of(new Field("Virtual Address", at, 8, 0, String.format("0x%016x", va),
                                    Meaning.of("atomic.va"), Check.NONE),
                            new Field("Remote Key", at + 8, 4, 0, String.format("0x%08x", rkey),
                                    Meaning.of("reth.rkey"), Check.NONE),
                            new Field("Swap (Or Add) Data", at + 12, 8, 0, String.format("0x%016x", swap),
                                    Meaning.of(add ? "atomic.addData" : "atomic.swapData"), Check.NONE),
                            new Field("Compare Data", at + 20, 8, 0, String.format("0x%016x", compare),
                                    Meaning.of(add ? "atomic.compareIgnored" : "atomic.compareData"), Check.NONE))));
        }

        void atomicAckEth(int at) {
            long original = u64(at);
            headers.add(new Header(Layer.ATOMIC_ACK_ETH, "Atomic ACK Extended Transport Header", at,
                    AtomicAckEth.LENGTH, null, Check.NONE,
                    List.of(new Field("Original Remote Data", at, 8, 0, String.format("0x%016x", original),
                            Meaning.of("atomicAck.original"), Check.NONE))));
        }

        void immDt(int at) {
            long imm = u32(at);
            headers.add(new Header(Layer.IMM_DT, "Immediate Data Extended Transport Header", at, ImmDt.LENGTH, null,
                    Check.NONE, List.of(new Field("Immediate Data", at, 4, 0, String.format("0x%08x", imm),
                            Meaning.of("immdt"), Check.NONE))));
        }

        void payload(int at, int length, Opcode opcode, int declared) {
            if (length <= 0) {
                return;
            }
            String preview = hex(at, Math.min(length, 8), " ") + (length > 8 ? " …" : "");
            Meaning meaning = opcode.isCnp() ? Meaning.of("cnp.reserved")
                    : length < declared ? Meaning.of("payload.cut", length, declared) : Meaning.of("payload", length);
            headers.add(new Header(Layer.PAYLOAD, opcode.isCnp() ? "Reserved" : "Payload", at, length, meaning,
                    Check.NONE, List.of(new Field("Data", at, length, 0, preview, meaning, Check.NONE))));
        }

        void icrc(int at, int roceAt, int[] ip) {
            if (at < 0) {
                return;
            }
            int onWire = Icrc.read(bytes, at);
            String value = String.format("0x%08x", onWire);
            Check check;
            Meaning meaning;
            if (ip == null) {
                check = Check.UNKNOWN;
                meaning = Meaning.of("icrc.unknown");
            } else {
                int computed = Icrc.compute(bytes, ip[0], ip[1], bytes, ip[2], bytes, roceAt, at - roceAt);
                String computedText = String.format("0x%08x", computed);
                check = computed == onWire ? Check.GOOD : Check.BAD;
                meaning = Meaning.of(check == Check.GOOD ? "icrc.good" : "icrc.bad", computedText);
                if (check == Check.BAD && problem == null) {
                    problem = "ICRC " + value + " does not match the computed " + computedText;
                }
            }
            headers.add(new Header(Layer.ICRC, "Invariant CRC", at, Icrc.LENGTH, meaning, check,
                    List.of(new Field("ICRC", at, Icrc.LENGTH, 0, value, meaning, check))));
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
