package org.rdmalab.app.lab;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;
import org.rdmalab.app.common.UiText;
import org.rdmalab.lab.Diagnosis;
import org.rdmalab.lab.Parameter;
import org.rdmalab.lab.Step;
import org.rdmalab.lab.StepResult;

/**
 * The step pane: the selected step's parameters (edited in a property sheet), the C code they
 * stand for, and the result once run. Edits go straight to the step's {@link Parameter}s, which
 * check them; the C code follows every edit, so what is shown is what will run.
 */
public final class StepViewModel {

    /** Where each parameter lives in the C program, for the tooltips (verbs.h names). */
    private static final Map<String, String> C_PLACES = Map.ofEntries(
            Map.entry("open-device", "ibv_get_device_name() compared with config.dev_name"),
            Map.entry("query-port", "config.ib_port / config.gid_idx (ibv_query_port, ibv_query_gid)"),
            Map.entry("create-cq", "ibv_create_cq(ctx, cqe, ...)"),
            Map.entry("reg-mr", "ibv_reg_mr(pd, buf, size, mr_flags)"),
            Map.entry("create-qp", "struct ibv_qp_init_attr"),
            Map.entry("modify-init", "struct ibv_qp_attr + attr_mask of ibv_modify_qp"),
            Map.entry("modify-rtr", "struct ibv_qp_attr + attr_mask of ibv_modify_qp"),
            Map.entry("modify-rts", "struct ibv_qp_attr + attr_mask of ibv_modify_qp"),
            Map.entry("post-recv", "struct ibv_recv_wr / ibv_sge"),
            Map.entry("write-buffer", "strcpy(res->buf, ...)"));

    private final LabViewModel lab;
    private final ObservableList<ParameterItem> items = FXCollections.observableArrayList();
    private final ReadOnlyStringWrapper title = new ReadOnlyStringWrapper("Step");
    private final ReadOnlyStringWrapper code = new ReadOnlyStringWrapper("");
    private final ReadOnlyStringWrapper result = new ReadOnlyStringWrapper("");
    private final ReadOnlyBooleanWrapper failed = new ReadOnlyBooleanWrapper();
    private final ReadOnlyBooleanWrapper editable = new ReadOnlyBooleanWrapper(true);
    private final javafx.beans.property.BooleanProperty onScreen = new javafx.beans.property.SimpleBooleanProperty(
            this, "onScreen", true);
    private final ReadOnlyStringWrapper cause = new ReadOnlyStringWrapper("");
    private final ReadOnlyStringWrapper fixLabel = new ReadOnlyStringWrapper("");
    private final ReadOnlyStringWrapper fixDetail = new ReadOnlyStringWrapper("");
    private final ReadOnlyBooleanWrapper causeElsewhere = new ReadOnlyBooleanWrapper();
    private final javafx.collections.ObservableMap<String, String> fieldMessages =
            javafx.collections.FXCollections.observableHashMap();
    private Diagnosis diagnosis;
    private StepRow shown;

    public StepViewModel(LabViewModel lab) {
        this.lab = lab;
        lab.selectedStepProperty().addListener((observable, before, row) -> show(row));
        lab.afterEvents(this::refresh);
    }

    /** One parameter as the property sheet edits it. */
    public final class ParameterItem {

        private final Step step;
        private final Parameter parameter;

        ParameterItem(Step step, Parameter parameter) {
            this.step = step;
            this.parameter = parameter;
        }

        public Parameter parameter() {
            return parameter;
        }

        public Step step() {
            return step;
        }

        /** The tooltip: the C name, where it lives, and what it does. */
        public String description() {
            String place = C_PLACES.getOrDefault(step.id(), step.id().startsWith("post-") ? "struct ibv_send_wr / ibv_sge"
                    : step.id().startsWith("poll-cq") ? "poll_completion()" : "");
            String cName = step.id().startsWith("modify-") && !parameter.name().equals("flags")
                    ? "attr." + parameter.name() : step.id().startsWith("modify-") ? "attr_mask" : parameter.name();
            return cName + (place.isEmpty() ? "" : " — " + place) + "\n" + parameter.description()
                    + "\n" + UiText.format("step.default", parameter.defaultValue());
        }

        /**
         * Sets the value after the parameter checked it.
         *
         * @return empty, or the one-line reason it was refused
         */
        public String set(String value) {
            try {
                parameter.set(value);
                refresh();
                return "";
            } catch (IllegalArgumentException e) {
                return e.getMessage();
            }
        }
    }

    private void show(StepRow row) {
        shown = row;
        items.clear();
        if (row == null) {
            title.set(UiText.text("main.step"));
            code.set("");
            result.set("");
            failed.set(false);
            return;
        }
        for (Parameter parameter : row.step().parameters()) {
            items.add(new ParameterItem(row.step(), parameter));
        }
        refresh();
    }

    /** Re-reads the C code and the result (after an edit or a step ran). */
    void refresh() {
        StepRow row = shown;
        if (row == null) {
            return;
        }
        SideViewModel side = lab.selectedSideProperty().get();
        title.set((side == null ? "" : UiText.text("side." + side.name() + ".title") + " · ") + (row.index() + 1) + ". "
                + UiText.stepTitle(row.step()));
        editable.set(side == null || !side.busyProperty().get());
        try {
            code.set(side == null ? "" : row.step().cCode(side.session()));
        } catch (RuntimeException e) {
            code.set("/* " + e.getMessage() + " */");
        }
        StepResult stepResult = row.resultProperty().get();
        failed.set(stepResult != null && !stepResult.ok());
        diagnosis = stepResult == null || stepResult.ok() ? null : stepResult.diagnosis().orElse(null);
        cause.set(diagnosis == null ? "" : hasField(row, diagnosis) ? UiText.format("step.causedBy", diagnosis.parameter(),
                fieldSaysWhy()) : describeCause(diagnosis, side));
        fixLabel.set(diagnosis == null ? "" : diagnosis.fix().map(fix -> UiText.say(fix.said())).orElse(""));
        causeElsewhere.set(diagnosis != null && !diagnosis.stepId().equals(row.step().id()));
        Map<String, String> messages = new HashMap<>();
        if (side != null) {
            for (StepRow other : side.steps()) {
                StepResult otherResult = other.resultProperty().get();
                if (otherResult != null && !otherResult.ok() && otherResult.diagnosis().isPresent()
                        && otherResult.diagnosis().get().stepId().equals(row.step().id())) {
                    Diagnosis found = otherResult.diagnosis().get();
                    messages.put(found.parameter(), fieldText(found, other));
                    if (diagnosis == null && other != row) {
                        // This step holds the field another step's failure blames: offer the fix here too.
                        diagnosis = found;
                        cause.set(hasField(row, found)
                                ? UiText.format("step.failedBecause", UiText.stepTitle(other.step()), found.parameter(),
                                        fieldSaysWhy())
                                : UiText.format("step.failedBecauseHere", UiText.stepTitle(other.step()), found.parameter(),
                                        errnoText(found) + UiText.say(found.why())));
                        fixLabel.set(found.fix().map(fix -> UiText.say(fix.said())).orElse(""));
                        causeElsewhere.set(false);
                    }
                }
            }
        }
        if (!fieldMessages.equals(messages)) {
            fieldMessages.clear();
            fieldMessages.putAll(messages);
        }
        result.set(stepResult == null ? UiText.text(row.statusProperty().get() == StepRow.Status.RUNNING ? "step.running"
                : "step.notRun") : UiText.format(stepResult.ok() ? "step.ok" : "step.failed", UiText.say(stepResult.said()))
                + (stepResult.more().isEmpty() ? "" : "\n" + String.join("\n", stepResult.details(UiText.locale()))));
    }

    /**
     * The cause's words when the shown step holds the blamed field: the line under the field has
     * the errno and the explanation, said once.
     */
    static final String FIELD_SAYS_WHY = "the line under its field above says why.";

    /** {@link #FIELD_SAYS_WHY} in the window's language. */
    private static String fieldSaysWhy() {
        return UiText.text("step.fieldSaysWhy");
    }

    /** True when {@code row}'s step has the parameter {@code found} blames (its field carries the reason). */
    private static boolean hasField(StepRow row, Diagnosis found) {
        return found.stepId().equals(row.step().id()) && row.step().parameters().stream()
                .anyMatch(parameter -> parameter.name().equals(found.parameter()));
    }

    private static String errnoText(Diagnosis found) {
        return found.errnoValue().map(errno -> errno.name() + " (" + errno.value() + ", " + errno.text() + "): ")
                .orElse("");
    }

    /** The line under the blamed field: the errno, its text and why. */
    private static String fieldText(Diagnosis found, StepRow failedRow) {
        return errnoText(found) + UiText.say(found.why()) + "  " + UiText.format("step.stepFailed",
                UiText.stepTitle(failedRow.step()));
    }

    private static String describeCause(Diagnosis found, SideViewModel side) {
        String where = side.steps().stream().filter(other -> other.step().id().equals(found.stepId())).findFirst()
                .map(other -> "'" + UiText.stepTitle(other.step()) + "'").orElse(found.stepId());
        return UiText.format("step.causedByOf", found.parameter(), where, errnoText(found) + UiText.say(found.why()));
    }

    /** Shows the step that holds the blamed field (its field then carries the explanation). */
    public void showCause() {
        SideViewModel side = lab.selectedSideProperty().get();
        if (diagnosis == null || side == null) {
            return;
        }
        side.steps().stream().filter(other -> other.step().id().equals(diagnosis.stepId())).findFirst()
                .ifPresent(lab.selectedStepProperty()::set);
    }

    /** Applies the diagnosis's fix in one click; the flow goes on from where it failed. */
    public void applyFix() {
        SideViewModel side = lab.selectedSideProperty().get();
        if (diagnosis == null || side == null || diagnosis.fix().isEmpty()) {
            return;
        }
        lab.applyFix(side, diagnosis.fix().get());
    }

    /**
     * The failure's cause: the blamed field with the errno and why, or only the field (and the step
     * that failed) where the shown step holds it and the line under it says why; empty when none.
     */
    public ReadOnlyStringProperty causeProperty() {
        return cause.getReadOnlyProperty();
    }

    /** The one-click fix's label, or empty when there is none. */
    public ReadOnlyStringProperty fixLabelProperty() {
        return fixLabel.getReadOnlyProperty();
    }

    /** The button's short text: the fix's label up to its explanation in parentheses. */
    static String shortLabel(String label) {
        int cut = label.indexOf(" (");
        if (cut < 0) {
            cut = label.indexOf('（'); // a Chinese label's parenthesis
        }
        String text = cut > 0 ? label.substring(0, cut) : label;
        return text.isEmpty() ? text : Character.toUpperCase(text.charAt(0)) + text.substring(1);
    }

    /** True when the blamed field belongs to another step (the pane offers to show it). */
    public ReadOnlyBooleanProperty causeElsewhereProperty() {
        return causeElsewhere.getReadOnlyProperty();
    }

    /** Explanations to show under this step's fields, by parameter name. */
    public javafx.collections.ObservableMap<String, String> fieldMessages() {
        return fieldMessages;
    }

    /** The diagnosis of the shown step's failure, if any. */
    public Optional<Diagnosis> diagnosis() {
        return Optional.ofNullable(diagnosis);
    }

    public ObservableList<ParameterItem> items() {
        return items;
    }

    public ReadOnlyStringProperty titleProperty() {
        return title.getReadOnlyProperty();
    }

    /** The C code for the step with its current parameters. */
    public ReadOnlyStringProperty codeProperty() {
        return code.getReadOnlyProperty();
    }

    /** The result, or "not run yet". */
    public ReadOnlyStringProperty resultProperty() {
        return result.getReadOnlyProperty();
    }

    public ReadOnlyBooleanProperty failedProperty() {
        return failed.getReadOnlyProperty();
    }

    /** False while the step's side is running (parameters are read by the worker). */
    public ReadOnlyBooleanProperty editableProperty() {
        return editable.getReadOnlyProperty();
    }

    /**
     * True while the Step tab is the one shown (the main view binds it); the view styles the sheet
     * for {@link #editableProperty()} only then, and when it is shown again.
     */
    public javafx.beans.property.BooleanProperty onScreenProperty() {
        return onScreen;
    }

}
