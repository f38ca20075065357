package org.rdmalab.app;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import javafx.geometry.Bounds;
import javafx.scene.Node;
import javafx.scene.Parent;
import javafx.scene.control.Cell;
import javafx.scene.control.Labeled;
import javafx.scene.control.ListView;
import javafx.scene.control.ScrollPane;
import javafx.scene.control.Tab;
import javafx.scene.control.TabPane;
import javafx.scene.control.TableView;
import javafx.scene.control.TreeTableView;
import javafx.scene.text.Text;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.rdmalab.app.common.UiText;
import org.rdmalab.app.settings.LabSettings;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.Start;

/**
 * Nothing is clipped or overlapped at the smallest window size and in projector mode, on every tab
 * of the step pane (and every tab inside those), in both languages: each label and button that
 * shows lies inside every container around it up to the nearest one that scrolls, is drawn whole
 * (no ellipsis), and covers no other. It compares the window's own boxes with each other, so it
 * holds whatever fonts are installed. Rows of tables and lists scroll and are left to them.
 */
@ExtendWith(WindowRobot.class)
class WindowFitTest {

    /** How far a box may stick out or into another, in the layout's pixels (anti-aliased edges, rounding). */
    private static final double SLACK = 1.0;

    private Stage stage;
    private MainWindow window;

    @Start
    void start(Stage primary) {
        stage = primary;
    }

    @AfterEach
    void close(FxRobot robot) {
        robot.interact(() -> TestWindows.close(stage, window));
        UiText.use(UiText.ENGLISH);
    }

    static Stream<Arguments> windows() {
        List<Arguments> all = new ArrayList<>();
        for (String language : List.of("en", "zh_CN")) {
            // The smallest window, projector mode at its smallest, and projector mode on a 1920 × 1080 projector.
            all.add(Arguments.of(language, (double) MainWindow.MIN_WIDTH, (double) MainWindow.MIN_HEIGHT, 1.0));
            all.add(Arguments.of(language, MainWindow.MIN_WIDTH * 1.5, MainWindow.MIN_HEIGHT * 1.5, 1.5));
            all.add(Arguments.of(language, 1920.0, 1080.0, 1.5));
        }
        return all.stream();
    }

    @ParameterizedTest(name = "{0} at {1} × {2}, scale {3}")
    @MethodSource("windows")
    void everyTabFitsWithNothingClippedOrOverlapped(String language, double width, double height, double scale,
                                                    FxRobot robot) {
        UiText.use(UiText.parse(language));
        robot.interact(() -> window = TestWindows.open(stage, LabSettings.defaults().withScale(scale), width, height));
        FxWait.waitFor("the devices and sides", 30, () -> !window.lab().setup().gids().isEmpty()
                && !window.lab().sides().isEmpty());
        TabPane inspector = robot.lookup(".inspector").queryAs(TabPane.class);
        List<String> problems = new ArrayList<>();
        for (Tab tab : List.copyOf(inspector.getTabs())) {
            robot.interact(() -> inspector.getSelectionModel().select(tab));
            settle();
            problems.addAll(FxWait.onFx(() -> problems(tab.getText())));
            // The tabs inside a tab (Wire's Packets and Faults) each get their turn.
            List<TabPane> inner = FxWait.onFx(() -> innerTabPanes(tab));
            for (TabPane pane : inner) {
                for (Tab each : List.copyOf(pane.getTabs().subList(1, pane.getTabs().size()))) {
                    robot.interact(() -> pane.getSelectionModel().select(each));
                    settle();
                    problems.addAll(FxWait.onFx(() -> problems(tab.getText() + " › " + each.getText())));
                }
                robot.interact(() -> pane.getSelectionModel().select(0));
            }
        }
        assertTrue(problems.isEmpty(), () -> language + " at " + width + " × " + height + ", scale " + scale + ": "
                + problems.size() + " problems:\n" + String.join("\n", problems.stream().distinct().toList()));
    }

    /**
     * Lets layout and CSS settle: pulse after pulse (each one applies CSS and lays the scene out)
     * until the labels' texts and boxes stay the same over {@link #STILL_PULSES} pulses (how many
     * a font set needs varies), at most {@link #MAX_PULSES}.
     */
    private void settle() {
        FxWait.settle(this::layout, STILL_PULSES, MAX_PULSES);
    }

    /** Pulses in a row with nothing moved that count as settled. */
    private static final int STILL_PULSES = 3;
    /** Pulses after which the window is checked as it is (about 2 s at Monocle's 60 a second). */
    private static final int MAX_PULSES = 120;

    /** What the checks read: each shown label's text, drawn text and box, and whether a layout is pending. */
    private String layout() {
        Parent root = window.scene().getRoot();
        List<Labeled> shown = new ArrayList<>();
        collect(root, shown);
        StringBuilder all = new StringBuilder().append(root.isNeedsLayout()).append('\n');
        for (Labeled labeled : shown) {
            Node text = labeled.lookup(".text");
            all.append(labeled.getText()).append('|')
                    .append(text instanceof Text drawn ? drawn.getText() : "").append('|')
                    .append(bounds(labeled)).append('\n');
        }
        return all.toString();
    }

    private static List<TabPane> innerTabPanes(Tab tab) {
        List<TabPane> found = new ArrayList<>();
        if (tab.getContent() instanceof Parent parent) {
            for (Node node : parent.lookupAll(".tab-pane")) {
                if (node instanceof TabPane pane && showing(pane)) {
                    found.add(pane);
                }
            }
        }
        return found;
    }

    /** What is clipped or overlapped in the window as it shows now, one line each, named with {@code where}. */
    private List<String> problems(String where) {
        Parent root = window.scene().getRoot();
        List<Labeled> shown = new ArrayList<>();
        collect(root, shown);
        List<String> found = new ArrayList<>();
        for (Labeled labeled : shown) {
            Node text = labeled.lookup(".text");
            if (text instanceof Text drawn && !drawn.getText().equals(labeled.getText())
                    && !drawn.getText().replace("\n", " ").equals(labeled.getText().replace("\n", " "))) {
                found.add(where + ": " + name(labeled) + " is cut to \"" + drawn.getText() + "\"");
            }
            Bounds box = bounds(labeled);
            for (Parent up = labeled.getParent(); up != null && !scrolls(up); up = up.getParent()) {
                Bounds outer = bounds(up);
                if (box.getMinX() < outer.getMinX() - SLACK || box.getMaxX() > outer.getMaxX() + SLACK
                        || box.getMinY() < outer.getMinY() - SLACK || box.getMaxY() > outer.getMaxY() + SLACK) {
                    found.add(where + ": " + name(labeled) + " at " + rect(box) + " sticks out of "
                            + up.getClass().getSimpleName() + up.getStyleClass() + " at " + rect(outer));
                    break;
                }
            }
        }
        // Each box once: the pairs below are many, and a box is a walk up the scene graph.
        Bounds[] boxes = new Bounds[shown.size()];
        for (int i = 0; i < boxes.length; i++) {
            boxes[i] = shown(shown.get(i));
        }
        for (int i = 0; i < shown.size(); i++) {
            for (int j = i + 1; j < shown.size(); j++) {
                Labeled a = shown.get(i);
                Labeled b = shown.get(j);
                Bounds x = boxes[i];
                Bounds y = boxes[j];
                if (x == null || y == null) {
                    continue;
                }
                double across = Math.min(x.getMaxX(), y.getMaxX()) - Math.max(x.getMinX(), y.getMinX());
                double down = Math.min(x.getMaxY(), y.getMaxY()) - Math.max(x.getMinY(), y.getMinY());
                if (across > SLACK && down > SLACK && !related(a, b)) {
                    found.add(where + ": " + name(a) + " at " + rect(x) + " overlaps " + name(b) + " at " + rect(y));
                }
            }
        }
        return found;
    }

    /** The labels and buttons that show text now, outside tables and lists (their rows scroll). */
    private static void collect(Node node, List<Labeled> into) {
        if (!node.isVisible() || node.getOpacity() == 0 || node instanceof Cell<?> || node instanceof TableView<?>
                || node instanceof TreeTableView<?> || node instanceof ListView<?>) {
            return;
        }
        if (node instanceof Labeled labeled && labeled.getText() != null && !labeled.getText().isBlank()
                && labeled.getWidth() > 0) {
            into.add(labeled);
        }
        if (node instanceof Parent parent) {
            for (Node child : parent.getChildrenUnmodifiable()) {
                collect(child, into);
            }
        }
    }

    /** A container whose content may be larger than it: its content scrolls into view. */
    private static boolean scrolls(Parent node) {
        return node instanceof ScrollPane || node.getStyleClass().contains("viewport")
                || node.getParent() != null && node.getParent().getStyleClass().contains("viewport");
    }

    private static boolean showing(Node node) {
        for (Node up = node; up != null; up = up.getParent()) {
            if (!up.isVisible()) {
                return false;
            }
        }
        return true;
    }

    private static boolean related(Node a, Node b) {
        for (Node up = a.getParent(); up != null; up = up.getParent()) {
            if (up == b) {
                return true;
            }
        }
        for (Node up = b.getParent(); up != null; up = up.getParent()) {
            if (up == a) {
                return true;
            }
        }
        return false;
    }

    /** The box in the layout's own pixels (the scaled root's content), so SLACK means the same at every scale. */
    private Bounds bounds(Node node) {
        Node content = ((Parent) window.scene().getRoot()).getChildrenUnmodifiable().get(0);
        return content.sceneToLocal(node.localToScene(node.getLayoutBounds()));
    }

    /**
     * The part of {@code node}'s box that shows: its box cut by every clip around it (a scrolled
     * viewport, a split pane's side, the tab headers' area), or null when none of it shows.
     */
    private Bounds shown(Node node) {
        Bounds box = bounds(node);
        for (Parent up = node.getParent(); up != null; up = up.getParent()) {
            if (up.getClip() != null) {
                Node content = ((Parent) window.scene().getRoot()).getChildrenUnmodifiable().get(0);
                Bounds clip = content.sceneToLocal(up.localToScene(up.getClip().getBoundsInParent()));
                double minX = Math.max(box.getMinX(), clip.getMinX());
                double minY = Math.max(box.getMinY(), clip.getMinY());
                double maxX = Math.min(box.getMaxX(), clip.getMaxX());
                double maxY = Math.min(box.getMaxY(), clip.getMaxY());
                if (maxX <= minX || maxY <= minY) {
                    return null;
                }
                box = new javafx.geometry.BoundingBox(minX, minY, maxX - minX, maxY - minY);
            }
        }
        return box;
    }

    private static String name(Labeled labeled) {
        String id = labeled.getId() == null ? "" : "#" + labeled.getId() + " ";
        return id + labeled.getClass().getSimpleName() + " \"" + labeled.getText().replace("\n", " ") + "\"";
    }

    private static String rect(Bounds b) {
        return String.format(Locale.ROOT, "[%.0f,%.0f %.0f×%.0f]", b.getMinX(), b.getMinY(), b.getWidth(),
                b.getHeight());
    }
}
