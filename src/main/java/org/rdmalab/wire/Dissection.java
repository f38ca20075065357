package org.rdmalab.wire;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One packet opened field by field, as a student reads it in Wireshark: its bytes, and for each
 * header (Ethernet where present, IPv4 or IPv6, UDP, BTH, DETH, RETH, AETH, AtomicETH,
 * AtomicAckETH, ImmDt, payload, pad, ICRC) the byte range it covers and its fields, each with its
 * byte range (and bit mask, for the fields that share a byte), its value and what the value means.
 * The ICRC carries the value computed over the packet and whether it matches; an IPv4 header
 * checksum is checked too. A header cut short or a value the specification does not allow is
 * marked {@link Check#BAD}, never hidden: what follows a broken header is shown as plain data.
 *
 * <p>Field and header names keep the IBTA and Wireshark spelling ("Destination Queue Pair",
 * "Acknowledge Request", "Syndrome"); values are written as the specification and verbs.h write
 * them (numbers, hex, opcode names). What a value means is a {@link Meaning}: a key and its
 * arguments, which the window says in its language ({@code dissect.<key>} in its bundles), so
 * this floor stays free of any user interface.
 *
 * <p>Made by {@link Dissector}. Immutable and thread-safe; the bytes are a private copy.
 */
public final class Dissection {

    /** The kind of a header, which the window colours alike wherever it appears. */
    public enum Layer {
        /** Ethernet II, with an 802.1Q tag when present. */
        ETHERNET,
        /** Another link header a capture may hold (Linux cooked capture). */
        LINK,
        IPV4,
        IPV6,
        UDP,
        BTH,
        DETH,
        RETH,
        AETH,
        ATOMIC_ETH,
        ATOMIC_ACK_ETH,
        IMM_DT,
        PAYLOAD,
        PAD,
        ICRC,
        /** Bytes that could not be read as what they should be (a header cut short, an unknown opcode). */
        DATA
    }

    /** The outcome of a check a field or header carries. */
    public enum Check {
        /** Nothing is checked. */
        NONE,
        /** Checked and right (a checksum or ICRC that matches, a version that is defined). */
        GOOD,
        /** Checked and wrong. */
        BAD,
        /** Cannot be checked here (the ICRC of a packet whose IP header is not known). */
        UNKNOWN
    }

    /**
     * What a value means, as a key of the window's bundles ({@code dissect.<key>}) and the
     * pattern's arguments, which are written the same in every language.
     *
     * @param key the bundle key without its {@code dissect.} prefix ({@code aeth.nak})
     * @param args the pattern's arguments ({@code %s} each)
     */
    public record Meaning(String key, List<String> args) {
        public Meaning {
            Objects.requireNonNull(key, "key");
            args = List.copyOf(args);
        }

        /** {@code key} with {@code args} written with {@link String#valueOf}. */
        public static Meaning of(String key, Object... args) {
            List<String> written = new ArrayList<>(args.length);
            for (Object arg : args) {
                written.add(String.valueOf(arg));
            }
            return new Meaning(key, written);
        }
    }

    /**
     * One field of a header.
     *
     * @param name its name as IBTA and Wireshark spell it
     * @param offset its first byte in {@link #bytes()}
     * @param length how many bytes hold it (a bit field: the bytes its bits lie in)
     * @param mask for a bit field, its bits within those bytes read as a big-endian number; 0 for a
     *     field of whole bytes
     * @param value its value as written on the wire ("RC_RDMA_WRITE_ONLY (0x0a)", "0x00000011 (17)")
     * @param meaning what the value means, or null where the name says it all
     * @param check the outcome of its check
     */
    public record Field(String name, int offset, int length, long mask, String value, Meaning meaning, Check check) {
        public Field {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(value, "value");
            Objects.requireNonNull(check, "check");
            if (offset < 0 || length < 1) {
                throw new IllegalArgumentException("field " + name + " at " + offset + "+" + length);
            }
        }

        /** True when byte {@code at} holds (some of) the field. */
        public boolean covers(int at) {
            return at >= offset && at < offset + length;
        }

        /** True for a field of some bits of its bytes. */
        public boolean isBits() {
            return mask != 0;
        }

        /**
         * A bit field's bits as Wireshark draws them, its own bits given and the others dots,
         * four a group: {@code "1... ...."} for SE set, {@code ".... 0000"} for TVer 0; empty for a
         * field of whole bytes.
         */
        public String bitPattern(byte[] bytes) {
            if (mask == 0) {
                return "";
            }
            long word = 0;
            for (int i = 0; i < length; i++) {
                word = word << 8 | (bytes[offset + i] & 0xFF);
            }
            StringBuilder pattern = new StringBuilder(length * 10);
            for (int bit = length * 8 - 1; bit >= 0; bit--) {
                pattern.append((mask >>> bit & 1) == 0 ? '.' : (word >>> bit & 1) == 0 ? '0' : '1');
                if (bit > 0 && bit % 4 == 0) {
                    pattern.append(' ');
                }
            }
            return pattern.toString();
        }
    }

    /**
     * One header (or the payload, the pad, the ICRC): where it lies and its fields.
     *
     * @param layer its kind
     * @param name its name ("Base Transport Header", "Invariant CRC")
     * @param offset its first byte in {@link #bytes()}
     * @param length its bytes
     * @param summary one line about it as a whole (Wireshark's line for the header), or null
     * @param check the outcome of its checks: BAD when a field of it is, or when it is cut short
     * @param fields its fields, in byte order
     */
    public record Header(Layer layer, String name, int offset, int length, Meaning summary, Check check,
                         List<Field> fields) {
        public Header {
            Objects.requireNonNull(layer, "layer");
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(check, "check");
            fields = List.copyOf(fields);
        }

        /** True when byte {@code at} lies in the header. */
        public boolean covers(int at) {
            return at >= offset && at < offset + length;
        }

        /** Its field named {@code fieldName}, the first of that name. */
        public Optional<Field> field(String fieldName) {
            return fields.stream().filter(field -> field.name().equals(fieldName)).findFirst();
        }
    }

    private final byte[] bytes;
    private final List<Header> headers;
    private final boolean rebuiltIp;
    private final String problem;

    Dissection(byte[] bytes, List<Header> headers, boolean rebuiltIp, String problem) {
        this.bytes = bytes.clone();
        this.headers = Collections.unmodifiableList(new ArrayList<>(headers));
        this.rebuiltIp = rebuiltIp;
        this.problem = problem;
    }

    /** The bytes shown: the whole frame of a capture, or the rebuilt IP and UDP headers and the UDP payload. */
    public byte[] bytes() {
        return bytes.clone();
    }

    /** How many bytes. */
    public int length() {
        return bytes.length;
    }

    /** Byte {@code at}, 0..255. */
    public int byteAt(int at) {
        return bytes[at] & 0xFF;
    }

    /** The headers in byte order; together they cover every byte. */
    public List<Header> headers() {
        return headers;
    }

    /** The first header of kind {@code layer}. */
    public Optional<Header> header(Layer layer) {
        return headers.stream().filter(header -> header.layer() == layer).findFirst();
    }

    /** The field {@code name} of the first header of kind {@code layer}. */
    public Optional<Field> field(Layer layer, String name) {
        return header(layer).flatMap(header -> header.field(name));
    }

    /** The header that holds byte {@code at}. */
    public Optional<Header> headerAt(int at) {
        return headers.stream().filter(header -> header.covers(at)).findFirst();
    }

    /** The first field that holds byte {@code at} (of a byte shared by bit fields, the first of them). */
    public Optional<Field> fieldAt(int at) {
        return headerAt(at).flatMap(header -> header.fields().stream().filter(field -> field.covers(at)).findFirst());
    }

    /** The header a field belongs to. */
    public Optional<Header> headerOf(Field field) {
        return headers.stream().filter(header -> header.fields().contains(field)).findFirst();
    }

    /**
     * True when the IP and UDP headers were rebuilt from the packet's addresses (a software
     * device's packet: its socket hands over only the UDP payload), not read from a capture.
     */
    public boolean rebuiltIp() {
        return rebuiltIp;
    }

    /** The ICRC's check: GOOD, BAD, or UNKNOWN when the packet has none or its IP header is not known. */
    public Check icrcCheck() {
        return header(Layer.ICRC).map(Header::check).orElse(Check.UNKNOWN);
    }

    /** Why the packet is not a well-formed RoCE v2 packet ("unknown opcode 0x1f"), or null when it is. */
    public String problem() {
        return problem;
    }
}
