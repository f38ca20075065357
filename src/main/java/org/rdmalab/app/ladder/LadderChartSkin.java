package org.rdmalab.app.ladder;

import java.util.ArrayList;
import java.util.List;
import javafx.collections.SetChangeListener;
import javafx.geometry.Orientation;
import javafx.geometry.VPos;
import javafx.scene.canvas.Canvas;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.control.ScrollBar;
import javafx.scene.control.SkinBase;
import javafx.scene.input.MouseEvent;
import javafx.scene.input.ScrollEvent;
import javafx.scene.paint.Color;
import javafx.scene.shape.StrokeLineCap;
import javafx.scene.text.Font;
import javafx.scene.text.FontWeight;
import javafx.scene.text.TextAlignment;
import org.rdmalab.ladder.Arrow;
import org.rdmalab.ladder.Gap;
import org.rdmalab.ladder.Ladder;
import org.rdmalab.ladder.QpPair;

/**
 * Draws a {@link LadderChart} on one Canvas with a vertical scroll bar. The layout is rebuilt when
 * the arrows or the zoom change; each drawing covers only the view's rows (a binary search finds
 * the first), so a capture of a hundred thousand packets draws as fast as ten.
 */
final class LadderChartSkin extends SkinBase<LadderChart> {

    /** How far an arrow falls between its sender and its receiver. */
    private static final double SLANT = 10;
    /** Lanes narrower than this show one pair at a time (the view's pair chooser). */
    private static final double MIN_LANE = 380;

    private final Canvas canvas = new Canvas();
    private final ScrollBar scroll = new ScrollBar();
    private final LadderLayout layout = new LadderLayout();
    private final Font nameFont = Font.font("System", FontWeight.BOLD, 11);
    private final Font smallFont = Font.font("System", 10);
    private boolean layoutDirty = true;
    private boolean drawDirty = true;
    private boolean adjusting;
    private List<QpPair> lanes = List.of();

    LadderChartSkin(LadderChart chart) {
        super(chart);
        scroll.setOrientation(Orientation.VERTICAL);
        getChildren().addAll(canvas, scroll);
        LadderViewModel model = chart.model();
        // Redrawn as the ladder is shown (at most every LadderViewModel.REDRAW_MILLIS while packets stream).
        model.shownRevisionProperty().addListener((observable, before, after) -> relayout());
        model.pairProperty().addListener((observable, before, after) -> relayout());
        model.selectedPackets().addListener((SetChangeListener<Long>) change -> redraw());
        chart.zoomProperty().addListener((observable, before, after) -> relayout());
        chart.topProperty().addListener((observable, before, after) -> {
            double max = Math.max(0, layout.height() - canvas.getHeight());
            double within = Math.max(0, Math.min(max, after.doubleValue()));
            if (within != after.doubleValue() && !layoutDirty) {
                // Scrolled past either end: it stops there.
                chart.topProperty().set(within);
                return;
            }
            if (!adjusting) {
                adjusting = true;
                scroll.setValue(after.doubleValue());
                adjusting = false;
            }
            redraw();
        });
        scroll.valueProperty().addListener((observable, before, after) -> {
            if (!adjusting) {
                adjusting = true;
                chart.topProperty().set(after.doubleValue());
                chart.followProperty().set(after.doubleValue() >= scroll.getMax() - 1);
                adjusting = false;
            }
        });
        chart.widthProperty().addListener((observable, before, after) -> redraw());
        chart.heightProperty().addListener((observable, before, after) -> relayout());
        chart.addEventHandler(ScrollEvent.SCROLL, this::scrolled);
        chart.addEventHandler(MouseEvent.MOUSE_CLICKED, this::clicked);
        registerChangeListener(chart.skinProperty(), observable -> redraw());
    }

    void relayout() {
        layoutDirty = true;
        redraw();
    }

    private void redraw() {
        drawDirty = true;
        getSkinnable().requestLayout();
    }

    /*
     * The canvas is sized to the chart in layoutChildren, and a canvas's minimum and preferred sizes
     * are its current size: left to SkinBase, the chart could then never be made smaller than it
     * once was, and a pane that shrank would centre it, cut at both ends. The chart scrolls, so it
     * asks for little and takes what it is given.
     */
    @Override
    protected double computeMinWidth(double height, double topInset, double rightInset, double bottomInset,
                                     double leftInset) {
        return leftInset + rightInset + scroll.minWidth(-1);
    }

    @Override
    protected double computeMinHeight(double width, double topInset, double rightInset, double bottomInset,
                                      double leftInset) {
        return topInset + bottomInset;
    }

    @Override
    protected double computePrefWidth(double height, double topInset, double rightInset, double bottomInset,
                                      double leftInset) {
        return leftInset + rightInset + PREF_WIDTH;
    }

    @Override
    protected double computePrefHeight(double width, double topInset, double rightInset, double bottomInset,
                                       double leftInset) {
        return topInset + bottomInset + PREF_HEIGHT;
    }

    /** What the chart asks for when nothing else decides its size. */
    private static final double PREF_WIDTH = 400;
    private static final double PREF_HEIGHT = 300;

    @Override
    protected void layoutChildren(double x, double y, double width, double height) {
        double bar = scroll.prefWidth(-1);
        scroll.resizeRelocate(x + width - bar, y, bar, height);
        canvas.setLayoutX(x);
        canvas.setLayoutY(y);
        if (canvas.getWidth() != width - bar || canvas.getHeight() != height) {
            canvas.setWidth(Math.max(0, width - bar));
            canvas.setHeight(Math.max(0, height));
            drawDirty = true;
        }
        if (layoutDirty) {
            rebuild();
        }
        if (drawDirty) {
            drawDirty = false;
            draw();
        }
    }

    private void rebuild() {
        layoutDirty = false;
        LadderChart chart = getSkinnable();
        double anchor = chart.topProperty().get();
        long anchorIndex = -1;
        double anchorOffset = 0;
        if (layout.size() > 0) {
            int at = Math.min(layout.size() - 1, layout.firstAtOrBelow(anchor));
            anchorIndex = layout.arrow(at).index();
            anchorOffset = layout.y(at) - anchor;
        }
        layout.build(chart.model().arrows(), chart.zoomProperty().get());
        QpPair only = chart.model().pairProperty().get();
        lanes = only != null ? List.of(only) : chart.model().shownProperty().get().ladder().pairs();
        double view = canvas.getHeight();
        double max = Math.max(0, layout.height() - view);
        scroll.setMin(0);
        scroll.setMax(max);
        scroll.setVisibleAmount(view * max / Math.max(1, layout.height()));
        scroll.setUnitIncrement(LadderLayout.ROW);
        scroll.setBlockIncrement(Math.max(LadderLayout.ROW, view * 0.9));
        double top;
        if (chart.followProperty().get()) {
            top = max;
        } else if (anchorIndex >= 0) {
            int position = layout.positionOf(anchorIndex);
            top = position >= 0 ? layout.y(position) - anchorOffset : anchor;
        } else {
            top = anchor;
        }
        top = Math.max(0, Math.min(max, top));
        adjusting = true;
        scroll.setValue(top);
        chart.topProperty().set(top);
        adjusting = false;
    }

    /** Zooms by {@code factor} keeping the packet at {@code viewY} where it is. */
    void zoomAbout(double factor, double viewY) {
        LadderChart chart = getSkinnable();
        if (layoutDirty) {
            rebuild();
        }
        double pageY = chart.topProperty().get() + viewY;
        int at = layout.size() == 0 ? -1 : Math.min(layout.size() - 1, layout.firstAtOrBelow(pageY));
        long index = at < 0 ? -1 : layout.arrow(at).index();
        double offset = at < 0 ? 0 : layout.y(at) - chart.topProperty().get();
        chart.followProperty().set(false);
        chart.zoomProperty().set(LadderLayout.clampZoom(chart.zoomProperty().get() * factor));
        rebuild();
        if (index >= 0) {
            int position = layout.positionOf(index);
            double max = Math.max(0, layout.height() - canvas.getHeight());
            chart.topProperty().set(Math.max(0, Math.min(max, layout.y(position) - offset)));
        }
        redraw();
    }

    boolean scrollTo(long index) {
        if (layoutDirty) {
            rebuild();
        }
        int position = layout.positionOf(index);
        if (position < 0) {
            return false;
        }
        LadderChart chart = getSkinnable();
        chart.followProperty().set(false);
        double max = Math.max(0, layout.height() - canvas.getHeight());
        chart.topProperty().set(Math.max(0, Math.min(max, layout.y(position) - LadderLayout.TOP - LadderLayout.ROW)));
        return true;
    }

    private void scrolled(ScrollEvent event) {
        LadderChart chart = getSkinnable();
        if (event.isControlDown()) {
            zoomAbout(event.getDeltaY() > 0 ? 1.25 : 0.8, event.getY());
        } else {
            double max = scroll.getMax();
            double top = Math.max(0, Math.min(max, chart.topProperty().get() - event.getDeltaY()));
            chart.topProperty().set(top);
            chart.followProperty().set(top >= max - 1);
        }
        event.consume();
    }

    private void clicked(MouseEvent event) {
        getSkinnable().requestFocus();
        if (layoutDirty) {
            rebuild();
        }
        int position = layout.nearest(getSkinnable().topProperty().get() + event.getY() - SLANT / 2,
                LadderLayout.ROW * Math.min(1, layout.zoom()) / 2 + SLANT);
        getSkinnable().model().click(position < 0 ? null : layout.arrow(position));
    }

    private void draw() {
        LadderChart chart = getSkinnable();
        GraphicsContext g = canvas.getGraphicsContext2D();
        double width = canvas.getWidth();
        double height = canvas.getHeight();
        g.clearRect(0, 0, width, height);
        double top = chart.topProperty().get();
        Ladder ladder = chart.model().shownProperty().get().ladder();
        long zero = ladder.firstTimeNanos() == Long.MIN_VALUE ? 0 : ladder.firstTimeNanos();
        List<LadderChart.DrawnArrow> drawn = new ArrayList<>();
        List<String> pauseLabels = new ArrayList<>();
        List<String> gapLabels = new ArrayList<>();
        int laneCount = Math.max(1, lanes.size());
        double laneWidth = width / laneCount;
        if (laneWidth < MIN_LANE && laneCount > 1) {
            // Too many pairs side by side: the first one; the view's chooser picks another.
            lanes = List.of(lanes.get(0));
            laneCount = 1;
            laneWidth = width;
        }
        // Compressed pauses first, under everything.
        for (LadderLayout.Pause pause : layout.pauses()) {
            if (pause.bottom() < top || pause.top() > top + height) {
                continue;
            }
            Arrow after = layout.arrow(pause.before());
            String label = after.gap() != null && after.gap().kind() != null && after.retransmission()
                    ? ArrowLabels.gap(after.gap()) : org.rdmalab.app.common.UiText.format("ladder.idle",
                    ArrowLabels.duration(pause.nanos()));
            drawPause(g, pause.top() - top + LadderLayout.ROW / 2, pause.bottom() - top - LadderLayout.ROW / 2, width,
                    label, chart);
            pauseLabels.add(label);
        }
        for (int lane = 0; lane < laneCount; lane++) {
            drawLines(g, lanes.isEmpty() ? null : lanes.get(lane), lane * laneWidth, laneWidth, height, chart);
        }
        int first = layout.firstAtOrBelow(top - LadderLayout.ROW);
        double spacingFloor = LadderLayout.ROW * Math.min(1, layout.zoom());
        for (int position = first; position < layout.size(); position++) {
            double y = layout.y(position) - top;
            if (y > height + LadderLayout.ROW) {
                break;
            }
            Arrow arrow = layout.arrow(position);
            int lane = laneOf(arrow.pair());
            if (lane < 0) {
                continue;
            }
            boolean highlighted = chart.model().selectedPackets().contains(arrow.index());
            double room = position + 1 < layout.size() ? layout.y(position + 1) - layout.y(position) : LadderLayout.ROW;
            room = Math.min(room, position > 0 ? layout.y(position) - layout.y(position - 1) : LadderLayout.ROW);
            String name = ArrowLabels.name(arrow);
            String detail = ArrowLabels.detail(arrow);
            List<String> marks = ArrowLabels.marks(arrow);
            drawArrow(g, arrow, lane * laneWidth, laneWidth, y, name, detail, marks, highlighted,
                    Math.max(room, spacingFloor), zero, chart);
            if (arrow.gap() != null) {
                int from = layout.positionOf(arrow.gap().fromIndex());
                double fromY = from >= 0 ? layout.y(from) - top : y - LadderLayout.IDLE_DRAWN;
                String label = ArrowLabels.gap(arrow.gap());
                // Inside a compressed pause the pause's band already says it.
                boolean inPause = position > 0 && layout.y(position) - layout.y(position - 1)
                        >= LadderLayout.IDLE_DRAWN;
                drawGap(g, arrow, lane * laneWidth, laneWidth, fromY, y, inPause ? null : label, chart);
                gapLabels.add(label);
            }
            if (y >= -SLANT && y <= height) {
                drawn.add(new LadderChart.DrawnArrow(arrow.index(), y, arrow.fromA(), name, detail, marks, highlighted));
            }
        }
        // The pairs' heads stay on top of the view.
        for (int lane = 0; lane < laneCount; lane++) {
            drawHeads(g, lanes.isEmpty() ? null : lanes.get(lane), lane * laneWidth, laneWidth, chart);
        }
        if (layout.size() == 0) {
            g.setFill(chart.mutedColor());
            g.setFont(smallFont);
            g.setTextAlign(TextAlignment.CENTER);
            g.fillText(org.rdmalab.app.common.UiText.text("ladder.empty"), width / 2, LadderLayout.TOP + 40);
        }
        long fromNanos = timeAt(top + LadderLayout.TOP, zero);
        long toNanos = timeAt(top + height, zero);
        chart.visible(new LadderChart.Visible(List.copyOf(drawn), List.copyOf(pauseLabels), List.copyOf(gapLabels),
                fromNanos, toNanos, layout.size()));
    }

    /** The time of the last arrow at or above page position {@code pageY}, from the ladder's first packet. */
    private long timeAt(double pageY, long zero) {
        if (layout.size() == 0) {
            return 0;
        }
        int below = layout.firstAtOrBelow(pageY);
        int at = Math.max(0, Math.min(layout.size() - 1, below == layout.size() ? below - 1 : below));
        return layout.arrow(at).timeNanos() - zero;
    }

    private int laneOf(QpPair pair) {
        for (int i = 0; i < lanes.size(); i++) {
            if (lanes.get(i) == pair) {
                return i;
            }
        }
        return lanes.isEmpty() ? 0 : -1;
    }

    private static double lineA(double left, double width) {
        return left + width * 0.2;
    }

    private static double lineB(double left, double width) {
        return left + width * 0.8;
    }

    private void drawLines(GraphicsContext g, QpPair pair, double left, double width, double height, LadderChart chart) {
        g.setStroke(chart.lineColor());
        g.setLineWidth(2);
        g.setLineDashes();
        g.strokeLine(lineA(left, width), LadderLayout.TOP - 12, lineA(left, width), height);
        g.strokeLine(lineB(left, width), LadderLayout.TOP - 12, lineB(left, width), height);
    }

    private void drawHeads(GraphicsContext g, QpPair pair, double left, double width, LadderChart chart) {
        g.setFill(chart.pauseColor());
        g.fillRect(left, 0, width, LadderLayout.TOP - 14);
        g.setFill(chart.textColor());
        g.setFont(nameFont);
        g.setTextAlign(TextAlignment.CENTER);
        g.setTextBaseline(VPos.BASELINE);
        String a = pair == null ? "A" : pair.hostA() + "  QP " + qp(pair.qpA());
        String b = pair == null ? "B" : pair.hostB() + "  QP " + qp(pair.qpB());
        g.fillText(a, lineA(left, width), 18, width * 0.38);
        g.fillText(b, lineB(left, width), 18, width * 0.38);
        g.setFont(smallFont);
        g.setFill(chart.mutedColor());
        g.fillText(org.rdmalab.app.common.UiText.text("ladder.timeDown"), (lineA(left, width) + lineB(left, width)) / 2,
                34);
    }

    private static String qp(int qp) {
        return qp < 0 ? "?" : "0x" + Integer.toHexString(qp);
    }

    private void drawArrow(GraphicsContext g, Arrow arrow, double left, double width, double y, String name,
                           String detail, List<String> marks, boolean highlighted, double room, long zero,
                           LadderChart chart) {
        double xa = lineA(left, width);
        double xb = lineB(left, width);
        double from = arrow.fromA() ? xa : xb;
        double to = arrow.fromA() ? xb : xa;
        double slant = Math.min(SLANT, room * 0.4);
        if (highlighted) {
            g.setFill(chart.highlightColor());
            g.fillRect(left + 4, y - Math.min(room, LadderLayout.ROW) / 2 - 2, width - 8,
                    Math.min(room, LadderLayout.ROW) + slant);
        }
        Color colour = arrow.isNak() ? chart.nakColor() : arrow.request() ? chart.requestColor() : chart.answerColor();
        if (arrow.retransmission() || arrow.duplicate() || arrow.reordered()) {
            colour = chart.markColor();
        }
        g.setStroke(colour);
        g.setFill(colour);
        g.setLineWidth(highlighted ? 2.5 : 1.5);
        g.setLineCap(StrokeLineCap.ROUND);
        g.setLineDashes(arrow.icrcOk() ? null : new double[] {5, 3});
        double endX = to;
        double endY = y + slant;
        if (arrow.dropped()) {
            endX = (from + to) / 2;
            endY = y + slant / 2;
        }
        g.strokeLine(from, y, endX, endY);
        g.setLineDashes();
        if (arrow.dropped()) {
            g.setStroke(chart.nakColor());
            g.setLineWidth(2.5);
            double c = 6;
            g.strokeLine(endX - c, endY - c, endX + c, endY + c);
            g.strokeLine(endX - c, endY + c, endX + c, endY - c);
        } else {
            double angle = Math.atan2(endY - y, endX - from);
            double head = 8;
            double[] xs = {endX, endX - head * Math.cos(angle - 0.4), endX - head * Math.cos(angle + 0.4)};
            double[] ys = {endY, endY - head * Math.sin(angle - 0.4), endY - head * Math.sin(angle + 0.4)};
            g.fillPolygon(xs, ys, 3);
        }
        if (room < 12) {
            return;
        }
        double middle = (from + to) / 2;
        g.setTextAlign(TextAlignment.CENTER);
        g.setTextBaseline(VPos.BASELINE);
        g.setFont(nameFont);
        g.setFill(arrow.isNak() ? chart.nakColor() : chart.textColor());
        g.fillText(name, middle, y + slant / 2 - 4, Math.abs(to - from) - 8);
        // The time at the sender's line, outside it.
        g.setFont(smallFont);
        g.setFill(chart.mutedColor());
        g.setTextAlign(arrow.fromA() ? TextAlignment.RIGHT : TextAlignment.LEFT);
        g.fillText(ArrowLabels.time(arrow.timeNanos() - zero), arrow.fromA() ? from - 6 : from + 6, y + 4);
        if (room < 24) {
            return;
        }
        // Under the arrow: the detail, then the marks in their colour, centred together.
        String marksText = marks.isEmpty() ? "" : (detail.isEmpty() ? "" : " · ") + String.join(" · ", marks);
        double span = Math.abs(to - from) - 8;
        g.setFont(smallFont);
        double detailWidth = width(detail, smallFont);
        double marksWidth = width(marksText, nameFont);
        double total = detailWidth + marksWidth;
        double squeeze = total > span ? span / total : 1;
        double x = middle - Math.min(total, span) / 2;
        double baseline = y + slant / 2 + 12;
        g.setTextAlign(TextAlignment.LEFT);
        if (!detail.isEmpty()) {
            g.setFill(chart.mutedColor());
            g.fillText(detail, x, baseline, detailWidth * squeeze);
        }
        if (!marksText.isEmpty()) {
            g.setFont(nameFont);
            g.setFill(arrow.dropped() || !arrow.icrcOk() ? chart.nakColor() : chart.markColor());
            g.fillText(marksText, x + detailWidth * squeeze, baseline, marksWidth * squeeze);
        }
    }

    private final javafx.scene.text.Text measure = new javafx.scene.text.Text();

    private double width(String text, Font font) {
        if (text.isEmpty()) {
            return 0;
        }
        measure.setFont(font);
        measure.setText(text);
        return measure.getLayoutBounds().getWidth();
    }

    /** The wait before a retransmission: a bracket beside the requester's line, with its kind and length. */
    private void drawGap(GraphicsContext g, Arrow arrow, double left, double width, double fromY, double toY,
                         String label, LadderChart chart) {
        double line = arrow.fromA() ? lineA(left, width) : lineB(left, width);
        double x = arrow.fromA() ? line - 14 : line + 14;
        double tick = arrow.fromA() ? 5 : -5;
        g.setStroke(chart.markColor());
        g.setLineWidth(1.5);
        g.setLineDashes(3, 3);
        g.strokeLine(x, fromY, x, toY);
        g.setLineDashes();
        g.strokeLine(x, fromY, x + tick, fromY);
        g.strokeLine(x, toY, x + tick, toY);
        if (label == null) {
            return;
        }
        g.setFill(chart.markColor());
        g.setFont(nameFont);
        g.setTextBaseline(VPos.CENTER);
        g.setTextAlign(arrow.fromA() ? TextAlignment.RIGHT : TextAlignment.LEFT);
        double y = Math.max(LadderLayout.TOP + 4, (fromY + toY) / 2);
        g.fillText(label, arrow.fromA() ? x - 6 : x + 6, Math.min(y, toY - 6), Math.max(40, width * 0.2 - 20));
        g.setTextBaseline(VPos.BASELINE);
    }

    /** A compressed idle stretch: a band across the lanes with a zigzag and its length. */
    private void drawPause(GraphicsContext g, double fromY, double toY, double width, String label, LadderChart chart) {
        g.setFill(chart.pauseColor());
        g.fillRect(0, fromY, width, toY - fromY);
        g.setStroke(chart.lineColor());
        g.setLineWidth(1);
        g.setLineDashes(2, 4);
        g.strokeLine(0, fromY, width, fromY);
        g.strokeLine(0, toY, width, toY);
        g.setLineDashes();
        g.setFill(chart.mutedColor());
        g.setFont(nameFont);
        g.setTextAlign(TextAlignment.CENTER);
        g.setTextBaseline(VPos.CENTER);
        g.fillText("≈ " + label + " ≈", width / 2, (fromY + toY) / 2);
        g.setTextBaseline(VPos.BASELINE);
    }
}
