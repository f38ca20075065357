package org.rdmalab.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.rdmalab.lab.exercise.ExerciseFileTest;
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

    @Test
    void checkAcceptsAGoodFileWithOneLineAndExitZero(@TempDir Path folder) throws Exception {
        Path file = Files.writeString(folder.resolve("small-recv.yaml"), ExerciseFileTest.FULL);
        CliRunner.Result result = CliRunner.run("exercise", "check", file.toString());
        assertEquals(0, result.exitCode(), result.err());
        assertEquals(file + ": ok: small-recv \"A receive too small\", 2 hints, 14 checks, rc-example with gid_idx 3,"
                + " 4 parameters set, on soft0, faults drop=0.01,seed=7\n", result.out());
        assertEquals("", result.err());
    }

    @Test
    void checkListsEveryProblemOneALineAndExitsTwo(@TempDir Path folder) throws Exception {
        String text = ExerciseFileTest.FULL.replace("gid_idx: 3", "gid_idx: 256")
                .replace("status: IBV_WC_SUCCESS", "status: IBV_WC_SUCESS").replace("byte_len: 11}", "bytelen: 11}");
        Path file = Files.writeString(folder.resolve("broken.yaml"), text);
        CliRunner.Result result = CliRunner.run("exercise", "check", file.toString());
        assertEquals(2, result.exitCode(), result.out());
        assertEquals("", result.out());
        List<String> lines = result.err().lines().toList();
        assertEquals(3, lines.size(), result.err());
        assertEquals(file + ":14: start.gid_idx: 256 is outside -1..255", lines.get(0));
        assertTrue(lines.get(1).startsWith(file + ":24: checks[1].status: 'IBV_WC_SUCESS' is not a completion status"
                + " (IBV_WC_SUCCESS, IBV_WC_LOC_LEN_ERR, "), lines.get(1));
        assertTrue(lines.get(2).startsWith(file + ":24: checks[1].bytelen: unknown key; valid keys here: kind,"),
                lines.get(2));
    }

    @Test
    void checkOfAMissingFileIsOneLineAndExitTwo(@TempDir Path folder) {
        Path none = folder.resolve("none.yaml");
        CliRunner.Result result = CliRunner.run("exercise", "check", none.toString());
        assertEquals(2, result.exitCode());
        assertEquals(none + ":1: no such file\n", result.err());
        assertEquals(2, CliRunner.run("exercise", "check").exitCode());
    }
}
