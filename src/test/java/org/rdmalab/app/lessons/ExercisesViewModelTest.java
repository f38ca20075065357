package org.rdmalab.app.lessons;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rdmalab.lab.exercise.ExerciseDocTest;
import org.rdmalab.app.TestUiThread;
import org.rdmalab.app.lab.LabViewModel;
import org.rdmalab.app.lab.SideViewModel;
import org.rdmalab.app.lab.TrafficViewModel;
import org.rdmalab.lab.exercise.Exercises;
import org.rdmalab.testing.Ports;
import org.rdmalab.verbs.QpState;
import org.rdmalab.verbs.WrOpcode;
import org.rdmalab.verbs.spi.Backends;
import org.rdmalab.verbs.spi.DeviceOptions;

/**
 * The Exercises tab's view model over the window's lab, without the toolkit: starting an exercise
 * sets the lab to its starting point, hints come one at a time, and the checks follow what the
 * window's own commands do (the diagram's clicks, Run again from here, the Traffic tab).
 */
class ExercisesViewModelTest {

    private TestUiThread uiThread;
    private LabViewModel lab;
    private ExercisesViewModel exercises;

    @BeforeEach
    void start() {
        uiThread = new TestUiThread(Duration.ofSeconds(30));
        DeviceOptions base = DeviceOptions.defaults().withUdpPort(Ports.freeUdpPort());
        lab = onUi(() -> new LabViewModel(Backends.installed(), base, Runnable::run, uiThread,
                LabViewModel.daemonWorkers()));
        exercises = onUi(() -> new ExercisesViewModel(lab));
    }

    @AfterEach
    void stop() throws InterruptedException {
        onUi(() -> {
            lab.close();
            return null;
        });
        assertTrue(uiThread.stop());
    }

    private <T> T onUi(Callable<T> action) {
        return uiThread.call(action);
    }

    private void run(Runnable action) {
        onUi(() -> {
            action.run();
            return null;
        });
    }

    private void await(String what, BooleanSupplier condition) {
        uiThread.await(what, condition);
    }

    private SideViewModel side(String name) {
        return lab.sides().stream().filter(side -> side.name().equals(name)).findFirst().orElseThrow();
    }

    private boolean idle() {
        return lab.sides().stream().noneMatch(side -> side.busyProperty().get());
    }

    private int index(SideViewModel side, String id) {
        return side.steps().stream().filter(row -> row.step().id().equals(id)).findFirst().orElseThrow().index();
    }

    @Test
    void startingAnExerciseSetsTheLabToItsStartAndHintsComeOneAtATime() {
        run(() -> {
            exercises.chosenProperty().set(Exercises.named("psn-mismatch").orElseThrow());
            assertEquals(2, exercises.checks().size(), "the chosen exercise's checks, open");
            assertFalse(exercises.moreHintsProperty().get(), "no hints before it is started");
            exercises.start();
            assertEquals("3", lab.setup().gidIndexProperty().get());
            assertEquals("0x10", side("server").session().steps().get(index(side("server"), "modify-rtr"))
                    .parameter("rq_psn").value(), "the exercise's wrong rq_psn");
            assertEquals("0", side("client").session().steps().get(index(side("client"), "modify-rts"))
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
            assertEquals("0x10", side("server").session().steps().get(index(side("server"), "modify-rtr"))
                    .parameter("rq_psn").value());
            // Choosing another exercise shows its checks, all open, without touching the lab.
            exercises.chosenProperty().set(Exercises.named("fetch-add").orElseThrow());
            assertEquals(4, exercises.checks().size());
            assertTrue(exercises.checks().stream().noneMatch(ExercisesViewModel.CheckRow::met));
        });
    }

    @Test
    void qpRecoverIsDoneThroughTheDiagramRunAgainFromHereAndTheTrafficTab() {
        TrafficViewModel traffic = onUi(() -> new TrafficViewModel(lab, uiThread));
        run(() -> {
            exercises.chosenProperty().set(Exercises.named("qp-recover").orElseThrow());
            exercises.start();
            lab.runAllToEnd();
        });
        await("the seed's flow", () -> idle() && side("client").nextIndexProperty().get() == side("client").steps().size());
        run(() -> side("client").requestState(QpState.ERR));
        await("ERR", () -> idle() && side("client").localStateProperty().get() == QpState.ERR);
        run(() -> side("client").requestState(QpState.RESET));
        await("RESET", () -> idle() && side("client").localStateProperty().get() == QpState.RESET);
        run(() -> {
            SideViewModel client = side("client");
            client.session().steps().get(index(client, "modify-rts")).parameter("sq_psn").set("1");
            assertTrue(client.rewindTo(index(client, "modify-init")));
        });
        await("rewound", () -> idle() && side("client").nextIndexProperty().get() == index(side("client"), "modify-init"));
        run(() -> side("client").runTo(index(side("client"), "modify-rts")));
        await("the same QP back in RTS", () -> idle() && exercises.metProperty().get() == 1);
        run(() -> {
            assertEquals(QpState.RTS, side("client").localStateProperty().get());
            traffic.sideProperty().set(side("client"));
            traffic.opcodeProperty().set(WrOpcode.RDMA_WRITE);
            traffic.dataProperty().set("Recovered");
            traffic.post();
        });
        await("done", () -> exercises.doneProperty().get());
        assertEquals("Done: every check is met", onUi(() -> exercises.progressProperty().get()));
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
        return onUi(() -> exercises.problemProperty().get().lines().toList());
    }

    @Test
    void aRefusedFileNamesEachOfItsProblemsOneALineUpToEightAndHowManyMoreThereAre(@TempDir Path folder)
            throws Exception {
        int before = onUi(() -> exercises.exercises().size());
        Path two = brokenFile(folder, 2);
        run(() -> exercises.open(two));
        List<String> lines = problemLines();
        assertEquals(3, lines.size(), String.join("\n", lines));
        assertEquals("The exercise file was refused: 2 problems, each with its line and field:", lines.get(0));
        assertTrue(lines.get(1).startsWith(two + ":") && lines.get(1).contains("IBV_QPS_NOPE0"), lines.get(1));
        assertTrue(lines.get(2).contains("IBV_QPS_NOPE1"), lines.get(2));
        assertTrue(onUi(() -> lab.statusProperty().get()).endsWith("(and 1 more: exercise check lists them)"),
                "the status line is one line: the first problem and how many more");
        assertFalse(onUi(() -> lab.statusProperty().get()).contains("\n"));

        Path eight = brokenFile(folder, 8);
        run(() -> exercises.open(eight));
        lines = problemLines();
        assertEquals(9, lines.size(), "eight problems are all listed");
        assertTrue(lines.get(8).contains("IBV_QPS_NOPE7"), lines.get(8));

        Path nine = brokenFile(folder, 9);
        run(() -> exercises.open(nine));
        lines = problemLines();
        assertEquals(10, lines.size(), "eight listed, then how many more");
        assertTrue(lines.get(8).contains("IBV_QPS_NOPE7"), lines.get(8));
        assertEquals("… and 1 more: exercise check " + nine + " lists them all", lines.get(9));

        Path one = brokenFile(folder, 1);
        run(() -> exercises.open(one));
        lines = problemLines();
        assertEquals(1, lines.size(), "one problem is one line");
        assertTrue(lines.get(0).startsWith("The exercise file was refused: " + one + ":"), lines.get(0));
        assertEquals(before, (int) onUi(() -> exercises.exercises().size()), "no refused file joins the list");
    }
}
