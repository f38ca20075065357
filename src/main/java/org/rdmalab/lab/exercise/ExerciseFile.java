package org.rdmalab.lab.exercise;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.rdmalab.text.Phrase;
import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.Node;

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
 * <p>The reading is in parts: {@link YamlReading} holds the problems and reads single values,
 * {@link StartReading} the {@code start}, {@link CheckReading} the {@code checks}, and this class
 * the file, its name and texts.
 *
 * <p>Thread-safe: every method works on its own objects.
 */
public final class ExerciseFile {

    /** The file name ending the format takes ({@code .yml} is taken too). */
    public static final String EXTENSION = ".yaml";
    /** The largest file read (a few kilobytes make an exercise). */
    public static final int MAX_BYTES = 1 << 20;

    private static final List<String> TOP = List.of("name", "title", "teaches", "goal", "hints", "start", "checks");
    private static final List<String> TEXT = List.of("en", "zh_CN");
    /** The longest name. */
    static final int MAX_NAME = 40;

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
        YamlReading yaml = new YamlReading(name);
        Exercise exercise = new Reading(yaml, builtIn).exercise(text);
        if (yaml.hasProblems() || exercise == null) {
            throw new Refused(!yaml.hasProblems()
                    ? List.of(new Problem(name, 1, "", "holds no exercise")) : yaml.inOrder());
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

    /** One file being read: its top level, with the readers of its start and checks. */
    private static final class Reading {
        private final YamlReading yaml;
        private final boolean builtIn;
        private final StartReading startReading;
        private final CheckReading checkReading;

        Reading(YamlReading yaml, boolean builtIn) {
            this.yaml = yaml;
            this.builtIn = builtIn;
            this.startReading = new StartReading(yaml);
            this.checkReading = new CheckReading(yaml, startReading);
        }

        Exercise exercise(String text) {
            Node root = yaml.compose(text);
            if (root == null) {
                return null;
            }
            YamlReading.Fields top = yaml.fields(root, "", TOP);
            if (top == null) {
                return null;
            }
            String name = top.required("name").map(node -> name(node, "name")).orElse(null);
            Phrase title = top.required("title").map(node -> text(node, "title")).orElse(null);
            Phrase teaches = top.required("teaches").map(node -> text(node, "teaches")).orElse(null);
            Phrase goal = top.required("goal").map(node -> text(node, "goal")).orElse(null);
            List<Phrase> hints = top.optional("hints").map(this::hints).orElse(List.of());
            Start start = top.required("start").map(startReading::start).orElse(null);
            List<Check> checks = top.required("checks").map(node -> checkReading.checks(node, start)).orElse(null);
            if (yaml.hasProblems() || name == null || title == null || teaches == null || goal == null
                    || hints == null || start == null || checks == null) {
                return null;
            }
            return new Exercise(name, title, teaches, goal, hints, start, checks);
        }

        private String name(Node node, String field) {
            String value = yaml.string(node, field);
            if (value == null) {
                return null;
            }
            if (!value.matches("[a-z0-9][a-z0-9-]*") || value.length() > MAX_NAME) {
                yaml.problem(node, field, "'" + value + "' is not a name: lower-case letters, digits and '-', at most "
                        + MAX_NAME + " characters (e.g. small-recv)");
                return null;
            }
            if (!builtIn && Exercises.named(value).isPresent()) {
                yaml.problem(node, field, "'" + value + "' is a built-in exercise's name; choose another");
                return null;
            }
            return value;
        }

        /** A text: one string, or {@code en} and {@code zh_CN}. */
        private Phrase text(Node node, String field) {
            if (node instanceof MappingNode) {
                YamlReading.Fields text = yaml.fields(node, field, TEXT);
                if (text == null) {
                    return null;
                }
                String english = text.required("en").map(value -> yaml.nonBlank(value, field + ".en")).orElse(null);
                String chinese = text.optional("zh_CN").map(value -> yaml.nonBlank(value, field + ".zh_CN"))
                        .orElse(null);
                if (english == null) {
                    return null;
                }
                return chinese == null ? Phrase.literal(english) : Phrase.translated(english, chinese);
            }
            String english = yaml.nonBlank(node, field);
            return english == null ? null : Phrase.literal(english);
        }

        private List<Phrase> hints(Node node) {
            List<Node> items = yaml.sequence(node, "hints", 0);
            if (items == null) {
                return null;
            }
            List<Phrase> hints = new ArrayList<>();
            for (int i = 0; i < items.size(); i++) {
                hints.add(text(items.get(i), "hints[" + (i + 1) + "]"));
            }
            return hints;
        }
    }
}
