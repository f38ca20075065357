package org.rdmalab.softroce.capture;

import java.io.BufferedInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import org.rdmalab.softroce.wire.UdpPorts;

/**
 * Reads a classic pcap file and yields the UDP datagrams sent to the RoCEv2 port 4791, each with
 * the IP and UDP headers it travelled with, so the ICRC can be checked against the real header of
 * captures taken from NICs (not only the canonical header of the software device).
 *
 * <p>Understood: both byte orders, microsecond ({@code a1b2c3d4}) and nanosecond ({@code a1b23c4d})
 * timestamps; link types Ethernet (1, with 802.1Q / 802.1ad VLAN tags), raw IP (101, 228 IPv4, 229
 * IPv6), Linux cooked capture SLL (113) and SLL2 (276); IPv4 (unfragmented) and IPv6 without
 * extension headers. pcapng is refused with a hint to convert the file. Other frames are skipped.
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

    private final InputStream in;
    private final Path path;
    private final ByteOrder order;
    private final boolean nanoseconds;
    private final int linkType;
    private final ByteBuffer recordHeader = ByteBuffer.allocate(16);
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

    private PcapReader(InputStream in, Path path, ByteOrder order, boolean nanoseconds, int linkType) {
        this.in = in;
        this.path = path;
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
            if (header.length >= 4 && (header[0] & 0xFF) == 0x0A && (header[1] & 0xFF) == 0x0D
                    && (header[2] & 0xFF) == 0x0D && (header[3] & 0xFF) == 0x0A) {
                throw new IOException(path + " is pcapng, which is not supported; convert it with"
                        + " editcap -F pcap " + path + " out.pcap");
            }
            if (header.length < 24) {
                throw new IOException(path + " is not a pcap file: only " + header.length + " bytes");
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
                default -> throw new IOException(String.format("%s is not a pcap file (magic number 0x%08x)", path,
                        magic));
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
            return new PcapReader(in, path, order, nanoseconds, linkType);
        } catch (IOException e) {
            in.close();
            throw e;
        }
    }

    /** The next datagram to UDP port 4791, or null at the end of the file. */
    public Datagram next() throws IOException {
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
            Datagram datagram = parse(number, nanos, frame);
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

    private Datagram parse(long number, long nanos, byte[] frame) {
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

    private static Datagram ipv4(long number, long nanos, byte[] frame, int ip) {
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

    private static Datagram ipv6(long number, long nanos, byte[] frame, int ip) {
        if (frame.length < ip + 40 || (frame[ip] & 0xF0) != 0x60 || (frame[ip + 6] & 0xFF) != 17) {
            return null;
        }
        return udp(number, nanos, frame, ip, 40);
    }

    private static Datagram udp(long number, long nanos, byte[] frame, int ip, int ipHeaderLength) {
        int udp = ip + ipHeaderLength;
        if (frame.length < udp + 8 || u16(frame, udp + 2) != UdpPorts.ROCE_V2) {
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
