package org.rdmalab.lab.scenario;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.rdmalab.lab.LabSession;
import org.rdmalab.lab.Step;
import org.rdmalab.lab.StepResult;
import org.rdmalab.verbs.VerbsException;

/**
 * A scenario's traffic and checks as the last step of its last side, so the lab's own controls
 * (Next step, Run to selected, Run both to end) run a scenario from its first step to its checked
 * outcome. It first waits for the other side to finish its steps (the lab's sides run at once),
 * then posts the traffic on both sessions from this side's thread, while the other side is idle;
 * its result is the outcome: done when as expected, failed with what differed.
 */
final class TrafficStep extends Step {

    /** The step's id; a window titles it by {@code step.scenario-traffic}. */
    static final String ID = "scenario-traffic";

    private final Scenario scenario;
    private final Supplier<ScenarioRun> run;
    private final Supplier<List<LabSession>> others;
    private final Duration wait;
    private final Consumer<ScenarioResult> checked;

    TrafficStep(Scenario scenario, Supplier<ScenarioRun> run, Supplier<List<LabSession>> others, Duration wait,
                Consumer<ScenarioResult> checked) {
        super(ID, "Post the traffic and check");
        this.scenario = Objects.requireNonNull(scenario);
        this.run = Objects.requireNonNull(run);
        this.others = Objects.requireNonNull(others);
        this.wait = Objects.requireNonNull(wait);
        this.checked = Objects.requireNonNull(checked);
    }

    @Override
    public String cCode(LabSession session) {
        return "/* " + scenario.name() + ": " + scenario.description() + " */";
    }

    @Override
    protected StepResult execute(LabSession session) throws Exception {
        long deadline = System.nanoTime() + wait.toNanos();
        while (!others.get().stream().allMatch(LabSession::finished)) {
            if (System.nanoTime() - deadline > 0) {
                return StepResult.failed("the other side did not finish its steps within " + wait.toSeconds()
                        + " s: run them first");
            }
            Thread.sleep(10);
        }
        ScenarioResult result;
        try {
            result = scenario.traffic(run.get());
        } catch (VerbsException e) {
            result = ScenarioResult.unexpected("a verb failed where the scenario did not expect it",
                    List.of(e.getMessage()));
        }
        checked.accept(result);
        return result.asExpected() ? StepResult.ok(result.summary())
                : StepResult.failed(result.summary(), result.problems().toArray(String[]::new));
    }
}
