package org.rdmalab.lab.exercise;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rdmalab.lab.Role;
import org.rdmalab.verbs.FaultControl;
import org.rdmalab.verbs.FaultSettings;

/**
 * docs/exercises.md's complete example of an exercise file is a working exercise: it parses, and
 * played through the loopback lab as a student would (see RTR fail, fix the GID, run again) it is
 * done, with the devices carrying the file's faults; played the other way round it is not.
 */
@Timeout(120)
public class ExerciseDocTest {

    /** The first ```yaml block of docs/exercises.md. */
    public static String docExample() throws Exception {
        String doc = Files.readString(Path.of("docs", "exercises.md"));
        Matcher block = Pattern.compile("```yaml\n(.*?)```", Pattern.DOTALL).matcher(doc);
        assertTrue(block.find(), "docs/exercises.md has a ```yaml block");
        return block.group(1);
    }

    @Test
    void theDocsExampleParsesWithEveryStartField() throws Exception {
        Exercise exercise = ExerciseFile.parse("rtr-refused.yaml", docExample(), false);
        assertEquals("rtr-refused", exercise.name());
        assertEquals("soft0", exercise.start().device());
        assertEquals(FaultSettings.parse("delay=1ms,seed=7"), exercise.start().faults());
        assertEquals(4, exercise.start().edits().size());
        assertEquals(6, exercise.checks().size());
    }

    @Test
    void theDocsExampleIsDoneBySeeingRtrFailThenFixingTheGid() throws Exception {
        Exercise exercise = ExerciseFile.parse("rtr-refused.yaml", docExample(), false);
        try (ExerciseLab lab = new ExerciseLab(exercise)) {
            assertFalse(lab.runBoth(), "gid_idx -1 fails RTR");
            lab.awaitMet(0);
            assertFalse(lab.attempt.statuses().get(1).met());
            assertFalse(lab.attempt.statuses().get(3).met());
            assertEquals(FaultSettings.parse("delay=1ms,seed=7"),
                    ((FaultControl) lab.client.resources().context().orElseThrow()).faults());
            for (Role role : Role.values()) {
                lab.edit(role, "query-port", "gid_idx", "3");
            }
            lab.resetBoth();
            assertTrue(lab.runBoth(), () -> lab.lastRun + " " + lab.open());
            lab.awaitDone();
        }
    }

    @Test
    void theDocsExampleStaysOpenWhenRtrNeverFailed() throws Exception {
        Exercise exercise = ExerciseFile.parse("rtr-refused.yaml", docExample(), false);
        try (ExerciseLab lab = new ExerciseLab(exercise)) {
            for (Role role : Role.values()) {
                lab.edit(role, "query-port", "gid_idx", "3");
            }
            assertTrue(lab.runBoth(), () -> lab.lastRun);
            lab.awaitMet(4);
            lab.awaitMet(5);
            assertEquals(2, lab.attempt.metCount(), lab.attempt.statuses().toString());
        }
    }
}
