package org.rdmalab.app.diagram;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javafx.animation.Interpolator;
import javafx.animation.KeyFrame;
import javafx.animation.KeyValue;
import javafx.animation.Timeline;
import javafx.beans.property.DoubleProperty;
import javafx.beans.property.SimpleDoubleProperty;
import javafx.collections.SetChangeListener;
import javafx.geometry.Point2D;
import javafx.scene.AccessibleRole;
import javafx.scene.Cursor;
import javafx.scene.Group;
import javafx.scene.control.Label;
import javafx.scene.control.SkinBase;
import javafx.scene.control.Tooltip;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Pane;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.layout.StackPane;
import javafx.scene.layout.VBox;
import javafx.scene.shape.Circle;
import javafx.scene.shape.LineTo;
import javafx.scene.shape.MoveTo;
import javafx.scene.shape.Path;
import javafx.scene.shape.PathElement;
import javafx.scene.shape.Polygon;
import javafx.scene.shape.QuadCurveTo;
import org.rdmalab.app.diagram.DiagramLayout.Edge;
import org.rdmalab.app.diagram.DiagramLayout.Route;
import org.rdmalab.app.diagram.QpStateDiagram.Transition;
import org.rdmalab.verbs.QpAttrMask;
import org.rdmalab.verbs.QpState;
import org.rdmalab.verbs.QpTransitions;

/**
 * Draws a {@link QpStateDiagram}: a header (title, QP type), the diagram pane, the note and the
 * reason of the last refusal. All geometry is recomputed from {@link DiagramLayout} and the pane's
 * size on every layout pass; nothing is placed per state or per arrow by hand.
 */
public class QpStateDiagramSkin extends SkinBase<QpStateDiagram> {

    private static final double ARROW_GAP = 4;
    private static final double CORNER = 5;

    private final DiagramPane pane = new DiagramPane();
    private final Map<QpState, StackPane> boxes = new EnumMap<>(QpState.class);
    private final Map<QpState, Tooltip> stateTips = new EnumMap<>(QpState.class);
    private final Map<Transition, Arrow> arrows = new HashMap<>();
    private final Map<Transition, Arrow> phantoms = new HashMap<>();
    private final Label reasonLabel = new Label();
    private final SetChangeListener<Transition> refusedListener = this::refusedChanged;
    private DiagramLayout layout;

    /** Builds the skin's nodes for {@code control}. */
    public QpStateDiagramSkin(QpStateDiagram control) {
        super(control);
        Label title = new Label();
        title.getStyleClass().add(QpStateDiagram.TITLE_CLASS);
        title.textProperty().bind(control.titleProperty());
        title.setMinWidth(0);
        Label type = new Label();
        type.getStyleClass().add(QpStateDiagram.TYPE_CLASS);
        type.textProperty().bind(control.qpTypeProperty().asString());
        Region spacer = new Region();
        HBox.setHgrow(spacer, Priority.ALWAYS);
        HBox header = new HBox(6, title, spacer, type);
        header.getStyleClass().add("qp-diagram-header");

        Label note = new Label();
        note.getStyleClass().add(QpStateDiagram.NOTE_CLASS);
        note.textProperty().bind(control.noteProperty());
        note.setWrapText(true);
        note.visibleProperty().bind(control.noteProperty().isNotEmpty());
        note.managedProperty().bind(note.visibleProperty());

        reasonLabel.getStyleClass().add(QpStateDiagram.REASON_CLASS);
        reasonLabel.textProperty().bind(control.reasonProperty());
        reasonLabel.setWrapText(true);
        reasonLabel.visibleProperty().bind(control.reasonProperty().isNotEmpty());
        reasonLabel.managedProperty().bind(reasonLabel.visibleProperty());

        pane.getStyleClass().add("qp-diagram-pane");
        VBox.setVgrow(pane, Priority.ALWAYS);
        VBox content = new VBox(2, header, pane, note, reasonLabel);
        content.getStyleClass().add("qp-diagram-content");
        getChildren().add(content);

        for (QpState state : DiagramLayout.STATES) {
            boxes.put(state, box(state));
        }
        pane.getChildren().addAll(boxes.values());
        rebuildArrows();

        registerChangeListener(control.qpTypeProperty(), observable -> rebuildArrows());
        registerChangeListener(control.wordingProperty(), observable -> {
            stateTips.forEach((state, tip) -> tip.setText(stateTip(state)));
            rebuildArrows();
        });
        registerChangeListener(control.stateProperty(), observable -> updateCurrent());
        control.getRefusedTransitions().addListener(refusedListener);
        control.setAnimationListener(this::animate);
        updateCurrent();
    }

    @Override
    public void dispose() {
        getSkinnable().setAnimationListener(null);
        getSkinnable().getRefusedTransitions().removeListener(refusedListener);
        super.dispose();
    }

    private StackPane box(QpState state) {
        Label name = new Label(state.name());
        name.setMinWidth(0);
        StackPane box = new StackPane(name);
        box.setId(QpStateDiagram.stateId(state));
        box.getStyleClass().addAll(QpStateDiagram.STATE_CLASS, QpStateDiagram.stateStyleClass(state));
        box.setAccessibleRole(AccessibleRole.BUTTON);
        box.setAccessibleText("QP state " + state.name() + " (" + state.cName() + ")");
        box.setCursor(Cursor.HAND);
        box.setOnMouseClicked(event -> getSkinnable().requestState(state));
        Tooltip tip = new Tooltip(stateTip(state));
        stateTips.put(state, tip);
        Tooltip.install(box, tip);
        box.setManaged(false);
        return box;
    }

    private String stateTip(QpState state) {
        return state.cName() + " = " + state.value() + "\n" + getSkinnable().getWording().clickToRequest();
    }

    private void rebuildArrows() {
        pane.getChildren().removeAll(arrowNodes(arrows));
        arrows.clear();
        layout = DiagramLayout.of(getSkinnable().getQpType());
        List<Group> hubFirst = new ArrayList<>();
        for (Edge edge : layout.edges()) {
            Arrow arrow = new Arrow(edge.from(), edge.to(), edge);
            arrows.put(new Transition(edge.from(), edge.to()), arrow);
            if (edge.route() == Route.STRAIGHT) {
                hubFirst.add(arrow.group);
            } else {
                hubFirst.add(0, arrow.group);
            }
        }
        pane.getChildren().addAll(0, hubFirst);
        for (Transition transition : getSkinnable().getRefusedTransitions()) {
            markRefused(transition, true);
        }
        updateCurrent();
        pane.requestLayout();
    }

    private static List<Group> arrowNodes(Map<Transition, Arrow> map) {
        List<Group> nodes = new ArrayList<>();
        for (Arrow arrow : map.values()) {
            nodes.add(arrow.group);
        }
        return nodes;
    }

    private void updateCurrent() {
        QpState current = getSkinnable().getState();
        boxes.forEach((state, box) -> box.pseudoClassStateChanged(QpStateDiagram.CURRENT, state == current));
        arrows.forEach((transition, arrow) ->
                arrow.group.pseudoClassStateChanged(QpStateDiagram.AVAILABLE, transition.from() == current));
    }

    private void refusedChanged(SetChangeListener.Change<? extends Transition> change) {
        if (change.wasAdded()) {
            markRefused(change.getElementAdded(), true);
        }
        if (change.wasRemoved()) {
            markRefused(change.getElementRemoved(), false);
        }
    }

    private void markRefused(Transition transition, boolean on) {
        Arrow arrow = arrows.get(transition);
        if (arrow != null) {
            if (on) {
                if (!arrow.group.getStyleClass().contains(QpStateDiagram.REFUSED_CLASS)) {
                    arrow.group.getStyleClass().add(QpStateDiagram.REFUSED_CLASS);
                }
                arrow.group.toFront();
            } else {
                arrow.group.getStyleClass().remove(QpStateDiagram.REFUSED_CLASS);
            }
            return;
        }
        Arrow phantom = phantoms.get(transition);
        if (on && phantom == null) {
            phantom = new Arrow(transition.from(), transition.to(), null);
            phantom.group.getStyleClass().addAll(QpStateDiagram.REFUSED_CLASS, QpStateDiagram.PHANTOM_CLASS);
            phantoms.put(transition, phantom);
            pane.getChildren().add(phantom.group);
            pane.requestLayout();
        } else if (!on && phantom != null) {
            phantoms.remove(transition);
            pane.getChildren().remove(phantom.group);
        }
    }

    private void animate(Transition transition) {
        Arrow arrow = arrows.get(transition);
        if (arrow == null || arrow.points.size() < 2) {
            return;
        }
        Circle pulse = new Circle(4.5);
        pulse.getStyleClass().add(QpStateDiagram.PULSE_CLASS);
        pulse.setManaged(false);
        pulse.setMouseTransparent(true);
        arrow.group.getStyleClass().add(QpStateDiagram.ANIMATING_CLASS);
        arrow.group.toFront();
        pane.getChildren().add(pulse);
        DoubleProperty progress = new SimpleDoubleProperty();
        progress.addListener((observable, before, after) -> {
            Point2D at = pointAlong(arrow.points, after.doubleValue());
            pulse.setCenterX(at.getX());
            pulse.setCenterY(at.getY());
        });
        Point2D start = arrow.points.get(0);
        pulse.setCenterX(start.getX());
        pulse.setCenterY(start.getY());
        Timeline timeline = new Timeline(
                new KeyFrame(javafx.util.Duration.ZERO, new KeyValue(progress, 0)),
                new KeyFrame(QpStateDiagram.ANIMATION, new KeyValue(progress, 1, Interpolator.EASE_BOTH)));
        timeline.setOnFinished(done -> {
            pane.getChildren().remove(pulse);
            arrow.group.getStyleClass().remove(QpStateDiagram.ANIMATING_CLASS);
        });
        timeline.play();
    }

    static Point2D pointAlong(List<Point2D> points, double fraction) {
        double total = 0;
        for (int i = 1; i < points.size(); i++) {
            total += points.get(i).distance(points.get(i - 1));
        }
        double wanted = total * Math.max(0, Math.min(1, fraction));
        for (int i = 1; i < points.size(); i++) {
            Point2D a = points.get(i - 1);
            Point2D b = points.get(i);
            double length = b.distance(a);
            if (wanted <= length && length > 0) {
                return a.add(b.subtract(a).multiply(wanted / length));
            }
            wanted -= length;
        }
        return points.get(points.size() - 1);
    }

    @Override
    protected double computePrefWidth(double height, double top, double right, double bottom, double left) {
        return 300 + left + right;
    }

    @Override
    protected double computePrefHeight(double width, double top, double right, double bottom, double left) {
        return 200 + top + bottom;
    }

    @Override
    protected double computeMinWidth(double height, double top, double right, double bottom, double left) {
        return 220 + left + right;
    }

    @Override
    protected double computeMinHeight(double width, double top, double right, double bottom, double left) {
        return 150 + top + bottom;
    }

    /** One arrow: a line (polyline with rounded corners, or a curve for a phantom) and a head. */
    private final class Arrow {
        final Group group = new Group();
        final Path line = new Path();
        final Polygon head = new Polygon();
        final QpState from;
        final QpState to;
        final Edge edge;
        List<Point2D> points = List.of();

        Arrow(QpState from, QpState to, Edge edge) {
            this.from = from;
            this.to = to;
            this.edge = edge;
            line.getStyleClass().add(QpStateDiagram.ARROW_LINE_CLASS);
            line.setFill(null);
            head.getStyleClass().add(QpStateDiagram.ARROW_HEAD_CLASS);
            group.getChildren().addAll(line, head);
            group.setId(QpStateDiagram.arrowId(from, to));
            group.getStyleClass().add(QpStateDiagram.ARROW_CLASS);
            group.setManaged(false);
            group.setMouseTransparent(edge == null);
            group.setAccessibleText("transition " + from.name() + " to " + to.name());
            if (edge != null && edge.route() != Route.STRAIGHT) {
                group.getStyleClass().add(QpStateDiagram.HUB_ARROW_CLASS);
            }
            if (edge != null) {
                Tooltip.install(group, new Tooltip(describe(from, to)));
            }
        }

        private String describe(QpState from, QpState to) {
            QpTransitions.Rule rule = QpTransitions.rule(getSkinnable().getQpType(), from, to);
            QpStateDiagram.Wording words = getSkinnable().getWording();
            StringBuilder text = new StringBuilder(from.name() + " → " + to.name());
            if (rule != null) {
                text.append('\n').append(words.required()).append(": ").append(rule.required() == 0
                        ? words.stateOnly() : "STATE, " + QpAttrMask.names(rule.required()));
                if (rule.optional() != 0) {
                    text.append('\n').append(words.optional()).append(": ").append(QpAttrMask.names(rule.optional()));
                }
            }
            return text.toString();
        }

        void polyline(List<Point2D> route, double headLength) {
            points = route;
            int n = route.size();
            Point2D end = route.get(n - 1);
            Point2D direction = end.subtract(route.get(n - 2)).normalize();
            Point2D lineEnd = end.subtract(direction.multiply(headLength * 0.8));
            List<PathElement> elements = new ArrayList<>();
            elements.add(new MoveTo(route.get(0).getX(), route.get(0).getY()));
            for (int i = 1; i < n - 1; i++) {
                Point2D corner = route.get(i);
                Point2D in = route.get(i - 1);
                Point2D out = route.get(i + 1);
                double r = Math.min(CORNER, Math.min(corner.distance(in), corner.distance(out)) / 2);
                Point2D before = corner.add(in.subtract(corner).normalize().multiply(r));
                Point2D after = corner.add(out.subtract(corner).normalize().multiply(r));
                elements.add(new LineTo(before.getX(), before.getY()));
                elements.add(new QuadCurveTo(corner.getX(), corner.getY(), after.getX(), after.getY()));
            }
            elements.add(new LineTo(lineEnd.getX(), lineEnd.getY()));
            line.getElements().setAll(elements);
            setHead(end, direction, headLength);
        }

        void curve(Point2D start, Point2D control, Point2D end, double headLength) {
            Point2D direction = end.subtract(control).normalize();
            Point2D lineEnd = end.subtract(direction.multiply(headLength * 0.8));
            line.getElements().setAll(new MoveTo(start.getX(), start.getY()),
                    new QuadCurveTo(control.getX(), control.getY(), lineEnd.getX(), lineEnd.getY()));
            points = List.of(start, control, end);
            setHead(end, direction, headLength);
        }

        private void setHead(Point2D tip, Point2D direction, double length) {
            Point2D base = tip.subtract(direction.multiply(length));
            Point2D normal = new Point2D(-direction.getY(), direction.getX()).multiply(length * 0.5);
            head.getPoints().setAll(tip.getX(), tip.getY(),
                    base.getX() + normal.getX(), base.getY() + normal.getY(),
                    base.getX() - normal.getX(), base.getY() - normal.getY());
        }
    }

    /** The pane that places boxes and routes arrows for its current size. */
    private final class DiagramPane extends Pane {

        private double nodeW;
        private double nodeH;
        private final Map<QpState, Point2D> centres = new EnumMap<>(QpState.class);

        @Override
        protected void layoutChildren() {
            double w = getWidth();
            double h = getHeight();
            int columns = layout.columns();
            int rows = layout.rows();
            double side = clamp(w * 0.045, 9, 22);
            double pitchX = (w - 2 * side) / columns;
            nodeW = Math.max(24, Math.min(clamp(pitchX * 0.74, 44, 130), pitchX - 18));
            double lane = clamp(h * 0.075, 7, 16);
            double top = lane + 3;
            double bottomReserve = lane * 1.15 + 3;
            double area = Math.max(0, h - top - bottomReserve);
            nodeH = clamp(area * 0.26, 20, 40);
            double gap = rows > 1 ? Math.min((area - rows * nodeH) / (rows - 1), nodeH * 3) : 0;
            double used = rows * nodeH + (rows - 1) * gap;
            double firstTop = top + Math.max(0, (area - used) / 2);

            centres.clear();
            for (QpState state : DiagramLayout.STATES) {
                DiagramLayout.Cell cell = layout.cell(state);
                double cx = side + pitchX * (cell.column() + 0.5);
                double cy = firstTop + cell.row() * (nodeH + gap) + nodeH / 2;
                centres.put(state, new Point2D(cx, cy));
                boxes.get(state).resizeRelocate(snapPositionX(cx - nodeW / 2), snapPositionY(cy - nodeH / 2),
                        snapSizeX(nodeW), snapSizeY(nodeH));
            }
            double railY = firstTop - lane;
            double middleY = firstTop + nodeH + gap * 0.42;
            double lastBottom = firstTop + used;
            double sinkLaneY = lastBottom + lane * 0.5;
            double aroundY = lastBottom + lane * 1.1;
            double headLength = clamp(nodeH * 0.3, 6, 10);

            for (Arrow arrow : arrows.values()) {
                route(arrow, arrow.edge.route(), railY, middleY, sinkLaneY, aroundY, side, w, headLength);
            }
            for (Arrow phantom : phantoms.values()) {
                phantomCurve(phantom, w, h, headLength);
            }
        }

        private void route(Arrow arrow, Route route, double railY, double middleY, double sinkLaneY, double aroundY,
                           double side, double w, double headLength) {
            Point2D from = centres.get(arrow.from);
            Point2D to = centres.get(arrow.to);
            double halfW = nodeW / 2;
            double halfH = nodeH / 2;
            double shift = nodeW * 0.28;
            double towards = Math.signum(to.getX() - from.getX());
            switch (route) {
                case STRAIGHT -> {
                    Point2D d = to.subtract(from).normalize();
                    Point2D offset = arrow.edge.hasReverse()
                            ? new Point2D(d.getY(), -d.getX()).multiply(ARROW_GAP) : Point2D.ZERO;
                    Point2D p = from.add(offset);
                    Point2D q = to.add(offset);
                    arrow.polyline(List.of(exit(from, p, d), exit(to, q, d.multiply(-1))), headLength);
                }
                case TOP_RAIL -> arrow.polyline(List.of(
                        new Point2D(from.getX(), from.getY() - halfH),
                        new Point2D(from.getX(), railY),
                        new Point2D(to.getX(), railY),
                        new Point2D(to.getX(), to.getY() - halfH)), headLength * 0.85);
                case MIDDLE_LANE -> {
                    double x = from.getX() + towards * shift;
                    double entry = to.getX() + halfW * 0.45;
                    arrow.polyline(List.of(
                            new Point2D(x, from.getY() + halfH),
                            new Point2D(x, middleY),
                            new Point2D(entry, middleY),
                            new Point2D(entry, to.getY() - halfH)), headLength * 0.85);
                }
                case BOTTOM_LANE -> {
                    double x = from.getX() + towards * shift;
                    arrow.polyline(List.of(
                            new Point2D(x, from.getY() + halfH),
                            new Point2D(x, sinkLaneY),
                            new Point2D(to.getX(), sinkLaneY),
                            new Point2D(to.getX(), to.getY() + halfH)), headLength * 0.85);
                }
                case AROUND -> {
                    boolean right = from.getX() > w / 2;
                    double x = from.getX() + (right ? shift : -shift);
                    double margin = right ? w - side * 0.5 : side * 0.5;
                    arrow.polyline(List.of(
                            new Point2D(x, from.getY() + halfH),
                            new Point2D(x, aroundY),
                            new Point2D(margin, aroundY),
                            new Point2D(margin, railY),
                            new Point2D(to.getX(), railY),
                            new Point2D(to.getX(), to.getY() - halfH)), headLength * 0.85);
                }
                default -> throw new IllegalStateException("unknown route " + route);
            }
        }

        private void phantomCurve(Arrow arrow, double w, double h, double headLength) {
            Point2D from = centres.get(arrow.from);
            Point2D to = centres.get(arrow.to);
            if (arrow.from == arrow.to) {
                // A refused self-loop: a small loop over the box.
                double top = from.getY() - nodeH / 2;
                arrow.curve(new Point2D(from.getX() - nodeW * 0.22, top),
                        new Point2D(from.getX(), top - nodeH * 1.6),
                        new Point2D(from.getX() + nodeW * 0.22, top), headLength);
                return;
            }
            Point2D d = to.subtract(from);
            Point2D mid = from.midpoint(to);
            Point2D normal = new Point2D(d.getY(), -d.getX()).normalize();
            Point2D inward = new Point2D(w / 2, h / 2).subtract(mid);
            if (normal.dotProduct(inward) < 0) {
                normal = normal.multiply(-1);
            }
            double bulge = Math.max(nodeH * 1.6, d.magnitude() * 0.28);
            Point2D control = mid.add(normal.multiply(bulge));
            Point2D start = exit(from, from, control.subtract(from).normalize());
            Point2D end = exit(to, to, control.subtract(to).normalize());
            arrow.curve(start, control, end, headLength);
        }

        /** Where a ray from {@code p} (inside the box centred at {@code centre}) along {@code d} leaves the box. */
        private Point2D exit(Point2D centre, Point2D p, Point2D d) {
            double halfW = nodeW / 2;
            double halfH = nodeH / 2;
            double tx = d.getX() == 0 ? Double.POSITIVE_INFINITY
                    : ((d.getX() > 0 ? centre.getX() + halfW : centre.getX() - halfW) - p.getX()) / d.getX();
            double ty = d.getY() == 0 ? Double.POSITIVE_INFINITY
                    : ((d.getY() > 0 ? centre.getY() + halfH : centre.getY() - halfH) - p.getY()) / d.getY();
            double t = Math.min(tx, ty);
            return p.add(d.multiply(t));
        }
    }

    private static double clamp(double value, double min, double max) {
        return Math.max(min, Math.min(max, value));
    }
}
