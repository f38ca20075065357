package org.rdmalab.wire;

import java.nio.ByteBuffer;

/**
 * Base Transport Header, 12 bytes, big-endian (IBTA Vol. 1 §9.2; rocev2.md "Packet on the wire"):
 *
 * <pre>
 * byte 0      opcode
 * byte 1      SE (bit 7) | MigReq (bit 6) | PadCnt (bits 5:4) | TVer (bits 3:0)
 * bytes 2-3   P_Key
 * byte 4      FECN (bit 7) | BECN (bit 6) | reserved  ("resv8a", masked to 0xFF in the ICRC)
 * bytes 5-7   destination QP (24 bits)
 * byte 8      AckReq (bit 7) | reserved (7 bits, sent as 0, ignored on receive)
 * bytes 9-11  PSN (24 bits)
 * </pre>
 *
 * @param opcode the operation and which extension headers follow
 * @param solicitedEvent SE: ask the responder to raise a completion event
 * @param migReq MigReq: path migration state
 * @param padCount PadCnt (0..3): pad bytes after the payload, {@code (-payloadLength) & 3}
 * @param transportVersion TVer (0..15); 0 is the only defined version
 * @param pkey partition key (0..0xFFFF)
 * @param resv8a byte 4 as a whole (0..0xFF): FECN, BECN and reserved bits
 * @param destQp destination QP number (24 bits)
 * @param ackRequest AckReq: the responder must acknowledge this packet
 * @param psn packet sequence number (24 bits)
 */
public record Bth(Opcode opcode, boolean solicitedEvent, boolean migReq, int padCount, int transportVersion,
                  int pkey, int resv8a, int destQp, boolean ackRequest, int psn) {

    /** Bytes on the wire. */
    public static final int LENGTH = 12;
    /** The default partition key, which rxe uses. */
    public static final int DEFAULT_PKEY = 0xFFFF;
    /** FECN bit of byte 4. */
    public static final int FECN = 0x80;
    /** BECN bit of byte 4 (set in CNPs). */
    public static final int BECN = 0x40;

    /** Checks every field's range. */
    public Bth {
        if (opcode == null) {
            throw new IllegalArgumentException("BTH opcode must not be null");
        }
        check("PadCnt", padCount, 3);
        check("TVer", transportVersion, 0xF);
        check("P_Key", pkey, 0xFFFF);
        check("resv8a", resv8a, 0xFF);
        check("destination QP", destQp, Psn.MASK);
        check("PSN", psn, Psn.MASK);
    }

    private static void check(String field, int value, int max) {
        if (value < 0 || value > max) {
            throw new IllegalArgumentException(String.format("BTH %s %d is outside 0..%d", field, value, max));
        }
    }

    /** A BTH as the software device sends it: P_Key 0xFFFF, TVer 0, SE/MigReq clear, byte 4 zero. */
    public static Bth of(Opcode opcode, int destQp, int psn, boolean ackRequest, int padCount) {
        return new Bth(opcode, false, false, padCount, 0, DEFAULT_PKEY, 0, destQp, ackRequest, psn);
    }

    /** Reads 12 bytes at the buffer's position and advances it. */
    public static Bth read(ByteBuffer in) {
        int opcode = in.get() & 0xFF;
        int flags = in.get() & 0xFF;
        int pkey = in.getShort() & 0xFFFF;
        int resv8a = in.get() & 0xFF;
        int destQp = read24(in);
        int ackByte = in.get() & 0xFF;
        int psn = read24(in);
        return new Bth(Opcode.of(opcode), (flags & 0x80) != 0, (flags & 0x40) != 0, (flags >> 4) & 3, flags & 0xF,
                pkey, resv8a, destQp, (ackByte & 0x80) != 0, psn);
    }

    /** Writes 12 bytes at the buffer's position and advances it. */
    public void write(ByteBuffer out) {
        write(out, opcode.value(), solicitedEvent, migReq, padCount, transportVersion, pkey, resv8a, destQp,
                ackRequest, psn);
    }

    /** This header with another pad count. */
    public Bth withPadCount(int newPadCount) {
        return new Bth(opcode, solicitedEvent, migReq, newPadCount, transportVersion, pkey, resv8a, destQp,
                ackRequest, psn);
    }

    /** Writes a BTH from its fields without creating a record (the encoder's path). */
    static void write(ByteBuffer out, int opcode, boolean solicited, boolean migReq, int padCount, int tver,
                      int pkey, int resv8a, int destQp, boolean ackRequest, int psn) {
        out.put((byte) opcode);
        out.put((byte) ((solicited ? 0x80 : 0) | (migReq ? 0x40 : 0) | ((padCount & 3) << 4) | (tver & 0xF)));
        out.putShort((short) pkey);
        out.put((byte) resv8a);
        write24(out, destQp);
        out.put((byte) (ackRequest ? 0x80 : 0));
        write24(out, psn);
    }

    /** The opcode byte of a BTH starting at {@code offset}, without decoding the rest. */
    public static int opcodeAt(byte[] buf, int offset) {
        return buf[offset] & 0xFF;
    }

    /** The destination QP of a BTH starting at {@code offset}, without decoding the rest. */
    public static int destQpAt(byte[] buf, int offset) {
        return get24(buf, offset + 5);
    }

    /** The PSN of a BTH starting at {@code offset}, without decoding the rest. */
    public static int psnAt(byte[] buf, int offset) {
        return get24(buf, offset + 9);
    }

    static int get24(byte[] buf, int offset) {
        return (buf[offset] & 0xFF) << 16 | (buf[offset + 1] & 0xFF) << 8 | (buf[offset + 2] & 0xFF);
    }

    static int read24(ByteBuffer in) {
        int high = in.get() & 0xFF;
        return high << 16 | (in.getShort() & 0xFFFF);
    }

    static void write24(ByteBuffer out, int value) {
        out.put((byte) (value >>> 16));
        out.putShort((short) value);
    }
}
