package org.rdmalab.control.lab;

import java.nio.ByteBuffer;
import java.util.Optional;
import org.rdmalab.control.ControlChannel;
import org.rdmalab.control.ControlException;
import org.rdmalab.control.ControlText;

/**
 * The framing layer of RDMA Lab's protocol: each frame is a 4-byte big-endian payload length
 * followed by that many payload bytes. A reader refuses a length above its limit before it
 * allocates anything, so a confused or hostile peer cannot make it reserve gigabytes.
 *
 * <pre>
 * frame := length (u32, big-endian) payload[length]      length &lt;= the reader's limit
 * </pre>
 */
public final class FrameCodec {

    /** Bytes before the payload. */
    public static final int HEADER_LENGTH = 4;

    /** The default limit on a payload: 1 MiB, enough for a 1 MiB - 10 byte buffer snapshot. */
    public static final int DEFAULT_MAX_PAYLOAD = 1 << 20;

    private FrameCodec() {
    }

    /** Header and payload as one array, ready for a single write. */
    public static byte[] frame(byte[] payload) {
        return ByteBuffer.allocate(HEADER_LENGTH + payload.length).putInt(payload.length).put(payload).array();
    }

    /**
     * The payload length a header announces, checked against {@code maxPayload}.
     *
     * @param peer names the peer in the error
     * @throws ControlException {@link ControlException.Reason#PROTOCOL} when the length exceeds the limit
     */
    public static int payloadLength(byte[] header, int maxPayload, String peer) throws ControlException {
        long length = ByteBuffer.wrap(header).getInt() & 0xffff_ffffL;
        if (length > maxPayload) {
            throw new ControlException(ControlException.Reason.PROTOCOL, "peer " + peer + " announced a frame of "
                    + length + " bytes, more than the limit of " + maxPayload + " (it began "
                    + ControlText.quote(header) + "); is the peer speaking RDMA Lab's protocol (--protocol lab)?");
        }
        return (int) length;
    }

    /** Sends one frame in one write. */
    public static void write(ControlChannel channel, byte[] payload, String what) throws ControlException {
        channel.write(frame(payload), what);
    }

    /** Reads one frame and returns its payload; the length is checked before the payload is read. */
    public static byte[] read(ControlChannel channel, int maxPayload) throws ControlException {
        byte[] header = channel.read(HEADER_LENGTH, "a frame header");
        int length = payloadLength(header, maxPayload, channel.peer());
        return channel.read(length, "a " + length + "-byte frame");
    }

    /** Like {@link #read}, but a peer that closed the connection before the next frame gives an empty result. */
    public static Optional<byte[]> readIfOpen(ControlChannel channel, int maxPayload) throws ControlException {
        Optional<byte[]> header = channel.readIfOpen(HEADER_LENGTH, "a frame header");
        if (header.isEmpty()) {
            return Optional.empty();
        }
        int length = payloadLength(header.get(), maxPayload, channel.peer());
        return Optional.of(channel.read(length, "a " + length + "-byte frame"));
    }

    /**
     * Like {@link #readIfOpen}, but waits without a limit for the next frame to begin (a background
     * reader); the rest of the frame must follow within the read timeout.
     */
    public static Optional<byte[]> readNextIfOpen(ControlChannel channel, int maxPayload) throws ControlException {
        Optional<byte[]> header = channel.readNextIfOpen(HEADER_LENGTH, "a frame header");
        if (header.isEmpty()) {
            return Optional.empty();
        }
        int length = payloadLength(header.get(), maxPayload, channel.peer());
        return Optional.of(channel.read(length, "a " + length + "-byte frame"));
    }
}
