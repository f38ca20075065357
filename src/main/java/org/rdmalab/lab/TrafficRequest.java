package org.rdmalab.lab;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.Set;
import org.rdmalab.verbs.WrOpcode;

/**
 * One send work request a user asks for after the seed's steps ({@link LabSession#postSend}).
 *
 * @param opcode RDMA_WRITE, RDMA_WRITE_WITH_IMM, RDMA_READ, SEND, SEND_WITH_IMM, ATOMIC_CMP_AND_SWP
 *     or ATOMIC_FETCH_AND_ADD
 * @param wrId {@code wr_id}, returned in the completion
 * @param localOffset where in this side's buffer the gather (or, for READ and atomics, the
 *     result) starts
 * @param length bytes (atomics: 8)
 * @param remoteOffset offset into the peer's buffer (ignored by SEND)
 * @param data bytes copied into this side's buffer at {@code localOffset} before posting, or null
 * @param imm {@code imm_data} (WITH_IMM opcodes)
 * @param signaled {@code IBV_SEND_SIGNALED}
 * @param compareAdd {@code wr.atomic.compare_add}
 * @param swap {@code wr.atomic.swap} (CMP_AND_SWP)
 */
public record TrafficRequest(WrOpcode opcode, long wrId, int localOffset, int length, long remoteOffset,
                             byte[] data, int imm, boolean signaled, long compareAdd, long swap) {

    /** The opcodes the traffic form offers. */
    public static final Set<WrOpcode> OPCODES = Set.of(WrOpcode.RDMA_WRITE, WrOpcode.RDMA_WRITE_WITH_IMM,
            WrOpcode.RDMA_READ, WrOpcode.SEND, WrOpcode.SEND_WITH_IMM, WrOpcode.ATOMIC_CMP_AND_SWP,
            WrOpcode.ATOMIC_FETCH_AND_ADD);

    /** Checks the opcode and the ranges; copies the data. */
    public TrafficRequest {
        Objects.requireNonNull(opcode, "opcode");
        if (!OPCODES.contains(opcode)) {
            throw new IllegalArgumentException("opcode: " + opcode.cName() + " is not offered here; use one of "
                    + "RDMA_WRITE, RDMA_WRITE_WITH_IMM, RDMA_READ, SEND, SEND_WITH_IMM, ATOMIC_CMP_AND_SWP,"
                    + " ATOMIC_FETCH_AND_ADD");
        }
        if (localOffset < 0) {
            throw new IllegalArgumentException("local offset: " + localOffset + " is negative");
        }
        if (length < 0) {
            throw new IllegalArgumentException("length: " + length + " is negative");
        }
        if (remoteOffset < 0) {
            throw new IllegalArgumentException("remote offset: " + remoteOffset + " is negative");
        }
        if (opcode.isAtomic() && length != 8) {
            throw new IllegalArgumentException("length: an atomic operates on 8 bytes, not " + length);
        }
        data = data == null ? null : data.clone();
    }

    /** A signaled request of {@code opcode} without data, immediate or atomic operands. */
    public static TrafficRequest of(WrOpcode opcode, long wrId, int localOffset, int length, long remoteOffset) {
        return new TrafficRequest(opcode, wrId, localOffset, length, remoteOffset, null, 0, true, 0, 0);
    }

    /** This request with {@code bytes} to write into the local buffer before posting. */
    public TrafficRequest withData(byte[] bytes) {
        return new TrafficRequest(opcode, wrId, localOffset, length, remoteOffset, bytes, imm, signaled, compareAdd,
                swap);
    }

    @Override
    public byte[] data() {
        return data == null ? null : data.clone();
    }

    /**
     * Text as bytes (UTF-8), with the escapes {@code \0}, {@code \n}, {@code \t}, {@code \\} and
     * {@code \xHH}: {@code HelloWorld\0} is the seed's 11-byte message.
     *
     * @throws IllegalArgumentException for an empty text or an unknown or cut-off escape
     */
    public static byte[] parseText(String text) {
        Objects.requireNonNull(text, "text");
        if (text.isEmpty()) {
            throw new IllegalArgumentException("text data: empty; type the bytes to write, e.g. HelloWorld\\0");
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        StringBuilder plain = new StringBuilder();
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c != '\\') {
                plain.append(c);
                continue;
            }
            out.writeBytes(plain.toString().getBytes(StandardCharsets.UTF_8));
            plain.setLength(0);
            if (i + 1 >= text.length()) {
                throw new IllegalArgumentException("text data: a lone \\ at the end; write \\\\ for a backslash");
            }
            char escape = text.charAt(++i);
            switch (escape) {
                case '0' -> out.write(0);
                case 'n' -> out.write('\n');
                case 't' -> out.write('\t');
                case '\\' -> out.write('\\');
                case 'x' -> {
                    if (i + 2 >= text.length()) {
                        throw new IllegalArgumentException("text data: \\x at position " + (i - 1)
                                + " needs two hex digits, e.g. \\x41");
                    }
                    int high = Character.digit(text.charAt(i + 1), 16);
                    int low = Character.digit(text.charAt(i + 2), 16);
                    if (high < 0 || low < 0) {
                        throw new IllegalArgumentException("text data: \\x" + text.substring(i + 1, i + 3)
                                + " at position " + (i - 1) + " needs two hex digits, e.g. \\x41");
                    }
                    out.write(high * 16 + low);
                    i += 2;
                }
                default -> throw new IllegalArgumentException("text data: unknown escape \\" + escape + " at position "
                        + (i - 1) + "; use \\0, \\n, \\t, \\\\ or \\xHH");
            }
        }
        out.writeBytes(plain.toString().getBytes(StandardCharsets.UTF_8));
        return out.toByteArray();
    }

    /**
     * Hex digits as bytes, two per byte; spaces, colons and a leading {@code 0x} are ignored:
     * {@code 48 65 6c 6c 6f}, {@code 0x48656c6c6f} and {@code 48:65:6c:6c:6f} are all "Hello".
     *
     * @throws IllegalArgumentException for an empty input, a character that is not a hex digit, or
     *     an odd number of digits
     */
    public static byte[] parseHex(String text) {
        Objects.requireNonNull(text, "text");
        String trimmed = text.strip();
        if (trimmed.startsWith("0x") || trimmed.startsWith("0X")) {
            trimmed = trimmed.substring(2);
        }
        StringBuilder digits = new StringBuilder();
        for (int i = 0; i < trimmed.length(); i++) {
            char c = trimmed.charAt(i);
            if (Character.isWhitespace(c) || c == ':') {
                continue;
            }
            if (Character.digit(c, 16) < 0) {
                throw new IllegalArgumentException("hex data: '" + c + "' is not a hex digit; give two digits per"
                        + " byte, e.g. 48 65 6c 6c 6f");
            }
            digits.append(c);
        }
        if (digits.length() == 0) {
            throw new IllegalArgumentException("hex data: no digits; give two digits per byte, e.g. 48 65 6c 6c 6f");
        }
        if (digits.length() % 2 != 0) {
            throw new IllegalArgumentException("hex data: " + digits.length() + " digits is an odd number; give two"
                    + " digits per byte, e.g. 0a rather than a");
        }
        byte[] bytes = new byte[digits.length() / 2];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) Integer.parseInt(digits.substring(2 * i, 2 * i + 2), 16);
        }
        return bytes;
    }
}
