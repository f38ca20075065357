package org.rdmalab.app.lessons;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.rdmalab.lab.exercise.ExerciseDocTest;
import org.rdmalab.app.LoopbackLab;
import org.rdmalab.app.lab.LabViewModel;
import org.rdmalab.app.lab.SideViewModel;
import org.rdmalab.app.lab.TrafficViewModel;
import org.rdmalab.lab.exercise.Exercises;
import org.rdmalab.verbs.QpState;
import org.rdmalab.verbs.WrOpcode;

/**
 * The Exercises tab's view model over the window's lab, without the toolkit: starting an exercise
 * sets the lab to its starting point, hints come one at a time, and the checks follow what the
 * window's own commands do (the diagram's clicks, Run again from here, the Traffic tab).
 */
class ExercisesViewModelTest {

    @RegisterExtension
    final LoopbackLab loopback = new LoopbackLab();

    private LabViewModel lab;
    private ExercisesViewModel exercises;

    @BeforeEach
    void start() {
        lab = loopback.lab();
        exercises = loopback.onUi(() -> new ExercisesViewModel(lab));
    }

    private int index(SideViewModel side, String id) {
        return side.steps().stream().filter(row -> row.step().id().equals(id)).findFirst().orElseThrow().index();
    }

    @Test
    void startingAnExerciseSetsTheLabToItsStartAndHintsComeOneAtATime() {
        loopback.run(() -> {
            exercises.chosenProperty().set(Exercises.named("psn-mismatch").orElseThrow());
            assertEquals(2, exercises.checks().size(), "the chosen exercise's checks, open");
            assertFalse(exercises.moreHintsProperty().get(), "no hints before it is started");
            exercises.start();
            assertEquals("3", lab.setup().gidIndexProperty().get());
            assertEquals("0x10", loopback.side("server").session().steps().get(index(loopback.side("server"), "modify-rtr"))
                    .parameter("rq_psn").value(), "the exercise's wrong rq_psn");
            assertEquals("0", loopback.side("client").session().steps().get(index(loopback.side("client"), "modify-rts"))
                    .parameter("sq_psn").value());
            assertEquals("0 of 2 checks met", exercises.progressProperty().get());
            for (int i = 0; i < 3; i++) {
                assertTrue(exercises.moreHintsProperty().get());
                exercises.revealHint();
                assertEquals(i + 1, exercises.hints().size());
            }
            assertFalse(exercises.moreHintsProperty().get());
            exercises.revealHint();
            assertEquals(3, exercises.hints().size(), "three hints, no more");
            // A new setup (Apply setup) keeps the exercise's parameters on the new sessions.
            lab.apply(lab.defaultSetup().withGidIndex("3"));
            assertEquals("0x10", loopback.side("server").session().steps().get(index(loopback.side("server"), "modify-rtr"))
                    .parameter("rq_psn").value());
            // Choosing another exercise shows its checks, all open, without touching the lab.
            exercises.chosenProperty().set(Exercises.named("fetch-add").orElseThrow());
            assertEquals(4, exercises.checks().size());
            assertTrue(exercises.checks().stream().noneMatch(ExercisesViewModel.CheckRow::met));
        });
    }

    @Test
    void qpRecoverIsDoneThroughTheDiagramRunAgainFromHereAndTheTrafficTab() {
        TrafficViewModel traffic = loopback.onUi(() -> new TrafficViewModel(lab, loopback.ui()));
        loopback.run(() -> {
            exercises.chosenProperty().set(Exercises.named("qp-recover").orElseThrow());
            exercises.start();
            lab.runAllToEnd();
        });
        loopback.await("the seed's flow", () -> loopback.idle() && loopback.side("client").nextIndexProperty().get() == loopback.side("client").steps().size());
        loopback.run(() -> loopback.side("client").requestState(QpState.ERR));
        loopback.await("ERR", () -> loopback.idle() && loopback.side("client").localStateProperty().get() == QpState.ERR);
        loopback.run(() -> loopback.side("client").requestState(QpState.RESET));
        loopback.await("RESET", () -> loopback.idle() && loopback.side("client").localStateProperty().get() == QpState.RESET);
        loopback.run(() -> {
            SideViewModel client = loopback.side("client");
            client.session().steps().get(index(client, "modify-rts")).parameter("sq_psn").set("1");
            assertTrue(client.rewindTo(index(client, "modify-init")));
        });
        loopback.await("rewound", () -> loopback.idle() && loopback.side("client").nextIndexProperty().get() == index(loopback.side("client"), "modify-init"));
        loopback.run(() -> loopback.side("client").runTo(index(loopback.side("client"), "modify-rts")));
        loopback.await("the same QP back in RTS", () -> loopback.idle() && exercises.metProperty().get() == 1);
        loopback.run(() -> {
            assertEquals(QpState.RTS, loopback.side("client").localStateProperty().get());
            traffic.sideProperty().set(loopback.side("client"));
            traffic.opcodeProperty().set(WrOpcode.RDMA_WRITE);
            traffic.dataProperty().set("Recovered");
            traffic.post();
        });
        loopback.await("done", () -> exercises.doneProperty().get());
        assertEquals("Done: every check is met", loopback.onUi(() -> exercises.progressProperty().get()));
    }

    @Test
    void aFileOpenedBeforeTheListIsShownComesAfterTheBuiltInOnesAndIsChosen(@TempDir Path folder) throws Exception {
        Path file = Files.writeString(folder.resolve("example.yaml"), ExerciseDocTest.docExample());
        loopback.run(() -> exercises.open(file));
        loopback.run(() -> {
            List<String> names = exercises.exercises().stream().map(exercise -> exercise.name()).toList();
            assertEquals(Exercises.all().size() + 1, names.size(), names.toString());
            assertEquals(Exercises.all().stream().map(exercise -> exercise.name()).toList(),
                    names.subList(0, Exercises.all().size()), "the built-in ones first, in their order");
            assertEquals(names.get(names.size() - 1), exercises.chosenProperty().get().name(), "the file's, chosen");
            assertEquals(exercises.chosenProperty().get(), exercises.startedProperty().get());
        });
    }

    @Test
    void theFirstBuiltInExerciseIsChosenWhenTheListIsFirstAskedFor() {
        loopback.run(() -> {
            assertEquals(Exercises.all().get(0), exercises.chosenProperty().get());
            assertEquals(Exercises.all(), List.copyOf(exercises.exercises()));
            assertEquals(Exercises.all().get(0).checks().size(), exercises.checks().size(), "its checks, open");
        });
    }

    /** The docs' example file with {@code bad} more checks, each naming a QP state that does not exist. */
    private static Path brokenFile(Path folder, int bad) throws Exception {
        StringBuilder text = new StringBuilder(ExerciseDocTest.docExample());
        for (int i = 0; i < bad; i++) {
            text.append("  - {kind: qp_state, side: server, state: IBV_QPS_NOPE").append(i).append("}\n");
        }
        return Files.writeString(folder.resolve("broken-" + bad + ".yaml"), text);
    }

    private List<String> problemLines() {
        return loopback.onUi(() -> exercises.problemProperty().get().lines().toList());
    }

    @Test
    void aRefusedFileNamesEachOfItsProblemsOneALineUpToEightAndHowManyMoreThereAre(@TempDir Path folder)
            throws Exception {
        int before = loopback.onUi(() -> exercises.exercises().size());
        Path two = brokenFile(folder, 2);
        loopback.run(() -> exercises.open(two));
        List<String> lines = problemLines();
        assertEquals(3, lines.size(), String.join("\n", lines));
        assertEquals("The exercise file was refused: 2 problems, each with its line and field:", lines.get(0));
        assertTrue(lines.get(1).startsWith(two + ":") && lines.get(1).contains("IBV_QPS_NOPE0"), lines.get(1));
        assertTrue(lines.get(2).contains("IBV_QPS_NOPE1"), lines.get(2));
        assertTrue(loopback.onUi(() -> lab.statusProperty().get()).endsWith("(and 1 more: exercise check lists them)"),
                "the status line is one line: the first problem and how many more");
        assertFalse(loopback.onUi(() -> lab.statusProperty().get()).contains("\n"));

        Path eight = brokenFile(folder, 8);
        loopback.run(() -> exercises.open(eight));
        lines = problemLines();
        assertEquals(9, lines.size(), "eight problems are all listed");
        assertTrue(lines.get(8).contains("IBV_QPS_NOPE7"), lines.get(8));

        Path nine = brokenFile(folder, 9);
        loopback.run(() -> exercises.open(nine));
        lines = problemLines();
        assertEquals(10, lines.size(), "eight listed, then how many more");
        assertTrue(lines.get(8).contains("IBV_QPS_NOPE7"), lines.get(8));
        assertEquals("… and 1 more: exercise check " + nine + " lists them all", lines.get(9));

        Path one = brokenFile(folder, 1);
        loopback.run(() -> exercises.open(one));
        lines = problemLines();
        assertEquals(1, lines.size(), "one problem is one line");
        assertTrue(lines.get(0).startsWith("The exercise file was refused: " + one + ":"), lines.get(0));
        assertEquals(before, (int) loopback.onUi(() -> exercises.exercises().size()), "no refused file joins the list");
    }
}
