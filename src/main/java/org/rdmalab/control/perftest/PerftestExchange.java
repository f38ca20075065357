package org.rdmalab.control.perftest;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;
import org.rdmalab.control.ControlChannel;
import org.rdmalab.control.ControlException;
import org.rdmalab.control.ControlText;
import org.rdmalab.verbs.Mtu;

/**
 * perftest's TCP exchange (its "Ethernet" data exchange method, port {@link #PORT}), one step per
 * method, so that a real {@code ib_write_bw} or {@code ib_write_lat} can be the peer.
 *
 * <p>Every step is a swap of equal-sized blocks: the client writes its block and then reads the
 * server's; the server reads first and then writes. There are no frames or lengths; each side knows
 * what comes next from the options both were started with. The steps of a run, in order:
 *
 * <ol>
 *   <li>{@link #versions}: the version strings, 16 bytes each (refused below {@link #OLDEST_PEER});</li>
 *   <li>{@link #systemData}: cycle buffer and cache line size, two 4-byte big-endian swaps; both
 *       sides go on with the larger of each;</li>
 *   <li>{@link #mtu}: the MTU as the decimal {@code enum ibv_mtu} value, 2 bytes ({@code "3\0"} for
 *       1024); both sides use the smaller;</li>
 *   <li>{@link #handShake}: the {@link PerftestKeys}, swapped again later with the same content as a
 *       barrier (after the QP reached RTR, before and after a bandwidth report);</li>
 *   <li>{@link #bandwidthReports}: size and iterations as 8-byte big-endian integers, then peak,
 *       average and message rate as 8-byte big-endian IEEE doubles, each its own swap.</li>
 * </ol>
 *
 * <p>This side announces itself as perftest {@link #VERSION}: the exchange above is that version's,
 * and a newer perftest (6.28 and later adds a parameter negotiation) leaves out what an older peer
 * does not know.
 *
 * <p>Not thread-safe; the channel is owned by the caller, who closes it.
 */
public final class PerftestExchange {

    /** perftest's TCP port. */
    public static final int PORT = 18515;
    /** The perftest version whose exchange this is, as announced to the peer. */
    public static final String VERSION = "6.06";
    /** perftest refuses peers older than this (their reports and MTU step differ). */
    public static final double OLDEST_PEER = 5.70;
    /** Bytes of the version field ({@code MAX_VERSION}). */
    public static final int VERSION_LENGTH = 16;

    private final ControlChannel channel;
    private final boolean client;

    /**
     * An exchange over {@code channel}.
     *
     * @param client whether this side connected (it writes first in every swap)
     */
    public PerftestExchange(ControlChannel channel, boolean client) {
        this.channel = Objects.requireNonNull(channel, "channel");
        this.client = client;
    }

    /** The channel underneath. */
    public ControlChannel channel() {
        return channel;
    }

    /** Swaps {@code local} for the peer's block of the same size, in the order of this side's role. */
    public byte[] swap(byte[] local, String what) throws ControlException {
        if (client) {
            channel.write(local, what);
            return channel.read(local.length, what);
        }
        byte[] remote = channel.read(local.length, what);
        channel.write(local, what);
        return remote;
    }

    /**
     * Swaps version strings ({@code local}, NUL-padded to 16 bytes) and returns the peer's version.
     *
     * @throws ControlException when the peer's field is not a version, or is older than {@link #OLDEST_PEER}
     */
    public String versions(String local) throws ControlException {
        byte[] field = Arrays.copyOf(local.getBytes(StandardCharsets.US_ASCII), VERSION_LENGTH);
        byte[] remote = swap(field, "the perftest version");
        int end = 0;
        while (end < remote.length && remote[end] != 0) {
            end++;
        }
        String version = new String(remote, 0, end, StandardCharsets.ISO_8859_1);
        double number = leadingNumber(version);
        if (Double.isNaN(number)) {
            throw new ControlException(ControlException.Reason.PROTOCOL, "expected perftest's version string from "
                    + channel.peer() + ", got " + ControlText.quote(remote)
                    + "; is the peer perftest (ib_write_bw, ib_write_lat)?");
        }
        if (number < OLDEST_PEER) {
            throw new ControlException(ControlException.Reason.PROTOCOL, "the peer is perftest " + version
                    + ", which is older than " + String.format(java.util.Locale.ROOT, "%.2f", OLDEST_PEER)
                    + "; use perftest " + String.format(java.util.Locale.ROOT, "%.2f", OLDEST_PEER) + " or later");
        }
        return version;
    }

    /** The number a version string starts with, as C's {@code atof} reads it ("6.06" → 6.06); NaN when none. */
    static double leadingNumber(String version) {
        int end = 0;
        boolean dot = false;
        while (end < version.length()
                && (Character.isDigit(version.charAt(end)) || (version.charAt(end) == '.' && !dot))) {
            dot |= version.charAt(end) == '.';
            end++;
        }
        String digits = version.substring(0, end);
        return digits.isEmpty() || digits.equals(".") ? Double.NaN : Double.parseDouble(digits);
    }

    /** Swaps cycle buffer and cache line size; returns the larger of each: {@code {cycleBuffer, cacheLine}}. */
    public int[] systemData(int cycleBuffer, int cacheLine) throws ControlException {
        int remoteCycle = ByteBuffer.wrap(swap(ByteBuffer.allocate(4).putInt(cycleBuffer).array(),
                "the cycle buffer size")).getInt();
        int remoteLine = ByteBuffer.wrap(swap(ByteBuffer.allocate(4).putInt(cacheLine).array(),
                "the cache line size")).getInt();
        return new int[] {Math.max(cycleBuffer, remoteCycle), Math.max(cacheLine, remoteLine)};
    }

    /** Swaps MTUs; returns the smaller, or {@code local} when the peer's is not an MTU (as perftest). */
    public Mtu mtu(Mtu local) throws ControlException {
        byte[] field = Arrays.copyOf(Integer.toString(local.value()).getBytes(StandardCharsets.US_ASCII), 2);
        byte[] remote = swap(field, "the MTU");
        int value = remote[0] >= '1' && remote[0] <= '5' && (remote[1] == 0 || !Character.isDigit(remote[1]))
                ? remote[0] - '0' : 0;
        if (value == 0) {
            return local;
        }
        Mtu peer = Mtu.of(value);
        return peer.bytes() < local.bytes() ? peer : local;
    }

    /** Swaps keys in the form with or without a GID; returns the peer's. */
    public PerftestKeys handShake(PerftestKeys local, boolean withGid) throws ControlException {
        return PerftestKeys.parse(swap(local.serialize(withGid), "the LID:OUT_READS:QPN:PSN:RKEY:VADDR:GID:SRQN keys"),
                withGid);
    }

    /** Swaps bandwidth rows, field by field; returns the peer's. */
    public BandwidthReport bandwidthReports(BandwidthReport local) throws ControlException {
        long size = swapLong(local.size(), "the report's size");
        long iterations = swapLong(local.iterations(), "the report's iterations");
        double peak = Double.longBitsToDouble(swapLong(Double.doubleToRawLongBits(local.peak()), "the peak bandwidth"));
        double average = Double.longBitsToDouble(swapLong(Double.doubleToRawLongBits(local.average()),
                "the average bandwidth"));
        double rate = Double.longBitsToDouble(swapLong(Double.doubleToRawLongBits(local.messageRateMpps()),
                "the message rate"));
        return new BandwidthReport(size, iterations, peak, average, rate);
    }

    private long swapLong(long value, String what) throws ControlException {
        return ByteBuffer.wrap(swap(ByteBuffer.allocate(8).putLong(value).array(), what)).getLong();
    }
}
