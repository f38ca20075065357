package org.rdmalab.app.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javafx.collections.FXCollections;
import javafx.collections.ListChangeListener;
import javafx.collections.ObservableList;
import javafx.scene.chart.LineChart;
import javafx.scene.chart.NumberAxis;
import javafx.scene.control.Label;
import javafx.scene.shape.Line;
import org.rdmalab.app.common.UiText;
import org.rdmalab.bench.BenchRow;

/**
 * A latency distribution (CDF or histogram) on a logarithmic time axis (x values are log10 of µs,
 * see {@link #toAxis}; the ticks show µs), with vertical markers at percentiles: a line from the
 * bottom to the top of the plot at each marker's x, and its name and value beside it. RDMA markers
 * and baseline markers take the style classes {@link #MARKER_RDMA} and {@link #MARKER_BASELINE};
 * labels are stacked so that close percentiles stay readable.
 */
public final class DistributionChart extends LineChart<Number, Number> {

    /** Style class of every marker line and label. */
    static final String MARKER = "percentile-marker";
    static final String MARKER_RDMA = "percentile-rdma";
    static final String MARKER_BASELINE = "percentile-baseline";
    static final String MARKER_LABEL = "percentile-label";
    /** The x axis's label, in the window's language. */
    static String xLabel() {
        return UiText.text("bench.axis.microsLog");
    }

    private final ObservableList<BenchResults.Marker> markers = FXCollections.observableArrayList();
    private final List<Line> lines = new ArrayList<>();
    private final List<Label> labels = new ArrayList<>();

    public DistributionChart() {
        super(new NumberAxis(), new NumberAxis());
        setAnimated(false);
        setCreateSymbols(false);
        getXAxis().setAnimated(false);
        getYAxis().setAnimated(false);
        NumberAxis x = (NumberAxis) getXAxis();
        x.setForceZeroInRange(false);
        x.setLabel(xLabel());
        x.setTickLabelFormatter(new javafx.util.StringConverter<>() {
            @Override
            public String toString(Number value) {
                return micros(fromAxis(value.doubleValue()));
            }

            @Override
            public Number fromString(String text) {
                return toAxis(Double.parseDouble(text));
            }
        });
        markers.addListener((ListChangeListener<BenchResults.Marker>) change -> rebuildMarkers());
    }

    /** The percentiles to mark. */
    public ObservableList<BenchResults.Marker> markers() {
        return markers;
    }

    private void rebuildMarkers() {
        getPlotChildren().removeAll(lines);
        getPlotChildren().removeAll(labels);
        lines.clear();
        labels.clear();
        for (BenchResults.Marker marker : markers) {
            String path = marker.path() == BenchRow.Path.RDMA ? MARKER_RDMA : MARKER_BASELINE;
            Line line = new Line();
            line.getStyleClass().addAll(MARKER, path);
            line.setManaged(false);
            Label label = new Label(String.format(Locale.ROOT, "%s %s", marker.name(), micros(marker.micros())));
            label.getStyleClass().addAll(MARKER, MARKER_LABEL, path);
            label.setManaged(false);
            lines.add(line);
            labels.add(label);
        }
        getPlotChildren().addAll(lines);
        getPlotChildren().addAll(labels);
        requestChartLayout();
    }

    private static String micros(double value) {
        return value >= 100 ? String.format(Locale.ROOT, "%.0f", value) : value >= 10
                ? String.format(Locale.ROOT, "%.1f", value) : String.format(Locale.ROOT, "%.2f", value);
    }

    /** The x axis is logarithmic: a time in µs is drawn at log10 of it. */
    static double toAxis(double micros) {
        return Math.log10(Math.max(micros, 1e-3));
    }

    static double fromAxis(double value) {
        return Math.pow(10, value);
    }

    @Override
    protected void layoutPlotChildren() {
        super.layoutPlotChildren();
        NumberAxis x = (NumberAxis) getXAxis();
        NumberAxis y = (NumberAxis) getYAxis();
        double top = y.getDisplayPosition(y.getUpperBound());
        double bottom = y.getDisplayPosition(y.getLowerBound());
        double right = x.getDisplayPosition(x.getUpperBound());
        for (int i = 0; i < lines.size(); i++) {
            double at = x.getDisplayPosition(toAxis(markers.get(i).micros()));
            boolean inside = at >= x.getDisplayPosition(x.getLowerBound()) - 0.5 && at <= right + 0.5;
            Line line = lines.get(i);
            Label label = labels.get(i);
            line.setVisible(inside);
            label.setVisible(inside);
            line.setStartX(at);
            line.setEndX(at);
            line.setStartY(top);
            line.setEndY(bottom);
            label.autosize();
            double width = label.prefWidth(-1);
            double height = label.prefHeight(width);
            double left = at + width + 3 > right ? at - width - 3 : at + 3;
            label.resizeRelocate(left, top + 2 + (i % 6) * height, width, height);
        }
    }
}
