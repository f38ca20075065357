package org.rdmalab.capture;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Inet4Address;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import org.rdmalab.wire.Ipv4Header;

/**
 * Writes RoCEv2 datagrams to a classic pcap file that Wireshark and tshark open: nanosecond
 * timestamps (magic {@code a1b23c4d}, written big-endian), link type 1 (Ethernet). Each datagram
 * becomes an Ethernet frame with made-up MAC addresses {@code 02:00:} + the IPv4 address, the
 * canonical IPv4 header ({@link Ipv4Header}: identification 0, DF, the same header the ICRC
 * covers, so every ICRC in the file verifies), a UDP header with checksum 0, and the payload.
 *
 * <p>Thread-safe: {@link #write} may be called from several threads; records are written whole and
 * in call order. Output is buffered and reaches the file on {@link #flush()} or {@link #close()}.
 *
 * <p>Errors: a packet tap must not fail the transport, so {@link #write} does not throw an
 * {@link IOException}. The first one is remembered instead: later writes are dropped,
 * {@link #failure()} returns it, and {@link #close()} throws it. Writes after close are ignored.
 */
public final class PcapWriter implements AutoCloseable {

    /** Nanosecond-resolution classic pcap magic. */
    public static final int MAGIC_NANOSECONDS = 0xA1B23C4D;
    /** LINKTYPE_ETHERNET. */
    public static final int LINKTYPE_ETHERNET = 1;
    /** Snap length written in the file header. */
    public static final int SNAP_LENGTH = 262144;

    private static final int ETHERNET = 14;
    private static final int UDP = 8;
    private static final int RECORD_HEADER = 16;
    private static final int MAX_UDP_PAYLOAD = 0xFFFF - Ipv4Header.LENGTH - UDP;

    private final OutputStream out;
    private final Path path;
    private final ByteBuffer scratch = ByteBuffer.allocate(RECORD_HEADER + ETHERNET + Ipv4Header.LENGTH + UDP);
    private IOException failure;
    private boolean closed;
    private long packets;

    private PcapWriter(OutputStream out, Path path) {
        this.out = out;
        this.path = path;
    }

    /** Creates (or truncates) {@code path} and writes the pcap file header. */
    public static PcapWriter open(Path path) throws IOException {
        OutputStream stream = new BufferedOutputStream(Files.newOutputStream(path), 1 << 16);
        PcapWriter writer = new PcapWriter(stream, path);
        ByteBuffer header = ByteBuffer.allocate(24);
        header.putInt(MAGIC_NANOSECONDS);
        header.putShort((short) 2).putShort((short) 4); // version 2.4
        header.putInt(0); // this zone: UTC
        header.putInt(0); // sigfigs
        header.putInt(SNAP_LENGTH);
        header.putInt(LINKTYPE_ETHERNET);
        try {
            stream.write(header.array());
        } catch (IOException e) {
            stream.close();
            throw e;
        }
        return writer;
    }

    /**
     * Appends one UDP datagram as an Ethernet/IPv4/UDP frame.
     *
     * @param epochNanos capture time, nanoseconds since 1970-01-01 UTC
     * @param tos IPv4 type of service written in the header (masked in the ICRC)
     * @param ttl IPv4 time to live written in the header (masked in the ICRC)
     * @param udpPayload the RoCEv2 packet, ICRC included; {@code len} bytes from {@code off}
     */
    public void write(long epochNanos, Inet4Address src, int srcPort, Inet4Address dst, int dstPort, int tos, int ttl,
                      byte[] udpPayload, int off, int len) {
        write(epochNanos, Ipv4Header.toInt(src), srcPort, Ipv4Header.toInt(dst), dstPort, tos, ttl, udpPayload, off,
                len);
    }

    /** {@link #write(long, Inet4Address, int, Inet4Address, int, int, int, byte[], int, int)} with int addresses. */
    public void write(long epochNanos, int srcAddress, int srcPort, int dstAddress, int dstPort, int tos, int ttl,
                      byte[] udpPayload, int off, int len) {
        write(epochNanos, srcAddress, srcPort, dstAddress, dstPort, tos, ttl, 0, udpPayload, off, len);
    }

    /** As the int-address form, with IPv4 identification {@code ipId} (a received packet's, when known). */
    public synchronized void write(long epochNanos, int srcAddress, int srcPort, int dstAddress, int dstPort, int tos,
                                   int ttl, int ipId, byte[] udpPayload, int off, int len) {
        if (closed || failure != null) {
            return;
        }
        if (len < 0 || len > MAX_UDP_PAYLOAD || off < 0 || off + len > udpPayload.length) {
            throw new IllegalArgumentException("UDP payload range " + off + "+" + len + " is invalid");
        }
        int frameLength = ETHERNET + Ipv4Header.LENGTH + UDP + len;
        ByteBuffer b = scratch;
        b.clear();
        b.putInt((int) Math.floorDiv(epochNanos, 1_000_000_000L));
        b.putInt((int) Math.floorMod(epochNanos, 1_000_000_000L));
        b.putInt(frameLength);
        b.putInt(frameLength);
        b.putShort((short) 0x0200).putInt(dstAddress); // destination MAC 02:00:a:b:c:d
        b.putShort((short) 0x0200).putInt(srcAddress); // source MAC
        b.putShort((short) 0x0800); // IPv4
        Ipv4Header.write(b, srcAddress, dstAddress, UDP + len, tos, ttl, ipId);
        b.putShort((short) srcPort);
        b.putShort((short) dstPort);
        b.putShort((short) (UDP + len));
        b.putShort((short) 0); // no UDP checksum, as RoCEv2 senders do
        try {
            out.write(b.array(), 0, b.position());
            out.write(udpPayload, off, len);
            packets++;
        } catch (IOException e) {
            failure = e;
        }
    }

    /** Pushes buffered records to the file; remembers a failure like {@link #write}. */
    public synchronized void flush() {
        if (closed || failure != null) {
            return;
        }
        try {
            out.flush();
        } catch (IOException e) {
            failure = e;
        }
    }

    /** The first write error, or null while none happened. */
    public synchronized IOException failure() {
        return failure;
    }

    /** Packets written so far. */
    public synchronized long packets() {
        return packets;
    }

    /** The file. */
    public Path path() {
        return path;
    }

    /**
     * Flushes and closes the file. Throws the first write error if one happened (the file is then
     * incomplete). Idempotent.
     */
    @Override
    public synchronized void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        try {
            out.close();
        } catch (IOException e) {
            if (failure == null) {
                failure = e;
            }
        }
        if (failure != null) {
            throw new IOException("capture " + path + " is incomplete: " + failure.getMessage(), failure);
        }
    }
}
