package org.rdmalab.wire;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import org.rdmalab.wire.Dissection.Check;
import org.rdmalab.wire.Dissection.Field;
import org.rdmalab.wire.Dissection.Header;
import org.rdmalab.wire.Dissection.Layer;
import org.rdmalab.wire.Dissection.Meaning;

/**
 * What comes before the RoCE part of a dissection: the capture's link header (Ethernet II with or
 * without an 802.1Q tag, Linux cooked capture v1 and v2), the IPv4 or IPv6 header (RFC 791, RFC
 * 8200) and the UDP header (RFC 768), whose payload {@link TransportHeaders} reads.
 */
final class FrameHeaders extends TransportHeaders {

    static final int UDP_HEADER = 8;
    private static final int ETHERTYPE_IPV4 = 0x0800;
    private static final int ETHERTYPE_IPV6 = 0x86DD;
    private static final int ETHERTYPE_VLAN = 0x8100;

    FrameHeaders(byte[] bytes, boolean rebuilt) {
        super(bytes, rebuilt);
    }

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
}
