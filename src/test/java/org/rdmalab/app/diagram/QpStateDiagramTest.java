package org.rdmalab.app.diagram;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import javafx.css.PseudoClass;
import javafx.geometry.BoundingBox;
import javafx.geometry.Bounds;
import javafx.geometry.Point2D;
import javafx.scene.Group;
import javafx.scene.Node;
import javafx.scene.Scene;
import javafx.scene.control.Label;
import javafx.scene.layout.Region;
import javafx.scene.layout.StackPane;
import javafx.scene.paint.Color;
import javafx.scene.shape.LineTo;
import javafx.scene.shape.MoveTo;
import javafx.scene.shape.Path;
import javafx.scene.shape.PathElement;
import javafx.scene.shape.Polygon;
import javafx.scene.shape.QuadCurveTo;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.rdmalab.app.ControlSnapshots;
import org.rdmalab.app.WindowRobot;
import org.rdmalab.verbs.QpState;
import org.rdmalab.verbs.QpTransitions;
import org.rdmalab.verbs.QpType;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.Start;

/** The QP state diagram: arrows from the kernel's table, the current state, refusals, clicks. */
@ExtendWith(WindowRobot.class)
class QpStateDiagramTest {

    private static final PseudoClass CURRENT = PseudoClass.getPseudoClass("current");

    private QpStateDiagram diagram;

    private Stage stage;

    @Start
    void start(Stage primary) {
        // An own window: resizing it here must not change the primary stage other test classes reuse.
        stage = new Stage();
        diagram = new QpStateDiagram();
        diagram.setTitle("Local QP 0x11");
        StackPane root = new StackPane(diagram);
        root.setStyle("-fx-padding: 10;");
        Scene scene = new Scene(root, 320, 240);
        scene.getStylesheets().add(getClass().getResource("/styles/rdma-lab.css").toExternalForm());
        stage.setScene(scene);
        stage.show();
    }

    @AfterEach
    void closeWindow(FxRobot robot) {
        robot.interact(stage::close);
    }

    /** The arrows the table has, written out by iterating it here: every from ≠ to with a rule. */
    private static Set<String> tableArrows(QpType type) {
        Set<String> ids = new TreeSet<>();
        for (QpState from : QpState.values()) {
            for (QpState to : QpState.values()) {
                if (from != to && QpTransitions.rule(type, from, to) != null) {
                    ids.add("arrow-" + from.name() + "-" + to.name());
                }
            }
        }
        return ids;
    }

    private Set<String> drawnArrows(FxRobot robot) {
        return robot.from(diagram).lookup("." + QpStateDiagram.ARROW_CLASS).queryAll().stream()
                .filter(node -> !node.getStyleClass().contains(QpStateDiagram.PHANTOM_CLASS))
                .map(Node::getId)
                .collect(Collectors.toCollection(TreeSet::new));
    }

    @Test
    void drawsExactlyTheArrowsOfTheTableForEachQpType(FxRobot robot) {
        for (QpType type : List.of(QpType.RC, QpType.UC, QpType.UD)) {
            robot.interact(() -> diagram.setQpType(type));
            Set<String> expected = tableArrows(type);
            assertEquals(expected, drawnArrows(robot), type + " arrows");
            // RC: RESET→INIT→RTR→RTS, RTS⇄SQD, SQE→RTS, 5 into ERR, 6 into RESET
            assertEquals(17, expected.size(), type + " table size");
        }
        for (QpState state : List.of(QpState.RESET, QpState.INIT, QpState.RTR, QpState.RTS, QpState.SQD,
                QpState.SQE, QpState.ERR)) {
            assertTrue(diagram.stateNode(state).isPresent(), state.name());
        }
    }

    @Test
    void everyArrowStartsAndEndsAtItsBoxesAndNoBoxOverlapsAnother(FxRobot robot) {
        robot.interact(() -> diagram.setState(QpState.RTS));
        List<Region> boxes = new ArrayList<>();
        for (QpState state : DiagramLayout.STATES) {
            boxes.add((Region) diagram.stateNode(state).orElseThrow());
        }
        for (int i = 0; i < boxes.size(); i++) {
            assertTrue(boxes.get(i).getWidth() >= 40, "box " + i + " is readable: " + boxes.get(i).getWidth());
            for (int j = i + 1; j < boxes.size(); j++) {
                assertFalse(bounds(boxes.get(i)).intersects(bounds(boxes.get(j))),
                        boxes.get(i).getId() + " overlaps " + boxes.get(j).getId());
            }
        }
        // The main chain reads left to right on one row.
        double y = boxes.get(0).getLayoutY();
        for (QpState state : List.of(QpState.INIT, QpState.RTR, QpState.RTS)) {
            assertEquals(y, diagram.stateNode(state).orElseThrow().getLayoutY(), 0.5, state.name());
        }
        assertTrue(x(QpState.RESET) < x(QpState.INIT) && x(QpState.INIT) < x(QpState.RTR)
                && x(QpState.RTR) < x(QpState.RTS));
        assertTrue(diagram.stateNode(QpState.ERR).orElseThrow().getLayoutY() > y, "ERR sits below the chain");

        for (double[] size : new double[][] {{320, 240}, {320, 220}, {680, 460}}) {
            robot.interact(() -> {
                diagram.getScene().getWindow().setWidth(size[0]);
                diagram.getScene().getWindow().setHeight(size[1]);
            });
            for (QpType type : List.of(QpType.RC, QpType.UC, QpType.UD)) {
                robot.interact(() -> diagram.setQpType(type));
                assertArrowsRunBetweenTheirBoxesOnly(type);
            }
        }
    }

    private void assertArrowsRunBetweenTheirBoxesOnly(QpType type) {
        for (String id : tableArrows(type)) {
            String[] parts = id.split("-");
            QpState from = QpState.valueOf(parts[1]);
            QpState to = QpState.valueOf(parts[2]);
            Group arrow = (Group) diagram.arrowNode(from, to).orElseThrow();
            List<Point2D> points = points((Path) arrow.getChildren().get(0));
            Polygon head = (Polygon) arrow.getChildren().get(1);
            Point2D tip = new Point2D(head.getPoints().get(0), head.getPoints().get(1));
            assertOnBorder(points.get(0), box(from), id + " starts at " + from);
            assertOnBorder(tip, box(to), id + " ends at " + to);
            points.add(tip);
            for (QpState other : DiagramLayout.STATES) {
                if (other == from || other == to) {
                    continue;
                }
                Bounds inner = shrink(bounds(box(other)), 1);
                for (int i = 1; i < points.size(); i++) {
                    for (double f = 0; f <= 1; f += 0.02) {
                        Point2D p = points.get(i - 1).interpolate(points.get(i), f);
                        assertFalse(inner.contains(p), id + " runs through " + other + " at " + p);
                    }
                }
            }
        }
    }

    private Region box(QpState state) {
        return (Region) diagram.stateNode(state).orElseThrow();
    }

    /** A box's rectangle (bounds in parent would include the current state's shadow). */
    private static Bounds bounds(Region box) {
        return new BoundingBox(box.getLayoutX(), box.getLayoutY(), box.getWidth(), box.getHeight());
    }

    private static Bounds shrink(Bounds b, double by) {
        return new BoundingBox(b.getMinX() + by, b.getMinY() + by, b.getWidth() - 2 * by, b.getHeight() - 2 * by);
    }

    private static void assertOnBorder(Point2D p, Region box, String what) {
        Bounds b = bounds(box);
        Bounds outer = new BoundingBox(b.getMinX() - 1.5, b.getMinY() - 1.5, b.getWidth() + 3, b.getHeight() + 3);
        assertTrue(outer.contains(p) && !shrink(b, 1.5).contains(p), what + ": " + p + " vs " + b);
    }

    /** The end points of a path's elements (corner curves reduced to their ends). */
    private static List<Point2D> points(Path path) {
        List<Point2D> points = new ArrayList<>();
        for (PathElement element : path.getElements()) {
            if (element instanceof MoveTo move) {
                points.add(new Point2D(move.getX(), move.getY()));
            } else if (element instanceof LineTo line) {
                points.add(new Point2D(line.getX(), line.getY()));
            } else if (element instanceof QuadCurveTo curve) {
                points.add(new Point2D(curve.getX(), curve.getY()));
            }
        }
        return points;
    }

    private double x(QpState state) {
        return diagram.stateNode(state).orElseThrow().getLayoutX();
    }

    @Test
    void highlightFollowsTheStateWithItsColourToken(FxRobot robot) {
        assertTrue(diagram.getPseudoClassStates().contains(QpStateDiagram.NO_QP));
        for (QpState state : DiagramLayout.STATES) {
            assertFalse(isCurrent(state), state + " is not current without a QP");
        }
        robot.interact(() -> diagram.setState(QpState.RTS));
        assertTrue(isCurrent(QpState.RTS));
        assertEquals(Color.web("#16a34a"), fill(QpState.RTS), "RTS is filled with -rl-state-rts");
        assertEquals(Color.WHITE, fill(QpState.INIT), "INIT is not filled");
        assertTrue(diagram.arrowNode(QpState.RTS, QpState.SQD).orElseThrow().getPseudoClassStates()
                .contains(QpStateDiagram.AVAILABLE), "the arrows leaving RTS are emphasised");
        assertFalse(diagram.arrowNode(QpState.INIT, QpState.RTR).orElseThrow().getPseudoClassStates()
                .contains(QpStateDiagram.AVAILABLE));

        robot.interact(() -> diagram.setState(QpState.SQD));
        assertFalse(isCurrent(QpState.RTS));
        assertTrue(isCurrent(QpState.SQD));
        assertEquals(Color.web("#7c3aed"), fill(QpState.SQD), "SQD is filled with -rl-state-sqd");

        robot.interact(() -> diagram.setState(null));
        for (QpState state : DiagramLayout.STATES) {
            assertFalse(isCurrent(state));
        }
        assertTrue(diagram.getPseudoClassStates().contains(QpStateDiagram.NO_QP));
    }

    private boolean isCurrent(QpState state) {
        return diagram.stateNode(state).orElseThrow().getPseudoClassStates().contains(CURRENT);
    }

    private Color fill(QpState state) {
        Region box = (Region) diagram.stateNode(state).orElseThrow();
        return (Color) box.getBackground().getFills().get(0).getFill();
    }

    @Test
    void aRefusedMoveOutsideTheTableDrawsADashedRedArrowAndKeepsTheState(FxRobot robot) {
        robot.interact(() -> diagram.setState(QpState.RESET));
        assertTrue(diagram.arrowNode(QpState.RESET, QpState.RTS).isEmpty(), "RESET → RTS is not in the table");
        robot.interact(() -> diagram.refuse(QpState.RESET, QpState.RTS,
                "RESET → RTS is not a transition of a RC QP (from RESET a QP can go to RESET, INIT)"));
        Node arrow = diagram.arrowNode(QpState.RESET, QpState.RTS).orElseThrow();
        assertTrue(arrow.getStyleClass().containsAll(List.of(QpStateDiagram.REFUSED_CLASS,
                QpStateDiagram.PHANTOM_CLASS)), arrow.getStyleClass().toString());
        assertEquals(QpState.RESET, diagram.getState(), "the state is unchanged");
        Label reason = robot.from(diagram).lookup("." + QpStateDiagram.REASON_CLASS).queryAs(Label.class);
        assertTrue(reason.isVisible());
        assertTrue(reason.getText().startsWith("RESET → RTS is not a transition"), reason.getText());
        assertEquals(Color.web("#dc2626"), ((javafx.scene.shape.Shape) robot.from(arrow).lookup(
                "." + QpStateDiagram.ARROW_LINE_CLASS).query()).getStroke(), "drawn in -rl-state-err");

        waitUntil(() -> diagram.arrowNode(QpState.RESET, QpState.RTS).isEmpty());
        assertEquals(reason.getText(), diagram.getReason(), "the reason stays until the next transition");
        robot.interact(() -> diagram.animateTransition(QpState.RESET, QpState.INIT));
        assertEquals("", diagram.getReason());
        assertFalse(reason.isVisible());
    }

    @Test
    void aRefusedArrowOfTheTableFlashesRedThenReturns(FxRobot robot) {
        robot.interact(() -> {
            diagram.setState(QpState.INIT);
            diagram.refuse(QpState.INIT, QpState.RTR, "missing: AV, PATH_MTU, DEST_QPN, RQ_PSN");
        });
        Node arrow = diagram.arrowNode(QpState.INIT, QpState.RTR).orElseThrow();
        assertTrue(arrow.getStyleClass().contains(QpStateDiagram.REFUSED_CLASS));
        assertFalse(arrow.getStyleClass().contains(QpStateDiagram.PHANTOM_CLASS));
        assertEquals(QpState.INIT, diagram.getState());
        waitUntil(() -> !arrow.getStyleClass().contains(QpStateDiagram.REFUSED_CLASS));
        assertEquals("missing: AV, PATH_MTU, DEST_QPN, RQ_PSN", diagram.getReason());

        // Self-loops are not drawn; a refused one gets a temporary loop over its box.
        assertTrue(diagram.arrowNode(QpState.INIT, QpState.INIT).isEmpty());
        robot.interact(() -> diagram.refuse(QpState.INIT, QpState.INIT, "not allowed: QKEY"));
        Node loop = diagram.arrowNode(QpState.INIT, QpState.INIT).orElseThrow();
        assertTrue(loop.getStyleClass().contains(QpStateDiagram.PHANTOM_CLASS));
        double boxTop = diagram.stateNode(QpState.INIT).orElseThrow().getLayoutY();
        assertTrue(loop.getBoundsInParent().getMaxY() <= boxTop + 2 && loop.getBoundsInParent().getHeight() > 10,
                "the loop sits over the box: " + loop.getBoundsInParent());
        assertEquals("not allowed: QKEY", diagram.getReason());
    }

    @Test
    void animatingATransitionSetsTheStateAndRunsAPulseAlongTheArrow(FxRobot robot) {
        Node arrow = diagram.arrowNode(QpState.RTR, QpState.RTS).orElseThrow();
        List<Object> seen = new ArrayList<>();
        robot.interact(() -> {
            // Checked on the FX thread right away: on a loaded machine 400 ms may pass before the test thread looks.
            diagram.animateTransition(QpState.RTR, QpState.RTS);
            seen.add(arrow.getStyleClass().contains(QpStateDiagram.ANIMATING_CLASS));
            seen.add(diagram.lookupAll("." + QpStateDiagram.PULSE_CLASS).size());
        });
        assertEquals(QpState.RTS, diagram.getState());
        assertEquals(List.of(true, 1), seen, "the arrow is lit and one pulse runs along it");
        waitUntil(() -> !arrow.getStyleClass().contains(QpStateDiagram.ANIMATING_CLASS));
        assertTrue(robot.from(diagram).lookup("." + QpStateDiagram.PULSE_CLASS).queryAll().isEmpty());
    }

    @Test
    void clickingAStateAsksTheHandlerForIt(FxRobot robot) {
        List<QpState> requested = new ArrayList<>();
        robot.interact(() -> {
            diagram.setState(QpState.INIT);
            diagram.setOnStateRequested(requested::add);
        });
        robot.clickOn(diagram.stateNode(QpState.RTR).orElseThrow());
        robot.clickOn(diagram.stateNode(QpState.ERR).orElseThrow());
        assertEquals(List.of(QpState.RTR, QpState.ERR), requested);
        assertEquals(QpState.INIT, diagram.getState(), "a click only asks; the window decides");
    }

    @Test
    void snapshotsForTheEye(FxRobot robot) {
        robot.interact(() -> {
            ControlSnapshots.write(diagram, "qp-diagram-no-qp");
            diagram.setNote("the seed protocol carries no QP state; sync 'Q' implies RTS");
            diagram.setState(QpState.RTS);
            ControlSnapshots.write(diagram, "qp-diagram-rts");
            diagram.setState(QpState.INIT);
            diagram.refuse(QpState.INIT, QpState.RTS,
                    "INIT → RTS is not a transition of a RC QP (from INIT a QP can go to INIT, RTR, RESET, ERR)");
            diagram.refuse(QpState.INIT, QpState.RTR, "missing: AV, DEST_QPN");
            diagram.refuse(QpState.SQE, QpState.SQE, "not allowed: QKEY");
        });
        robot.interact(() -> ControlSnapshots.write(diagram, "qp-diagram-refused"));
        robot.interact(() -> {
            diagram.getScene().getWindow().setWidth(300 + 20);
            diagram.getScene().getWindow().setHeight(200 + 20);
        });
        robot.interact(() -> ControlSnapshots.write(diagram, "qp-diagram-300x200"));
        robot.interact(() -> {
            diagram.getScene().getWindow().setWidth(640);
            diagram.getScene().getWindow().setHeight(420);
        });
        robot.interact(() -> ControlSnapshots.write(diagram, "qp-diagram-large"));
        assertTrue(ControlSnapshots.FOLDER.resolve("qp-diagram-large.png").toFile().length() > 0);
    }

    /**
     * Waits until {@code condition} holds, looking on the FX thread: the diagram changes its nodes
     * there (a refused arrow fades and is removed), and a lookup from this thread may race with it.
     */
    private static void waitUntil(java.util.function.BooleanSupplier condition) {
        org.rdmalab.app.FxWait.waitForOnFx("the diagram", 5, condition);
    }

    @Test
    void theToolTipsSayWhatATransitionRequiresInTheWordsTheWindowGives(FxRobot robot) {
        javafx.scene.control.Tooltip rtr = tooltip(robot, "#arrow-INIT-RTR");
        assertTrue(rtr.getText().startsWith("INIT → RTR\nrequired: STATE, AV, PATH_MTU, RQ_PSN, MIN_RNR_TIMER, "
                + "MAX_DEST_RD_ATOMIC, DEST_QPN"), rtr.getText());
        assertTrue(rtr.getText().contains("\noptional: "), rtr.getText());
        assertEquals("IBV_QPS_RTS = 3\nclick to request this transition", tooltip(robot, "#state-RTS").getText());

        robot.interact(() -> diagram.setWording(new QpStateDiagram.Wording("点击以请求转到这个状态", "必需", "可选",
                "只需 STATE")));
        assertTrue(tooltip(robot, "#arrow-INIT-RTR").getText().startsWith("INIT → RTR\n必需: STATE, AV"),
                tooltip(robot, "#arrow-INIT-RTR").getText());
        assertEquals("RESET → INIT\n必需: STATE, ACCESS_FLAGS, PKEY_INDEX, PORT",
                tooltip(robot, "#arrow-RESET-INIT").getText().lines().limit(2).collect(Collectors.joining("\n")));
        assertEquals("IBV_QPS_RTS = 3\n点击以请求转到这个状态", tooltip(robot, "#state-RTS").getText());
    }

    private static javafx.scene.control.Tooltip tooltip(FxRobot robot, String query) {
        Node node = robot.lookup(query).query();
        Object tip = node.getProperties().get("javafx.scene.control.Tooltip");
        assertTrue(tip instanceof javafx.scene.control.Tooltip, query + " has a tool tip");
        return (javafx.scene.control.Tooltip) tip;
    }
}
