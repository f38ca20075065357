package org.rdmalab.wire;

import java.util.ArrayList;
import java.util.List;
import org.rdmalab.wire.Dissection.Check;
import org.rdmalab.wire.Dissection.Field;
import org.rdmalab.wire.Dissection.Header;
import org.rdmalab.wire.Dissection.Layer;
import org.rdmalab.wire.Dissection.Meaning;

/**
 * One dissection in progress: the packet's bytes, the headers read so far and the first problem
 * met, with the big-endian readers the headers' parsers share. {@link TransportHeaders} reads the
 * RoCE part (BTH to ICRC), {@link FrameHeaders} what comes before it; {@link Dissector} starts them.
 */
abstract class DissectionParse {
    final byte[] bytes;
    final boolean rebuilt;
    final List<Header> headers = new ArrayList<>();
    String problem;
    int recoveredId;

    DissectionParse(byte[] bytes, boolean rebuilt) {
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
}
