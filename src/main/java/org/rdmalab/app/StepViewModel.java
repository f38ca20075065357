package org.rdmalab.app;

import java.util.List;
import java.util.Map;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;
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
    private StepRow shown;

    StepViewModel(LabViewModel lab) {
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
                    + "\ndefault: " + parameter.defaultValue();
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
            title.set("Step");
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
        title.set((side == null ? "" : capitalized(side.name()) + " · ") + (row.index() + 1) + ". " + row.step().title());
        editable.set(side == null || !side.busyProperty().get());
        try {
            code.set(side == null ? "" : row.step().cCode(side.session()));
        } catch (RuntimeException e) {
            code.set("/* " + e.getMessage() + " */");
        }
        StepResult stepResult = row.resultProperty().get();
        failed.set(stepResult != null && !stepResult.ok());
        result.set(stepResult == null ? (row.statusProperty().get() == StepRow.Status.RUNNING ? "running..." : "not run yet")
                : (stepResult.ok() ? "ok: " : "failed: ") + stepResult.summary()
                + (stepResult.details().isEmpty() ? "" : "\n" + String.join("\n", stepResult.details())));
    }

    private static String capitalized(String text) {
        return text.isEmpty() ? text : Character.toUpperCase(text.charAt(0)) + text.substring(1);
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

    /** The row shown. */
    StepRow shown() {
        return shown;
    }

    List<ParameterItem> itemList() {
        return items;
    }
}
