package org.rdmalab.control.lab;

import java.nio.ByteBuffer;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * What one side knows about its own setup, as named values: {@code doctor} swaps these to compare
 * two machines (GID types, subnets, MTUs) and to tell the peer what it saw during the probe. Body:
 * facts version (u8), count (u16), then count pairs of key (string) and value (string), in order.
 * Keys are lowercase words with underscores; a reader ignores keys it does not know, so a newer
 * side may add keys within the same facts version.
 *
 * @param version the facts version ({@link #VERSION} here); the layout above holds for every version
 * @param values the facts in the order they were written
 */
public record Facts(int version, Map<String, String> values) implements LabMessage {

    /** The facts version this code writes. */
    public static final int VERSION = 1;

    /** Validates the fields and keeps an ordered, unmodifiable copy of the values. */
    public Facts {
        if (version < 0 || version > 0xff) {
            throw new IllegalArgumentException("a facts version is 8 bits, not " + version);
        }
        Objects.requireNonNull(values, "values");
        if (values.size() > 0xffff) {
            throw new IllegalArgumentException(values.size() + " facts are more than the limit of 65535");
        }
        Map<String, String> copy = new LinkedHashMap<>();
        values.forEach((key, value) -> {
            Body.utf8(Objects.requireNonNull(key, "key"), "a fact's key");
            Body.utf8(Objects.requireNonNull(value, "value of " + key), "fact " + key);
            copy.put(key, value);
        });
        values = Collections.unmodifiableMap(copy);
    }

    /** Facts of this code's version. */
    public static Facts of(Map<String, String> values) {
        return new Facts(VERSION, values);
    }

    /** The value of {@code key}, or {@code fallback} when the sender did not say. */
    public String get(String key, String fallback) {
        return values.getOrDefault(key, fallback);
    }

    @Override
    public MessageType type() {
        return MessageType.FACTS;
    }

    @Override
    public int bodyLength() {
        int length = 1 + 2;
        for (Map.Entry<String, String> entry : values.entrySet()) {
            length += Body.stringLength(entry.getKey()) + Body.stringLength(entry.getValue());
        }
        return length;
    }

    @Override
    public void serializeBody(ByteBuffer buffer) {
        buffer.put((byte) version).putShort((short) values.size());
        values.forEach((key, value) -> {
            Body.putString(buffer, key);
            Body.putString(buffer, value);
        });
    }

    static Facts parseBody(ByteBuffer buffer) throws Body.Malformed {
        int version = buffer.get() & 0xff;
        int count = buffer.getShort() & 0xffff;
        Map<String, String> values = new LinkedHashMap<>();
        for (int i = 0; i < count; i++) {
            String key = Body.getString(buffer);
            String value = Body.getString(buffer);
            if (values.put(key, value) != null) {
                throw new Body.Malformed("fact '" + key + "' appears twice");
            }
        }
        return new Facts(version, values);
    }
}
