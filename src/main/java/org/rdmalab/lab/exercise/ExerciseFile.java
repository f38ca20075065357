package org.rdmalab.lab.exercise;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.rdmalab.lab.Flows;
import org.rdmalab.lab.Role;
import org.rdmalab.lab.Step;
import org.rdmalab.text.Phrase;
import org.rdmalab.verbs.AccessFlag;
import org.rdmalab.verbs.Errno;
import org.rdmalab.verbs.FaultSettings;
import org.rdmalab.verbs.QpState;
import org.rdmalab.verbs.WcOpcode;
import org.rdmalab.verbs.WcStatus;
import org.snakeyaml.engine.v2.api.LoadSettings;
import org.snakeyaml.engine.v2.api.lowlevel.Compose;
import org.snakeyaml.engine.v2.exceptions.Mark;
import org.snakeyaml.engine.v2.exceptions.MarkedYamlEngineException;
import org.snakeyaml.engine.v2.exceptions.YamlEngineException;
import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.NodeTuple;
import org.snakeyaml.engine.v2.nodes.ScalarNode;
import org.snakeyaml.engine.v2.nodes.SequenceNode;
import org.snakeyaml.engine.v2.nodes.Tag;
import org.snakeyaml.engine.v2.schema.CoreSchema;

/**
 * An exercise written as a text file: YAML 1.2 (read with snakeyaml-engine's node tree, which keeps
 * where each value stands) in the format docs/exercises.md describes: {@code name}, {@code title},
 * {@code teaches}, {@code goal}, {@code hints}, {@code start} and {@code checks}. Every text is either
 * one string (the same in both languages) or {@code en} with its {@code zh_CN}.
 *
 * <p>A file is checked whole: each problem (a syntax error, a missing field, a value of the wrong
 * type, an unknown name or key, a number out of range, a step or parameter the flow does not have)
 * is one line {@code FILE:LINE: FIELD: what is wrong}, where FIELD is the path of the value
 * ({@code checks[2].status}, the checks and hints counted from 1 as the window numbers them). Keys
 * the format does not know are errors, never ignored. A syntax error ends the reading at once; any
 * other problem lets the rest of the file be checked.
 *
 * <p>Thread-safe: every method works on its own objects.
 */
public final class ExerciseFile {

    /** The file name ending the format takes ({@code .yml} is taken too). */
    public static final String EXTENSION = ".yaml";
    /** The largest file read (a few kilobytes make an exercise). */
    public static final int MAX_BYTES = 1 << 20;

    private static final List<String> TOP = List.of("name", "title", "teaches", "goal", "hints", "start", "checks");
    private static final List<String> START = List.of("flow", "gid_idx", "device", "faults", "mr_flags",
            "qp_access_flags", "params");
    private static final List<String> PARAM = List.of("side", "step", "parameter", "value");
    private static final List<String> TEXT = List.of("en", "zh_CN");
    private static final List<String> SIDES = List.of("server", "client");
    private static final List<String> EDIT_SIDES = List.of("server", "client", "both");
    private static final List<String> FLOWS = List.of("write-only", "rc-example");
    private static final Map<String, List<String>> KINDS = new LinkedHashMap<>();
    private static final List<String> PACKETS = List.of("rnr_nak_sent", "ack_dropped", "request_retransmitted",
            "write_in_packets");
    private static final List<String> RESULTS = List.of("ok", "failed");
    /** The most checks and hints one exercise holds. */
    static final int MAX_ITEMS = 64;
    /** The longest name. */
    static final int MAX_NAME = 40;
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

    /**
     * One thing wrong in a file.
     *
     * @param file the file's name as given
     * @param line the line, from 1
     * @param field the value's path ({@code checks[2].status}), or empty for the file as a whole
     * @param message what is wrong and what would be right
     */
    public record Problem(String file, int line, String field, String message) {
        /** {@code FILE:LINE: FIELD: message}. */
        @Override
        public String toString() {
            return file + ":" + line + ": " + (field.isEmpty() ? "" : field + ": ") + message;
        }
    }

    /** A file refused: every problem found, the first as the one-line message. */
    public static final class Refused extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;
        private final transient List<Problem> problems;

        Refused(List<Problem> problems) {
            super(problems.get(0) + (problems.size() == 1 ? ""
                    : " (and " + (problems.size() - 1) + " more: exercise check lists them)"));
            this.problems = List.copyOf(problems);
        }

        /** Every problem, in the order of the file. */
        public List<Problem> problems() {
            return problems;
        }
    }

    private ExerciseFile() {
    }

    /**
     * True when {@code argument} names an exercise file rather than a built-in exercise: a path that
     * exists, or one that ends in {@code .yaml} or {@code .yml}.
     */
    public static boolean namesFile(String argument) {
        String lower = argument.toLowerCase(Locale.ROOT);
        if (lower.endsWith(EXTENSION) || lower.endsWith(".yml")) {
            return true;
        }
        try {
            return Files.exists(Path.of(argument));
        } catch (java.nio.file.InvalidPathException e) {
            return false;
        }
    }

    /**
     * Reads an instructor's exercise file.
     *
     * @throws Refused with every problem, each naming the file, the line and the field; a file that
     *     cannot be read is one problem on line 1, and a built-in exercise's name is refused
     */
    public static Exercise read(Path file) {
        String name = file.toString();
        byte[] bytes;
        try {
            if (Files.isDirectory(file)) {
                throw refused(name, "is a folder; give an exercise file (" + EXTENSION + ")");
            }
            if (Files.size(file) > MAX_BYTES) {
                throw refused(name, "is larger than 1 MiB; an exercise file is a few kilobytes of YAML");
            }
            bytes = Files.readAllBytes(file);
        } catch (java.nio.file.NoSuchFileException e) {
            throw refused(name, "no such file");
        } catch (IOException e) {
            throw refused(name, "cannot be read (" + e.getMessage() + ")");
        }
        String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            throw refused(name, "is not UTF-8 text");
        }
        return parse(name, text, false);
    }

    /**
     * Parses an exercise from {@code text}; {@code name} is how problems name the file.
     *
     * @param builtIn true for the exercises shipped in the jar, which may use the built-in names
     * @throws Refused with every problem found
     */
    public static Exercise parse(String name, String text, boolean builtIn) {
        Reading reading = new Reading(name, builtIn);
        Exercise exercise = reading.exercise(text);
        if (!reading.problems.isEmpty() || exercise == null) {
            throw new Refused(reading.problems.isEmpty()
                    ? List.of(new Problem(name, 1, "", "holds no exercise")) : reading.inOrder());
        }
        return exercise;
    }

    /** Every problem of {@code text} (none: it is a valid exercise). */
    public static List<Problem> problems(String name, String text) {
        try {
            parse(name, text, false);
            return List.of();
        } catch (Refused refused) {
            return refused.problems();
        }
    }

    /** The exercise shipped in the jar as {@code builtin/NAME.yaml} beside these classes. */
    static Exercise builtIn(String exerciseName) {
        String resource = "builtin/" + exerciseName + EXTENSION;
        try (var in = ExerciseFile.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("the built-in exercise " + resource + " is missing from the jar");
            }
            Exercise exercise = parse(resource, new String(in.readAllBytes(), StandardCharsets.UTF_8), true);
            if (!exercise.name().equals(exerciseName)) {
                throw new IllegalStateException(resource + " is called " + exercise.name());
            }
            return exercise;
        } catch (IOException e) {
            throw new IllegalStateException("cannot read the built-in exercise " + resource, e);
        }
    }

    private static Refused refused(String name, String message) {
        return new Refused(List.of(new Problem(name, 1, "", message)));
    }

    private static int line(Node node) {
        return node.getStartMark().map(mark -> mark.getLine() + 1).orElse(1);
    }

    private static String quoted(List<String> names) {
        return String.join(", ", names);
    }

    /** One file being read: its problems so far. */
    private static final class Reading {
        private final String file;
        private final boolean builtIn;
        private final List<Problem> problems = new ArrayList<>();
        /** The key each mapping read so far is the value of, for the line a missing field is said on. */
        private final Map<Node, Node> keys = new java.util.IdentityHashMap<>();

        Reading(String file, boolean builtIn) {
            this.file = file;
            this.builtIn = builtIn;
        }

        /** Where each problem stands in the file (its value's offset), to list them in the file's order. */
        private final Map<Problem, Integer> offsets = new java.util.IdentityHashMap<>();

        private void problem(Node at, String field, String message) {
            Problem problem = new Problem(file, line(at), field, message);
            problems.add(problem);
            offsets.put(problem, at.getStartMark().map(Mark::getIndex).orElse(0));
        }

        /** The problems in the order of the file (a syntax error, the only one, has no offset). */
        List<Problem> inOrder() {
            return problems.stream().sorted(java.util.Comparator.comparingInt(Problem::line)
                    .thenComparingInt(problem -> offsets.getOrDefault(problem, 0))).toList();
        }

        Exercise exercise(String text) {
            Node root;
            try {
                LoadSettings settings = LoadSettings.builder().setLabel(file).setSchema(new CoreSchema())
                        .setAllowDuplicateKeys(true).setMaxAliasesForCollections(10).setCodePointLimit(MAX_BYTES)
                        .build();
                Optional<Node> composed = new Compose(settings).composeString(text);
                if (composed.isEmpty()) {
                    problems.add(new Problem(file, 1, "", "is empty; an exercise needs at least name, title, teaches,"
                            + " goal, start and checks"));
                    return null;
                }
                root = composed.get();
            } catch (MarkedYamlEngineException e) {
                int at = e.getProblemMark().or(e::getContextMark).map(mark -> mark.getLine() + 1).orElse(1);
                String problem = e.getProblem() == null ? "" : e.getProblem();
                String context = e.getContext() == null ? "" : e.getContext() + ": ";
                problems.add(new Problem(file, at, "", "YAML syntax error: " + context + problem.strip()));
                return null;
            } catch (YamlEngineException e) {
                problems.add(new Problem(file, 1, "", "YAML syntax error: " + firstLine(e.getMessage())));
                return null;
            }
            Fields top = fields(root, "", TOP);
            if (top == null) {
                return null;
            }
            String name = top.required("name").map(node -> name(node, "name")).orElse(null);
            Phrase title = top.required("title").map(node -> text(node, "title")).orElse(null);
            Phrase teaches = top.required("teaches").map(node -> text(node, "teaches")).orElse(null);
            Phrase goal = top.required("goal").map(node -> text(node, "goal")).orElse(null);
            List<Phrase> hints = top.optional("hints").map(this::hints).orElse(List.of());
            Start start = top.required("start").map(this::start).orElse(null);
            List<Check> checks = top.required("checks").map(node -> checks(node, start)).orElse(null);
            if (!problems.isEmpty() || name == null || title == null || teaches == null || goal == null
                    || hints == null || start == null || checks == null) {
                return null;
            }
            return new Exercise(name, title, teaches, goal, hints, start, checks);
        }

        // ---- the parts ----

        private String name(Node node, String field) {
            String value = string(node, field);
            if (value == null) {
                return null;
            }
            if (!value.matches("[a-z0-9][a-z0-9-]*") || value.length() > MAX_NAME) {
                problem(node, field, "'" + value + "' is not a name: lower-case letters, digits and '-', at most "
                        + MAX_NAME + " characters (e.g. small-recv)");
                return null;
            }
            if (!builtIn && Exercises.named(value).isPresent()) {
                problem(node, field, "'" + value + "' is a built-in exercise's name; choose another");
                return null;
            }
            return value;
        }

        /** A text: one string, or {@code en} and {@code zh_CN}. */
        private Phrase text(Node node, String field) {
            if (node instanceof MappingNode) {
                Fields text = fields(node, field, TEXT);
                if (text == null) {
                    return null;
                }
                String english = text.required("en").map(value -> nonBlank(value, field + ".en")).orElse(null);
                String chinese = text.optional("zh_CN").map(value -> nonBlank(value, field + ".zh_CN")).orElse(null);
                if (english == null) {
                    return null;
                }
                return chinese == null ? Phrase.literal(english) : Phrase.translated(english, chinese);
            }
            String english = nonBlank(node, field);
            return english == null ? null : Phrase.literal(english);
        }

        private String nonBlank(Node node, String field) {
            String value = string(node, field);
            if (value != null && value.isBlank()) {
                problem(node, field, "is empty; write the text");
                return null;
            }
            return value;
        }

        private List<Phrase> hints(Node node) {
            List<Node> items = sequence(node, "hints", 0);
            if (items == null) {
                return null;
            }
            List<Phrase> hints = new ArrayList<>();
            for (int i = 0; i < items.size(); i++) {
                hints.add(text(items.get(i), "hints[" + (i + 1) + "]"));
            }
            return hints;
        }

        private Start start(Node node) {
            Fields start = fields(node, "start", START);
            if (start == null) {
                return null;
            }
            Flows.SeedFlow flow = start.required("flow").map(value -> {
                String label = choice(value, "start.flow", FLOWS, "a flow");
                return label == null ? null : Flows.SeedFlow.parse(label);
            }).orElse(null);
            String gid = start.optional("gid_idx").map(this::gidIndex).orElse("-1");
            String device = start.optional("device").map(this::device).orElse(null);
            FaultSettings faults = start.optional("faults").map(this::faults).orElse(null);
            List<Start.Edit> edits = new ArrayList<>();
            start.optional("mr_flags").ifPresent(value -> access(value, "start.mr_flags", "reg-mr", "mr_flags", edits));
            start.optional("qp_access_flags").ifPresent(value -> access(value, "start.qp_access_flags", "modify-init",
                    "qp_access_flags", edits));
            start.optional("params").ifPresent(value -> params(value, flow, edits));
            if (flow == null || gid == null) {
                return null;
            }
            return new Start(flow, gid, edits, device, faults);
        }

        private String gidIndex(Node node) {
            if (node instanceof ScalarNode scalar && scalar.getTag().equals(Tag.STR)
                    && scalar.getValue().equalsIgnoreCase("auto")) {
                return "auto";
            }
            if (node instanceof ScalarNode scalar && scalar.getTag().equals(Tag.STR)) {
                problem(node, "start.gid_idx", "'" + scalar.getValue() + "' is not a GID index: give -1 (no GRH, the"
                        + " seed's), auto, or an index 0..255");
                return null;
            }
            Long index = integer(node, "start.gid_idx", -1, 255);
            return index == null ? null : Long.toString(index);
        }

        private String device(Node node) {
            String device = string(node, "start.device");
            if (device != null && !device.matches("[A-Za-z0-9_.-]{1,64}")) {
                problem(node, "start.device", "'" + device + "' is not a device name (soft0, rxe0, mlx5_0)");
                return null;
            }
            return device;
        }

        private FaultSettings faults(Node node) {
            String spec = string(node, "start.faults");
            if (spec == null) {
                return null;
            }
            try {
                return FaultSettings.parse(spec);
            } catch (IllegalArgumentException e) {
                problem(node, "start.faults", e.getMessage() + " (the spec of --fault, e.g. drop=0.05,seed=7)");
                return null;
            }
        }

        /** Access flags: a list for both sides, or {@code server:} and {@code client:} lists. */
        private void access(Node node, String field, String step, String parameter, List<Start.Edit> edits) {
            if (node instanceof MappingNode) {
                Fields sides = fields(node, field, SIDES);
                if (sides == null) {
                    return;
                }
                for (String side : SIDES) {
                    sides.optional(side).ifPresent(value -> {
                        String flags = flags(value, field + "." + side);
                        if (flags != null) {
                            edits.add(new Start.Edit(Role.valueOf(side.toUpperCase(Locale.ROOT)), step, parameter,
                                    flags));
                        }
                    });
                }
                return;
            }
            String flags = flags(node, field);
            if (flags != null) {
                edits.add(Start.Edit.both(step, parameter, flags));
            }
        }

        private String flags(Node node, String field) {
            List<Node> items = sequence(node, field, 0);
            if (items == null) {
                return null;
            }
            List<String> names = new ArrayList<>();
            List<String> valid = Arrays.stream(AccessFlag.values()).map(Enum::name).toList();
            for (int i = 0; i < items.size(); i++) {
                String flag = string(items.get(i), field + "[" + (i + 1) + "]");
                if (flag == null) {
                    continue;
                }
                String bare = flag.trim().toUpperCase(Locale.ROOT).replaceFirst("^IBV_ACCESS_", "");
                if (!valid.contains(bare)) {
                    problem(items.get(i), field + "[" + (i + 1) + "]", "'" + flag + "' is not an access flag ("
                            + quoted(valid) + ")");
                    return null;
                }
                names.add(bare);
            }
            return names.isEmpty() ? "0" : String.join(", ", names);
        }

        private void params(Node node, Flows.SeedFlow flow, List<Start.Edit> edits) {
            List<Node> items = sequence(node, "start.params", 0);
            if (items == null) {
                return;
            }
            for (int i = 0; i < items.size(); i++) {
                String field = "start.params[" + (i + 1) + "]";
                Fields param = fields(items.get(i), field, PARAM);
                if (param == null) {
                    continue;
                }
                String side = param.optional("side").map(value -> choice(value, field + ".side", EDIT_SIDES, "a side"))
                        .orElse("both");
                String step = param.required("step").map(value -> string(value, field + ".step")).orElse(null);
                String name = param.required("parameter").map(value -> string(value, field + ".parameter"))
                        .orElse(null);
                Node valueNode = param.required("value").orElse(null);
                String value = valueNode == null ? null : scalar(valueNode, field + ".value");
                if (side == null || step == null || name == null || value == null) {
                    continue;
                }
                Role role = side.equals("both") ? null : Role.valueOf(side.toUpperCase(Locale.ROOT));
                if (flow != null && stepOk(param.node("step"), field + ".step", role, flow, step)
                        && parameterOk(param, field, role, flow, step, name, value)) {
                    edits.add(new Start.Edit(role, step, name, value));
                }
            }
        }

        private boolean stepOk(Node at, String field, Role side, Flows.SeedFlow flow, String step) {
            for (Role role : Role.values()) {
                if ((side == null || side == role) && find(role, flow, step).isEmpty()) {
                    problem(at, field, "the " + role.name().toLowerCase(Locale.ROOT) + "'s " + flow.label()
                            + " flow has no step '" + step + "' (" + quoted(stepIds(role, flow)) + ")");
                    return false;
                }
            }
            return true;
        }

        private boolean parameterOk(Fields param, String field, Role side, Flows.SeedFlow flow, String step,
                                    String name, String value) {
            for (Role role : Role.values()) {
                if (side != null && side != role) {
                    continue;
                }
                Step found = find(role, flow, step).orElseThrow();
                if (found.parameters().stream().noneMatch(parameter -> parameter.name().equals(name))) {
                    problem(param.node("parameter"), field + ".parameter", "step '" + step + "' has no parameter '"
                            + name + "' (" + quoted(found.parameters().stream().map(each -> each.name()).toList())
                            + ")");
                    return false;
                }
                try {
                    found.parameter(name).set(value);
                } catch (IllegalArgumentException e) {
                    problem(param.node("value"), field + ".value", firstLine(e.getMessage()));
                    return false;
                }
            }
            return true;
        }

        private List<Check> checks(Node node, Start start) {
            List<Node> items = sequence(node, "checks", 1);
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
                problem(node, field, "is " + what(node) + "; a check is a mapping with kind, side and its fields");
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
                problem(node, field + ".kind", "missing; one of " + quoted(List.copyOf(KINDS.keySet())));
                return null;
            }
            String kind = choice(kindTuple.getValueNode(), field + ".kind", List.copyOf(KINDS.keySet()), "a check kind");
            if (kind == null) {
                return null;
            }
            List<String> keys = new ArrayList<>(List.of("kind", "side", "after"));
            keys.addAll(KINDS.get(kind));
            Fields check = fields(node, field, keys);
            if (check == null) {
                return null;
            }
            Role side = check.required("side").map(value -> {
                String name = choice(value, field + ".side", SIDES, "a side");
                return name == null ? null : Role.valueOf(name.toUpperCase(Locale.ROOT));
            }).orElse(null);
            Integer after = check.optional("after").map(value -> {
                if (number == 1) {
                    problem(value, field + ".after", "the first check comes after no other; remove after");
                    return null;
                }
                Long earlier = integer(value, field + ".after", 1, number - 1);
                return earlier == null ? null : (int) (earlier - 1);
            }).orElse(-1);
            Check inner = side == null ? null : switch (kind) {
                case "qp_state" -> qpState(check, field, side);
                case "completion" -> completion(check, field, side);
                case "buffer" -> buffer(check, field, side);
                case "read_back" -> check.required("text").map(value -> nonBlank(value, field + ".text"))
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

        private Check qpState(Fields check, String field, Role side) {
            List<String> valid = Arrays.stream(QpState.values()).filter(state -> state != QpState.UNKNOWN)
                    .map(QpState::cName).toList();
            return check.required("state").map(value -> enumName(value, field + ".state", valid, "a QP state",
                    "IBV_QPS_")).map(name -> (Check) new Check.QpIn(side, QpState.parse(name))).orElse(null);
        }

        private Check completion(Fields check, String field, Role side) {
            List<String> statuses = Arrays.stream(WcStatus.values()).map(WcStatus::cName).toList();
            WcStatus status = check.required("status").map(value -> enumName(value, field + ".status", statuses,
                    "a completion status", "IBV_WC_")).map(name -> WcStatus.valueOf(name.substring("IBV_WC_".length())))
                    .orElse(null);
            List<String> opcodes = Arrays.stream(WcOpcode.values()).map(WcOpcode::cName).toList();
            WcOpcode opcode = check.optional("opcode").map(value -> enumName(value, field + ".opcode", opcodes,
                    "a completion opcode", "IBV_WC_")).map(name -> WcOpcode.valueOf(name.substring("IBV_WC_".length())))
                    .orElse(null);
            Long byteLength = check.optional("byte_len").map(value -> integer(value, field + ".byte_len", 0,
                    0xffffffffL)).orElse(null);
            Long imm = check.optional("imm_data").map(value -> integer(value, field + ".imm_data", 0, 0xffffffffL))
                    .orElse(null);
            Boolean noRnr = check.optional("no_rnr_nak").map(value -> bool(value, field + ".no_rnr_nak"))
                    .orElse(false);
            if (status == null || noRnr == null || check.failed("opcode", opcode) || check.failed("byte_len", byteLength)
                    || check.failed("imm_data", imm)) {
                return null;
            }
            if (status != WcStatus.SUCCESS) {
                for (String key : List.of("opcode", "byte_len", "imm_data")) {
                    if (check.has(key)) {
                        problem(check.node(key), field + "." + key, "a completion with " + status.cName()
                                + " has no valid " + key + " in verbs; check its status alone");
                        return null;
                    }
                }
            }
            return new Check.CompletionOf(side, status, opcode, byteLength == null ? -1 : byteLength,
                    imm == null ? null : (int) (long) imm, noRnr);
        }

        private Check buffer(Fields check, String field, Role side) {
            Long offset = check.required("offset").map(value -> integer(value, field + ".offset", 0, MAX_OFFSET))
                    .orElse(null);
            List<String> given = List.of("text", "word", "bytes").stream().filter(check::has).toList();
            if (given.size() != 1) {
                problem(check.mapping, field, given.isEmpty() ? "missing what the buffer holds: give text, word or bytes"
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
                    String text = nonBlank(value, path);
                    yield text == null ? null : Check.Holds.text(side, at, text);
                }
                case "word" -> {
                    Long word = integer(value, path, Long.MIN_VALUE, Long.MAX_VALUE);
                    yield word == null ? null : Check.Holds.word(side, at, word);
                }
                default -> {
                    byte[] bytes = hexBytes(value, path);
                    yield bytes == null ? null : new Check.Holds(side, at, bytes,
                            Phrase.literal(hexText(bytes)));
                }
            };
        }

        private Check packet(Fields check, String field, Role side) {
            String packet = check.required("packet").map(value -> choice(value, field + ".packet", PACKETS, "a packet"))
                    .orElse(null);
            if (packet == null) {
                return null;
            }
            Check.Wire wire = Check.Wire.valueOf(packet.toUpperCase(Locale.ROOT));
            if (wire == Check.Wire.WRITE_IN_PACKETS) {
                if (!check.has("count")) {
                    problem(check.mapping, field + ".count", "missing; write_in_packets needs the packet count (1 or"
                            + " more)");
                    return null;
                }
                Long count = integer(check.node("count"), field + ".count", 1, 1 << 20);
                return count == null ? null : new Check.PacketSeen(side, wire, (int) (long) count);
            }
            if (check.has("count")) {
                problem(check.node("count"), field + ".count", "only write_in_packets takes a count");
                return null;
            }
            return Check.PacketSeen.of(side, wire);
        }

        private Check counter(Fields check, String field, Role side) {
            String counter = check.required("counter").map(value -> choice(value, field + ".counter", Check.COUNTERS,
                    "a port counter")).orElse(null);
            Long atLeast = check.required("at_least").map(value -> integer(value, field + ".at_least", 0,
                    Long.MAX_VALUE - 1)).orElse(null);
            if (counter == null || atLeast == null) {
                return null;
            }
            if (!check.has("at_most")) {
                return Check.CounterRises.atLeast(side, counter, atLeast);
            }
            Long atMost = integer(check.node("at_most"), field + ".at_most", atLeast, Long.MAX_VALUE - 1);
            return atMost == null ? null : new Check.CounterRises(side, counter, atLeast, atMost);
        }

        private Check stepResult(Fields check, String field, Role side, Start start) {
            String step = check.required("step").map(value -> string(value, field + ".step")).orElse(null);
            String result = check.required("result").map(value -> choice(value, field + ".result", RESULTS,
                    "a step result")).orElse(null);
            List<String> errnos = Arrays.stream(Errno.values()).filter(errno -> errno != Errno.UNKNOWN)
                    .map(Enum::name).toList();
            Errno errno = check.optional("errno").map(value -> choice(value, field + ".errno", errnos, "an errno"))
                    .map(Errno::valueOf).orElse(null);
            if (step == null || result == null || check.failed("errno", errno)) {
                return null;
            }
            if (start != null && !stepOk(check.node("step"), field + ".step", side, start.flow(), step)) {
                return null;
            }
            if (result.equals("ok") && errno != null) {
                problem(check.node("errno"), field + ".errno", "a step that succeeds has no errno; remove it or"
                        + " give result: failed");
                return null;
            }
            return new Check.StepEnded(side, step, result.equals("ok"), errno);
        }

        // ---- values ----

        /** A mapping's fields; null (and a problem) when {@code node} is not a mapping. */
        private Fields fields(Node node, String field, List<String> valid) {
            if (!(node instanceof MappingNode mapping)) {
                problem(node, field.isEmpty() ? "" : field, (field.isEmpty() ? "the file " : "") + "is " + what(node)
                        + "; expected a mapping of " + quoted(valid));
                return null;
            }
            Map<String, Node> values = new LinkedHashMap<>();
            Map<String, Node> keyNodes = new HashMap<>();
            for (NodeTuple tuple : mapping.getValue()) {
                String prefix = field.isEmpty() ? "" : field + ".";
                if (!(tuple.getKeyNode() instanceof ScalarNode key)) {
                    problem(tuple.getKeyNode(), field, "a key must be a plain name (" + quoted(valid) + ")");
                    continue;
                }
                String name = key.getValue();
                if (!valid.contains(name)) {
                    problem(key, prefix + name, "unknown key; valid keys here: " + quoted(valid));
                } else if (values.containsKey(name)) {
                    problem(key, prefix + name, "given twice (first on line " + line(keyNodes.get(name)) + ")");
                } else {
                    values.put(name, tuple.getValueNode());
                    keyNodes.put(name, key);
                    keys.put(tuple.getValueNode(), key);
                }
            }
            return new Fields(mapping, field, values);
        }

        /** A sequence's items, at least {@code min} and at most {@link #MAX_ITEMS}. */
        private List<Node> sequence(Node node, String field, int min) {
            if (!(node instanceof SequenceNode sequence)) {
                problem(node, field, "is " + what(node) + "; expected a list (lines starting with '- ')");
                return null;
            }
            List<Node> items = sequence.getValue();
            if (items.size() < min) {
                problem(node, field, "is empty; give at least " + min);
                return null;
            }
            if (items.size() > MAX_ITEMS) {
                problem(items.get(MAX_ITEMS), field, "has " + items.size() + " items; at most " + MAX_ITEMS);
                return null;
            }
            return items;
        }

        /** Any scalar's text (a step parameter's value: 4, 0x10, LOCAL_WRITE, peer). */
        private String scalar(Node node, String field) {
            if (!(node instanceof ScalarNode scalar) || scalar.getTag().equals(Tag.NULL)) {
                problem(node, field, "is " + what(node) + "; expected a value");
                return null;
            }
            return scalar.getValue();
        }

        /** A string: a scalar that YAML does not read as a number, a boolean or null. */
        private String string(Node node, String field) {
            if (!(node instanceof ScalarNode scalar) || !scalar.getTag().equals(Tag.STR)) {
                problem(node, field, "is " + what(node) + "; expected text (quote it if it looks like a number)");
                return null;
            }
            return scalar.getValue();
        }

        private Boolean bool(Node node, String field) {
            if (!(node instanceof ScalarNode scalar) || !scalar.getTag().equals(Tag.BOOL)) {
                problem(node, field, "is " + what(node) + "; expected true or false");
                return null;
            }
            return scalar.getValue().equalsIgnoreCase("true");
        }

        /** An integer (decimal, 0x hex or 0o octal, as YAML 1.2 writes them) within [min, max]. */
        private Long integer(Node node, String field, long min, long max) {
            if (!(node instanceof ScalarNode scalar) || !scalar.getTag().equals(Tag.INT)) {
                problem(node, field, "is " + what(node) + "; expected a whole number in " + min + ".." + max);
                return null;
            }
            String text = scalar.getValue().replace("_", "");
            java.math.BigInteger value;
            try {
                if (text.startsWith("0x")) {
                    value = new java.math.BigInteger(text.substring(2), 16);
                } else if (text.startsWith("0o")) {
                    value = new java.math.BigInteger(text.substring(2), 8);
                } else {
                    value = new java.math.BigInteger(text.startsWith("+") ? text.substring(1) : text);
                }
            } catch (NumberFormatException e) {
                problem(node, field, "'" + scalar.getValue() + "' is not a whole number");
                return null;
            }
            if (value.compareTo(java.math.BigInteger.valueOf(min)) < 0
                    || value.compareTo(java.math.BigInteger.valueOf(max)) > 0) {
                problem(node, field, scalar.getValue() + " is outside " + min + ".." + max);
                return null;
            }
            return value.longValueExact();
        }

        /** One of {@code valid}, as written (case matters, as in verbs.h). */
        private String choice(Node node, String field, List<String> valid, String what) {
            String value = string(node, field);
            if (value == null) {
                return null;
            }
            if (!valid.contains(value)) {
                problem(node, field, "'" + value + "' is not " + what + " (" + quoted(valid) + ")");
                return null;
            }
            return value;
        }

        /** A verbs.h name from {@code valid}; the name without its {@code prefix} is taken too (RTS). */
        private String enumName(Node node, String field, List<String> valid, String what, String prefix) {
            String value = string(node, field);
            if (value == null) {
                return null;
            }
            String full = value.startsWith(prefix) ? value : prefix + value;
            if (!valid.contains(full)) {
                problem(node, field, "'" + value + "' is not " + what + " (" + quoted(valid) + ")");
                return null;
            }
            return full;
        }

        private byte[] hexBytes(Node node, String field) {
            String text = string(node, field);
            if (text == null) {
                return null;
            }
            String digits = text.replaceAll("[\\s:]", "");
            if (digits.isEmpty() || digits.length() % 2 != 0 || !digits.matches("[0-9a-fA-F]+")) {
                problem(node, field, "'" + text + "' is not bytes in hex: pairs of hex digits, e.g. \"48 65 6c 6c 6f\"");
                return null;
            }
            byte[] bytes = new byte[digits.length() / 2];
            for (int i = 0; i < bytes.length; i++) {
                bytes[i] = (byte) Integer.parseInt(digits.substring(2 * i, 2 * i + 2), 16);
            }
            return bytes;
        }

        private static String what(Node node) {
            if (node instanceof MappingNode) {
                return "a mapping";
            }
            if (node instanceof SequenceNode) {
                return "a list";
            }
            ScalarNode scalar = (ScalarNode) node;
            Tag tag = scalar.getTag();
            if (tag.equals(Tag.NULL)) {
                return "empty";
            }
            String kind = tag.equals(Tag.INT) ? "the number " : tag.equals(Tag.FLOAT) ? "the number "
                    : tag.equals(Tag.BOOL) ? "the boolean " : "the text ";
            return kind + "'" + scalar.getValue() + "'";
        }

        /** A mapping's fields, by key, once checked against the keys it may have. */
        private final class Fields {
            private final MappingNode mapping;
            private final String path;
            private final Map<String, Node> values;

            Fields(MappingNode mapping, String path, Map<String, Node> values) {
                this.mapping = mapping;
                this.path = path;
                this.values = values;
            }

            boolean has(String key) {
                return values.containsKey(key);
            }

            /** The value of {@code key}, or the mapping itself (for a problem's line) when it has none. */
            Node node(String key) {
                return values.getOrDefault(key, mapping);
            }

            Optional<Node> optional(String key) {
                return Optional.ofNullable(values.get(key));
            }

            /** True when {@code key} was given but its value was refused (read as null). */
            boolean failed(String key, Object read) {
                return has(key) && read == null;
            }

            /** The value of {@code key}; a problem on the mapping's line when it is missing. */
            Optional<Node> required(String key) {
                Node value = values.get(key);
                if (value == null) {
                    problem(keys.getOrDefault(mapping, mapping), (path.isEmpty() ? "" : path + ".") + key, "missing");
                }
                return Optional.ofNullable(value);
            }
        }

        // ---- the seed's steps, to check step ids and parameters against ----

        private final Map<String, List<Step>> steps = new HashMap<>();

        private List<Step> steps(Role role, Flows.SeedFlow flow) {
            return steps.computeIfAbsent(role + "/" + flow, key -> Flows.seed(role, flow,
                    Flows.Settings.seed("soft0"), true));
        }

        private Optional<Step> find(Role role, Flows.SeedFlow flow, String id) {
            return steps(role, flow).stream().filter(step -> step.id().equals(id)).findFirst();
        }

        private List<String> stepIds(Role role, Flows.SeedFlow flow) {
            return steps(role, flow).stream().map(Step::id).distinct().toList();
        }
    }


    private static String firstLine(String text) {
        if (text == null) {
            return "";
        }
        String[] lines = text.strip().split("\n");
        return lines.length == 0 ? "" : lines[0].strip();
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
