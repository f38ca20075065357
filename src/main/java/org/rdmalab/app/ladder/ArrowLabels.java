package org.rdmalab.app.ladder;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.rdmalab.app.common.UiText;
import org.rdmalab.ladder.Arrow;
import org.rdmalab.ladder.Gap;
import org.rdmalab.ladder.Syndrome;
import org.rdmalab.wire.Aeth;
import org.rdmalab.wire.Reth;

/**
 * The words on a ladder's arrow: its name (opcode and PSN, AckReq; for an ACK or NAK its AETH
 * syndrome with the NAK code, the RNR timer and the MSN), its detail (payload length, RETH) and
 * its marks (dropped and by what, retransmission of which packet, duplicate, reordered, ICRC bad).
 * Opcode names stay as the IBA spells them; the rest is in the window's language.
 */
public final class ArrowLabels {

    private ArrowLabels() {
    }

    /** "RDMA_WRITE_FIRST PSN 12 AckReq", "ACK PSN 12 MSN 3", "NAK remote access error (code 2) PSN 5 MSN 0". */
    public static String name(Arrow arrow) {
        String opcode = shortName(arrow);
        StringBuilder text = new StringBuilder();
        if (arrow.opcode().isAcknowledge() && arrow.hasAeth()) {
            text.append(syndrome(arrow.aethSyndrome()));
            if (arrow.opcode().value() == org.rdmalab.wire.Opcode.RC_ATOMIC_ACKNOWLEDGE.value()) {
                text.append(" (ATOMIC_ACKNOWLEDGE)");
            }
            text.append(" PSN ").append(arrow.psn()).append(" MSN ").append(arrow.aethMsn());
            return text.toString();
        }
        text.append(opcode).append(" PSN ").append(arrow.psn());
        if (arrow.ackRequest()) {
            text.append(" AckReq");
        }
        if (arrow.hasAeth()) {
            text.append(" · ").append(syndrome(arrow.aethSyndrome())).append(" MSN ").append(arrow.aethMsn());
        }
        return text.toString();
    }

    /** The opcode without its "RC_" prefix: RDMA_WRITE_ONLY, ACKNOWLEDGE. */
    static String shortName(Arrow arrow) {
        String name = arrow.opcode().name();
        return name.startsWith("RC_") ? name.substring(3) : name;
    }

    /** "ACK", "RNR NAK timer 18 (0.96 ms)", "NAK PSN sequence error (code 0)". */
    public static String syndrome(int syndrome) {
        if (Aeth.isAck(syndrome)) {
            return UiText.text("ladder.ack");
        }
        if (Aeth.isRnrNak(syndrome)) {
            int code = Aeth.code(syndrome);
            return UiText.format("ladder.rnrNak", code, trim(Syndrome.rnrTimerMillis(code)));
        }
        if ((syndrome & 0x60) == 0x60) {
            int code = Aeth.code(syndrome);
            return code <= 3 ? UiText.format("ladder.nak" + code, code) : UiText.format("ladder.nakOther", code);
        }
        return String.format(Locale.ROOT, "syndrome 0x%02x", syndrome);
    }

    /** "11 B · RETH va 0x7f01 rkey 0x1234 len 11", or "" for a packet with neither. */
    public static String detail(Arrow arrow) {
        StringBuilder text = new StringBuilder();
        if (arrow.payloadLength() > 0) {
            text.append(arrow.payloadLength()).append(" B");
        }
        Reth reth = arrow.reth();
        if (reth != null) {
            if (text.length() > 0) {
                text.append(" · ");
            }
            text.append(String.format(Locale.ROOT, "RETH va 0x%x rkey 0x%x len %d", reth.virtualAddress(), reth.rkey(),
                    reth.dmaLengthUnsigned()));
        }
        return text.toString();
    }

    /** The marks, in the order the chart shows them. */
    public static List<String> marks(Arrow arrow) {
        List<String> marks = new ArrayList<>();
        if (arrow.dropped()) {
            marks.add(UiText.format("ladder.dropped", dropCause(arrow)));
        }
        if (arrow.retransmission()) {
            marks.add(UiText.format("ladder.retransmission", arrow.repeats()));
        }
        if (arrow.duplicate()) {
            marks.add(arrow.repeats() >= 0 ? UiText.format("ladder.duplicateOf", arrow.repeats())
                    : UiText.text("ladder.duplicate"));
        }
        if (arrow.reordered()) {
            marks.add(UiText.text("ladder.reordered"));
        }
        if (!arrow.icrcOk()) {
            marks.add(UiText.text("ladder.icrcBad"));
        }
        return marks;
    }

    /** What dropped it: the fault that fired ("drop (one-shot): next ACK"), else the device's reason. */
    static String dropCause(Arrow arrow) {
        for (String fault : arrow.faults()) {
            if (fault.startsWith("drop")) {
                return fault;
            }
        }
        return arrow.dropReason() == null ? "?" : arrow.dropReason();
    }

    /** "retransmit timeout 1.07 s", "RNR wait 0.96 ms". */
    public static String gap(Gap gap) {
        return UiText.format("ladder.gap." + gap.kind().name(), duration(gap.durationNanos()));
    }

    /** "1.07 s", "960 µs", "12 ns", with three significant digits. */
    public static String duration(long nanos) {
        double value;
        String unit;
        if (nanos >= 1_000_000_000L) {
            value = nanos / 1e9;
            unit = "s";
        } else if (nanos >= 1_000_000L) {
            value = nanos / 1e6;
            unit = "ms";
        } else if (nanos >= 1_000L) {
            value = nanos / 1e3;
            unit = "µs";
        } else {
            return nanos + " ns";
        }
        return (value >= 100 ? String.format(Locale.ROOT, "%.0f", value)
                : value >= 10 ? String.format(Locale.ROOT, "%.1f", value)
                : String.format(Locale.ROOT, "%.2f", value)) + " " + unit;
    }

    /** "+12.345 ms": a time from the ladder's first packet. */
    public static String time(long nanos) {
        return String.format(Locale.ROOT, "+%.3f ms", nanos / 1e6);
    }

    private static String trim(double millis) {
        String text = String.format(Locale.ROOT, "%.2f", millis);
        return text.endsWith(".00") ? text.substring(0, text.length() - 3)
                : text.endsWith("0") ? text.substring(0, text.length() - 1) : text;
    }
}
