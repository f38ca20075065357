package org.rdmalab.lab;

import java.util.List;

/**
 * What running a step gave: what it created (handles, keys, QPN, PSN) or why it failed.
 *
 * @param ok true when the step succeeded
 * @param summary one line ("pd 0x1", "EINVAL: missing: DEST_QPN")
 * @param details further lines (created objects, explanation)
 */
public record StepResult(boolean ok, String summary, List<String> details) {

    public StepResult {
        details = List.copyOf(details);
    }

    /** A success with details. */
    public static StepResult ok(String summary, String... details) {
        return new StepResult(true, summary, List.of(details));
    }

    /** A failure with an explanation. */
    public static StepResult failed(String summary, String... details) {
        return new StepResult(false, summary, List.of(details));
    }
}
