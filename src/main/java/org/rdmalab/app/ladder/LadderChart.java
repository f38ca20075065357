package org.rdmalab.app.ladder;

import java.util.List;
import java.util.function.Function;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.DoubleProperty;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.beans.property.SimpleDoubleProperty;
import javafx.css.CssMetaData;
import javafx.css.Styleable;
import javafx.css.StyleableObjectProperty;
import javafx.css.StyleableProperty;
import javafx.css.StyleablePropertyFactory;
import javafx.scene.control.Control;
import javafx.scene.control.Skin;
import javafx.scene.paint.Color;

/**
 * The ladder diagram: for each QP pair two vertical time lines (side A, the side of the first
 * packet, on the left; side B on the right), time running down, each packet an arrow across named
 * by {@link ArrowLabels}; dropped packets end mid-way with a cross, retransmissions, duplicates,
 * reorders and bad ICRCs are marked, the waits before retransmissions are drawn as brackets with
 * their durations, and long idle stretches are compressed and labelled with their length.
 *
 * <p>Its skin draws on one Canvas, only the rows in view, whenever the ladder, the zoom, the scroll
 * position, the selection or the size change (at most once a pulse). {@link #zoomProperty()}
 * stretches time; {@link #topProperty()} is the page position at the top of the view;
 * {@link #followProperty()} keeps the newest packet in view while it is true. {@link #visible()}
 * says what the last drawing showed (tests read the arrows' labels from it).
 *
 * <p>Colours are CSS properties ({@code -rl-ladder-request} …) set from the tokens in
 * {@code styles/controls.css}. JavaFX thread only.
 */
public class LadderChart extends Control {

    /** Style class of the control. */
    public static final String STYLE_CLASS = "packet-ladder";

    /**
     * An arrow as drawn.
     *
     * @param index its ladder index
     * @param y where it leaves its sender, in the view (0 is the view's top)
     * @param fromA true when it goes from side A to side B
     * @param name opcode and PSN, or the AETH
     * @param detail payload length and RETH, or ""
     * @param marks dropped, retransmission, duplicate, reordered, ICRC bad
     * @param highlighted true when it is one of the selected packets
     */
    public record DrawnArrow(long index, double y, boolean fromA, String name, String detail, List<String> marks,
                             boolean highlighted) {
    }

    /**
     * What the last drawing showed.
     *
     * @param arrows the arrows in view, top to bottom
     * @param pauses the labels of the compressed idle stretches in view
     * @param gaps the labels of the waits before retransmissions in view
     * @param fromNanos the time at the view's top, from the ladder's first packet
     * @param toNanos the time at the view's bottom
     * @param total arrows in the ladder (of the pair drawn)
     */
    public record Visible(List<DrawnArrow> arrows, List<String> pauses, List<String> gaps, long fromNanos, long toNanos,
                          int total) {
        /** The ladder index of the first arrow in view, or -1. */
        public long firstIndex() {
            return arrows.isEmpty() ? -1 : arrows.get(0).index();
        }

        /** The ladder index of the last arrow in view, or -1. */
        public long lastIndex() {
            return arrows.isEmpty() ? -1 : arrows.get(arrows.size() - 1).index();
        }
    }

    private static final StyleablePropertyFactory<LadderChart> CSS = new StyleablePropertyFactory<>(
            Control.getClassCssMetaData());

    private final LadderViewModel model;
    private final DoubleProperty zoom = new SimpleDoubleProperty(this, "zoom", 1);
    private final DoubleProperty top = new SimpleDoubleProperty(this, "top", 0);
    private final BooleanProperty follow = new SimpleBooleanProperty(this, "follow", true);
    private Visible visible = new Visible(List.of(), List.of(), List.of(), 0, 0, 0);

    private final StyleableObjectProperty<Color> requestColor = color("requestColor", "-rl-ladder-request", "#2563eb",
            chart -> chart.requestColor);
    private final StyleableObjectProperty<Color> answerColor = color("answerColor", "-rl-ladder-answer", "#16a34a",
            chart -> chart.answerColor);
    private final StyleableObjectProperty<Color> nakColor = color("nakColor", "-rl-ladder-nak", "#dc2626",
            chart -> chart.nakColor);
    private final StyleableObjectProperty<Color> markColor = color("markColor", "-rl-ladder-mark", "#ea580c",
            chart -> chart.markColor);
    private final StyleableObjectProperty<Color> lineColor = color("lineColor", "-rl-ladder-line", "#64748b",
            chart -> chart.lineColor);
    private final StyleableObjectProperty<Color> textColor = color("textColor", "-rl-ladder-text", "#1e293b",
            chart -> chart.textColor);
    private final StyleableObjectProperty<Color> mutedColor = color("mutedColor", "-rl-ladder-muted", "#64748b",
            chart -> chart.mutedColor);
    private final StyleableObjectProperty<Color> highlightColor = color("highlightColor", "-rl-ladder-highlight",
            "#fde68a", chart -> chart.highlightColor);
    private final StyleableObjectProperty<Color> pauseColor = color("pauseColor", "-rl-ladder-pause", "#f1f5f9",
            chart -> chart.pauseColor);

    private StyleableObjectProperty<Color> color(String name, String css, String initial,
                                                 Function<LadderChart, StyleableProperty<Color>> property) {
        return (StyleableObjectProperty<Color>) CSS.createStyleableColorProperty(this, name, css, property,
                Color.web(initial));
    }

    public LadderChart(LadderViewModel model) {
        this.model = model;
        getStyleClass().add(STYLE_CLASS);
        getStylesheets().add(java.util.Objects.requireNonNull(LadderChart.class.getResource("/styles/controls.css"))
                .toExternalForm());
        setFocusTraversable(true);
    }

    public LadderViewModel model() {
        return model;
    }

    /** Time stretch: 1 is one pixel per 20 µs; bounded by {@link LadderLayout#MIN_ZOOM} and {@link LadderLayout#MAX_ZOOM}. */
    public DoubleProperty zoomProperty() {
        return zoom;
    }

    /** The page position at the top of the view (the scroll bar's value). */
    public DoubleProperty topProperty() {
        return top;
    }

    /** While true, the view scrolls to the newest packet as packets arrive. */
    public BooleanProperty followProperty() {
        return follow;
    }

    /** Zooms in time by {@code factor} about the middle of the view, within the zoom's bounds. */
    public void zoomBy(double factor) {
        if (getSkin() instanceof LadderChartSkin skin) {
            skin.zoomAbout(factor, getHeight() / 2);
        } else {
            zoom.set(LadderLayout.clampZoom(zoom.get() * factor));
        }
    }

    /** Scrolls to the newest packet and keeps it in view as packets arrive. */
    public void showNewest() {
        follow.set(true);
        if (getSkin() instanceof LadderChartSkin skin) {
            skin.relayout();
        }
    }

    /** Scrolls so that ladder index {@code index} is in view (near the top); false when it is not drawn. */
    public boolean scrollTo(long index) {
        return getSkin() instanceof LadderChartSkin skin && skin.scrollTo(index);
    }

    /** What the last drawing showed. */
    public Visible visible() {
        return visible;
    }

    void visible(Visible drawn) {
        this.visible = drawn;
    }

    Color requestColor() {
        return requestColor.get();
    }

    Color answerColor() {
        return answerColor.get();
    }

    Color nakColor() {
        return nakColor.get();
    }

    Color markColor() {
        return markColor.get();
    }

    Color lineColor() {
        return lineColor.get();
    }

    Color textColor() {
        return textColor.get();
    }

    Color mutedColor() {
        return mutedColor.get();
    }

    Color highlightColor() {
        return highlightColor.get();
    }

    Color pauseColor() {
        return pauseColor.get();
    }

    @Override
    protected Skin<?> createDefaultSkin() {
        return new LadderChartSkin(this);
    }

    public static List<CssMetaData<? extends Styleable, ?>> getClassCssMetaData() {
        return CSS.getCssMetaData();
    }

    @Override
    public List<CssMetaData<? extends Styleable, ?>> getControlCssMetaData() {
        return getClassCssMetaData();
    }
}
