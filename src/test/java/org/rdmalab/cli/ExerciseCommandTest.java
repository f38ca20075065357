package org.rdmalab.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.rdmalab.lab.exercise.Exercises;

/** {@code exercise list [--json]}: every built-in exercise, with its name, title and what it teaches. */
class ExerciseCommandTest {

    @Test
    void listPrintsOneLinePerExerciseWithNameTitleAndWhatItTeaches() {
        CliRunner.Result result = CliRunner.run("exercise", "list");
        assertEquals(0, result.exitCode(), result.err());
        List<String> lines = result.out().lines().toList();
        assertEquals(Exercises.all().size(), lines.size(), result.out());
        assertTrue(lines.get(0).startsWith("gid-for-roce    RoCE needs a GID: RoCE routes by GID"), lines.get(0));
        assertTrue(lines.stream().anyMatch(line -> line.startsWith("drop-ack        A lost ACK: ")), result.out());
    }

    @Test
    void listJsonCarriesTheGoalHintsAndChecksInEnglish() {
        CliRunner.Result result = CliRunner.run("exercise", "list", "--json");
        assertEquals(0, result.exitCode(), result.err());
        String json = result.out();
        assertTrue(json.startsWith("{\n  \"exercises\": ["), json);
        assertTrue(json.contains("\"name\": \"access-error\""), json);
        assertTrue(json.contains("\"gid_idx\": \"-1\""), json);
        assertTrue(json.contains("\"flow\": \"rc-example\""), json);
        assertTrue(json.contains("\"the client polls a completion IBV_WC_REM_ACCESS_ERR\""), json);
        assertEquals(Exercises.all().size(), json.split("\"name\": ").length - 1);
    }

    @Test
    void anUnknownSubcommandIsAUsageError() {
        CliRunner.Result result = CliRunner.run("exercise", "lst");
        assertEquals(2, result.exitCode(), result.out() + result.err());
    }
}
