package org.rdmalab.wire;

import java.nio.ByteBuffer;

/**
 * ACK Extended Transport Header, 4 bytes (IBTA Vol. 1 §9.3.5; rocev2.md "RC opcodes"): syndrome (1
 * byte) and MSN (3 bytes). Syndrome bits 6:5 give the type: 00 ACK (bits 4:0 credit count, rxe sends
 * 0x1F), 01 RNR NAK (bits 4:0 RNR timer code), 11 NAK (bits 4:0 NAK code); 10 is reserved.
 *
 * @param syndrome the syndrome byte (0..0xFF)
 * @param msn message sequence number (24 bits)
 */
public record Aeth(int syndrome, int msn) {

    /** Bytes on the wire. */
    public static final int LENGTH = 4;
    /** NAK code: PSN sequence error. */
    public static final int NAK_PSN_SEQUENCE_ERROR = 0;
    /** NAK code: invalid request. */
    public static final int NAK_INVALID_REQUEST = 1;
    /** NAK code: remote access error. */
    public static final int NAK_REMOTE_ACCESS_ERROR = 2;
    /** NAK code: remote operational error. */
    public static final int NAK_REMOTE_OPERATIONAL_ERROR = 3;
    /** Syndrome of an ACK with "credit count" 0x1F (no end-to-end credits), as rxe sends. */
    public static final int ACK_SYNDROME = 0x1F;

    private static final int TYPE_MASK = 0x60;
    private static final int TYPE_ACK = 0x00;
    private static final int TYPE_RNR_NAK = 0x20;
    private static final int TYPE_NAK = 0x60;

    /** Checks the ranges. */
    public Aeth {
        checkRanges(syndrome, msn);
    }

    private static void checkRanges(int syndrome, int msn) {
        if (syndrome < 0 || syndrome > 0xFF) {
            throw new IllegalArgumentException("AETH syndrome " + syndrome + " is not a byte value");
        }
        if (msn < 0 || msn > Psn.MASK) {
            throw new IllegalArgumentException("AETH MSN " + msn + " is outside 24 bits");
        }
    }

    /** An ACK (syndrome 0x1F). */
    public static Aeth ack(int msn) {
        return new Aeth(ACK_SYNDROME, msn);
    }

    /** An RNR NAK (syndrome 0x20 | timer code 0..31). */
    public static Aeth rnrNak(int timerCode, int msn) {
        return new Aeth(rnrNakSyndrome(timerCode), msn);
    }

    /** A NAK (syndrome 0x60 | code 0..31), e.g. {@link #NAK_REMOTE_ACCESS_ERROR}. */
    public static Aeth nak(int code, int msn) {
        return new Aeth(nakSyndrome(code), msn);
    }

    /** The syndrome of an RNR NAK with timer code 0..31 (the data path's form of {@link #rnrNak}). */
    public static int rnrNakSyndrome(int timerCode) {
        if (timerCode < 0 || timerCode > 0x1F) {
            throw new IllegalArgumentException("RNR timer code " + timerCode + " is outside 0..31");
        }
        return TYPE_RNR_NAK | timerCode;
    }

    /** The syndrome of a NAK with code 0..31 (the data path's form of {@link #nak}). */
    public static int nakSyndrome(int code) {
        if (code < 0 || code > 0x1F) {
            throw new IllegalArgumentException("NAK code " + code + " is outside 0..31");
        }
        return TYPE_NAK | code;
    }

    /** Syndrome type 00. */
    public boolean isAck() {
        return isAck(syndrome);
    }

    /** Syndrome type 01. */
    public boolean isRnrNak() {
        return isRnrNak(syndrome);
    }

    /** Syndrome type 11. */
    public boolean isNak() {
        return (syndrome & TYPE_MASK) == TYPE_NAK;
    }

    /** The low 5 bits: credit count, RNR timer code or NAK code. */
    public int code() {
        return code(syndrome);
    }

    /** Whether {@code syndrome} is of type 00, an ACK (for a syndrome read without the record). */
    public static boolean isAck(int syndrome) {
        return (syndrome & TYPE_MASK) == TYPE_ACK;
    }

    /** Whether {@code syndrome} is of type 01, an RNR NAK. */
    public static boolean isRnrNak(int syndrome) {
        return (syndrome & TYPE_MASK) == TYPE_RNR_NAK;
    }

    /** The low 5 bits of {@code syndrome}: credit count, RNR timer code or NAK code. */
    public static int code(int syndrome) {
        return syndrome & 0x1F;
    }

    /** Reads 4 bytes at the buffer's position and advances it. */
    public static Aeth read(ByteBuffer in) {
        int word = in.getInt();
        return new Aeth(word >>> 24, word & Psn.MASK);
    }

    /** Writes 4 bytes at the buffer's position and advances it. */
    public void write(ByteBuffer out) {
        out.putInt(syndrome << 24 | msn);
    }

    /**
     * Writes an AETH of these fields, as {@link #write} does, without the record (the data path's
     * form); checks the ranges as the record does.
     */
    public static void put(ByteBuffer out, int syndrome, int msn) {
        checkRanges(syndrome, msn);
        out.putInt(syndrome << 24 | msn);
    }

    /** {@code AETH ACK msn 3}, {@code AETH RNR-NAK timer 18 msn 3}, {@code AETH NAK remote access error msn 3}. */
    @Override
    public String toString() {
        String kind;
        if (isAck()) {
            kind = "ACK";
        } else if (isRnrNak()) {
            kind = "RNR-NAK timer " + code();
        } else if (isNak()) {
            kind = "NAK " + nakName(code());
        } else {
            kind = String.format("reserved syndrome 0x%02x", syndrome);
        }
        return "AETH " + kind + " msn " + msn;
    }

    /** "PSN sequence error", "invalid request", ... or "code N". */
    public static String nakName(int code) {
        switch (code) {
            case NAK_PSN_SEQUENCE_ERROR:
                return "PSN sequence error";
            case NAK_INVALID_REQUEST:
                return "invalid request";
            case NAK_REMOTE_ACCESS_ERROR:
                return "remote access error";
            case NAK_REMOTE_OPERATIONAL_ERROR:
                return "remote operational error";
            default:
                return "code " + code;
        }
    }
}
