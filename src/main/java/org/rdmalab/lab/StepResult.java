package org.rdmalab.lab;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What running a step gave: what it created (handles, keys, QPN, PSN) or why it failed.
 *
 * @param ok true when the step succeeded
 * @param summary one line ("pd 0x1", "EINVAL: missing: DEST_QPN")
 * @param details further lines (created objects, explanation)
 * @param diagnosis for a failure that can be blamed on one parameter: which, why and the fix
 */
public record StepResult(boolean ok, String summary, List<String> details, Optional<Diagnosis> diagnosis) {

    public StepResult {
        details = List.copyOf(details);
        Objects.requireNonNull(diagnosis, "diagnosis");
    }

    /** A result without a diagnosis. */
    public StepResult(boolean ok, String summary, List<String> details) {
        this(ok, summary, details, Optional.empty());
    }

    /** This failure with {@code found} attached. */
    public StepResult withDiagnosis(Diagnosis found) {
        return new StepResult(ok, summary, details, Optional.of(found));
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
