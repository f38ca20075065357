package org.rdmalab.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.rdmalab.lab.exercise.Check;
import org.rdmalab.lab.exercise.Exercise;
import org.rdmalab.lab.exercise.ExerciseFile;
import org.rdmalab.lab.exercise.Exercises;
import org.rdmalab.text.Json;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code exercise}: the built-in guided exercises of the window's Lessons tab. */
@Command(name = "exercise", mixinStandardHelpOptions = true,
        description = "The built-in guided exercises (the window's Lessons › Exercises), and instructors' exercise files.",
        subcommands = {ExerciseCommand.ListCommand.class, ExerciseCommand.CheckCommand.class})
final class ExerciseCommand {

    /** {@code exercise list [--json]}. */
    @Command(name = "list", mixinStandardHelpOptions = true,
            description = {
                "Lists the built-in exercises: name, title and what each teaches; with --json also the goal, the",
                "hints and what is checked. Open one with gui --exercise NAME."
            })
    static final class ListCommand implements Callable<Integer> {

        @Spec
        CommandSpec spec;

        @Mixin
        JsonOption json;

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            if (json.json()) {
                List<Map<String, Object>> all = new ArrayList<>();
                for (Exercise exercise : Exercises.all()) {
                    Map<String, Object> entry = new LinkedHashMap<>();
                    entry.put("name", exercise.name());
                    entry.put("title", exercise.title().english());
                    entry.put("teaches", exercise.teaches().english());
                    entry.put("goal", exercise.goal().english());
                    entry.put("flow", exercise.start().flow().label());
                    entry.put("gid_idx", exercise.start().gidIndex());
                    entry.put("hints", exercise.hints().stream().map(hint -> hint.english()).toList());
                    entry.put("checks", exercise.checks().stream().map(Check::said).map(said -> said.english())
                            .toList());
                    all.add(entry);
                }
                out.println(Json.write(Map.of("exercises", all)));
            } else {
                int width = Exercises.all().stream().mapToInt(exercise -> exercise.name().length()).max().orElse(0);
                for (Exercise exercise : Exercises.all()) {
                    out.printf("%-" + width + "s  %s: %s%n", exercise.name(), exercise.title().english(),
                            exercise.teaches().english());
                }
            }
            out.flush();
            return 0;
        }
    }

    /** {@code exercise check FILE}. */
    @Command(name = "check", mixinStandardHelpOptions = true,
            description = {
                "Checks an exercise file (YAML, docs/exercises.md): prints one line saying what it holds and exits 0,",
                "or prints every problem as FILE:LINE: FIELD: what is wrong, one a line, and exits 2.",
                "Open it with gui --exercise FILE."
            })
    static final class CheckCommand implements Callable<Integer> {

        @Spec
        CommandSpec spec;

        @Parameters(paramLabel = "FILE", description = "The exercise file (.yaml).")
        Path file;

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            PrintWriter err = spec.commandLine().getErr();
            Exercise exercise;
            try {
                exercise = ExerciseFile.read(file);
            } catch (ExerciseFile.Refused refused) {
                refused.problems().forEach(err::println);
                err.flush();
                return 2;
            }
            out.println(summary(file.toString(), exercise));
            out.flush();
            return 0;
        }

        /** {@code FILE: ok: NAME "TITLE", N hints, M checks, FLOW with gid_idx G}. */
        static String summary(String file, Exercise exercise) {
            var start = exercise.start();
            StringBuilder line = new StringBuilder(file).append(": ok: ").append(exercise.name()).append(" \"")
                    .append(exercise.title().english()).append("\", ").append(count(exercise.hints().size(), "hint"))
                    .append(", ").append(count(exercise.checks().size(), "check")).append(", ")
                    .append(start.flow().label()).append(" with gid_idx ").append(start.gidIndex());
            if (!start.edits().isEmpty()) {
                line.append(", ").append(count(start.edits().size(), "parameter")).append(" set");
            }
            if (start.device() != null) {
                line.append(", on ").append(start.device());
            }
            if (start.faults() != null) {
                line.append(", faults ").append(start.faults().toSpec());
            }
            return line.toString();
        }

        private static String count(int n, String what) {
            return n + " " + what + (n == 1 ? "" : "s");
        }
    }
}
