package org.rdmalab.app;

import java.io.IOException;
import java.io.UncheckedIOException;
import javafx.collections.ListChangeListener;
import javafx.fxml.FXML;
import javafx.scene.Node;
import javafx.scene.Parent;
import javafx.scene.control.Label;
import javafx.scene.control.ListView;
import javafx.scene.control.SplitPane;
import javafx.scene.control.Tab;
import javafx.scene.control.TabPane;
import javafx.scene.input.KeyCode;
import javafx.scene.input.KeyCodeCombination;
import javafx.scene.input.KeyCombination;
import org.rdmalab.app.bench.BenchViewModel;
import org.rdmalab.app.common.UiText;
import org.rdmalab.app.common.Views;
import org.rdmalab.app.lab.LabViewModel;
import org.rdmalab.app.lab.PeerView;
import org.rdmalab.app.lab.QpDiagrams;
import org.rdmalab.app.lab.SideViewModel;
import org.rdmalab.app.lab.StepRow;

/**
 * Controller of {@code MainView.fxml}: places one column per side around the step pane (server
 * left and client right in the loopback lab), gives the Bench tab the window while it is shown
 * (unless its Wide button is released), binds the status line and installs the keys: F10
 * runs the next step, F5 runs to the selected step (or the end), F8 runs every side to its end,
 * Ctrl+R resets every side.
 */
public final class MainView {

    /** Where its FXML is on the classpath. */
    static final String FXML = "/fxml/MainView.fxml";

    private final LabViewModel lab;
    private final Views views;
    private final BenchViewModel bench;
    /** The side columns while the Bench view has the window's width. */
    private final java.util.List<Node> hiddenColumns = new java.util.ArrayList<>();

    @FXML
    private SplitPane mainSplit;
    @FXML
    private SplitPane dataBand;
    @FXML
    private SplitPane labBand;
    @FXML
    private TabPane inspector;
    @FXML
    private Tab benchTab;
    @FXML
    private Node setupView;
    @FXML
    private ListView<String> controlList;
    @FXML
    private Label statusLabel;

    MainView(LabViewModel lab, Views views, BenchViewModel bench) {
        this.lab = lab;
        this.views = views;
        this.bench = bench;
    }

    @FXML
    private void initialize() {
        statusLabel.textProperty().bind(lab.statusProperty());
        statusLabel.setId("statusLabel");
        controlList.setItems(lab.controlLog().rows());
        controlList.setPlaceholder(new Label(UiText.text("main.noControlMessage")));
        lab.sides().addListener((ListChangeListener<SideViewModel>) change -> layoutSides());
        layoutSides();
        bench.wideProperty().addListener((observable, before, wide) -> widen());
        inspector.getSelectionModel().selectedItemProperty().addListener((observable, before, tab) -> widen());
        labBand.sceneProperty().addListener((observable, before, scene) -> {
            if (scene != null) {
                installKeys(scene);
            }
        });
    }

    private void layoutSides() {
        // The step pane stays where it is; only the side columns around it are replaced.
        hiddenColumns.clear();
        labBand.getItems().removeIf(node -> node != inspector);
        var sides = lab.sides();
        if (sides.isEmpty()) {
            return;
        }
        labBand.getItems().add(0, column(sides.get(0)));
        labBand.getItems().add(sides.size() > 1 ? column(sides.get(1)) : peerColumn(sides.get(0)));
        labBand.setDividerPositions(0.3, 0.7);
        widen();
    }

    /**
     * The Bench tab takes the window while it is shown and its Wide button is pressed (as it is at
     * first): the setup bar, the side columns and the completions / buffers band step aside (kept,
     * not rebuilt) so the charts and the table get the window, and come back as they were when
     * another tab is chosen or Wide is released.
     */
    private void widen() {
        boolean wide = bench.wideProperty().get() && inspector.getSelectionModel().getSelectedItem() == benchTab;
        setupView.setVisible(!wide);
        setupView.setManaged(!wide);
        if (wide) {
            if (hiddenColumns.isEmpty()) {
                hiddenColumns.addAll(labBand.getItems().filtered(node -> node != inspector));
                labBand.getItems().removeAll(hiddenColumns);
            }
            mainSplit.getItems().remove(dataBand);
        } else {
            if (!hiddenColumns.isEmpty()) {
                labBand.getItems().add(0, hiddenColumns.get(0));
                labBand.getItems().addAll(hiddenColumns.subList(1, hiddenColumns.size()));
                hiddenColumns.clear();
                labBand.setDividerPositions(0.3, 0.7);
            }
            if (!mainSplit.getItems().contains(dataBand)) {
                mainSplit.getItems().add(dataBand);
                mainSplit.setDividerPositions(0.6);
            }
        }
    }

    private Node column(SideViewModel side) {
        try {
            Parent view = views.load(PeerView.FXML, new PeerView(side, lab));
            view.setId(side.name() + "Column");
            SplitPane.setResizableWithParent(view, false);
            return view;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** With two machines: the peer's QP as the control plane reports or implies it. */
    private Node peerColumn(SideViewModel side) {
        javafx.scene.layout.VBox column = new javafx.scene.layout.VBox(6);
        column.getStyleClass().addAll("panel", "peer-view");
        column.setId("peerColumn");
        String peerRole = side.role() == org.rdmalab.lab.Role.SERVER ? "client" : "server";
        Label title = new Label(UiText.format("main.peerTitle", UiText.side(peerRole)) + (side.role() == org.rdmalab.lab.Role.CLIENT
                ? " · " + lab.currentProperty().get().peerIp() : ""));
        title.getStyleClass().add("panel-title");
        column.getChildren().add(title);
        new QpDiagrams(side).installPeer(column);
        SplitPane.setResizableWithParent(column, false);
        return column;
    }

    private void installKeys(javafx.scene.Scene scene) {
        scene.getAccelerators().put(new KeyCodeCombination(KeyCode.F10), () -> selected().ifPresent(SideViewModel::runNext));
        scene.getAccelerators().put(new KeyCodeCombination(KeyCode.F5), () -> selected().ifPresent(side -> {
            StepRow step = lab.selectedStepProperty().get();
            if (step != null && side.steps().contains(step) && step.index() >= side.nextIndexProperty().get()) {
                side.runTo(step.index());
            } else {
                side.runToEnd();
            }
        }));
        scene.getAccelerators().put(new KeyCodeCombination(KeyCode.F8), lab::runAllToEnd);
        scene.getAccelerators().put(new KeyCodeCombination(KeyCode.R, KeyCombination.SHORTCUT_DOWN), lab::resetAll);
    }

    private java.util.Optional<SideViewModel> selected() {
        SideViewModel side = lab.selectedSideProperty().get();
        return side != null ? java.util.Optional.of(side) : lab.sides().stream().findFirst();
    }
}
