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
 * (unless its Wide button is released), binds the status line, puts the settings menu (theme,
 * Projector, keyboard shortcuts, Reset settings) at the end of the setup bar and installs the keys
 * ({@link #shortcuts()}): F10 runs the next step, F5 runs to the selected step (or the end), F8
 * runs every side to its end, Ctrl+R resets every side, F6 selects the other side,
 * Ctrl+Shift+D and Ctrl+Shift+P switch the dark theme and Projector, and F1 shows them all over
 * the window until Esc or F1.
 */
public final class MainView {

    /** Where its FXML is on the classpath. */
    static final String FXML = "/fxml/MainView.fxml";

    private final LabViewModel lab;
    private final Views views;
    private final BenchViewModel bench;
    private final Appearance appearance;
    private final Runnable resetSettings;
    private final java.util.function.Consumer<String> chooseLanguage;
    /** True while Wire › Counters is the tab shown (the counters are read only then). */
    private final javafx.beans.property.BooleanProperty countersShown;
    /** True while Wire › Ladder is the tab shown (the ladder's views are drawn only then). */
    private final javafx.beans.property.BooleanProperty ladderShown;
    /** True while the Step tab is shown (its parameter sheet follows the side's state only then). */
    private final javafx.beans.property.BooleanProperty stepShown;
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
    private TabPane wireTabs;
    @FXML
    private Tab stepTab;
    @FXML
    private Tab benchTab;
    @FXML
    private Tab wireTab;
    @FXML
    private Tab countersTab;
    @FXML
    private Tab ladderTab;
    @FXML
    private Node setupView;
    @FXML
    private ListView<String> controlList;
    @FXML
    private Label statusLabel;
    @FXML
    private javafx.scene.layout.StackPane helpOverlay;
    @FXML
    private javafx.scene.layout.GridPane helpKeys;

    /** The settings menu at the end of the setup bar's first row. */
    private final javafx.scene.control.MenuButton settingsMenu = new javafx.scene.control.MenuButton();

    /**
     * A key and what it does.
     *
     * @param keys the key combination
     * @param textKey what it does, as a {@code messages.properties} key
     * @param action what it does
     */
    record Shortcut(KeyCombination keys, String textKey, Runnable action) {
    }

    MainView(LabViewModel lab, Views views, BenchViewModel bench, Appearance appearance, Runnable resetSettings,
             java.util.function.Consumer<String> chooseLanguage, javafx.beans.property.BooleanProperty countersShown,
             javafx.beans.property.BooleanProperty ladderShown, javafx.beans.property.BooleanProperty stepShown) {
        this.countersShown = countersShown;
        this.ladderShown = ladderShown;
        this.stepShown = stepShown;
        this.lab = lab;
        this.views = views;
        this.bench = bench;
        this.appearance = appearance;
        this.resetSettings = resetSettings;
        this.chooseLanguage = chooseLanguage;
    }

    @FXML
    private void initialize() {
        countersShown.bind(wireTab.selectedProperty().and(countersTab.selectedProperty()));
        ladderShown.bind(wireTab.selectedProperty().and(ladderTab.selectedProperty()));
        stepShown.bind(stepTab.selectedProperty());
        statusLabel.textProperty().bind(lab.statusProperty());
        statusLabel.setId("statusLabel");
        controlList.setItems(lab.controlLog().rows());
        controlList.setPlaceholder(new Label(UiText.text("main.noControlMessage")));
        lab.sides().addListener((ListChangeListener<SideViewModel>) change -> layoutSides());
        layoutSides();
        bench.wideProperty().addListener((observable, before, wide) -> widen());
        inspector.getSelectionModel().selectedItemProperty().addListener((observable, before, tab) -> widen());
        buildSettingsMenu();
        buildHelp();
        if (!Boolean.getBoolean("rdmalab.eagerTabs")) {
            LazyTabContent.holdBackUnselected(inspector);
            // The Wire tab's own tabs too: its first showing styles and lays out the one picked, not
            // the packet table, the hex views, the counters and the faults form as well (docs/ladder.md).
            LazyTabContent.holdBackUnselected(wireTabs);
        }
        labBand.sceneProperty().addListener((observable, before, scene) -> {
            if (scene != null) {
                installKeys(scene);
            }
        });
    }

    /** Every key of the window, in the order the help lists them. */
    java.util.List<Shortcut> shortcuts() {
        return java.util.List.of(
                new Shortcut(new KeyCodeCombination(KeyCode.F10), "shortcut.nextStep",
                        () -> selected().ifPresent(SideViewModel::runNext)),
                new Shortcut(new KeyCodeCombination(KeyCode.F5), "shortcut.runToSelected", this::runToSelected),
                new Shortcut(new KeyCodeCombination(KeyCode.F8), "shortcut.runAllToEnd", lab::runAllToEnd),
                new Shortcut(new KeyCodeCombination(KeyCode.R, KeyCombination.SHORTCUT_DOWN), "shortcut.reset",
                        lab::resetAll),
                new Shortcut(new KeyCodeCombination(KeyCode.F6), "shortcut.otherSide", this::selectOtherSide),
                new Shortcut(THEME_KEYS, "shortcut.darkTheme", appearance::toggleTheme),
                new Shortcut(PROJECTOR_KEYS, "shortcut.projector", appearance::toggleProjector),
                new Shortcut(HELP_KEYS, "shortcut.help", this::toggleHelp));
    }

    /** The dark theme's switch. */
    static final KeyCombination THEME_KEYS = new KeyCodeCombination(KeyCode.D, KeyCombination.SHORTCUT_DOWN,
            KeyCombination.SHIFT_DOWN);
    /** Projector's switch. */
    static final KeyCombination PROJECTOR_KEYS = new KeyCodeCombination(KeyCode.P, KeyCombination.SHORTCUT_DOWN,
            KeyCombination.SHIFT_DOWN);
    /** The keyboard shortcuts' list. */
    static final KeyCombination HELP_KEYS = new KeyCodeCombination(KeyCode.F1);

    private void runToSelected() {
        selected().ifPresent(side -> {
            StepRow step = lab.selectedStepProperty().get();
            if (step != null && side.steps().contains(step) && step.index() >= side.nextIndexProperty().get()) {
                side.runTo(step.index());
            } else {
                side.runToEnd();
            }
        });
    }

    /** F6: the keys' side becomes the other one (in the loopback lab: server ↔ client). */
    private void selectOtherSide() {
        var sides = lab.sides();
        if (sides.size() < 2) {
            return;
        }
        SideViewModel now = selected().orElse(sides.get(0));
        SideViewModel other = sides.get((sides.indexOf(now) + 1) % sides.size());
        lab.selectedSideProperty().set(other);
        lab.selectedStepProperty().set(other.steps().get(Math.min(other.nextIndexProperty().get(),
                other.steps().size() - 1)));
    }

    /** The settings menu: theme, Projector, the keys' list and Reset settings; the keys are the menu items'. */
    private void buildSettingsMenu() {
        settingsMenu.setId("settingsMenu");
        settingsMenu.setText(UiText.text("settings.menu"));
        settingsMenu.getStyleClass().add("settings-menu");
        settingsMenu.setMinWidth(javafx.scene.layout.Region.USE_PREF_SIZE);
        javafx.scene.control.CheckMenuItem dark = new javafx.scene.control.CheckMenuItem(UiText.text("settings.darkTheme"));
        dark.setId("darkThemeItem");
        dark.setAccelerator(THEME_KEYS);
        sync(dark, appearance.themeProperty().isEqualTo(org.rdmalab.app.settings.Theme.DARK),
                on -> appearance.themeProperty().set(on ? org.rdmalab.app.settings.Theme.DARK
                        : org.rdmalab.app.settings.Theme.LIGHT));
        javafx.scene.control.CheckMenuItem projector = new javafx.scene.control.CheckMenuItem();
        projector.setId("projectorItem");
        projector.setAccelerator(PROJECTOR_KEYS);
        projector.textProperty().bind(javafx.beans.binding.Bindings.createStringBinding(() -> UiText.format(
                "settings.projector", org.rdmalab.app.settings.Scale.format(appearance.projectorScale())),
                appearance.scaleProperty()));
        sync(projector, appearance.scaleProperty().greaterThan(org.rdmalab.app.settings.Scale.DESK),
                on -> appearance.scaleProperty().set(on ? appearance.projectorScale() : org.rdmalab.app.settings.Scale.DESK));
        // The language the window speaks from its next start (its words are chosen once, when it is built).
        javafx.scene.control.Menu language = new javafx.scene.control.Menu(UiText.text("settings.language"));
        language.setId("languageMenu");
        javafx.scene.control.ToggleGroup languages = new javafx.scene.control.ToggleGroup();
        for (String tag : UiText.TAGS) {
            javafx.scene.control.RadioMenuItem item = new javafx.scene.control.RadioMenuItem(
                    UiText.text("settings.language." + tag));
            item.setId("language-" + tag);
            item.setToggleGroup(languages);
            item.setSelected(UiText.parse(tag).equals(UiText.locale().equals(UiText.CHINESE) ? UiText.CHINESE
                    : UiText.ENGLISH));
            item.setOnAction(event -> chooseLanguage.accept(tag));
            language.getItems().add(item);
        }
        javafx.scene.control.MenuItem keys = new javafx.scene.control.MenuItem(UiText.text("settings.shortcuts"));
        keys.setId("shortcutsItem");
        keys.setAccelerator(HELP_KEYS);
        keys.setOnAction(event -> toggleHelp());
        javafx.scene.control.MenuItem reset = new javafx.scene.control.MenuItem(UiText.text("settings.reset"));
        reset.setId("resetSettingsItem");
        reset.setOnAction(event -> resetSettings.run());
        settingsMenu.getItems().setAll(dark, projector, language, keys, new javafx.scene.control.SeparatorMenuItem(),
                reset);
        javafx.scene.control.Tooltip tip = new javafx.scene.control.Tooltip(UiText.text("settings.menuTip"));
        settingsMenu.setTooltip(tip);
        javafx.scene.layout.HBox firstRow = (javafx.scene.layout.HBox) setupView.lookup(".setup-row");
        firstRow.getChildren().add(settingsMenu);
    }

    /**
     * Keeps {@code item}'s check mark equal to {@code on} and tells {@code choose} when the user (a click or
     * the item's keys) changes it.
     */
    private static void sync(javafx.scene.control.CheckMenuItem item, javafx.beans.value.ObservableBooleanValue on,
                             java.util.function.Consumer<Boolean> choose) {
        item.setSelected(on.get());
        on.addListener((observable, before, now) -> item.setSelected(now));
        item.selectedProperty().addListener((observable, before, now) -> {
            if (now != on.get()) {
                choose.accept(now);
            }
        });
    }

    /** The keys' list over the window: each key and what it does, in the window's language. */
    private void buildHelp() {
        helpOverlay.setId("helpOverlay");
        helpOverlay.managedProperty().bind(helpOverlay.visibleProperty());
        int row = 0;
        for (Shortcut shortcut : shortcuts()) {
            Label keys = new Label(shortcut.keys().getDisplayText());
            keys.getStyleClass().add("help-key");
            keys.setMinWidth(javafx.scene.layout.Region.USE_PREF_SIZE);
            Label what = new Label(UiText.text(shortcut.textKey()));
            what.getStyleClass().add("help-action");
            helpKeys.addRow(row++, keys, what);
        }
    }

    /** F1 (or the menu item): shows the keys' list, or closes it. */
    void toggleHelp() {
        helpOverlay.setVisible(!helpOverlay.isVisible());
        if (helpOverlay.isVisible()) {
            helpOverlay.requestFocus();
        }
    }

    @FXML
    private void onHelpClicked() {
        helpOverlay.setVisible(false);
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

    /**
     * The step commands' keys go to the scene; the settings menu's items bring theirs (the menu
     * registers them). Esc closes the keys' list.
     */
    private void installKeys(javafx.scene.Scene scene) {
        java.util.Set<KeyCombination> menus = java.util.Set.of(THEME_KEYS, PROJECTOR_KEYS, HELP_KEYS);
        for (Shortcut shortcut : shortcuts()) {
            if (!menus.contains(shortcut.keys())) {
                scene.getAccelerators().put(shortcut.keys(), shortcut.action());
            }
        }
        scene.addEventFilter(javafx.scene.input.KeyEvent.KEY_PRESSED, event -> {
            if (event.getCode() == KeyCode.ESCAPE && helpOverlay.isVisible()) {
                helpOverlay.setVisible(false);
                event.consume();
            }
        });
    }

    private java.util.Optional<SideViewModel> selected() {
        SideViewModel side = lab.selectedSideProperty().get();
        return side != null ? java.util.Optional.of(side) : lab.sides().stream().findFirst();
    }
}
