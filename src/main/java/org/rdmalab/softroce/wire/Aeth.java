package org.rdmalab.softroce.wire;

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
        if (timerCode < 0 || timerCode > 0x1F) {
            throw new IllegalArgumentException("RNR timer code " + timerCode + " is outside 0..31");
        }
        return new Aeth(TYPE_RNR_NAK | timerCode, msn);
    }

    /** A NAK (syndrome 0x60 | code 0..31), e.g. {@link #NAK_REMOTE_ACCESS_ERROR}. */
    public static Aeth nak(int code, int msn) {
        if (code < 0 || code > 0x1F) {
            throw new IllegalArgumentException("NAK code " + code + " is outside 0..31");
        }
        return new Aeth(TYPE_NAK | code, msn);
    }

    /** Syndrome type 00. */
    public boolean isAck() {
        return (syndrome & TYPE_MASK) == TYPE_ACK;
    }

    /** Syndrome type 01. */
    public boolean isRnrNak() {
        return (syndrome & TYPE_MASK) == TYPE_RNR_NAK;
    }

    /** Syndrome type 11. */
    public boolean isNak() {
        return (syndrome & TYPE_MASK) == TYPE_NAK;
    }

    /** The low 5 bits: credit count, RNR timer code or NAK code. */
    public int code() {
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
