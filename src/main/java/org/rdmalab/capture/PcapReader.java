package org.rdmalab.capture;

import java.io.BufferedInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.rdmalab.wire.UdpPorts;

/**
 * Reads a classic pcap file and yields the UDP datagrams sent to the RoCEv2 port 4791, each with
 * the IP and UDP headers it travelled with, so the ICRC can be checked against the real header of
 * captures taken from NICs (not only the canonical header of the software device).
 *
 * <p>Understood: classic pcap in both byte orders with microsecond ({@code a1b2c3d4}) or nanosecond
 * ({@code a1b23c4d}) timestamps, and pcapng (what dumpcap and Wireshark write: section header,
 * interface description with {@code if_tsresol}, enhanced and simple packet blocks, several
 * sections and interfaces); link types Ethernet (1, with 802.1Q / 802.1ad VLAN tags), raw IP (101,
 * 228 IPv4, 229 IPv6), Linux cooked capture SLL (113) and SLL2 (276); IPv4 (unfragmented) and IPv6
 * without extension headers. Other frames are skipped and counted.
 *
 * <p>Errors are {@link IOException}s whose message is one sentence naming the file. Not
 * thread-safe: one reader per thread.
 */
public final class PcapReader implements AutoCloseable {

    private static final int LINKTYPE_ETHERNET = 1;
    private static final int LINKTYPE_RAW = 101;
    private static final int LINKTYPE_LINUX_SLL = 113;
    private static final int LINKTYPE_IPV4 = 228;
    private static final int LINKTYPE_IPV6 = 229;
    private static final int LINKTYPE_LINUX_SLL2 = 276;
    private static final int MAX_RECORD = 64 << 20;

    private static final int PCAPNG_SECTION = 0x0A0D0D0A;
    private static final int PCAPNG_INTERFACE = 1;
    private static final int PCAPNG_SIMPLE_PACKET = 3;
    private static final int PCAPNG_ENHANCED_PACKET = 6;
    private static final int PCAPNG_BYTE_ORDER_MAGIC = 0x1A2B3C4D;

    private final InputStream in;
    private final Path path;
    private final boolean pcapng;
    private ByteOrder order;
    private final boolean nanoseconds;
    private final int linkType;
    private final ByteBuffer recordHeader = ByteBuffer.allocate(16);
    /** The UDP destination port whose datagrams are RoCE v2: 4791 unless a capture used another. */
    private int udpPort = UdpPorts.ROCE_V2;
    /** pcapng: the current section's interfaces, each {linkType, snapLength, tsresol byte}. */
    private final List<int[]> interfaces = new ArrayList<>();
    private long frameNumber;
    private long skipped;

    /**
     * One UDP datagram to port 4791 as captured.
     *
     * @param frameNumber 1-based position of the frame in the file, as Wireshark numbers frames
     * @param timestampNanos capture time in nanoseconds since the epoch
     * @param frame the captured bytes of the whole frame
     * @param ipOffset where the IP header starts in {@code frame}
     * @param ipHeaderLength IP header bytes (IPv4 with options, or 40 for IPv6)
     * @param udpOffset where the UDP header starts
     * @param payloadOffset where the UDP payload (the BTH) starts
     * @param payloadLength UDP payload bytes as the UDP header states them
     * @param capturedPayloadLength UDP payload bytes present in the file (less when the frame was
     *     cut at the snap length)
     */
    public record Datagram(long frameNumber, long timestampNanos, byte[] frame, int ipOffset, int ipHeaderLength,
                           int udpOffset, int payloadOffset, int payloadLength, int capturedPayloadLength) {

        /** IPv6 rather than IPv4. */
        public boolean isIpv6() {
            return (frame[ipOffset] & 0xF0) == 0x60;
        }

        /** The whole payload is in the file. */
        public boolean complete() {
            return capturedPayloadLength == payloadLength;
        }

        /** "10.0.0.1:49152" or "[fe80::1]:49152". */
        public String source() {
            return endpoint(isIpv6() ? ipOffset + 8 : ipOffset + 12, udpOffset);
        }

        /** "10.0.0.2:4791" or "[fe80::2]:4791". */
        public String destination() {
            return endpoint(isIpv6() ? ipOffset + 24 : ipOffset + 16, udpOffset + 2);
        }

        private String endpoint(int addressOffset, int portOffset) {
            int port = (frame[portOffset] & 0xFF) << 8 | (frame[portOffset + 1] & 0xFF);
            if (!isIpv6()) {
                return (frame[addressOffset] & 0xFF) + "." + (frame[addressOffset + 1] & 0xFF) + "."
                        + (frame[addressOffset + 2] & 0xFF) + "." + (frame[addressOffset + 3] & 0xFF) + ":" + port;
            }
            StringBuilder text = new StringBuilder("[");
            for (int i = 0; i < 16; i += 2) {
                if (i > 0) {
                    text.append(':');
                }
                text.append(Integer.toHexString((frame[addressOffset + i] & 0xFF) << 8
                        | (frame[addressOffset + i + 1] & 0xFF)));
            }
            return text.append("]:").append(port).toString();
        }
    }

    private PcapReader(InputStream in, Path path, boolean pcapng, ByteOrder order, boolean nanoseconds,
                       int linkType) {
        this.in = in;
        this.path = path;
        this.pcapng = pcapng;
        this.order = order;
        this.nanoseconds = nanoseconds;
        this.linkType = linkType;
        recordHeader.order(order);
    }

    /** Opens {@code path} and checks its file header. */
    public static PcapReader open(Path path) throws IOException {
        if (Files.isDirectory(path)) {
            throw new IOException(path + " is a directory, not a pcap file");
        }
        InputStream in;
        try {
            in = new BufferedInputStream(Files.newInputStream(path), 1 << 16);
        } catch (NoSuchFileException e) {
            throw new IOException("no such file: " + path, e);
        } catch (AccessDeniedException e) {
            throw new IOException("cannot read " + path + ": permission denied", e);
        }
        try {
            byte[] header = in.readNBytes(24);
            if (header.length >= 4 && ByteBuffer.wrap(header).getInt() == PCAPNG_SECTION) {
                PcapReader reader = new PcapReader(in, path, true, ByteOrder.BIG_ENDIAN, true, 0);
                reader.section(header);
                return reader;
            }
            if (header.length < 24) {
                throw new IOException(path + " is not a pcap or pcapng file: only " + header.length + " bytes");
            }
            ByteBuffer buffer = ByteBuffer.wrap(header);
            int magic = buffer.getInt();
            ByteOrder order;
            boolean nanoseconds;
            switch (magic) {
                case 0xA1B2C3D4 -> { order = ByteOrder.BIG_ENDIAN; nanoseconds = false; }
                case 0xD4C3B2A1 -> { order = ByteOrder.LITTLE_ENDIAN; nanoseconds = false; }
                case 0xA1B23C4D -> { order = ByteOrder.BIG_ENDIAN; nanoseconds = true; }
                case 0x4D3CB2A1 -> { order = ByteOrder.LITTLE_ENDIAN; nanoseconds = true; }
                default -> throw new IOException(String.format("%s is not a pcap or pcapng file (magic number 0x%08x)",
                        path, magic));
            }
            buffer.order(order);
            int linkType = buffer.getInt(20) & 0x0FFFFFFF; // upper bits may carry FCS information
            switch (linkType) {
                case LINKTYPE_ETHERNET, LINKTYPE_RAW, LINKTYPE_IPV4, LINKTYPE_IPV6, LINKTYPE_LINUX_SLL,
                        LINKTYPE_LINUX_SLL2 -> {
                }
                default -> throw new IOException(path + ": link type " + linkType + " is not supported (Ethernet,"
                        + " raw IP and Linux cooked captures are)");
            }
            return new PcapReader(in, path, false, order, nanoseconds, linkType);
        } catch (IOException e) {
            in.close();
            throw e;
        }
    }

    /**
     * Reads the datagrams to UDP port {@code port} as RoCE v2 instead of 4791's (a software device
     * set to another port, as Wireshark's "decode as"); returns this reader.
     */
    public PcapReader udpPort(int port) {
        if (port < 1 || port > 0xFFFF) {
            throw new IllegalArgumentException("UDP port " + port + " is outside 1..65535");
        }
        this.udpPort = port;
        return this;
    }

    /** The next datagram to UDP port 4791 (or the {@link #udpPort} set), or null at the end of the file. */
    public Datagram next() throws IOException {
        if (pcapng) {
            return nextPcapng();
        }
        while (true) {
            byte[] header = recordHeader.array();
            int read = in.readNBytes(header, 0, 16);
            if (read == 0) {
                return null;
            }
            long number = frameNumber + 1;
            if (read < 16) {
                throw new EOFException(path + " ends inside the header of frame " + number);
            }
            long seconds = recordHeader.getInt(0) & 0xFFFFFFFFL;
            long fraction = recordHeader.getInt(4) & 0xFFFFFFFFL;
            int captured = recordHeader.getInt(8);
            if (captured < 0 || captured > MAX_RECORD) {
                throw new IOException(path + ": frame " + number + " claims " + Integer.toUnsignedString(captured)
                        + " bytes; the file is damaged");
            }
            byte[] frame = in.readNBytes(captured);
            if (frame.length < captured) {
                throw new EOFException(path + " ends inside frame " + number + " (" + frame.length + " of "
                        + captured + " bytes)");
            }
            frameNumber = number;
            long nanos = seconds * 1_000_000_000L + (nanoseconds ? fraction : fraction * 1_000L);
            Datagram datagram = parse(linkType, number, nanos, frame);
            if (datagram != null) {
                return datagram;
            }
            skipped++;
        }
    }

    /** Frames read so far that were not RoCEv2 datagrams. */
    public long skipped() {
        return skipped;
    }

    /** Frames read so far. */
    public long frames() {
        return frameNumber;
    }

    /**
     * pcapng section header block (pcapng §4.1): {@code start} holds at least its first bytes (block
     * type, total length, byte-order magic); the byte-order magic decides the section's byte order.
     */
    private void section(byte[] start) throws IOException {
        if (start.length < 12) {
            throw new IOException(path + " is not a pcapng file: only " + start.length + " bytes");
        }
        ByteBuffer buffer = ByteBuffer.wrap(start);
        int magic = buffer.getInt(8);
        if (magic == PCAPNG_BYTE_ORDER_MAGIC) {
            order = ByteOrder.BIG_ENDIAN;
        } else if (Integer.reverseBytes(magic) == PCAPNG_BYTE_ORDER_MAGIC) {
            order = ByteOrder.LITTLE_ENDIAN;
        } else {
            throw new IOException(String.format("%s: pcapng section header has byte-order magic 0x%08x; the file is"
                    + " damaged", path, magic));
        }
        int total = buffer.order(order).getInt(4);
        checkBlockLength(total, 28);
        skip(total - start.length);
        interfaces.clear();
    }

    private Datagram nextPcapng() throws IOException {
        while (true) {
            byte[] head = in.readNBytes(8);
            if (head.length == 0) {
                return null;
            }
            if (head.length < 8) {
                throw new EOFException(path + " ends inside a pcapng block header");
            }
            ByteBuffer header = ByteBuffer.wrap(head).order(order);
            int type = header.getInt(0);
            if (type == PCAPNG_SECTION) {
                byte[] start = new byte[12];
                System.arraycopy(head, 0, start, 0, 8);
                if (in.readNBytes(start, 8, 4) < 4) {
                    throw new EOFException(path + " ends inside a pcapng section header");
                }
                section(start);
                continue;
            }
            int total = header.getInt(4);
            checkBlockLength(total, 12);
            byte[] body = in.readNBytes(total - 8);
            if (body.length < total - 8) {
                throw new EOFException(path + " ends inside a pcapng block of " + total + " bytes");
            }
            ByteBuffer block = ByteBuffer.wrap(body, 0, body.length - 4).order(order);
            switch (type) {
                case PCAPNG_INTERFACE -> interfaces.add(interfaceDescription(block));
                case PCAPNG_ENHANCED_PACKET -> {
                    int id = block.getInt();
                    long timestamp = (block.getInt() & 0xFFFFFFFFL) << 32 | (block.getInt() & 0xFFFFFFFFL);
                    int captured = block.getInt();
                    block.getInt(); // original length
                    Datagram datagram = packet(id, timestamp, block, captured);
                    if (datagram != null) {
                        return datagram;
                    }
                }
                case PCAPNG_SIMPLE_PACKET -> {
                    int original = block.getInt();
                    int captured = Math.min(original, block.remaining());
                    if (!interfaces.isEmpty() && interfaces.get(0)[1] > 0) {
                        captured = Math.min(captured, interfaces.get(0)[1]);
                    }
                    Datagram datagram = packet(0, -1, block, captured);
                    if (datagram != null) {
                        return datagram;
                    }
                }
                default -> {
                    // name resolution, statistics, custom blocks: nothing to inspect
                }
            }
        }
    }

    /** Interface description block (pcapng §4.2): link type, snap length, and the if_tsresol option. */
    private static int[] interfaceDescription(ByteBuffer block) {
        int linkType = block.getShort() & 0xFFFF;
        block.getShort(); // reserved
        int snapLength = block.getInt();
        int tsresol = 6; // microseconds unless said otherwise
        while (block.remaining() >= 4) {
            int code = block.getShort() & 0xFFFF;
            int length = block.getShort() & 0xFFFF;
            if (code == 0 || length > block.remaining()) {
                break; // opt_endofopt
            }
            if (code == 9 && length >= 1) {
                tsresol = block.get(block.position()) & 0xFF;
            }
            block.position(block.position() + ((length + 3) & ~3));
        }
        return new int[] {linkType, snapLength, tsresol};
    }

    private Datagram packet(int interfaceId, long timestamp, ByteBuffer block, int captured) throws IOException {
        long number = ++frameNumber;
        if (interfaceId < 0 || interfaceId >= interfaces.size()) {
            throw new IOException(path + ": frame " + number + " names interface " + interfaceId + ", which the"
                    + " file does not describe");
        }
        if (captured < 0 || captured > block.remaining()) {
            throw new IOException(path + ": frame " + number + " claims " + Integer.toUnsignedString(captured)
                    + " bytes in a smaller block; the file is damaged");
        }
        int[] description = interfaces.get(interfaceId);
        byte[] frame = new byte[captured];
        block.get(frame);
        long nanos = timestamp < 0 ? 0 : nanoseconds(timestamp, description[2]);
        Datagram datagram = switch (description[0]) {
            case LINKTYPE_ETHERNET, LINKTYPE_RAW, LINKTYPE_IPV4, LINKTYPE_IPV6, LINKTYPE_LINUX_SLL,
                    LINKTYPE_LINUX_SLL2 -> parse(description[0], number, nanos, frame);
            default -> null;
        };
        if (datagram == null) {
            skipped++;
        }
        return datagram;
    }

    /** A pcapng timestamp in units of if_tsresol (bit 7 clear: 10^-n s, set: 2^-n s) as nanoseconds. */
    static long nanoseconds(long timestamp, int tsresol) {
        int exponent = tsresol & 0x7F;
        BigInteger units = BigInteger.valueOf(timestamp & Long.MAX_VALUE)
                .or(timestamp < 0 ? BigInteger.ONE.shiftLeft(63) : BigInteger.ZERO);
        BigInteger perSecond = (tsresol & 0x80) == 0
                ? BigInteger.TEN.pow(exponent)
                : BigInteger.ONE.shiftLeft(exponent);
        return units.multiply(BigInteger.valueOf(1_000_000_000L)).divide(perSecond).longValue();
    }

    private void checkBlockLength(int total, int minimum) throws IOException {
        if (total < minimum || (total & 3) != 0 || total > MAX_RECORD) {
            throw new IOException(path + ": pcapng block of " + Integer.toUnsignedString(total) + " bytes after frame "
                    + frameNumber + "; the file is damaged");
        }
    }

    private void skip(long bytes) throws IOException {
        try {
            in.skipNBytes(bytes);
        } catch (EOFException e) {
            throw new EOFException(path + " ends inside a pcapng block");
        }
    }

    private Datagram parse(int linkType, long number, long nanos, byte[] frame) {
        int offset;
        int etherType;
        switch (linkType) {
            case LINKTYPE_ETHERNET -> {
                offset = 12;
                if (frame.length < 14) {
                    return null;
                }
                etherType = u16(frame, offset);
                offset += 2;
                while ((etherType == 0x8100 || etherType == 0x88A8) && frame.length >= offset + 4) {
                    etherType = u16(frame, offset + 2); // skip the VLAN tag control information
                    offset += 4;
                }
            }
            case LINKTYPE_LINUX_SLL -> {
                if (frame.length < 16) {
                    return null;
                }
                etherType = u16(frame, 14);
                offset = 16;
            }
            case LINKTYPE_LINUX_SLL2 -> {
                if (frame.length < 20) {
                    return null;
                }
                etherType = u16(frame, 0);
                offset = 20;
            }
            default -> { // raw IP: the version nibble decides
                offset = 0;
                if (frame.length < 1) {
                    return null;
                }
                etherType = (frame[0] & 0xF0) == 0x60 ? 0x86DD : 0x0800;
            }
        }
        if (etherType == 0x0800) {
            return ipv4(number, nanos, frame, offset);
        }
        if (etherType == 0x86DD) {
            return ipv6(number, nanos, frame, offset);
        }
        return null;
    }

    private Datagram ipv4(long number, long nanos, byte[] frame, int ip) {
        if (frame.length < ip + 20 || (frame[ip] & 0xF0) != 0x40) {
            return null;
        }
        int headerLength = (frame[ip] & 0x0F) * 4;
        int fragment = u16(frame, ip + 6);
        if (headerLength < 20 || (frame[ip + 9] & 0xFF) != 17 || (fragment & 0x3FFF) != 0) {
            return null; // not UDP, or a fragment
        }
        return udp(number, nanos, frame, ip, headerLength);
    }

    private Datagram ipv6(long number, long nanos, byte[] frame, int ip) {
        if (frame.length < ip + 40 || (frame[ip] & 0xF0) != 0x60 || (frame[ip + 6] & 0xFF) != 17) {
            return null;
        }
        return udp(number, nanos, frame, ip, 40);
    }

    private Datagram udp(long number, long nanos, byte[] frame, int ip, int ipHeaderLength) {
        int udp = ip + ipHeaderLength;
        if (frame.length < udp + 8 || u16(frame, udp + 2) != udpPort) {
            return null;
        }
        int payloadLength = u16(frame, udp + 4) - 8;
        if (payloadLength < 0) {
            return null;
        }
        int captured = Math.min(payloadLength, frame.length - udp - 8);
        return new Datagram(number, nanos, frame, ip, ipHeaderLength, udp, udp + 8, payloadLength, captured);
    }

    private static int u16(byte[] buf, int offset) {
        return (buf[offset] & 0xFF) << 8 | (buf[offset + 1] & 0xFF);
    }

    @Override
    public void close() throws IOException {
        in.close();
    }
}
