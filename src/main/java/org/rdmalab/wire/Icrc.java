package org.rdmalab.wire;

import java.net.Inet4Address;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.zip.CRC32;

/**
 * The RoCEv2 invariant CRC (IBTA Vol. 1 §7.8.1 and Annex A17.4.1; rocev2.md "ICRC"): CRC-32 (the
 * Ethernet/zlib polynomial, {@link CRC32}) over
 * <ol>
 * <li>8 bytes of 0xFF standing in for the link header,</li>
 * <li>the IP header with the fields routers change masked to ones: IPv4 TOS, TTL and header
 * checksum; IPv6 traffic class, flow label and hop limit,</li>
 * <li>the UDP header with the checksum masked to 0xFFFF,</li>
 * <li>the BTH with byte 4 (FECN, BECN, reserved) masked to 0xFF,</li>
 * <li>the rest of the packet up to, not including, the ICRC.</li>
 * </ol>
 * The 32-bit value goes on the wire least significant byte first; {@link #read} and
 * {@link #write} use that order, so values compare directly with {@link #compute}.
 *
 * <p>The software device computes its ICRC over a canonical IPv4 header ({@link Ipv4Header#canonical}:
 * ID 0, DF), and its socket is set so that the kernel sends exactly that header (see the device's
 * {@code WireSocket}). A received packet's IPv4 identification is not visible to a UDP socket,
 * though, and kernel rxe sends a non-zero, changing one. {@link #recoverIpv4Id} finds it from the
 * ICRC itself: the CRC is linear, so the 16 ID bits follow from the 32-bit ICRC, and the other 16
 * bits still check the packet. Such a packet is therefore checked by a 16-bit code instead of a
 * 32-bit one: a corrupted packet passes with a chance of 1 in 65536 instead of 1 in 2<sup>32</sup>
 * (the Ethernet FCS and, where present, the UDP checksum still guard the link).
 *
 * <p>Thread-safe: each thread uses its own {@link CRC32} and scratch array; no allocation per call
 * except in the {@link Inet4Address} forms ({@link Inet4Address#getAddress()} copies).
 */
public final class Icrc {

    /** Bytes on the wire. */
    public static final int LENGTH = 4;

    private static final byte[] LINK_MASK = {-1, -1, -1, -1, -1, -1, -1, -1};
    private static final int UDP_HEADER = 8;
    private static final int IPV6_HEADER = 40;

    private static final ThreadLocal<Scratch> SCRATCH = ThreadLocal.withInitial(Scratch::new);

    private static final class Scratch {
        final CRC32 crc = new CRC32();
        final byte[] headers = new byte[60 + UDP_HEADER];
    }

    private Icrc() {
    }

    /**
     * The ICRC of a packet given its IP header (IPv4 with options, or a 40-byte IPv6 header without
     * extension headers), UDP header and the RoCE bytes from the BTH up to the ICRC.
     *
     * @throws IllegalArgumentException when the IP header is neither IPv4 nor IPv6 or its length is wrong
     */
    public static int compute(byte[] ipHeader, int ipOffset, int ipHeaderLength, byte[] udpHeader, int udpOffset,
                              byte[] roce, int roceOffset, int roceLengthWithoutIcrc) {
        Scratch scratch = SCRATCH.get();
        byte[] masked = scratch.headers;
        int version = (ipHeader[ipOffset] & 0xFF) >>> 4;
        if (version == 4) {
            if (ipHeaderLength < Ipv4Header.LENGTH || ipHeaderLength > 60) {
                throw new IllegalArgumentException("IPv4 header length " + ipHeaderLength + " is outside 20..60");
            }
            System.arraycopy(ipHeader, ipOffset, masked, 0, ipHeaderLength);
            masked[1] = (byte) 0xFF; // TOS (DSCP + ECN)
            masked[8] = (byte) 0xFF; // TTL
            masked[10] = (byte) 0xFF; // header checksum
            masked[11] = (byte) 0xFF;
        } else if (version == 6) {
            if (ipHeaderLength != IPV6_HEADER) {
                throw new IllegalArgumentException("IPv6 header length " + ipHeaderLength + " is not 40");
            }
            System.arraycopy(ipHeader, ipOffset, masked, 0, IPV6_HEADER);
            masked[0] = (byte) 0x6F; // version 6, traffic class high nibble
            masked[1] = (byte) 0xFF; // traffic class low nibble, flow label
            masked[2] = (byte) 0xFF;
            masked[3] = (byte) 0xFF;
            masked[7] = (byte) 0xFF; // hop limit
        } else {
            throw new IllegalArgumentException("IP version " + version + " is neither 4 nor 6");
        }
        System.arraycopy(udpHeader, udpOffset, masked, ipHeaderLength, UDP_HEADER);
        masked[ipHeaderLength + 6] = (byte) 0xFF; // UDP checksum
        masked[ipHeaderLength + 7] = (byte) 0xFF;
        return finish(scratch.crc, masked, ipHeaderLength + UDP_HEADER, roce, roceOffset, roceLengthWithoutIcrc);
    }

    /**
     * The ICRC over the canonical IPv4 header the software device uses ({@link Ipv4Header#canonical}:
     * identification 0, DF; TOS and TTL are masked so any value gives the same result) and a UDP
     * header with these ports.
     */
    public static int forCanonicalIpv4(Inet4Address src, Inet4Address dst, int srcPort, int dstPort, byte[] roce,
                                       int off, int lenWithoutIcrc) {
        return forCanonicalIpv4(Ipv4Header.toInt(src), Ipv4Header.toInt(dst), srcPort, dstPort, roce, off,
                lenWithoutIcrc);
    }

    /** {@link #forCanonicalIpv4(Inet4Address, Inet4Address, int, int, byte[], int, int)} with addresses as ints. */
    public static int forCanonicalIpv4(int src, int dst, int srcPort, int dstPort, byte[] roce, int off,
                                       int lenWithoutIcrc) {
        Scratch scratch = SCRATCH.get();
        int headers = maskedCanonical(scratch.headers, src, dst, srcPort, dstPort, lenWithoutIcrc + LENGTH);
        return finish(scratch.crc, scratch.headers, headers, roce, off, lenWithoutIcrc);
    }

    /**
     * Computes the canonical-IPv4 ICRC over the bytes of {@code packet} from {@code start} to its
     * position (BTH up to the pad, as {@link RocePacketEncoder} left them) and writes it there,
     * least significant byte first. Works with heap and direct buffers; no allocation.
     *
     * @return the packet length including the ICRC
     */
    public static int appendCanonicalIpv4(int src, int dst, int srcPort, int dstPort, ByteBuffer packet, int start) {
        int end = packet.position();
        int lenWithoutIcrc = end - start;
        if (lenWithoutIcrc < Bth.LENGTH) {
            throw new IllegalArgumentException("only " + lenWithoutIcrc + " bytes before the ICRC, a BTH needs 12");
        }
        Scratch scratch = SCRATCH.get();
        CRC32 crc = scratch.crc;
        int headers = maskedCanonical(scratch.headers, src, dst, srcPort, dstPort, lenWithoutIcrc + LENGTH);
        crc.reset();
        crc.update(LINK_MASK, 0, LINK_MASK.length);
        crc.update(scratch.headers, 0, headers);
        if (packet.hasArray()) {
            updateRoce(crc, packet.array(), packet.arrayOffset() + start, lenWithoutIcrc);
        } else {
            int limit = packet.limit();
            packet.limit(start + 4).position(start);
            crc.update(packet);
            crc.update(0xFF);
            packet.limit(end).position(start + 5);
            crc.update(packet);
            packet.limit(limit).position(end);
        }
        write(packet, (int) crc.getValue());
        return lenWithoutIcrc + LENGTH;
    }

    /** {@link #appendCanonicalIpv4(int, int, int, int, ByteBuffer, int)} with {@link Inet4Address}es. */
    public static int appendCanonicalIpv4(Inet4Address src, Inet4Address dst, int srcPort, int dstPort,
                                          ByteBuffer packet, int start) {
        return appendCanonicalIpv4(Ipv4Header.toInt(src), Ipv4Header.toInt(dst), srcPort, dstPort, packet, start);
    }

    /**
     * Checks the ICRC of a whole packet ({@code lengthWithIcrc} bytes from the BTH, ICRC included)
     * received from a software device, against the canonical IPv4 header.
     */
    public static boolean verifyCanonicalIpv4(int src, int dst, int srcPort, int dstPort, byte[] roce, int off,
                                              int lengthWithIcrc) {
        if (lengthWithIcrc < Bth.LENGTH + LENGTH) {
            return false;
        }
        int expected = forCanonicalIpv4(src, dst, srcPort, dstPort, roce, off, lengthWithIcrc - LENGTH);
        return expected == read(roce, off + lengthWithIcrc - LENGTH);
    }

    /**
     * The IPv4 identification a packet must have travelled with for its ICRC to match, the other
     * header fields being those of the canonical header ({@link Ipv4Header#canonical}: DF, no
     * options; TOS and TTL are masked anyway); -1 when no identification makes it match. 0 when the
     * ICRC matches the canonical header itself.
     *
     * <p>How: the ICRC is an affine function of the message, so changing the ID from 0 to {@code x}
     * changes the ICRC by {@code L(x)}, a GF(2)-linear map of the 16 ID bits that depends only on how
     * many bytes follow the ID. {@code L} is one-to-one (a CRC-32 detects every burst of 32 bits or
     * fewer), so {@code L(x) = ICRC(ID 0) xor received ICRC} has at most one solution; the other 16
     * bits of the equation are the check that remains.
     *
     * @param lengthWithIcrc bytes from the BTH to the end of the ICRC
     */
    public static int recoverIpv4Id(int src, int dst, int srcPort, int dstPort, byte[] roce, int off,
                                    int lengthWithIcrc) {
        if (lengthWithIcrc < Bth.LENGTH + LENGTH
                || Ipv4Header.LENGTH + UDP_HEADER + lengthWithIcrc > 0xFFFF) {
            return -1;
        }
        int lengthWithoutIcrc = lengthWithIcrc - LENGTH;
        int delta = forCanonicalIpv4(src, dst, srcPort, dstPort, roce, off, lengthWithoutIcrc)
                ^ read(roce, off + lengthWithoutIcrc);
        if (delta == 0) {
            return 0;
        }
        // Bytes after the ID field: the rest of the IPv4 header, the UDP header and the RoCE bytes.
        int trailing = Ipv4Header.LENGTH - 6 + UDP_HEADER + lengthWithoutIcrc;
        int[] basis = IdSolver.forTrailing(trailing);
        int id = 0;
        for (int i = 0; i < 16; i++) {
            int vector = basis[i];
            if ((delta & Integer.lowestOneBit(vector)) != 0) {
                delta ^= vector;
                id ^= basis[16 + i];
            }
        }
        return delta == 0 ? id : -1;
    }

    /**
     * For each number of bytes that follow the IPv4 ID in the ICRC's input, the change each ID bit
     * makes to the ICRC, reduced so that each vector has a pivot bit (its lowest) that no other vector
     * has set: entries 0..15 the vectors, 16..31 the ID bits each stands for. Built once per length
     * and kept; thread-safe.
     */
    private static final class IdSolver {

        private static final AtomicReferenceArray<int[]> CACHE = new AtomicReferenceArray<>(0x10000);

        static int[] forTrailing(int trailing) {
            int[] basis = CACHE.get(trailing);
            if (basis == null) {
                basis = build(trailing);
                CACHE.set(trailing, basis);
            }
            return basis;
        }

        private static int[] build(int trailing) {
            CRC32 crc = new CRC32();
            byte[] message = new byte[2 + trailing];
            crc.update(message);
            int zero = (int) crc.getValue();
            int[] basis = new int[32];
            for (int bit = 0; bit < 16; bit++) {
                // The ID is big-endian: bits 8..15 in the first byte, 0..7 in the second.
                int index = bit >= 8 ? 0 : 1;
                message[index] = (byte) (1 << (bit & 7));
                crc.reset();
                crc.update(message);
                message[index] = 0;
                // crc(a) ^ crc(b) ^ crc(c) = crc(a ^ b ^ c) for messages of one length: the linear part.
                int vector = (int) crc.getValue() ^ zero;
                int mask = 1 << bit;
                for (int j = 0; j < bit; j++) {
                    if ((vector & Integer.lowestOneBit(basis[j])) != 0) {
                        vector ^= basis[j];
                        mask ^= basis[16 + j];
                    }
                }
                if (vector == 0) {
                    throw new AssertionError("the ICRC's ID bits are dependent for " + trailing + " trailing bytes");
                }
                int pivot = Integer.lowestOneBit(vector);
                for (int j = 0; j < bit; j++) {
                    if ((basis[j] & pivot) != 0) {
                        basis[j] ^= vector;
                        basis[16 + j] ^= mask;
                    }
                }
                basis[bit] = vector;
                basis[16 + bit] = mask;
            }
            return basis;
        }
    }

    /** Checks the ICRC of a whole packet against the IP and UDP headers it really travelled with. */
    public static boolean verify(byte[] ipHeader, int ipOffset, int ipHeaderLength, byte[] udpHeader, int udpOffset,
                                 byte[] roce, int roceOffset, int lengthWithIcrc) {
        if (lengthWithIcrc < Bth.LENGTH + LENGTH) {
            return false;
        }
        int expected = compute(ipHeader, ipOffset, ipHeaderLength, udpHeader, udpOffset, roce, roceOffset,
                lengthWithIcrc - LENGTH);
        return expected == read(roce, roceOffset + lengthWithIcrc - LENGTH);
    }

    /**
     * Computes the ICRC over the given headers and the {@code lengthWithoutIcrc} RoCE bytes at
     * {@code roceOffset}, and stores it right after them, least significant byte first.
     *
     * @return the packet length including the ICRC
     */
    public static int append(byte[] ipHeader, int ipOffset, int ipHeaderLength, byte[] udpHeader, int udpOffset,
                             byte[] roce, int roceOffset, int lengthWithoutIcrc) {
        int icrc = compute(ipHeader, ipOffset, ipHeaderLength, udpHeader, udpOffset, roce, roceOffset,
                lengthWithoutIcrc);
        write(roce, roceOffset + lengthWithoutIcrc, icrc);
        return lengthWithoutIcrc + LENGTH;
    }

    /** Reads an ICRC stored least significant byte first. */
    public static int read(byte[] buf, int offset) {
        return (buf[offset] & 0xFF) | (buf[offset + 1] & 0xFF) << 8 | (buf[offset + 2] & 0xFF) << 16
                | (buf[offset + 3] & 0xFF) << 24;
    }

    /** Stores an ICRC least significant byte first. */
    public static void write(byte[] buf, int offset, int icrc) {
        buf[offset] = (byte) icrc;
        buf[offset + 1] = (byte) (icrc >>> 8);
        buf[offset + 2] = (byte) (icrc >>> 16);
        buf[offset + 3] = (byte) (icrc >>> 24);
    }

    /** Writes an ICRC at the buffer's position, least significant byte first, and advances it. */
    public static void write(ByteBuffer out, int icrc) {
        out.put((byte) icrc);
        out.put((byte) (icrc >>> 8));
        out.put((byte) (icrc >>> 16));
        out.put((byte) (icrc >>> 24));
    }

    /** Fills {@code masked} with the masked canonical IPv4 and UDP headers; returns their length (28). */
    private static int maskedCanonical(byte[] masked, int src, int dst, int srcPort, int dstPort, int udpPayload) {
        int totalLength = Ipv4Header.LENGTH + UDP_HEADER + udpPayload;
        if (totalLength > 0xFFFF) {
            throw new IllegalArgumentException("an IPv4 packet of " + totalLength + " bytes exceeds 65535");
        }
        masked[0] = 0x45;
        masked[1] = (byte) 0xFF; // TOS, masked
        masked[2] = (byte) (totalLength >>> 8);
        masked[3] = (byte) totalLength;
        masked[4] = 0; // identification 0
        masked[5] = 0;
        masked[6] = 0x40; // DF, fragment offset 0
        masked[7] = 0;
        masked[8] = (byte) 0xFF; // TTL, masked
        masked[9] = Ipv4Header.PROTOCOL_UDP;
        masked[10] = (byte) 0xFF; // checksum, masked
        masked[11] = (byte) 0xFF;
        putInt(masked, 12, src);
        putInt(masked, 16, dst);
        masked[20] = (byte) (srcPort >>> 8);
        masked[21] = (byte) srcPort;
        masked[22] = (byte) (dstPort >>> 8);
        masked[23] = (byte) dstPort;
        int udpLength = UDP_HEADER + udpPayload;
        masked[24] = (byte) (udpLength >>> 8);
        masked[25] = (byte) udpLength;
        masked[26] = (byte) 0xFF; // UDP checksum, masked
        masked[27] = (byte) 0xFF;
        return Ipv4Header.LENGTH + UDP_HEADER;
    }

    private static int finish(CRC32 crc, byte[] headers, int headersLength, byte[] roce, int off, int len) {
        if (len < Bth.LENGTH) {
            throw new IllegalArgumentException("only " + len + " bytes before the ICRC, a BTH needs 12");
        }
        crc.reset();
        crc.update(LINK_MASK, 0, LINK_MASK.length);
        crc.update(headers, 0, headersLength);
        updateRoce(crc, roce, off, len);
        return (int) crc.getValue();
    }

    private static void updateRoce(CRC32 crc, byte[] roce, int off, int len) {
        crc.update(roce, off, 4);
        crc.update(0xFF); // BTH byte 4: FECN, BECN, reserved
        crc.update(roce, off + 5, len - 5);
    }

    private static void putInt(byte[] buf, int offset, int value) {
        buf[offset] = (byte) (value >>> 24);
        buf[offset + 1] = (byte) (value >>> 16);
        buf[offset + 2] = (byte) (value >>> 8);
        buf[offset + 3] = (byte) value;
    }
}
