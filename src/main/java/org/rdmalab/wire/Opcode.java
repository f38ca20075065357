package org.rdmalab.wire;

/**
 * A BTH opcode (IBTA Vol. 1 §9.2, table 38; rocev2.md "RC opcodes"). An open value class: every
 * byte value has an instance, so an unknown opcode read from the wire survives a round trip and
 * prints as {@code UNKNOWN_0xNN}.
 *
 * <p>Bits 7:5 select the transport (000 RC, 001 UC, 011 UD), bits 4:0 the operation; the operation
 * decides which extension headers follow the BTH. Besides RC and UC, two kinds of packet that real
 * NICs send are known so that their captures decode: UD SEND_ONLY (with and without immediate, as
 * used by connection management on QP1) and the RoCEv2 congestion notification packet
 * ({@link #CNP}, 0x81, Annex A17.9.3). {@link #isKnown()} is true for them too: an RC or UC
 * transport checks {@link #isRc()} / {@link #isUc()}.
 *
 * <p>Instances are interned: {@link #of(int)} never allocates, and {@code ==} compares opcodes.
 * Immutable and thread-safe.
 */
public final class Opcode {

    private static final int RETH = 1;
    private static final int AETH = 1 << 1;
    private static final int IMM = 1 << 2;
    private static final int ATOMIC_ETH = 1 << 3;
    private static final int ATOMIC_ACK_ETH = 1 << 4;
    private static final int PAYLOAD = 1 << 5;
    private static final int FIRST = 1 << 6;
    private static final int MIDDLE = 1 << 7;
    private static final int LAST = 1 << 8;
    private static final int ONLY = 1 << 9;
    private static final int SEND = 1 << 10;
    private static final int WRITE = 1 << 11;
    private static final int READ_REQUEST = 1 << 12;
    private static final int READ_RESPONSE = 1 << 13;
    private static final int ATOMIC = 1 << 14;
    private static final int ACKNOWLEDGE = 1 << 15;
    private static final int KNOWN = 1 << 16;
    private static final int CONGESTION = 1 << 17;
    private static final int DETH = 1 << 18;

    private static final Opcode[] ALL = new Opcode[256];

    /** Base of the reliable-connected opcodes (bits 7:5 = 000). */
    public static final int RC_BASE = 0x00;
    /** Base of the unreliable-connected opcodes (bits 7:5 = 001). */
    public static final int UC_BASE = 0x20;
    /** Base of the unreliable-datagram opcodes (bits 7:5 = 011). */
    public static final int UD_BASE = 0x60;

    // Operation codes (bits 4:0) with their headers, rocev2.md "RC opcodes" table.
    private static final int[] OPERATION_FLAGS = new int[32];
    private static final String[] OPERATION_NAMES = new String[32];

    static {
        operation(0x00, "SEND_FIRST", SEND | FIRST | PAYLOAD);
        operation(0x01, "SEND_MIDDLE", SEND | MIDDLE | PAYLOAD);
        operation(0x02, "SEND_LAST", SEND | LAST | PAYLOAD);
        operation(0x03, "SEND_LAST_WITH_IMMEDIATE", SEND | LAST | PAYLOAD | IMM);
        operation(0x04, "SEND_ONLY", SEND | ONLY | PAYLOAD);
        operation(0x05, "SEND_ONLY_WITH_IMMEDIATE", SEND | ONLY | PAYLOAD | IMM);
        operation(0x06, "RDMA_WRITE_FIRST", WRITE | FIRST | PAYLOAD | RETH);
        operation(0x07, "RDMA_WRITE_MIDDLE", WRITE | MIDDLE | PAYLOAD);
        operation(0x08, "RDMA_WRITE_LAST", WRITE | LAST | PAYLOAD);
        operation(0x09, "RDMA_WRITE_LAST_WITH_IMMEDIATE", WRITE | LAST | PAYLOAD | IMM);
        operation(0x0A, "RDMA_WRITE_ONLY", WRITE | ONLY | PAYLOAD | RETH);
        operation(0x0B, "RDMA_WRITE_ONLY_WITH_IMMEDIATE", WRITE | ONLY | PAYLOAD | RETH | IMM);
        operation(0x0C, "RDMA_READ_REQUEST", READ_REQUEST | RETH);
        operation(0x0D, "RDMA_READ_RESPONSE_FIRST", READ_RESPONSE | FIRST | PAYLOAD | AETH);
        operation(0x0E, "RDMA_READ_RESPONSE_MIDDLE", READ_RESPONSE | MIDDLE | PAYLOAD);
        operation(0x0F, "RDMA_READ_RESPONSE_LAST", READ_RESPONSE | LAST | PAYLOAD | AETH);
        operation(0x10, "RDMA_READ_RESPONSE_ONLY", READ_RESPONSE | ONLY | PAYLOAD | AETH);
        operation(0x11, "ACKNOWLEDGE", ACKNOWLEDGE | AETH);
        operation(0x12, "ATOMIC_ACKNOWLEDGE", ACKNOWLEDGE | AETH | ATOMIC_ACK_ETH);
        operation(0x13, "COMPARE_SWAP", ATOMIC | ATOMIC_ETH);
        operation(0x14, "FETCH_ADD", ATOMIC | ATOMIC_ETH);
        for (int value = 0; value < 256; value++) {
            int flags = 0;
            String name = String.format("UNKNOWN_0x%02X", value);
            int operation = value & 0x1F;
            if ((value & 0xE0) == RC_BASE && OPERATION_NAMES[operation] != null) {
                flags = OPERATION_FLAGS[operation] | KNOWN;
                name = "RC_" + OPERATION_NAMES[operation];
            } else if ((value & 0xE0) == UC_BASE && operation <= 0x0B) {
                // UC has the SEND and RDMA WRITE operations only (IBTA §9.2, table 38).
                flags = OPERATION_FLAGS[operation] | KNOWN;
                name = "UC_" + OPERATION_NAMES[operation];
            } else if (value == UD_BASE + 0x04 || value == UD_BASE + 0x05) {
                // UD has SEND_ONLY and SEND_ONLY_WITH_IMMEDIATE, with a DETH before the ImmDt (§9.2).
                flags = OPERATION_FLAGS[operation] | DETH | KNOWN;
                name = "UD_" + OPERATION_NAMES[operation];
            } else if (value == 0x81) {
                // RoCEv2 CNP (Annex A17.9.3): BTH followed by 16 reserved bytes, then the ICRC.
                flags = KNOWN | CONGESTION | PAYLOAD;
                name = "CNP";
            }
            ALL[value] = new Opcode(value, name, flags);
        }
    }

    private static void operation(int code, String name, int flags) {
        OPERATION_FLAGS[code] = flags;
        OPERATION_NAMES[code] = name;
    }

    /** {@code 0x00}. */
    public static final Opcode RC_SEND_FIRST = ALL[0x00];
    /** {@code 0x01}. */
    public static final Opcode RC_SEND_MIDDLE = ALL[0x01];
    /** {@code 0x02}. */
    public static final Opcode RC_SEND_LAST = ALL[0x02];
    /** {@code 0x03}, ImmDt. */
    public static final Opcode RC_SEND_LAST_WITH_IMMEDIATE = ALL[0x03];
    /** {@code 0x04}. */
    public static final Opcode RC_SEND_ONLY = ALL[0x04];
    /** {@code 0x05}, ImmDt. */
    public static final Opcode RC_SEND_ONLY_WITH_IMMEDIATE = ALL[0x05];
    /** {@code 0x06}, RETH. */
    public static final Opcode RC_RDMA_WRITE_FIRST = ALL[0x06];
    /** {@code 0x07}. */
    public static final Opcode RC_RDMA_WRITE_MIDDLE = ALL[0x07];
    /** {@code 0x08}. */
    public static final Opcode RC_RDMA_WRITE_LAST = ALL[0x08];
    /** {@code 0x09}, ImmDt. */
    public static final Opcode RC_RDMA_WRITE_LAST_WITH_IMMEDIATE = ALL[0x09];
    /** {@code 0x0A}, RETH. */
    public static final Opcode RC_RDMA_WRITE_ONLY = ALL[0x0A];
    /** {@code 0x0B}, RETH + ImmDt. */
    public static final Opcode RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE = ALL[0x0B];
    /** {@code 0x0C}, RETH, no payload. */
    public static final Opcode RC_RDMA_READ_REQUEST = ALL[0x0C];
    /** {@code 0x0D}, AETH. */
    public static final Opcode RC_RDMA_READ_RESPONSE_FIRST = ALL[0x0D];
    /** {@code 0x0E}. */
    public static final Opcode RC_RDMA_READ_RESPONSE_MIDDLE = ALL[0x0E];
    /** {@code 0x0F}, AETH. */
    public static final Opcode RC_RDMA_READ_RESPONSE_LAST = ALL[0x0F];
    /** {@code 0x10}, AETH. */
    public static final Opcode RC_RDMA_READ_RESPONSE_ONLY = ALL[0x10];
    /** {@code 0x11}, AETH. */
    public static final Opcode RC_ACKNOWLEDGE = ALL[0x11];
    /** {@code 0x12}, AETH + AtomicAckETH. */
    public static final Opcode RC_ATOMIC_ACKNOWLEDGE = ALL[0x12];
    /** {@code 0x13}, AtomicETH. */
    public static final Opcode RC_COMPARE_SWAP = ALL[0x13];
    /** {@code 0x14}, AtomicETH. */
    public static final Opcode RC_FETCH_ADD = ALL[0x14];

    /** {@code 0x20}. */
    public static final Opcode UC_SEND_FIRST = ALL[0x20];
    /** {@code 0x21}. */
    public static final Opcode UC_SEND_MIDDLE = ALL[0x21];
    /** {@code 0x22}. */
    public static final Opcode UC_SEND_LAST = ALL[0x22];
    /** {@code 0x23}, ImmDt. */
    public static final Opcode UC_SEND_LAST_WITH_IMMEDIATE = ALL[0x23];
    /** {@code 0x24}. */
    public static final Opcode UC_SEND_ONLY = ALL[0x24];
    /** {@code 0x25}, ImmDt. */
    public static final Opcode UC_SEND_ONLY_WITH_IMMEDIATE = ALL[0x25];
    /** {@code 0x26}, RETH. */
    public static final Opcode UC_RDMA_WRITE_FIRST = ALL[0x26];
    /** {@code 0x27}. */
    public static final Opcode UC_RDMA_WRITE_MIDDLE = ALL[0x27];
    /** {@code 0x28}. */
    public static final Opcode UC_RDMA_WRITE_LAST = ALL[0x28];
    /** {@code 0x29}, ImmDt. */
    public static final Opcode UC_RDMA_WRITE_LAST_WITH_IMMEDIATE = ALL[0x29];
    /** {@code 0x2A}, RETH. */
    public static final Opcode UC_RDMA_WRITE_ONLY = ALL[0x2A];
    /** {@code 0x2B}, RETH + ImmDt. */
    public static final Opcode UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE = ALL[0x2B];

    /** {@code 0x64}, DETH. */
    public static final Opcode UD_SEND_ONLY = ALL[0x64];
    /** {@code 0x65}, DETH + ImmDt. */
    public static final Opcode UD_SEND_ONLY_WITH_IMMEDIATE = ALL[0x65];

    /** {@code 0x81}: RoCEv2 congestion notification packet (Annex A17.9.3). */
    public static final Opcode CNP = ALL[0x81];

    private final int value;
    private final String name;
    private final int flags;

    private Opcode(int value, String name, int flags) {
        this.value = value;
        this.name = name;
        this.flags = flags;
    }

    /** The opcode with this byte value (0..255); never allocates. */
    public static Opcode of(int value) {
        if (value < 0 || value > 0xFF) {
            throw new IllegalArgumentException("opcode " + value + " is not a byte value (0..255)");
        }
        return ALL[value];
    }

    /** The RC opcode for an operation code (bits 4:0), e.g. {@code rc(0x0A)} is RC_RDMA_WRITE_ONLY. */
    public static Opcode rc(int operation) {
        return of(RC_BASE | (operation & 0x1F));
    }

    /** The UC opcode for an operation code (bits 4:0). */
    public static Opcode uc(int operation) {
        return of(UC_BASE | (operation & 0x1F));
    }

    /** The byte on the wire. */
    public int value() {
        return value;
    }

    /** {@code RC_RDMA_WRITE_ONLY}, {@code UC_SEND_FIRST}, {@code CNP} or {@code UNKNOWN_0xNN}. */
    public String name() {
        return name;
    }

    /** An RC or UC opcode of the table, or CNP. */
    public boolean isKnown() {
        return has(KNOWN);
    }

    /** Reliable connected (bits 7:5 = 000) and known. */
    public boolean isRc() {
        return isKnown() && (value & 0xE0) == RC_BASE;
    }

    /** Unreliable connected (bits 7:5 = 001) and known. */
    public boolean isUc() {
        return isKnown() && (value & 0xE0) == UC_BASE;
    }

    /** Unreliable datagram (bits 7:5 = 011) and known. */
    public boolean isUd() {
        return isKnown() && (value & 0xE0) == UD_BASE;
    }

    /** The RoCEv2 congestion notification packet. */
    public boolean isCnp() {
        return has(CONGESTION);
    }

    /** A DETH follows the BTH: the UD opcodes. */
    public boolean hasDeth() {
        return has(DETH);
    }

    /** A RETH follows the BTH: WRITE_FIRST, WRITE_ONLY(_WITH_IMMEDIATE), READ_REQUEST. */
    public boolean hasReth() {
        return has(RETH);
    }

    /** An AETH follows the BTH: READ_RESPONSE_FIRST/LAST/ONLY, ACKNOWLEDGE, ATOMIC_ACKNOWLEDGE. */
    public boolean hasAeth() {
        return has(AETH);
    }

    /** An ImmDt follows the other extension headers: the *_WITH_IMMEDIATE opcodes. */
    public boolean hasImmDt() {
        return has(IMM);
    }

    /** An AtomicETH follows the BTH: COMPARE_SWAP, FETCH_ADD. */
    public boolean hasAtomicEth() {
        return has(ATOMIC_ETH);
    }

    /** An AtomicAckETH follows the AETH: ATOMIC_ACKNOWLEDGE. */
    public boolean hasAtomicAckEth() {
        return has(ATOMIC_ACK_ETH);
    }

    /** The packet may carry payload (SEND, WRITE, READ RESPONSE; CNP's 16 reserved bytes). */
    public boolean hasPayload() {
        return has(PAYLOAD);
    }

    /** SEND_FIRST, RDMA_WRITE_FIRST, RDMA_READ_RESPONSE_FIRST. */
    public boolean isFirst() {
        return has(FIRST);
    }

    /** SEND_MIDDLE, RDMA_WRITE_MIDDLE, RDMA_READ_RESPONSE_MIDDLE. */
    public boolean isMiddle() {
        return has(MIDDLE);
    }

    /** SEND_LAST(_WITH_IMMEDIATE), RDMA_WRITE_LAST(_WITH_IMMEDIATE), RDMA_READ_RESPONSE_LAST. */
    public boolean isLast() {
        return has(LAST);
    }

    /**
     * SEND_ONLY(_WITH_IMMEDIATE), RDMA_WRITE_ONLY(_WITH_IMMEDIATE), RDMA_READ_RESPONSE_ONLY. READ
     * requests and atomics are single-packet too but are not "ONLY" opcodes; see
     * {@link #endsMessage()}.
     */
    public boolean isOnly() {
        return has(ONLY);
    }

    /** The first packet of a message: FIRST, ONLY, a READ request or an atomic. */
    public boolean startsMessage() {
        return has(FIRST | ONLY | READ_REQUEST | ATOMIC);
    }

    /** The last packet of a message: LAST, ONLY, a READ request or an atomic. */
    public boolean endsMessage() {
        return has(LAST | ONLY | READ_REQUEST | ATOMIC);
    }

    /** One of the SEND opcodes. */
    public boolean isSend() {
        return has(SEND);
    }

    /** One of the RDMA WRITE opcodes. */
    public boolean isWrite() {
        return has(WRITE);
    }

    /** RDMA_READ_REQUEST. */
    public boolean isReadRequest() {
        return has(READ_REQUEST);
    }

    /** One of the RDMA READ RESPONSE opcodes. */
    public boolean isReadResponse() {
        return has(READ_RESPONSE);
    }

    /** COMPARE_SWAP or FETCH_ADD. */
    public boolean isAtomic() {
        return has(ATOMIC);
    }

    /** ACKNOWLEDGE or ATOMIC_ACKNOWLEDGE. */
    public boolean isAcknowledge() {
        return has(ACKNOWLEDGE);
    }

    /** Sent by a requester to a responder: SEND, WRITE, READ request, atomic. */
    public boolean isRequest() {
        return has(SEND | WRITE | READ_REQUEST | ATOMIC);
    }

    /** Sent by a responder: READ response, ACKNOWLEDGE, ATOMIC_ACKNOWLEDGE. */
    public boolean isResponse() {
        return has(READ_RESPONSE | ACKNOWLEDGE);
    }

    /** Bytes of extension headers between the BTH and the payload (0 for unknown opcodes). */
    public int extensionLength() {
        int length = 0;
        if (has(DETH)) {
            length += Deth.LENGTH;
        }
        if (has(RETH)) {
            length += Reth.LENGTH;
        }
        if (has(AETH)) {
            length += Aeth.LENGTH;
        }
        if (has(ATOMIC_ETH)) {
            length += AtomicEth.LENGTH;
        }
        if (has(ATOMIC_ACK_ETH)) {
            length += AtomicAckEth.LENGTH;
        }
        if (has(IMM)) {
            length += ImmDt.LENGTH;
        }
        return length;
    }

    private boolean has(int mask) {
        return (flags & mask) != 0;
    }

    /** Same as {@link #name()}. */
    @Override
    public String toString() {
        return name;
    }
}
