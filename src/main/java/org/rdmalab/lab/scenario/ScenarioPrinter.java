package org.rdmalab.lab.scenario;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.rdmalab.verbs.PacketEvent;
import org.rdmalab.verbs.WcFlag;
import org.rdmalab.verbs.WcStatus;
import org.rdmalab.verbs.WorkCompletion;

/**
 * Prints a scenario as a C verbs program's log would read: one aligned line per verb and
 * completion, with C names ({@code ibv_reg_mr}, {@code IBV_WC_SUCCESS}); counters of both devices
 * side by side at the end. Thread-safe: packet events arrive from the devices' threads.
 */
public final class ScenarioPrinter implements ScenarioListener {

    private static final int PREVIEW = 16;

    private final PrintWriter out;
    private final Map<PeerRole, Map<String, Long>> counters = new EnumMap<>(PeerRole.class);

    /** A printer writing to {@code out}. */
    public ScenarioPrinter(PrintWriter out) {
        this.out = out;
    }

    /** The title line: name and description. */
    public synchronized void header(Scenario scenario, LoopbackSettings settings) {
        out.println("scenario " + scenario.name() + ": " + scenario.description());
        out.println(String.format("server %s on %s, client %s on %s, UDP port %d, path_mtu %d, poll timeout %d ms%s%s",
                settings.deviceName(), settings.server().address().getHostAddress(), settings.clientDeviceName(),
                settings.client().address().getHostAddress(), settings.server().udpPort(),
                settings.pathMtu().bytes(), settings.pollTimeout().toMillis(),
                settings.server().faults().isEmpty() ? "" : ", faults " + settings.server().faults(),
                settings.server().capture() == null ? "" : ", capture " + settings.server().capture()));
        out.println();
        out.flush();
    }

    @Override
    public synchronized void onEvent(ScenarioEvent event) {
        if (event instanceof ScenarioEvent.Step step) {
            line(step.role(), step.verb(), step.detail());
        } else if (event instanceof ScenarioEvent.VerbFailed failed) {
            String message = failed.message().startsWith(failed.verb() + " ")
                    ? failed.message().substring(failed.verb().length() + 1) : failed.message();
            line(failed.role(), failed.verb(), message);
        } else if (event instanceof ScenarioEvent.Completion completion) {
            line(completion.role(), "ibv_poll_cq", describe(completion.completion(), completion.elapsedNanos()));
        } else if (event instanceof ScenarioEvent.Buffer buffer) {
            line(buffer.role(), "buffer", preview(buffer.bytes()) + "  (" + buffer.label() + ")");
        } else if (event instanceof ScenarioEvent.Note note) {
            line(null, "--", note.text());
        } else if (event instanceof ScenarioEvent.Check check) {
            line(null, check.passed() ? "check ok" : "CHECK FAILED", check.text());
        } else if (event instanceof ScenarioEvent.Packet packet) {
            line(packet.role(), "packet", describe(packet.packet()));
        } else if (event instanceof ScenarioEvent.Counters c) {
            counters.put(c.role(), c.counters());
        }
        out.flush();
    }

    /** Prints the counters table (if any device had counters) and the result. */
    public synchronized void result(ScenarioResult result) {
        printCounters();
        out.println();
        if (result.asExpected()) {
            out.println("result: as expected: " + result.summary());
        } else {
            out.println("result: NOT as expected: " + result.summary());
            if (result.problems().size() > 1 || !result.problems().get(0).equals(result.summary())) {
                for (String problem : result.problems()) {
                    out.println("  - " + problem);
                }
            }
        }
        out.flush();
    }

    private void printCounters() {
        Set<String> names = new LinkedHashSet<>();
        for (Map<String, Long> map : counters.values()) {
            names.addAll(map.keySet());
        }
        if (names.isEmpty()) {
            return;
        }
        List<PeerRole> roles = new ArrayList<>(counters.keySet());
        out.println();
        StringBuilder head = new StringBuilder(String.format("%-26s", "counters (hw_counters)"));
        for (PeerRole role : roles) {
            head.append(String.format("%10s", role.label()));
        }
        out.println(head);
        int zero = 0;
        for (String name : names) {
            boolean allZero = true;
            StringBuilder row = new StringBuilder(String.format("  %-24s", name));
            for (PeerRole role : roles) {
                Long value = counters.get(role).get(name);
                allZero &= value == null || value == 0;
                row.append(String.format("%10s", value == null ? "-" : value.toString()));
            }
            if (allZero) {
                zero++;
            } else {
                out.println(row);
            }
        }
        if (zero > 0) {
            out.println(String.format("  (%d more at 0)", zero));
        }
    }

    private void line(PeerRole role, String verb, String detail) {
        String text = String.format("%-7s %-17s %s", role == null ? "" : role.label(), verb,
                detail == null ? "" : detail);
        // Plain ASCII so the output reads the same in any terminal encoding.
        out.println(text.replace("\u2192", "->").stripTrailing());
    }

    /** "wr_id 1  IBV_WC_SUCCESS  opcode IBV_WC_RDMA_WRITE  byte_len 11  qp_num 0x12  (0.41 ms)". */
    static String describe(WorkCompletion wc, long elapsedNanos) {
        StringBuilder text = new StringBuilder("wr_id " + wc.wrId() + "  " + wc.status().cName());
        if (wc.status() == WcStatus.SUCCESS) {
            text.append("  opcode ").append(wc.opcode().cName())
                    .append("  byte_len ").append(Integer.toUnsignedString(wc.byteLength()));
            if (WcFlag.has(wc.wcFlags(), WcFlag.WITH_IMM)) {
                text.append(String.format("  imm_data 0x%08x", wc.immData()));
            }
        } else {
            text.append(" (").append(wc.status().text()).append(")  vendor_err 0x").append(
                    Integer.toHexString(wc.vendorError()));
        }
        text.append(String.format("  qp_num 0x%x", wc.qpNum()));
        if (elapsedNanos >= 0) {
            text.append("  (").append(millis(elapsedNanos)).append(" after the post)");
        }
        return text.toString();
    }

    /** "1.07 s", "5.12 ms", "67.1 ms"; "no timer" for 0. */
    static String millis(long nanos) {
        if (nanos == 0) {
            return "no timer";
        }
        if (nanos >= 1_000_000_000L) {
            return String.format("%.2f s", nanos / 1e9);
        }
        return String.format("%.3g ms", nanos / 1e6);
    }

    /** A C string when the bytes are printable text with trailing NULs, else hex (first 16 bytes). */
    static String preview(byte[] bytes) {
        if (isText(bytes)) {
            StringBuilder text = new StringBuilder("\"");
            for (byte b : bytes) {
                text.append(b == 0 ? "\\0" : String.valueOf((char) b));
            }
            return text.append("\"  ").append(bytes.length).append(" bytes").toString();
        }
        int shown = Math.min(PREVIEW, bytes.length);
        StringBuilder text = new StringBuilder(HexFormat.ofDelimiter(" ").formatHex(bytes, 0, shown));
        if (shown < bytes.length) {
            text.append(" ...");
        }
        text.append("  ").append(bytes.length).append(" bytes");
        if (bytes.length > PREVIEW) {
            text.append(String.format(", crc32 0x%08x", Checks.crc32(bytes)));
        }
        return text.toString();
    }

    private static boolean isText(byte[] bytes) {
        int end = bytes.length;
        while (end > 0 && bytes[end - 1] == 0) {
            end--;
        }
        if (end == 0 || bytes.length > 64) {
            return false;
        }
        for (int i = 0; i < end; i++) {
            if (bytes[i] < 0x20 || bytes[i] > 0x7e) {
                return false;
            }
        }
        return true;
    }

    static String describe(PacketEvent packet) {
        return String.format("%-8s %-28s dqpn 0x%x psn %d%s  %d bytes%s", packet.direction(), packet.opcode(),
                packet.destQp(), packet.psn(), packet.ackRequest() ? " A" : "", packet.length(),
                packet.detail() == null || packet.detail().isEmpty() ? "" : "  " + packet.detail());
    }
}
