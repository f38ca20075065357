package org.rdmalab.app.lessons;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
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
}
