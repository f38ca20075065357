package org.rdmalab.wire;

import java.util.ArrayList;
import java.util.List;
import org.rdmalab.wire.Dissection.Check;
import org.rdmalab.wire.Dissection.Field;
import org.rdmalab.wire.Dissection.Header;
import org.rdmalab.wire.Dissection.Layer;
import org.rdmalab.wire.Dissection.Meaning;

/**
 * The RoCE part of a dissection: the BTH, the extension headers its opcode calls for (DETH, RETH,
 * AETH, AtomicETH, AtomicAckETH, ImmDt; IBTA Vol. 1 §9.2-9.3), the payload and its pad, and the
 * ICRC computed over the IP and UDP headers and compared (Annex A17).
 */
abstract class TransportHeaders extends DissectionParse {

    TransportHeaders(byte[] bytes, boolean rebuilt) {
        super(bytes, rebuilt);
    }

    /**
     * The RoCE bytes at {@code at}: {@code present} of the {@code declared} the UDP header
     * says. {@code ip} is {IP header offset, its length, UDP header offset}, or null when the
     * packet has no IP header.
     */
    void roce(int at, int present, int declared, int[] ip) {
        boolean cut = present < declared;
        if (present < Bth.LENGTH) {
            fail("packet too short: " + declared + " bytes, a BTH and an ICRC need 16", at, at + present);
            return;
        }
        int end = at + present;
        int icrcAt = cut ? -1 : end - Icrc.LENGTH;
        Opcode opcode = Opcode.of(u8(at));
        bth(at, opcode);
        int next = at + Bth.LENGTH;
        int limit = icrcAt >= 0 ? icrcAt : end;
        if (!cut && present < Bth.LENGTH + Icrc.LENGTH) {
            fail("packet too short: " + present + " bytes, a BTH and an ICRC need 16", next, end);
            return;
        }
        if (!opcode.isKnown()) {
            fail(String.format("unknown opcode 0x%02x", opcode.value()), next, limit);
            icrc(icrcAt, at, ip);
            return;
        }
        int transportVersion = u8(at + 1) & 0xF;
        if (transportVersion != 0 && problem == null) {
            problem = opcode.name() + ": unsupported transport header version " + transportVersion;
        }
        if (opcode.hasDeth()) {
            next = extension(next, limit, Deth.LENGTH, opcode, this::deth);
        }
        if (next >= 0 && opcode.hasReth()) {
            next = extension(next, limit, Reth.LENGTH, opcode, this::reth);
        }
        if (next >= 0 && opcode.hasAeth()) {
            next = extension(next, limit, Aeth.LENGTH, opcode, this::aeth);
        }
        if (next >= 0 && opcode.hasAtomicEth()) {
            next = extension(next, limit, AtomicEth.LENGTH, opcode, from -> atomicEth(from, opcode));
        }
        if (next >= 0 && opcode.hasAtomicAckEth()) {
            next = extension(next, limit, AtomicAckEth.LENGTH, opcode, this::atomicAckEth);
        }
        if (next >= 0 && opcode.hasImmDt()) {
            next = extension(next, limit, ImmDt.LENGTH, opcode, this::immDt);
        }
        if (next < 0) {
            icrc(icrcAt, at, ip);
            return;
        }
        int afterHeaders = limit - next;
        int pad = u8(at + 1) >>> 4 & 3;
        if (!opcode.hasPayload() && afterHeaders > 0) {
            fail(opcode.name() + " carries no payload but " + afterHeaders + " bytes follow its headers", next,
                    limit);
        } else if (!cut && pad > afterHeaders) {
            fail(opcode.name() + ": pad count " + pad + " exceeds the " + afterHeaders
                    + " bytes after the headers", next, limit);
        } else if (opcode.hasPayload()) {
            int payload = cut ? afterHeaders : afterHeaders - pad;
            payload(next, payload, opcode, cut ? declared - (next - at) - Icrc.LENGTH - pad : payload);
            if (!cut && pad > 0) {
                headers.add(new Header(Layer.PAD, "Pad", next + payload, pad, null, Check.NONE,
                        List.of(new Field("Pad Bytes", next + payload, pad, 0, pad + " bytes",
                                Meaning.of("pad", pad), Check.NONE))));
            }
        }
        if (cut) {
            if (problem == null) {
                problem = "the capture holds " + present + " of the " + declared + " bytes; no ICRC to check";
            }
            return;
        }
        icrc(icrcAt, at, ip);
    }

    interface HeaderAt {
        void read(int at);
    }

    /** A {@code length}-byte extension header at {@code at}, or a malformed rest when it does not fit. */
    int extension(int at, int limit, int length, Opcode opcode, HeaderAt reader) {
        if (at + length > limit) {
            fail(opcode.name() + " too short: its headers need " + length + " more bytes than the "
                    + (limit - at) + " before the ICRC", at, limit);
            return -1;
        }
        reader.read(at);
        return at + length;
    }

    void bth(int at, Opcode opcode) {
        List<Field> fields = new ArrayList<>();
        fields.add(new Field("Opcode", at, 1, 0, opcode.name() + String.format(" (0x%02x)", opcode.value()),
                opcodeMeaning(opcode), opcode.isKnown() ? Check.NONE : Check.BAD));
        int flags = u8(at + 1);
        boolean se = (flags & 0x80) != 0;
        fields.add(new Field("Solicited Event", at + 1, 1, 0x80, se ? "1" : "0",
                Meaning.of(se ? "bth.se.set" : "bth.se.clear"), Check.NONE));
        boolean mig = (flags & 0x40) != 0;
        fields.add(new Field("MigReq", at + 1, 1, 0x40, mig ? "1" : "0",
                Meaning.of(mig ? "bth.mig.set" : "bth.mig.clear"), Check.NONE));
        int pad = flags >>> 4 & 3;
        fields.add(new Field("Pad Count", at + 1, 1, 0x30, Integer.toString(pad), Meaning.of("bth.pad", pad),
                Check.NONE));
        int tver = flags & 0xF;
        fields.add(new Field("Header Version", at + 1, 1, 0x0F, Integer.toString(tver),
                Meaning.of(tver == 0 ? "bth.tver" : "bth.tver.bad"), tver == 0 ? Check.NONE : Check.BAD));
        int pkey = u16(at + 2);
        fields.add(new Field("Partition Key", at + 2, 2, 0, String.format("0x%04x", pkey),
                pkey == Bth.DEFAULT_PKEY ? Meaning.of("bth.pkey.default")
                        : Meaning.of((pkey & 0x8000) != 0 ? "bth.pkey.full" : "bth.pkey.limited",
                                String.format("0x%04x", pkey & 0x7FFF)), Check.NONE));
        int resv8a = u8(at + 4);
        boolean fecn = (resv8a & Bth.FECN) != 0;
        boolean becn = (resv8a & Bth.BECN) != 0;
        fields.add(new Field("FECN", at + 4, 1, Bth.FECN, fecn ? "1" : "0",
                Meaning.of(fecn ? "bth.fecn.set" : "bth.fecn.clear"), Check.NONE));
        fields.add(new Field("BECN", at + 4, 1, Bth.BECN, becn ? "1" : "0",
                Meaning.of(becn ? "bth.becn.set" : "bth.becn.clear"), Check.NONE));
        fields.add(new Field("Reserved", at + 4, 1, 0x3F, Integer.toString(resv8a & 0x3F), Meaning.of("icrc.masked"),
                Check.NONE));
        int qp = u24(at + 5);
        fields.add(new Field("Destination Queue Pair", at + 5, 3, 0, String.format("0x%06x (%d)", qp, qp),
                Meaning.of(qp == 1 ? "bth.qp1" : "bth.destqp"), Check.NONE));
        boolean ackReq = (u8(at + 8) & 0x80) != 0;
        fields.add(new Field("Acknowledge Request", at + 8, 1, 0x80, ackReq ? "1" : "0",
                Meaning.of(!opcode.isRequest() ? "bth.ackreq.response" : ackReq ? "bth.ackreq.set"
                        : "bth.ackreq.clear"), Check.NONE));
        fields.add(new Field("Reserved", at + 8, 1, 0x7F, Integer.toString(u8(at + 8) & 0x7F), null, Check.NONE));
        int psn = u24(at + 9);
        String psnKey = opcode.isAcknowledge() ? "bth.psn.ack" : opcode.isReadResponse() ? "bth.psn.readResponse"
                : opcode.isRequest() ? "bth.psn.request" : "bth.psn";
        fields.add(new Field("Packet Sequence Number", at + 9, 3, 0, Integer.toString(psn), Meaning.of(psnKey),
                Check.NONE));
        Check check = fields.stream().anyMatch(field -> field.check() == Check.BAD) ? Check.BAD : Check.NONE;
        headers.add(new Header(Layer.BTH, "Base Transport Header", at, Bth.LENGTH,
                Meaning.of("bth", opcode.name(), String.format("0x%06x", qp), psn), check, fields));
    }

    Meaning opcodeMeaning(Opcode opcode) {
        if (!opcode.isKnown()) {
            return Meaning.of("opcode.unknown");
        }
        List<String> follow = new ArrayList<>();
        if (opcode.hasDeth()) {
            follow.add("DETH");
        }
        if (opcode.hasReth()) {
            follow.add("RETH");
        }
        if (opcode.hasAeth()) {
            follow.add("AETH");
        }
        if (opcode.hasAtomicEth()) {
            follow.add("AtomicETH");
        }
        if (opcode.hasAtomicAckEth()) {
            follow.add("AtomicAckETH");
        }
        if (opcode.hasImmDt()) {
            follow.add("ImmDt");
        }
        if (opcode.isCnp()) {
            return Meaning.of("opcode.cnp");
        }
        if (opcode.hasPayload()) {
            follow.add("payload");
        }
        String transport = opcode.isRc() ? "opcode.rc" : opcode.isUc() ? "opcode.uc" : "opcode.ud";
        return Meaning.of(transport, String.join(", ", follow));
    }

    void deth(int at) {
        long qkey = u32(at);
        int srcQp = u24(at + 5);
        headers.add(new Header(Layer.DETH, "Datagram Extended Transport Header", at, Deth.LENGTH, null, Check.NONE,
                List.of(new Field("Queue Key", at, 4, 0, String.format("0x%08x", qkey), Meaning.of("deth.qkey"),
                                Check.NONE),
                        new Field("Reserved", at + 4, 1, 0, Integer.toString(u8(at + 4)), null, Check.NONE),
                        new Field("Source Queue Pair", at + 5, 3, 0, String.format("0x%06x (%d)", srcQp, srcQp),
                                Meaning.of("deth.srcqp"), Check.NONE))));
    }

    void reth(int at) {
        long va = u64(at);
        long rkey = u32(at + 8);
        long length = u32(at + 12);
        headers.add(new Header(Layer.RETH, "RDMA Extended Transport Header", at, Reth.LENGTH,
                Meaning.of("reth", String.format("0x%016x", va), String.format("0x%08x", rkey), length),
                Check.NONE,
                List.of(new Field("Virtual Address", at, 8, 0, String.format("0x%016x", va), Meaning.of("reth.va"),
                                Check.NONE),
                        new Field("Remote Key", at + 8, 4, 0, String.format("0x%08x", rkey),
                                Meaning.of("reth.rkey"), Check.NONE),
                        new Field("DMA Length", at + 12, 4, 0, Long.toString(length),
                                Meaning.of("reth.dmalen"), Check.NONE))));
    }

    void aeth(int at) {
        int syndrome = u8(at);
        int code = syndrome & 0x1F;
        int msn = u24(at + 1);
        Meaning verdict;
        String codeName;
        Meaning codeMeaning;
        Check check = Check.NONE;
        switch (syndrome & 0x60) {
            case 0x00 -> {
                verdict = Meaning.of(code == 0x1F ? "aeth.ack.noCredits" : "aeth.ack", code);
                codeName = "Credit Count";
                codeMeaning = Meaning.of(code == 0x1F ? "aeth.credits.invalid" : "aeth.credits", code);
            }
            case 0x20 -> {
                String millis = Dissector.millis(Dissector.rnrTimerMicros(code));
                verdict = Meaning.of("aeth.rnr", code, millis);
                codeName = "RNR Timer";
                codeMeaning = Meaning.of("aeth.rnrTimer", millis);
            }
            case 0x60 -> {
                String key = switch (code) {
                    case Aeth.NAK_PSN_SEQUENCE_ERROR -> "aeth.nak.psnSequenceError";
                    case Aeth.NAK_INVALID_REQUEST -> "aeth.nak.invalidRequest";
                    case Aeth.NAK_REMOTE_ACCESS_ERROR -> "aeth.nak.remoteAccessError";
                    case Aeth.NAK_REMOTE_OPERATIONAL_ERROR -> "aeth.nak.remoteOperationalError";
                    default -> "aeth.nak.reserved";
                };
                verdict = Meaning.of(key, code);
                codeName = "NAK Code";
                codeMeaning = Meaning.of("aeth.nakCode", code, Aeth.nakName(code));
                if (code > Aeth.NAK_REMOTE_OPERATIONAL_ERROR) {
                    check = Check.BAD;
                }
            }
            default -> {
                verdict = Meaning.of("aeth.reserved");
                codeName = "Reserved";
                codeMeaning = null;
                check = Check.BAD;
            }
        }
        headers.add(new Header(Layer.AETH, "ACK Extended Transport Header", at, Aeth.LENGTH, verdict, check,
                List.of(new Field("Syndrome", at, 1, 0, String.format("0x%02x", syndrome), verdict, check),
                        new Field("Reserved", at, 1, 0x80, Integer.toString(syndrome >>> 7), null, Check.NONE),
                        new Field("Syndrome Type", at, 1, 0x60, Integer.toString(syndrome >>> 5 & 3),
                                Meaning.of("aeth.type." + (syndrome >>> 5 & 3)), check),
                        new Field(codeName, at, 1, 0x1F, Integer.toString(code), codeMeaning, check),
                        new Field("Message Sequence Number", at + 1, 3, 0, Integer.toString(msn),
                                Meaning.of("aeth.msn", msn), Check.NONE))));
    }

    void atomicEth(int at, Opcode opcode) {
        long va = u64(at);
        long rkey = u32(at + 8);
        long swap = u64(at + 12);
        long compare = u64(at + 20);
        boolean add = opcode.value() == Opcode.RC_FETCH_ADD.value();
        headers.add(new Header(Layer.ATOMIC_ETH, "Atomic Extended Transport Header", at, AtomicEth.LENGTH,
                Meaning.of(add ? "atomic.add" : "atomic.swap", String.format("0x%016x", va)), Check.NONE,
                List.of(new Field("Virtual Address", at, 8, 0, String.format("0x%016x", va),
                                Meaning.of("atomic.va"), Check.NONE),
                        new Field("Remote Key", at + 8, 4, 0, String.format("0x%08x", rkey),
                                Meaning.of("reth.rkey"), Check.NONE),
                        new Field("Swap (Or Add) Data", at + 12, 8, 0, String.format("0x%016x", swap),
                                Meaning.of(add ? "atomic.addData" : "atomic.swapData"), Check.NONE),
                        new Field("Compare Data", at + 20, 8, 0, String.format("0x%016x", compare),
                                Meaning.of(add ? "atomic.compareIgnored" : "atomic.compareData"), Check.NONE))));
    }

    void atomicAckEth(int at) {
        long original = u64(at);
        headers.add(new Header(Layer.ATOMIC_ACK_ETH, "Atomic ACK Extended Transport Header", at,
                AtomicAckEth.LENGTH, null, Check.NONE,
                List.of(new Field("Original Remote Data", at, 8, 0, String.format("0x%016x", original),
                        Meaning.of("atomicAck.original"), Check.NONE))));
    }

    void immDt(int at) {
        long imm = u32(at);
        headers.add(new Header(Layer.IMM_DT, "Immediate Data Extended Transport Header", at, ImmDt.LENGTH, null,
                Check.NONE, List.of(new Field("Immediate Data", at, 4, 0, String.format("0x%08x", imm),
                        Meaning.of("immdt"), Check.NONE))));
    }

    void payload(int at, int length, Opcode opcode, int declared) {
        if (length <= 0) {
            return;
        }
        String preview = hex(at, Math.min(length, 8), " ") + (length > 8 ? " …" : "");
        Meaning meaning = opcode.isCnp() ? Meaning.of("cnp.reserved")
                : length < declared ? Meaning.of("payload.cut", length, declared) : Meaning.of("payload", length);
        headers.add(new Header(Layer.PAYLOAD, opcode.isCnp() ? "Reserved" : "Payload", at, length, meaning,
                Check.NONE, List.of(new Field("Data", at, length, 0, preview, meaning, Check.NONE))));
    }

    void icrc(int at, int roceAt, int[] ip) {
        if (at < 0) {
            return;
        }
        int onWire = Icrc.read(bytes, at);
        String value = String.format("0x%08x", onWire);
        Check check;
        Meaning meaning;
        if (ip == null) {
            check = Check.UNKNOWN;
            meaning = Meaning.of("icrc.unknown");
        } else {
            int computed = Icrc.compute(bytes, ip[0], ip[1], bytes, ip[2], bytes, roceAt, at - roceAt);
            String computedText = String.format("0x%08x", computed);
            check = computed == onWire ? Check.GOOD : Check.BAD;
            meaning = Meaning.of(check == Check.GOOD ? "icrc.good" : "icrc.bad", computedText);
            if (check == Check.BAD && problem == null) {
                problem = "ICRC " + value + " does not match the computed " + computedText;
            }
        }
        headers.add(new Header(Layer.ICRC, "Invariant CRC", at, Icrc.LENGTH, meaning, check,
                List.of(new Field("ICRC", at, Icrc.LENGTH, 0, value, meaning, check))));
    }
}
