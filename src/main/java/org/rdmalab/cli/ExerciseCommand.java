package org.rdmalab.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.rdmalab.lab.exercise.Check;
import org.rdmalab.lab.exercise.Exercise;
import org.rdmalab.lab.exercise.Exercises;
import org.rdmalab.text.Json;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code exercise}: the built-in guided exercises of the window's Lessons tab. */
@Command(name = "exercise", mixinStandardHelpOptions = true,
        description = "The built-in guided exercises (the window's Lessons › Exercises).",
        subcommands = {ExerciseCommand.ListCommand.class})
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
}
