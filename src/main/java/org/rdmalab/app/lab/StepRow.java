package org.rdmalab.app.lab;

import javafx.beans.property.BooleanProperty;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.beans.property.SimpleObjectProperty;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;
import org.rdmalab.app.common.UiText;
import org.rdmalab.lab.Step;
import org.rdmalab.lab.StepResult;

/** One line of a step list: the step, where it stands and its result. JavaFX thread only. */
public final class StepRow {

    /** Where a step stands, as the list shows it. */
    public enum Status {
        PENDING("pending"), RUNNING("running"), DONE("done"), FAILED("failed");

        private final String text;

        Status(String text) {
            this.text = text;
        }

        /** The word shown in the list. */
        public String text() {
            return text;
        }
    }

    private final Step step;
    private final int index;
    private final ObjectProperty<Status> status = new SimpleObjectProperty<>(Status.PENDING);
    private final StringProperty summary = new SimpleStringProperty("");
    private final ObjectProperty<StepResult> result = new SimpleObjectProperty<>();
    private final BooleanProperty next = new SimpleBooleanProperty();

    StepRow(Step step, int index) {
        this.step = step;
        this.index = index;
    }

    public Step step() {
        return step;
    }

    /** Position in the flow, from 0. */
    public int index() {
        return index;
    }

    public ObjectProperty<Status> statusProperty() {
        return status;
    }

    /** The result's one line, or empty before the step ran. */
    public StringProperty summaryProperty() {
        return summary;
    }

    /** The last result, or null. */
    public ObjectProperty<StepResult> resultProperty() {
        return result;
    }

    /** True for the step that runs next. */
    public BooleanProperty nextProperty() {
        return next;
    }

    void finished(StepResult stepResult) {
        result.set(stepResult);
        summary.set(UiText.say(stepResult.said()));
        status.set(stepResult.ok() ? Status.DONE : Status.FAILED);
    }

    void clear() {
        result.set(null);
        summary.set("");
        status.set(Status.PENDING);
    }

    @Override
    public String toString() {
        return step.title();
    }
}
