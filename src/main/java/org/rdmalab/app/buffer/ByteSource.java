package org.rdmalab.app.buffer;

import java.util.Arrays;
import java.util.Objects;

/**
 * The bytes a {@link HexBufferView} shows, read lazily: the view asks only for the rows on screen
 * (16 bytes each). {@link #read} runs on the JavaFX thread during layout, so it must answer from
 * memory at once (a copy of a registered buffer, a snapshot), never wait on a device or a peer.
 * An exception from it is shown in the row instead of the bytes.
 */
public interface ByteSource {

    /** The number of bytes. */
    long length();

    /**
     * Up to {@code length} bytes from {@code offset}; {@code 0 <= offset < length()} and
     * {@code offset + length <= length()}. A shorter array means the rest is unavailable.
     */
    byte[] read(long offset, int length);

    /** A source over an array (not copied: later changes show after {@link HexBufferView#refresh()}). */
    static ByteSource of(byte[] bytes) {
        Objects.requireNonNull(bytes, "bytes");
        return new ByteSource() {
            @Override
            public long length() {
                return bytes.length;
            }

            @Override
            public byte[] read(long offset, int length) {
                return Arrays.copyOfRange(bytes, (int) offset, (int) offset + length);
            }
        };
    }
}
