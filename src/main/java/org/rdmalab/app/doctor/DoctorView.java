package org.rdmalab.app.doctor;

import java.util.ArrayList;
import java.util.List;
import javafx.collections.ListChangeListener;
import javafx.fxml.FXML;
import javafx.scene.Node;
import javafx.scene.Parent;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.Tab;
import javafx.scene.control.TabPane;
import javafx.scene.control.TextArea;
import javafx.scene.control.TextField;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.VBox;
import org.rdmalab.app.common.UiText;
import org.rdmalab.doctor.Check;

/**
 * Controller of {@code DoctorView.fxml}: shows the {@link DoctorViewModel}'s report, one row per
 * check, with the field to change, the fix and the one-click fix of each failure. The checks run
 * the first time the view's tab is shown (or the view, outside a tab), and again on Re-run. Under
 * the report, a peer field and "Probe peer" run {@code doctor}'s peer mode in the background and
 * show its report as the command line prints it.
 */
public final class DoctorView {

    /** Style classes of a report row and its parts. */
    static final String ROW = "doctor-row";
    static final String ROW_PASS = "doctor-pass";
    static final String ROW_FAIL = "doctor-fail";
    static final String ROW_SKIP = "doctor-skip";
    static final String MARK = "doctor-mark";
    static final String NAME = "doctor-name";
    static final String FOUND = "doctor-found";
    static final String FIELD = "doctor-field";
    static final String FIX = "doctor-fix";
    static final String FIX_BUTTON = "doctor-fix-button";

    private final DoctorViewModel viewModel;
    private boolean watching;

    @FXML
    private VBox doctorPane;
    @FXML
    private Label doctorSummary;
    @FXML
    private Label doctorSubject;
    @FXML
    private Button doctorRerun;
    @FXML
    private VBox reportBox;
    @FXML
    private TextField doctorPeerIp;
    @FXML
    private Button doctorProbe;
    @FXML
    private Label doctorPeerSummary;
    @FXML
    private TextArea doctorPeerReport;

    public DoctorView(DoctorViewModel viewModel) {
        this.viewModel = viewModel;
    }

    @FXML
    private void initialize() {
        doctorSummary.textProperty().bind(viewModel.summaryProperty());
        doctorSubject.textProperty().bind(viewModel.subjectProperty());
        doctorRerun.disableProperty().bind(viewModel.runningProperty());
        doctorPeerIp.textProperty().bindBidirectional(viewModel.peerIpProperty());
        doctorProbe.disableProperty().bind(viewModel.probingProperty());
        doctorPeerSummary.textProperty().bind(viewModel.peerSummaryProperty());
        doctorPeerReport.textProperty().bind(viewModel.peerReportProperty());
        doctorPeerReport.visibleProperty().bind(viewModel.peerReportProperty().isNotEmpty());
        doctorPeerReport.managedProperty().bind(doctorPeerReport.visibleProperty());
        viewModel.rows().addListener((ListChangeListener<DoctorViewModel.Row>) change -> show());
        show();
        doctorPane.sceneProperty().addListener((observable, before, scene) -> {
            if (scene != null && !watching) {
                watching = true;
                runWhenShown();
            }
        });
    }

    /** Runs the checks when the enclosing tab is first selected, or now when the view is in no tab. */
    private void runWhenShown() {
        Parent parent = doctorPane.getParent();
        while (parent != null && !(parent instanceof TabPane)) {
            parent = parent.getParent();
        }
        if (parent == null) {
            viewModel.runOnce();
            return;
        }
        for (Tab tab : ((TabPane) parent).getTabs()) {
            if (contains(tab.getContent(), doctorPane)) {
                if (tab.isSelected()) {
                    viewModel.runOnce();
                }
                tab.selectedProperty().addListener((observable, before, selected) -> {
                    if (selected) {
                        viewModel.runOnce();
                    }
                });
                return;
            }
        }
    }

    private static boolean contains(Node content, Node node) {
        for (Node at = node; at != null; at = at.getParent()) {
            if (at == content) {
                return true;
            }
        }
        return false;
    }

    private void show() {
        List<Node> nodes = new ArrayList<>();
        if (viewModel.rows().isEmpty()) {
            Label placeholder = new Label(UiText.text("doctor.noReportYet"));
            placeholder.getStyleClass().add("placeholder");
            placeholder.setWrapText(true);
            nodes.add(placeholder);
        }
        for (DoctorViewModel.Row row : viewModel.rows()) {
            nodes.add(rowNode(row));
        }
        reportBox.getChildren().setAll(nodes);
    }

    private static Node rowNode(DoctorViewModel.Row row) {
        Label mark = new Label(row.symbol());
        mark.getStyleClass().add(MARK);
        mark.setMinWidth(Label.USE_PREF_SIZE);
        Label name = new Label(row.title());
        name.getStyleClass().add(NAME);
        Label found = wrapped(UiText.say(row.check().said()), FOUND);
        VBox text = new VBox(2, name, found);
        HBox.setHgrow(text, Priority.ALWAYS);
        if (row.check().failed()) {
            if (!row.field().isEmpty()) {
                text.getChildren().add(wrapped(UiText.format("doctor.change", row.field()), FIELD));
            }
            text.getChildren().add(wrapped(UiText.format("doctor.fix", UiText.say(row.check().remedy())), FIX));
            row.action().ifPresent(action -> {
                Button button = new Button(action.label());
                button.getStyleClass().addAll("fix-button", FIX_BUTTON);
                button.setOnAction(event -> action.apply().run());
                text.getChildren().add(button);
            });
        }
        HBox line = new HBox(8, mark, text);
        line.getStyleClass().addAll(ROW, switch (row.check().status()) {
            case PASS -> ROW_PASS;
            case FAIL -> ROW_FAIL;
            case SKIP -> ROW_SKIP;
        });
        line.setUserData(row);
        line.setAccessibleText(row.symbol() + " " + row.title() + ": " + UiText.say(row.check().said())
                + (row.check().status() == Check.Status.FAIL
                ? UiText.format("doctor.accessibleFix", UiText.say(row.check().remedy())) : ""));
        return line;
    }

    private static Label wrapped(String text, String styleClass) {
        Label label = new Label(text);
        label.setWrapText(true);
        label.setMaxWidth(Double.MAX_VALUE);
        label.getStyleClass().add(styleClass);
        return label;
    }

    @FXML
    private void onRerun() {
        viewModel.run();
    }

    @FXML
    private void onProbe() {
        if (!viewModel.probingProperty().get()) {
            viewModel.probePeer();
        }
    }
}
