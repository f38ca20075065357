package org.rdmalab.ladder;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.rdmalab.wire.Reth;

/**
 * A ladder as text, for {@code pcap ladder} and {@code loopback --ladder}: one line per packet
 * (time, the two hosts with the arrow's direction, opcode, PSN, AckReq, length and RETH, the AETH
 * of an ACK or NAK, the message, and the retransmission, duplicate, reorder, drop and ICRC
 * marks), a line for each idle stretch, and a summary; or one JSON object per packet.
 */
public final class LadderText {

    /** A pause between two packets longer than this is an idle stretch of its own line. */
    public static final long IDLE_NANOS = 1_000_000_000L;

    private LadderText() {
    }

    /** The lines of every arrow the ladder keeps, then the summary's. */
    public static List<String> lines(Ladder ladder) {
        List<String> lines = new ArrayList<>();
        long previous = Long.MIN_VALUE;
        for (Arrow arrow : ladder.arrows()) {
            if (previous != Long.MIN_VALUE && arrow.timeNanos() - previous > IDLE_NANOS && arrow.gap() == null) {
                lines.add(String.format(Locale.ROOT, "            ... idle %s ...", duration(arrow.timeNanos() - previous)));
            }
            previous = arrow.timeNanos();
            lines.add(line(ladder, arrow));
        }
        lines.addAll(summary(ladder.summary()));
        return lines;
    }

    /** "   0.000012  10.0.0.1 -> 10.0.0.2  RC_RDMA_WRITE_FIRST psn 5 ...". */
    public static String line(Ladder ladder, Arrow arrow) {
        StringBuilder text = new StringBuilder();
        text.append(String.format(Locale.ROOT, "%12.6f  ", seconds(ladder, arrow)));
        QpPair pair = arrow.pair();
        text.append(pair.hostA()).append(arrow.fromA() ? " -> " : " <- ").append(pair.hostB()).append("  ");
        text.append(arrow.opcode().name()).append(" psn ").append(arrow.psn());
        text.append(" qp 0x").append(Integer.toHexString(arrow.qpn()));
        if (arrow.ackRequest()) {
            text.append(" AckReq");
        }
        if (arrow.payloadLength() > 0) {
            text.append(" len ").append(arrow.payloadLength());
        }
        Reth reth = arrow.reth();
        if (reth != null) {
            text.append(String.format(" RETH va 0x%x rkey 0x%x len %d", reth.virtualAddress(), reth.rkey(),
                    reth.dmaLengthUnsigned()));
        }
        if (arrow.hasAeth()) {
            text.append(' ').append(Syndrome.describe(arrow.aethSyndrome(), arrow.aethMsn()));
        }
        if (arrow.message() != null) {
            text.append("  msg ").append(arrow.message().index());
        }
        if (arrow.gap() != null) {
            text.append("  [").append(arrow.gap().kind().words()).append(' ')
                    .append(duration(arrow.gap().durationNanos())).append(']');
        }
        if (arrow.retransmission()) {
            text.append("  RETRANSMISSION of #").append(arrow.repeats());
        }
        if (arrow.duplicate()) {
            text.append("  DUPLICATE").append(arrow.repeats() >= 0 ? " of #" + arrow.repeats() : "");
        }
        if (arrow.reordered()) {
            text.append("  REORDERED");
        }
        if (arrow.dropped()) {
            text.append("  DROPPED");
            if (arrow.dropReason() != null) {
                text.append(" (").append(arrow.dropReason()).append(')');
            }
        }
        if (!arrow.icrcOk()) {
            text.append("  ICRC BAD");
        }
        return "#" + arrow.index() + " " + text;
    }

    /** The summary's lines: packets and pairs, messages, retransmissions and the other marks, NAKs by code. */
    public static List<String> summary(Summary summary) {
        List<String> lines = new ArrayList<>();
        lines.add("packets: " + summary.packets() + " in " + summary.pairs() + " QP pair"
                + (summary.pairs() == 1 ? "" : "s") + (summary.other() > 0 ? " (" + summary.other()
                + " other packets left out: not RC)" : ""));
        lines.add("messages: " + summary.messages() + (summary.inferred()
                ? " (inferred from the opcodes and PSNs)" : " (tied to work requests)"));
        lines.add("retransmitted packets: " + summary.retransmissions() + ", duplicates: " + summary.duplicates()
                + ", reordered: " + summary.reordered() + ", dropped: " + summary.dropped() + ", ICRC bad: "
                + summary.icrcBad());
        StringBuilder naks = new StringBuilder("NAKs: " + summary.nakCount());
        if (!summary.naks().isEmpty()) {
            naks.append(" (");
            boolean first = true;
            for (Map.Entry<String, Integer> entry : summary.naks().entrySet()) {
                naks.append(first ? "" : ", ").append(entry.getKey()).append(": ").append(entry.getValue());
                first = false;
            }
            naks.append(')');
        }
        lines.add(naks.toString());
        return lines;
    }

    /** One JSON object per arrow (for {@code text.Json}): the keys of {@code pcap ladder --json}. */
    public static List<Map<String, Object>> json(Ladder ladder) {
        List<Map<String, Object>> objects = new ArrayList<>();
        for (Arrow arrow : ladder.arrows()) {
            Map<String, Object> object = new LinkedHashMap<>();
            object.put("index", arrow.index());
            object.put("time", Double.parseDouble(String.format(Locale.ROOT, "%.9f", seconds(ladder, arrow))));
            object.put("src", arrow.source());
            object.put("dst", arrow.destination());
            object.put("opcode", arrow.opcode().name());
            object.put("qpn", arrow.qpn());
            object.put("psn", arrow.psn());
            object.put("ack_req", arrow.ackRequest());
            object.put("length", arrow.payloadLength());
            object.put("icrc_ok", arrow.icrcOk());
            object.put("retransmission", arrow.retransmission());
            object.put("repeats", arrow.repeats() >= 0 ? arrow.repeats() : null);
            object.put("duplicate", arrow.duplicate());
            object.put("reordered", arrow.reordered());
            object.put("message", arrow.message() == null ? null : arrow.message().index());
            object.put("pair", arrow.pair().index());
            if (arrow.reth() != null) {
                Map<String, Object> reth = new LinkedHashMap<>();
                reth.put("va", String.format("0x%x", arrow.reth().virtualAddress()));
                reth.put("rkey", String.format("0x%x", arrow.reth().rkey()));
                reth.put("length", arrow.reth().dmaLengthUnsigned());
                object.put("reth", reth);
            }
            if (arrow.hasAeth()) {
                Map<String, Object> aeth = new LinkedHashMap<>();
                aeth.put("syndrome", arrow.aethSyndrome());
                aeth.put("msn", arrow.aethMsn());
                aeth.put("meaning", Syndrome.kind(arrow.aethSyndrome()));
                object.put("aeth", aeth);
            }
            if (arrow.gap() != null) {
                Map<String, Object> gap = new LinkedHashMap<>();
                gap.put("kind", arrow.gap().kind().words());
                gap.put("seconds", arrow.gap().durationNanos() / 1e9);
                object.put("gap", gap);
            }
            if (arrow.dropped()) {
                object.put("dropped", arrow.dropReason() == null ? "" : arrow.dropReason());
            }
            objects.add(object);
        }
        return objects;
    }

    private static double seconds(Ladder ladder, Arrow arrow) {
        return (arrow.timeNanos() - ladder.firstTimeNanos()) / 1e9;
    }

    /** "67.1 ms", "2.000 s", "12 µs". */
    public static String duration(long nanos) {
        if (nanos >= 1_000_000_000L) {
            return String.format(Locale.ROOT, "%.3f s", nanos / 1e9);
        }
        if (nanos >= 1_000_000L) {
            return String.format(Locale.ROOT, "%.1f ms", nanos / 1e6);
        }
        return String.format(Locale.ROOT, "%d \u00b5s", nanos / 1000);
    }
}
