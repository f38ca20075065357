package org.rdmalab.app.ladder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import javafx.geometry.Bounds;
import javafx.scene.Node;
import javafx.scene.control.Label;
import javafx.scene.control.TabPane;
import javafx.scene.control.TableView;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.rdmalab.app.FxWait;
import org.rdmalab.app.MainWindow;
import org.rdmalab.app.TestWindows;
import org.rdmalab.app.WindowRobot;
import org.rdmalab.app.common.UiText;
import org.rdmalab.app.lab.LabViewModel;
import org.rdmalab.app.settings.LabSettings;
import org.rdmalab.ladder.WorkRequest;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.Start;

/**
 * Wire › Ladder leaves the ladder room to be read once a work request is picked: at the window's
 * default 1280 × 800 and at its smallest 1280 × 680, in both languages, the chart under the request
 * table ends inside the tab (also after the window grew and shrank back) with room for three arrows
 * at the default size, the toolbar is one row, and the picked request's line and its row in the
 * table are still shown whole above it.
 */
@ExtendWith(WindowRobot.class)
class LadderHeightWindowTest {

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
            all.add(Arguments.of(language, (double) MainWindow.WIDTH, (double) MainWindow.HEIGHT));
            all.add(Arguments.of(language, (double) MainWindow.MIN_WIDTH, (double) MainWindow.MIN_HEIGHT));
        }
        return all.stream();
    }

    @ParameterizedTest(name = "{0} at {1} × {2}")
    @MethodSource("windows")
    void theChartUnderThePickedRequestKeepsItsHeadAndArrowsInsideTheTab(String language, double width, double height, FxRobot robot) {
        UiText.use(UiText.parse(language));
        robot.interact(() -> window = TestWindows.open(stage, LabSettings.defaults(), width, height));
        FxWait.waitFor("the devices", 30, () -> !window.lab().setup().devices().isEmpty()
                && !window.lab().setup().gids().isEmpty());
        LabViewModel lab = window.lab();
        FxWait.onFx(() -> {
            lab.setup().useRecommendedGid();
            lab.apply(lab.defaultSetup().withGidIndex(lab.setup().gidIndexProperty().get()));
            lab.runAllToEnd();
            return null;
        });
        FxWait.waitFor("the seed's WRITE on the ladder", 60, () -> FxWait.onFx(() -> window.workRequests().requests()
                .stream().anyMatch(request -> request.state() == WorkRequest.State.COMPLETED
                        && request.packets().length > 0)));
        // Wire › Ladder, as a user opens it, and the WRITE picked in the table.
        robot.interact(() -> {
            TabPane inspector = (TabPane) window.scene().lookup(".inspector");
            inspector.getSelectionModel().select(inspector.getTabs().stream()
                    .filter(tab -> "wireTab".equals(tab.getId())).findFirst().orElseThrow());
            TabPane wire = (TabPane) window.scene().lookup(".wire-tabs");
            wire.getSelectionModel().select(wire.getTabs().stream()
                    .filter(tab -> "ladderTab".equals(tab.getId())).findFirst().orElseThrow());
        });
        WorkRequest write = FxWait.onFx(() -> window.workRequests().requests().stream()
                .filter(request -> request.packets().length > 0).findFirst().orElseThrow());
        robot.interact(() -> window.workRequests().select(write));
        settle();

        assertLaidOut(robot, write, language + " at " + width + " × " + height);
        // Larger, then back: a chart that kept the size it once had would now be cut at both ends.
        robot.interact(() -> {
            stage.setWidth(1900);
            stage.setHeight(1150);
        });
        settle();
        robot.interact(() -> {
            stage.setWidth(width);
            stage.setHeight(height);
        });
        settle();
        assertLaidOut(robot, write, language + " at " + width + " × " + height + " after 1900 × 1150");
    }

    /**
     * The chart ends inside the tab with room for its head and three arrows at the default size (its
     * least height, 100 px, at the smallest), the toolbar is one row, and the picked request's line
     * and row are whole above the chart.
     */
    private static void assertLaidOut(FxRobot robot, WorkRequest write, String when) {
        javafx.stage.Window window = robot.lookup(".ladder-view").query().getScene().getWindow();
        Node root = robot.lookup(".ladder-view").query();
        LadderChart chart = robot.lookup("#ladderChart").queryAs(LadderChart.class);
        TableView<?> table = robot.lookup("#requestTable").queryAs(TableView.class);
        Label line = robot.lookup("#requestLine").queryAs(Label.class);
        Node zoomIn = robot.lookup("#zoomInButton").query();
        Node capture = robot.lookup("#captureMenu").query();
        FxWait.onFx(() -> {
            Bounds tab = root.localToScene(root.getLayoutBounds());
            Bounds drawn = chart.localToScene(chart.getLayoutBounds());
            Bounds requests = table.localToScene(table.getLayoutBounds());
            Bounds said = line.localToScene(line.getLayoutBounds());
            String where = String.format(Locale.ROOT, "%s: tab %.0f px (y %.0f..%.0f), chart %.0f px"
                            + " (y %.0f..%.0f), table %.0f px, line %.0f px", when, tab.getHeight(),
                    tab.getMinY(), tab.getMaxY(), drawn.getHeight(), drawn.getMinY(), drawn.getMaxY(),
                    requests.getHeight(), said.getHeight());
            System.out.println(where);
            if (window.getHeight() >= MainWindow.HEIGHT) {
                // At the default size and above: the ladder's head and at least three arrows.
                assertTrue(drawn.getHeight() >= LadderLayout.TOP + 3 * LadderLayout.ROW, "room for three arrows: " + where);
            }
            assertTrue(drawn.getHeight() >= 100, "the chart keeps its least height: " + where);
            assertTrue(drawn.getMaxY() <= tab.getMaxY() + 1, "the chart ends inside the tab: " + where);
            // The toolbar is one row: its first and last buttons share a line.
            Bounds first = zoomIn.localToScene(zoomIn.getLayoutBounds());
            Bounds last = capture.localToScene(capture.getLayoutBounds());
            assertEquals(first.getCenterY(), last.getCenterY(), 1, "one toolbar row: " + first + " / " + last);
            // The line and the picked row stay whole above the chart.
            assertTrue(line.isVisible() && said.getHeight() >= 30, "the request's line is two lines high: " + where);
            assertTrue(said.getMaxY() <= requests.getMinY() + 0.5, "the line is above the table: " + where);
            assertTrue(requests.getMaxY() <= drawn.getMinY() + 0.5, "the table is above the chart: " + where);
            Node row = table.lookupAll(".table-row-cell").stream()
                    .filter(cell -> ((javafx.scene.control.TableRow<?>) cell).getItem() == write)
                    .findFirst().orElseThrow(() -> new AssertionError("the picked request has a row: " + where));
            Bounds picked = row.localToScene(row.getLayoutBounds());
            assertTrue(picked.getMinY() >= requests.getMinY() - 0.5 && picked.getMaxY() <= requests.getMaxY() + 0.5,
                    "the picked request's row is shown whole: " + picked + " in " + requests);
            return true;
        });
    }

    /** Pulses until the chart's and the table's boxes stay the same over three pulses (at most 120). */
    private void settle() {
        // The tab just picked puts its content in the scene in a later pulse: look on the JavaFX thread.
        Node[] found = new Node[2];
        FxWait.waitForOnFx("the chart and the request table in the scene", 10, () -> {
            found[0] = window.scene().lookup("#ladderChart");
            found[1] = window.scene().lookup("#requestTable");
            return found[0] != null && found[1] != null;
        });
        Node chart = found[0];
        Node table = found[1];
        FxWait.settle(() -> chart.localToScene(chart.getLayoutBounds()) + " " + table.localToScene(table.getLayoutBounds()),
                3, 120);
    }
}
