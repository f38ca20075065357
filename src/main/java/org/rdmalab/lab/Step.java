package org.rdmalab.lab;

import java.util.List;
import java.util.Optional;
import org.rdmalab.text.Phrase;

/**
 * One step of the teaching flow: editable parameters with the seed's defaults, the C code that
 * performs it with those parameters, and a result once run. Subclasses implement {@link #execute}
 * through the verbs API only.
 */
public abstract class Step {

    /** Where a step stands. */
    public enum Status { PENDING, DONE, FAILED }

    private final String id;
    private final String title;
    private final List<Parameter> parameters;
    private Status status = Status.PENDING;
    private StepResult result;

    protected Step(String id, String title, Parameter... parameters) {
        this.id = id;
        this.title = title;
        this.parameters = List.of(parameters);
    }

    /** A short stable id ("alloc-pd"). */
    public final String id() {
        return id;
    }

    /** The title shown in the step list ("Allocate PD"). */
    public final String title() {
        return title;
    }

    /** The editable parameters. */
    public final List<Parameter> parameters() {
        return parameters;
    }

    /** The parameter called {@code name}. */
    public final Parameter parameter(String name) {
        for (Parameter parameter : parameters) {
            if (parameter.name().equals(name)) {
                return parameter;
            }
        }
        throw new IllegalArgumentException("step '" + id + "' has no parameter '" + name + "'");
    }

    /** PENDING until run, then DONE or FAILED. */
    public final Status status() {
        return status;
    }

    /** The last result, if the step ran. */
    public final Optional<StepResult> result() {
        return Optional.ofNullable(result);
    }

    final void finish(StepResult stepResult) {
        result = stepResult;
        status = stepResult.ok() ? Status.DONE : Status.FAILED;
    }

    final void clear() {
        result = null;
        status = Status.PENDING;
    }

    /** The C code (in the seed's context: {@code res}, {@code config}) this step runs with its parameters. */
    public abstract String cCode(LabSession session);

    /** Why the step cannot run yet ("create the QP first"), or empty when it can. */
    public Optional<Phrase> blockedBy(LabSession session) {
        return Optional.empty();
    }

    /**
     * Runs the step. Failures of verbs and of the control plane come back as a failed result (with
     * the errno and an explanation), not as exceptions.
     */
    protected abstract StepResult execute(LabSession session) throws Exception;

    @Override
    public String toString() {
        return title;
    }
}
