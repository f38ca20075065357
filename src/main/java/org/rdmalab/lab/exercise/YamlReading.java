package org.rdmalab.lab.exercise;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.rdmalab.lab.exercise.ExerciseFile.Problem;
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
 * One exercise file being read: its YAML node tree, the problems found so far, each at the line of
 * its value and named by the value's path ({@code checks[2].status}), and the readers of single
 * values (a mapping's keys, a list, text, a number in range, one of a list of names, hex bytes).
 * Every reader that refuses a value records the problem and returns null, so the caller goes on
 * with the rest of the file. {@link StartReading} and {@link CheckReading} read the format's
 * {@code start} and {@code checks} with it; {@link ExerciseFile} the rest.
 *
 * <p>One thread uses an instance.
 */
final class YamlReading {

    /** The most checks and hints one exercise holds. */
    static final int MAX_ITEMS = 64;

    private final String file;
    private final List<Problem> problems = new ArrayList<>();
    /** Where each problem stands in the file (its value's offset), to list them in the file's order. */
    private final Map<Problem, Integer> offsets = new IdentityHashMap<>();
    /** The key each mapping read so far is the value of, for the line a missing field is said on. */
    private final Map<Node, Node> keys = new IdentityHashMap<>();

    YamlReading(String file) {
        this.file = file;
    }

    /**
     * The file's node tree; null when it is empty or not YAML (the one problem then says so, and
     * the reading ends).
     */
    Node compose(String text) {
        try {
            LoadSettings settings = LoadSettings.builder().setLabel(file).setSchema(new CoreSchema())
                    .setAllowDuplicateKeys(true).setMaxAliasesForCollections(10)
                    .setCodePointLimit(ExerciseFile.MAX_BYTES).build();
            Optional<Node> composed = new Compose(settings).composeString(text);
            if (composed.isEmpty()) {
                problems.add(new Problem(file, 1, "", "is empty; an exercise needs at least name, title, teaches,"
                        + " goal, start and checks"));
                return null;
            }
            return composed.get();
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
    }

    /** Records a problem with the value {@code at}, on its line. */
    void problem(Node at, String field, String message) {
        Problem problem = new Problem(file, line(at), field, message);
        problems.add(problem);
        offsets.put(problem, at.getStartMark().map(Mark::getIndex).orElse(0));
    }

    /** True once any problem was found. */
    boolean hasProblems() {
        return !problems.isEmpty();
    }

    /** The problems in the order of the file (a syntax error, the only one, has no offset). */
    List<Problem> inOrder() {
        return problems.stream().sorted(Comparator.comparingInt(Problem::line)
                .thenComparingInt(problem -> offsets.getOrDefault(problem, 0))).toList();
    }

    /** A mapping's fields; null (and a problem) when {@code node} is not a mapping. */
    Fields fields(Node node, String field, List<String> valid) {
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
    List<Node> sequence(Node node, String field, int min) {
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
    String scalar(Node node, String field) {
        if (!(node instanceof ScalarNode scalar) || scalar.getTag().equals(Tag.NULL)) {
            problem(node, field, "is " + what(node) + "; expected a value");
            return null;
        }
        return scalar.getValue();
    }

    /** A string: a scalar that YAML does not read as a number, a boolean or null. */
    String string(Node node, String field) {
        if (!(node instanceof ScalarNode scalar) || !scalar.getTag().equals(Tag.STR)) {
            problem(node, field, "is " + what(node) + "; expected text (quote it if it looks like a number)");
            return null;
        }
        return scalar.getValue();
    }

    /** Text that is not blank. */
    String nonBlank(Node node, String field) {
        String value = string(node, field);
        if (value != null && value.isBlank()) {
            problem(node, field, "is empty; write the text");
            return null;
        }
        return value;
    }

    Boolean bool(Node node, String field) {
        if (!(node instanceof ScalarNode scalar) || !scalar.getTag().equals(Tag.BOOL)) {
            problem(node, field, "is " + what(node) + "; expected true or false");
            return null;
        }
        return scalar.getValue().equalsIgnoreCase("true");
    }

    /** An integer (decimal, 0x hex or 0o octal, as YAML 1.2 writes them) within [min, max]. */
    Long integer(Node node, String field, long min, long max) {
        if (!(node instanceof ScalarNode scalar) || !scalar.getTag().equals(Tag.INT)) {
            problem(node, field, "is " + what(node) + "; expected a whole number in " + min + ".." + max);
            return null;
        }
        String text = scalar.getValue().replace("_", "");
        BigInteger value;
        try {
            if (text.startsWith("0x")) {
                value = new BigInteger(text.substring(2), 16);
            } else if (text.startsWith("0o")) {
                value = new BigInteger(text.substring(2), 8);
            } else {
                value = new BigInteger(text.startsWith("+") ? text.substring(1) : text);
            }
        } catch (NumberFormatException e) {
            problem(node, field, "'" + scalar.getValue() + "' is not a whole number");
            return null;
        }
        if (value.compareTo(BigInteger.valueOf(min)) < 0
                || value.compareTo(BigInteger.valueOf(max)) > 0) {
            problem(node, field, scalar.getValue() + " is outside " + min + ".." + max);
            return null;
        }
        return value.longValueExact();
    }

    /** One of {@code valid}, as written (case matters, as in verbs.h). */
    String choice(Node node, String field, List<String> valid, String what) {
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
    String enumName(Node node, String field, List<String> valid, String what, String prefix) {
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

    byte[] hexBytes(Node node, String field) {
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

    static String what(Node node) {
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
    final class Fields {
        private final MappingNode mapping;
        private final String path;
        private final Map<String, Node> values;

        Fields(MappingNode mapping, String path, Map<String, Node> values) {
            this.mapping = mapping;
            this.path = path;
            this.values = values;
        }

        /** The mapping itself (for a problem about the mapping as a whole). */
        MappingNode mapping() {
            return mapping;
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

    static int line(Node node) {
        return node.getStartMark().map(mark -> mark.getLine() + 1).orElse(1);
    }

    static String quoted(List<String> names) {
        return String.join(", ", names);
    }

    /** The first line of an exception's message. */
    static String firstLine(String text) {
        if (text == null) {
            return "";
        }
        String[] lines = text.strip().split("\n");
        return lines.length == 0 ? "" : lines[0].strip();
    }
}
