package org.rdmalab.lab.exercise;

import static org.rdmalab.lab.exercise.StartReading.SIDES;
import static org.rdmalab.lab.exercise.YamlReading.quoted;
import static org.rdmalab.lab.exercise.YamlReading.what;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.rdmalab.lab.Role;
import org.rdmalab.text.Phrase;
import org.rdmalab.verbs.Errno;
import org.rdmalab.verbs.QpState;
import org.rdmalab.verbs.WcOpcode;
import org.rdmalab.verbs.WcStatus;
import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.NodeTuple;
import org.snakeyaml.engine.v2.nodes.ScalarNode;

/**
 * Reads an exercise file's {@code checks}: each check's kind first, since it decides which keys are
 * valid, then its side, its {@code after} and its kind's own fields, into a {@link Check}. A
 * {@code step_result} check's step is checked against the start's flow ({@link StartReading}).
 *
 * <p>One thread uses an instance, for one file.
 */
final class CheckReading {

    /** Each check kind and the keys it takes besides kind, side and after. */
    private static final Map<String, List<String>> KINDS = new LinkedHashMap<>();
    private static final List<String> PACKETS = List.of("rnr_nak_sent", "ack_dropped", "request_retransmitted",
            "write_in_packets");
    private static final List<String> RESULTS = List.of("ok", "failed");
    /** The largest offset into a buffer (the steps' own bound on a buffer: 1 GiB). */
    static final long MAX_OFFSET = 1L << 30;

    static {
        KINDS.put("qp_state", List.of("state"));
        KINDS.put("completion", List.of("status", "opcode", "byte_len", "imm_data", "no_rnr_nak"));
        KINDS.put("buffer", List.of("offset", "text", "word", "bytes"));
        KINDS.put("read_back", List.of("text"));
        KINDS.put("packet", List.of("packet", "count"));
        KINDS.put("recovered", List.of());
        KINDS.put("counter", List.of("counter", "at_least", "at_most"));
        KINDS.put("step_result", List.of("step", "result", "errno"));
    }

    private final YamlReading yaml;
    private final StartReading starts;

    CheckReading(YamlReading yaml, StartReading starts) {
        this.yaml = yaml;
        this.starts = starts;
    }

    /** The {@code checks} list, read against {@code start} (null when the start was refused); null when refused. */
    List<Check> checks(Node node, Start start) {
        List<Node> items = yaml.sequence(node, "checks", 1);
        if (items == null) {
            return null;
        }
        List<Check> checks = new ArrayList<>();
        for (int i = 0; i < items.size(); i++) {
            checks.add(check(items.get(i), i + 1, start));
        }
        return checks.contains(null) ? null : checks;
    }

    private Check check(Node node, int number, Start start) {
        String field = "checks[" + number + "]";
        if (!(node instanceof MappingNode)) {
            yaml.problem(node, field, "is " + what(node) + "; a check is a mapping with kind, side and its fields");
            return null;
        }
        // The kind decides which keys are valid, so it is read first.
        Map<String, NodeTuple> raw = new HashMap<>();
        for (NodeTuple tuple : ((MappingNode) node).getValue()) {
            if (tuple.getKeyNode() instanceof ScalarNode key) {
                raw.putIfAbsent(key.getValue(), tuple);
            }
        }
        NodeTuple kindTuple = raw.get("kind");
        if (kindTuple == null) {
            yaml.problem(node, field + ".kind", "missing; one of " + quoted(List.copyOf(KINDS.keySet())));
            return null;
        }
        String kind = yaml.choice(kindTuple.getValueNode(), field + ".kind", List.copyOf(KINDS.keySet()),
                "a check kind");
        if (kind == null) {
            return null;
        }
        List<String> keys = new ArrayList<>(List.of("kind", "side", "after"));
        keys.addAll(KINDS.get(kind));
        YamlReading.Fields check = yaml.fields(node, field, keys);
        if (check == null) {
            return null;
        }
        Role side = check.required("side").map(value -> {
            String name = yaml.choice(value, field + ".side", SIDES, "a side");
            return name == null ? null : Role.valueOf(name.toUpperCase(Locale.ROOT));
        }).orElse(null);
        Integer after = check.optional("after").map(value -> {
            if (number == 1) {
                yaml.problem(value, field + ".after", "the first check comes after no other; remove after");
                return null;
            }
            Long earlier = yaml.integer(value, field + ".after", 1, number - 1);
            return earlier == null ? null : (int) (earlier - 1);
        }).orElse(-1);
        Check inner = side == null ? null : switch (kind) {
            case "qp_state" -> qpState(check, field, side);
            case "completion" -> completion(check, field, side);
            case "buffer" -> buffer(check, field, side);
            case "read_back" -> check.required("text").map(value -> yaml.nonBlank(value, field + ".text"))
                    .map(text -> (Check) new Check.ReadBack(side, text)).orElse(null);
            case "packet" -> packet(check, field, side);
            case "recovered" -> new Check.Recovered(side);
            case "counter" -> counter(check, field, side);
            case "step_result" -> stepResult(check, field, side, start);
            default -> throw new IllegalStateException(kind);
        };
        if (inner == null || after == null) {
            return null;
        }
        return after < 0 ? inner : new Check.After(after, inner);
    }

    private Check qpState(YamlReading.Fields check, String field, Role side) {
        List<String> valid = Arrays.stream(QpState.values()).filter(state -> state != QpState.UNKNOWN)
                .map(QpState::cName).toList();
        return check.required("state").map(value -> yaml.enumName(value, field + ".state", valid, "a QP state",
                "IBV_QPS_")).map(name -> (Check) new Check.QpIn(side, QpState.parse(name))).orElse(null);
    }

    private Check completion(YamlReading.Fields check, String field, Role side) {
        List<String> statuses = Arrays.stream(WcStatus.values()).map(WcStatus::cName).toList();
        WcStatus status = check.required("status").map(value -> yaml.enumName(value, field + ".status", statuses,
                "a completion status", "IBV_WC_")).map(name -> WcStatus.valueOf(name.substring("IBV_WC_".length())))
                .orElse(null);
        List<String> opcodes = Arrays.stream(WcOpcode.values()).map(WcOpcode::cName).toList();
        WcOpcode opcode = check.optional("opcode").map(value -> yaml.enumName(value, field + ".opcode", opcodes,
                "a completion opcode", "IBV_WC_")).map(name -> WcOpcode.valueOf(name.substring("IBV_WC_".length())))
                .orElse(null);
        Long byteLength = check.optional("byte_len").map(value -> yaml.integer(value, field + ".byte_len", 0,
                0xffffffffL)).orElse(null);
        Long imm = check.optional("imm_data").map(value -> yaml.integer(value, field + ".imm_data", 0, 0xffffffffL))
                .orElse(null);
        Boolean noRnr = check.optional("no_rnr_nak").map(value -> yaml.bool(value, field + ".no_rnr_nak"))
                .orElse(false);
        if (status == null || noRnr == null || check.failed("opcode", opcode) || check.failed("byte_len", byteLength)
                || check.failed("imm_data", imm)) {
            return null;
        }
        if (status != WcStatus.SUCCESS) {
            for (String key : List.of("opcode", "byte_len", "imm_data")) {
                if (check.has(key)) {
                    yaml.problem(check.node(key), field + "." + key, "a completion with " + status.cName()
                            + " has no valid " + key + " in verbs; check its status alone");
                    return null;
                }
            }
        }
        return new Check.CompletionOf(side, status, opcode, byteLength == null ? -1 : byteLength,
                imm == null ? null : (int) (long) imm, noRnr);
    }

    private Check buffer(YamlReading.Fields check, String field, Role side) {
        Long offset = check.required("offset").map(value -> yaml.integer(value, field + ".offset", 0, MAX_OFFSET))
                .orElse(null);
        List<String> given = List.of("text", "word", "bytes").stream().filter(check::has).toList();
        if (given.size() != 1) {
            yaml.problem(check.mapping(), field, given.isEmpty()
                    ? "missing what the buffer holds: give text, word or bytes"
                    : "give one of " + quoted(given) + ", not " + given.size());
            return null;
        }
        String what = given.get(0);
        Node value = check.node(what);
        String path = field + "." + what;
        if (offset == null) {
            return null;
        }
        int at = (int) (long) offset;
        return switch (what) {
            case "text" -> {
                String text = yaml.nonBlank(value, path);
                yield text == null ? null : Check.Holds.text(side, at, text);
            }
            case "word" -> {
                Long word = yaml.integer(value, path, Long.MIN_VALUE, Long.MAX_VALUE);
                yield word == null ? null : Check.Holds.word(side, at, word);
            }
            default -> {
                byte[] bytes = yaml.hexBytes(value, path);
                yield bytes == null ? null : new Check.Holds(side, at, bytes,
                        Phrase.literal(hexText(bytes)));
            }
        };
    }

    private Check packet(YamlReading.Fields check, String field, Role side) {
        String packet = check.required("packet")
                .map(value -> yaml.choice(value, field + ".packet", PACKETS, "a packet")).orElse(null);
        if (packet == null) {
            return null;
        }
        Check.Wire wire = Check.Wire.valueOf(packet.toUpperCase(Locale.ROOT));
        if (wire == Check.Wire.WRITE_IN_PACKETS) {
            if (!check.has("count")) {
                yaml.problem(check.mapping(), field + ".count", "missing; write_in_packets needs the packet count (1 or"
                        + " more)");
                return null;
            }
            Long count = yaml.integer(check.node("count"), field + ".count", 1, 1 << 20);
            return count == null ? null : new Check.PacketSeen(side, wire, (int) (long) count);
        }
        if (check.has("count")) {
            yaml.problem(check.node("count"), field + ".count", "only write_in_packets takes a count");
            return null;
        }
        return Check.PacketSeen.of(side, wire);
    }

    private Check counter(YamlReading.Fields check, String field, Role side) {
        String counter = check.required("counter").map(value -> yaml.choice(value, field + ".counter", Check.COUNTERS,
                "a port counter")).orElse(null);
        Long atLeast = check.required("at_least").map(value -> yaml.integer(value, field + ".at_least", 0,
                Long.MAX_VALUE - 1)).orElse(null);
        if (counter == null || atLeast == null) {
            return null;
        }
        if (!check.has("at_most")) {
            return Check.CounterRises.atLeast(side, counter, atLeast);
        }
        Long atMost = yaml.integer(check.node("at_most"), field + ".at_most", atLeast, Long.MAX_VALUE - 1);
        return atMost == null ? null : new Check.CounterRises(side, counter, atLeast, atMost);
    }

    private Check stepResult(YamlReading.Fields check, String field, Role side, Start start) {
        String step = check.required("step").map(value -> yaml.string(value, field + ".step")).orElse(null);
        String result = check.required("result").map(value -> yaml.choice(value, field + ".result", RESULTS,
                "a step result")).orElse(null);
        List<String> errnos = Arrays.stream(Errno.values()).filter(errno -> errno != Errno.UNKNOWN)
                .map(Enum::name).toList();
        Errno errno = check.optional("errno").map(value -> yaml.choice(value, field + ".errno", errnos, "an errno"))
                .map(Errno::valueOf).orElse(null);
        if (step == null || result == null || check.failed("errno", errno)) {
            return null;
        }
        if (start != null && !starts.stepOk(check.node("step"), field + ".step", side, start.flow(), step)) {
            return null;
        }
        if (result.equals("ok") && errno != null) {
            yaml.problem(check.node("errno"), field + ".errno", "a step that succeeds has no errno; remove it or"
                    + " give result: failed");
            return null;
        }
        return new Check.StepEnded(side, step, result.equals("ok"), errno);
    }

    private static String hexText(byte[] bytes) {
        StringBuilder text = new StringBuilder();
        for (byte b : bytes) {
            if (!text.isEmpty()) {
                text.append(' ');
            }
            text.append(String.format("%02x", b));
        }
        return "bytes " + text;
    }
}
