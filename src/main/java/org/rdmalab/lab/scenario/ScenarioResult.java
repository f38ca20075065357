package org.rdmalab.lab.scenario;

import java.util.List;

/**
 * How a scenario ended.
 *
 * @param asExpected true when the device did what the scenario teaches (exit 0), false otherwise (exit 1)
 * @param summary one sentence saying what happened
 * @param problems what differed from the expectation (empty when as expected)
 */
public record ScenarioResult(boolean asExpected, String summary, List<String> problems) {

    public ScenarioResult {
        problems = List.copyOf(problems);
    }

    /** Ended as expected. */
    public static ScenarioResult expected(String summary) {
        return new ScenarioResult(true, summary, List.of());
    }

    /** Did not end as expected. */
    public static ScenarioResult unexpected(String summary, List<String> problems) {
        return new ScenarioResult(false, summary, problems);
    }
}
