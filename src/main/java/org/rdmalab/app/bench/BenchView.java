package org.rdmalab.app.bench;

import java.io.File;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javafx.beans.InvalidationListener;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.css.PseudoClass;
import javafx.fxml.FXML;
import javafx.scene.chart.BarChart;
import javafx.scene.chart.CategoryAxis;
import javafx.scene.chart.LineChart;
import javafx.scene.chart.NumberAxis;
import javafx.scene.chart.XYChart;
import javafx.scene.control.Button;
import javafx.scene.control.CheckBox;
import javafx.scene.control.ChoiceBox;
import javafx.scene.control.ComboBox;
import javafx.scene.control.Label;
import javafx.scene.control.ScrollPane;
import javafx.scene.control.Spinner;
import javafx.scene.control.SpinnerValueFactory;
import javafx.scene.control.TableView;
import javafx.scene.control.TextArea;
import javafx.scene.control.TextField;
import javafx.scene.control.ToggleButton;
import javafx.scene.control.Tooltip;
import javafx.scene.layout.FlowPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.StackPane;
import javafx.scene.layout.VBox;
import javafx.stage.FileChooser;
import javafx.util.StringConverter;
import org.rdmalab.app.MainView;
import org.rdmalab.app.common.UiText;
import org.rdmalab.bench.BenchMode;
import org.rdmalab.bench.BenchSettings;
import org.rdmalab.bench.BenchTest;

/**
 * Controller of {@code BenchView.fxml}: binds the form to the {@link BenchViewModel}, draws its
 * series in the three charts (live, per size, distribution with percentile markers), shows the rows
 * in a table with perftest's columns and, while Details is pressed, the {@code --verbose} lines
 * under it ({@link ResultsTable}), and asks for a file on Save. The charts redraw when the view model's lists change, which happens at most once a frame
 * while a run goes. While Wide is pressed the lab's panes step aside ({@link MainView}) and the tab
 * shows the whole form and the three charts side by side. Narrower than {@link #COMPACT_WIDTH} (Wide
 * released: the tab between the lab's columns) it is compact: the form shows its buttons, the rest
 * while Settings is pressed, and one chart at a time, chosen beside the buttons, takes the charts'
 * width with the legend in a column beside it, so that the chart and three rows of the table fit the
 * tab at the window's default size. Where even that does not fit, the view scrolls.
 */
public final class BenchView {

    /** Series names, shown in the legends: "RDMA" in every language, the baseline's in the window's. */
    static final String RDMA = "RDMA";

    static String baseline() {
        return UiText.text("bench.udpBaseline");
    }

    /** Below this width (px) the tab is compact: the form folds under Settings and the charts show one at a time. */
    static final double COMPACT_WIDTH = 720;
    /** A chart's minimum height (px) side by side, and one at a time in the compact tab (its row also fits the side column). */
    static final double CHARTS_MIN_HEIGHT = 200;
    static final double COMPACT_CHARTS_MIN_HEIGHT = 110;
    /** Set on the view while it is compact. */
    static final PseudoClass COMPACT = PseudoClass.getPseudoClass("compact");

    private final BenchViewModel viewModel;
    private final BenchForm form;
    private final BenchResults results;

    @FXML
    private ScrollPane benchScroll;
    @FXML
    private VBox benchPane;
    @FXML
    private FlowPane benchForm;
    @FXML
    private HBox benchButtons;
    @FXML
    private ToggleButton benchSettings;
    @FXML
    private ChoiceBox<BenchForm.Role> benchRole;
    @FXML
    private HBox benchServerField;
    @FXML
    private HBox benchLocalField;
    @FXML
    private HBox benchTcpPortField;
    @FXML
    private TextField benchServer;
    @FXML
    private TextField benchLocal;
    @FXML
    private TextField benchTcpPort;
    @FXML
    private CheckBox benchPerftest;
    @FXML
    private HBox benchTimeoutField;
    @FXML
    private Spinner<Integer> benchTimeout;
    @FXML
    private ChoiceBox<String> benchDevice;
    @FXML
    private Spinner<Integer> benchIbPort;
    @FXML
    private TextField benchGid;
    @FXML
    private ChoiceBox<BenchTest> benchTest;
    @FXML
    private ChoiceBox<BenchMode> benchMode;
    @FXML
    private ComboBox<Integer> benchSize;
    @FXML
    private CheckBox benchSweep;
    @FXML
    private ChoiceBox<BenchForm.Limit> benchLimit;
    @FXML
    private Spinner<Integer> benchIterations;
    @FXML
    private Spinner<Integer> benchSeconds;
    @FXML
    private ChoiceBox<Integer> benchMtu;
    @FXML
    private Label benchTxDepthLabel;
    @FXML
    private Spinner<Integer> benchTxDepth;
    @FXML
    private CheckBox benchGbits;
    @FXML
    private CheckBox benchBaseline;
    @FXML
    private CheckBox benchBoth;
    @FXML
    private Spinner<Integer> benchQps;
    @FXML
    private Label benchQpsLabel;
    @FXML
    private Button benchRun;
    @FXML
    private Button benchStop;
    @FXML
    private Button benchSave;
    @FXML
    private ToggleButton benchWide;
    @FXML
    private Label benchStatus;
    @FXML
    private ChoiceBox<Chart> benchChart;
    @FXML
    private HBox benchCharts;
    @FXML
    private StackPane benchDistributionPane;
    @FXML
    private HBox distributionBar;
    @FXML
    private VBox benchChartSide;
    @FXML
    private VBox distributionSide;
    @FXML
    private ChoiceBox<BenchResults.Distribution> distributionKindSide;
    @FXML
    private ChoiceBox<Integer> distributionSizeSide;
    @FXML
    private LineChart<Number, Number> liveChart;
    @FXML
    private NumberAxis liveTime;
    @FXML
    private NumberAxis liveValue;
    @FXML
    private CategoryAxis sizeAxis;
    @FXML
    private BarChart<String, Number> sizeChart;
    @FXML
    private NumberAxis sizeValue;
    @FXML
    private ChoiceBox<BenchResults.Distribution> distributionKind;
    @FXML
    private Label distributionTitle;
    @FXML
    private Label distributionOf;
    @FXML
    private ChoiceBox<Integer> distributionSize;
    @FXML
    private DistributionChart distributionChart;
    @FXML
    private Label distributionPlaceholder;
    @FXML
    private Label benchRowCount;
    @FXML
    private Button benchCopy;
    @FXML
    private TableView<BenchResults.ResultRow> benchTable;
    @FXML
    private ToggleButton benchDetails;
    @FXML
    private TextArea benchVerbose;

    private final XYChart.Series<Number, Number> liveRdma = new XYChart.Series<>();
    private final XYChart.Series<Number, Number> liveBaseline = new XYChart.Series<>();
    private final XYChart.Series<String, Number> sizeRdma = new XYChart.Series<>();
    private final XYChart.Series<String, Number> sizeBaseline = new XYChart.Series<>();
    private final XYChart.Series<Number, Number> distributionRdma = new XYChart.Series<>();
    private final XYChart.Series<Number, Number> distributionBaseline = new XYChart.Series<>();

    /** The results table under the charts. */
    private ResultsTable table;

    /** True while the tab is narrower than {@link #COMPACT_WIDTH}. */
    private final BooleanProperty compact = new SimpleBooleanProperty();

    public BenchView(BenchViewModel viewModel) {
        this.viewModel = viewModel;
        this.form = viewModel.form();
        this.results = viewModel.results();
    }

    @FXML
    private void initialize() {
        // Scenarios find the view model of the shown window here.
        benchScroll.getProperties().put(BenchViewModel.class, viewModel);
        benchRole.getItems().setAll(BenchForm.Role.values());
        benchRole.valueProperty().bindBidirectional(form.roleProperty());
        var role = form.roleProperty();
        // The compact tab keeps the buttons and folds the rest of the form under Settings.
        var formShown = compact.not().or(benchSettings.selectedProperty());
        benchSettings.visibleProperty().bind(compact);
        benchSettings.managedProperty().bind(compact);
        benchSettings.setTooltip(new Tooltip(UiText.text("bench.tip.settings")));
        // A server has its address and port; a client the server's too; loopback none.
        var peer = role.isNotEqualTo(BenchForm.Role.LOOPBACK);
        for (javafx.scene.Node field : benchForm.getChildren()) {
            if (field == benchButtons || field == benchChart) {
                continue;
            }
            // --timeout is how long one side waits for the other over TCP; loopback has both here.
            var shown = field == benchServerField ? formShown.and(role.isEqualTo(BenchForm.Role.CLIENT))
                    : List.of(benchLocalField, benchTcpPortField, benchTimeoutField).contains(field)
                    ? formShown.and(peer) : formShown;
            field.visibleProperty().bind(shown);
            field.managedProperty().bind(shown);
        }
        benchPerftest.selectedProperty().bindBidirectional(form.perftestProperty());
        benchPerftest.setTooltip(new Tooltip(UiText.text("bench.tip.perftest")));
        benchServer.textProperty().bindBidirectional(form.serverAddressProperty());
        benchLocal.textProperty().bindBidirectional(form.localAddressProperty());
        // bench's defaults for --local-ip, as the field's hint.
        benchLocal.promptTextProperty().bind(javafx.beans.binding.Bindings.when(role.isEqualTo(
                BenchForm.Role.CLIENT)).then(UiText.text("bench.auto"))
                .otherwise(org.rdmalab.bench.Topology.DEFAULT_SERVER_ADDRESS));
        benchTcpPort.textProperty().bindBidirectional(form.tcpPortProperty());
        SpinnerValueFactory.IntegerSpinnerValueFactory timeout = new SpinnerValueFactory.IntegerSpinnerValueFactory(
                1, 86_400, form.timeoutProperty().get(), 10);
        benchTimeout.setValueFactory(timeout);
        timeout.valueProperty().bindBidirectional(form.timeoutProperty());
        benchDevice.setItems(viewModel.devices().names());
        benchDevice.valueProperty().bindBidirectional(form.deviceProperty());
        Tooltip devices = new Tooltip();
        devices.textProperty().bind(viewModel.devices().noteProperty());
        benchDevice.setTooltip(devices);
        SpinnerValueFactory.IntegerSpinnerValueFactory ibPort = new SpinnerValueFactory.IntegerSpinnerValueFactory(
                1, 255, form.ibPortProperty().get(), 1);
        benchIbPort.setValueFactory(ibPort);
        ibPort.valueProperty().bindBidirectional(form.ibPortProperty());
        benchGid.textProperty().bindBidirectional(form.gidIndexProperty());
        benchGid.setTooltip(new Tooltip(UiText.text("bench.tip.gid")));
        benchTest.getItems().setAll(BenchTest.WRITE, BenchTest.READ, BenchTest.SEND, BenchTest.ATOMIC);
        benchTest.setConverter(converter(BenchTest::cliName));
        benchTest.valueProperty().bindBidirectional(form.testProperty());
        benchMode.getItems().setAll(BenchMode.values());
        benchMode.setConverter(converter(mode -> UiText.text(mode == BenchMode.BW ? "bench.mode.bw"
                : "bench.mode.lat")));
        benchMode.valueProperty().bindBidirectional(form.modeProperty());
        benchSize.getItems().setAll(BenchForm.SIZES);
        benchSize.setConverter(converter(BenchViewModel::bytes));
        benchSize.valueProperty().bindBidirectional(form.sizeProperty());
        benchSize.disableProperty().bind(form.sweepProperty().or(form.testProperty().isEqualTo(BenchTest.ATOMIC))
                .or(viewModel.runningProperty()));
        benchSweep.selectedProperty().bindBidirectional(form.sweepProperty());
        SpinnerValueFactory.IntegerSpinnerValueFactory iterations = new SpinnerValueFactory.IntegerSpinnerValueFactory(
                BenchSettings.MIN_ITERATIONS, BenchSettings.MAX_ITERATIONS, form.iterationsProperty().get(), 1000);
        benchIterations.setValueFactory(iterations);
        iterations.valueProperty().bindBidirectional(form.iterationsProperty());
        benchLimit.getItems().setAll(BenchForm.Limit.values());
        benchLimit.valueProperty().bindBidirectional(form.limitProperty());
        SpinnerValueFactory.IntegerSpinnerValueFactory seconds = new SpinnerValueFactory.IntegerSpinnerValueFactory(
                1, 3600, form.secondsProperty().get(), 1);
        benchSeconds.setValueFactory(seconds);
        seconds.valueProperty().bindBidirectional(form.secondsProperty());
        // Seconds per size, or between two rows of a run until stopped.
        var timed = form.limitProperty().isNotEqualTo(BenchForm.Limit.ITERATIONS);
        benchSeconds.visibleProperty().bind(timed);
        benchIterations.visibleProperty().bind(timed.not());
        for (Spinner<Integer> spinner : List.of(benchIterations, benchSeconds)) {
            spinner.managedProperty().bind(spinner.visibleProperty());
        }
        benchMtu.getItems().setAll(BenchForm.MTUS);
        benchMtu.setConverter(converter(bytes -> bytes == 0 ? UiText.text("bench.mtu.active") : String.valueOf(bytes)));
        benchMtu.valueProperty().bindBidirectional(form.mtuProperty());
        SpinnerValueFactory.IntegerSpinnerValueFactory depth = new SpinnerValueFactory.IntegerSpinnerValueFactory(
                1, BenchSettings.MAX_TX_DEPTH, form.txDepthProperty().get(), 16);
        benchTxDepth.setValueFactory(depth);
        depth.valueProperty().bindBidirectional(form.txDepthProperty());
        SpinnerValueFactory.IntegerSpinnerValueFactory qps = new SpinnerValueFactory.IntegerSpinnerValueFactory(
                1, BenchSettings.MAX_QPS, form.qpsProperty().get(), 1);
        benchQps.setValueFactory(qps);
        qps.valueProperty().bindBidirectional(form.qpsProperty());
        benchQps.setTooltip(new Tooltip(UiText.text("bench.tip.qps")));
        // A typed number counts when the field loses focus, not only on Enter.
        for (Spinner<Integer> spinner : List.of(benchIterations, benchSeconds, benchTxDepth, benchTimeout, benchIbPort,
                benchQps)) {
            spinner.focusedProperty().addListener((observable, before, focused) -> {
                if (!focused) {
                    commit(spinner);
                }
            });
        }
        benchBaseline.selectedProperty().bindBidirectional(form.baselineProperty());
        benchGbits.selectedProperty().bindBidirectional(form.reportGbitsProperty());
        benchBoth.selectedProperty().bindBidirectional(form.bidirectionalProperty());
        benchBoth.setTooltip(new Tooltip(UiText.text("bench.tip.both")));
        var running = viewModel.runningProperty();
        for (javafx.scene.Node field : List.of(benchRole, benchServer, benchLocal, benchTcpPort, benchPerftest,
                benchTimeout, benchDevice, benchIbPort, benchGid, benchTest, benchMode,
                benchSweep, benchLimit, benchIterations, benchSeconds, benchMtu, benchGbits)) {
            field.disableProperty().bind(running);
        }
        // A run until stopped has no baseline; -b is for bandwidth tests.
        benchBaseline.disableProperty().bind(running.or(form.baselineUnavailable()));
        benchBoth.disableProperty().bind(running.or(form.modeProperty().isEqualTo(BenchMode.LAT)));
        // perftest's latency tests keep one message in flight: -t is for bandwidth only.
        benchTxDepth.disableProperty().bind(running.or(form.modeProperty().isEqualTo(BenchMode.LAT)));
        benchTxDepthLabel.disableProperty().bind(benchTxDepth.disableProperty());
        benchQps.disableProperty().bind(benchTxDepth.disableProperty());
        benchQpsLabel.disableProperty().bind(benchTxDepth.disableProperty());
        benchRun.disableProperty().bind(running);
        benchStop.disableProperty().bind(running.not().or(viewModel.stoppingProperty()));
        benchSave.disableProperty().bind(running.or(viewModel.reportProperty().isNull()));
        benchWide.selectedProperty().bindBidirectional(viewModel.wideProperty());
        benchWide.setTooltip(new Tooltip(UiText.text("bench.tip.wide")));
        benchStatus.textProperty().bind(viewModel.statusProperty());

        // FXML builds these charts through a builder, which drops styleClass: set it here.
        liveChart.getStyleClass().addAll("bench-chart", "bench-live");
        sizeChart.getStyleClass().addAll("bench-chart", "bench-sizes");
        liveRdma.setName(RDMA);
        liveBaseline.setName(baseline());
        liveChart.getData().setAll(List.of(liveRdma, liveBaseline));
        sizeRdma.setName(RDMA);
        sizeBaseline.setName(baseline());
        sizeChart.getData().setAll(List.of(sizeRdma, sizeBaseline));
        distributionRdma.setName(RDMA);
        distributionBaseline.setName(baseline());
        distributionChart.getData().setAll(List.of(distributionRdma, distributionBaseline));
        javafx.beans.binding.Bindings.bindContent(distributionChart.markers(), results.markers());

        results.liveRdma().addListener((InvalidationListener) observable -> draw(liveRdma, results.liveRdma()));
        results.liveBaseline().addListener((InvalidationListener) observable -> draw(liveBaseline,
                results.liveBaseline()));
        results.sizeBars().addListener((InvalidationListener) observable -> drawSizes());
        results.distributionRdma().addListener((InvalidationListener) observable -> drawDistribution(
                distributionRdma, results.distributionRdma()));
        results.distributionBaseline().addListener((InvalidationListener) observable -> drawDistribution(
                distributionBaseline, results.distributionBaseline()));
        benchChart.getItems().setAll(Chart.values());
        benchChart.setValue(Chart.LIVE);
        benchChart.valueProperty().addListener((observable, before, chosen) -> showCharts());
        benchChart.setTooltip(new Tooltip(UiText.text("bench.tip.chart")));
        benchScroll.widthProperty().addListener((observable, before, width) -> compact.set(
                width.doubleValue() > 0 && width.doubleValue() < COMPACT_WIDTH));
        compact.addListener((observable, before, on) -> showCharts());
        results.shownModeProperty().addListener((observable, before, mode) -> showMode());
        results.shownGbitsProperty().addListener((observable, before, gbits) -> showMode());
        showMode();

        // The compact tab's side column has its own pair of choices on the same two properties.
        for (ChoiceBox<BenchResults.Distribution> kind : List.of(distributionKind, distributionKindSide)) {
            kind.getItems().setAll(BenchResults.Distribution.values());
            kind.valueProperty().bindBidirectional(results.distributionProperty());
        }
        for (ChoiceBox<Integer> size : List.of(distributionSize, distributionSizeSide)) {
            size.setItems(results.latencySizes());
            size.setConverter(converter(BenchViewModel::bytes));
            size.valueProperty().bindBidirectional(results.distributionSizeProperty());
        }
        distributionPlaceholder.visibleProperty().bind(javafx.beans.binding.Bindings.isEmpty(results.latencySizes()));
        distributionChart.visibleProperty().bind(distributionPlaceholder.visibleProperty().not());
        distributionKind.visibleProperty().bind(distributionChart.visibleProperty());
        distributionSize.visibleProperty().bind(distributionChart.visibleProperty());
        distributionOf.visibleProperty().bind(distributionChart.visibleProperty());
        distributionTitle.visibleProperty().bind(distributionChart.visibleProperty());
        distributionSide.visibleProperty().bind(distributionChart.visibleProperty().and(compact)
                .and(benchChart.valueProperty().isEqualTo(Chart.DISTRIBUTION)));
        distributionSide.managedProperty().bind(distributionSide.visibleProperty());
        benchChartSide.visibleProperty().bind(compact);
        benchChartSide.managedProperty().bind(compact);
        results.distributionProperty().addListener((observable, before, kind) -> distributionAxes());
        distributionAxes();

        table = new ResultsTable(results, benchTable);
        table.install(benchCopy, benchRowCount, benchVerbose, benchDetails);
    }

    @FXML
    private void onCopy() {
        table.copy(List.of());
    }

    private void showMode() {
        boolean bandwidth = results.shownModeProperty().get() == BenchMode.BW;
        String unit = !bandwidth ? "µs" : results.shownGbitsProperty().get() ? "Gb/sec" : "MB/sec";
        liveValue.setLabel(unit);
        sizeValue.setLabel(unit);
        // The chart's names follow the mode: a new converter redraws the choice.
        benchChart.setConverter(converter(chart -> chart.title(bandwidth)));
        showCharts();
    }

    /** The three charts, as the compact tab's choice names them. */
    enum Chart {
        LIVE, SIZES, DISTRIBUTION;

        String title(boolean bandwidth) {
            return switch (this) {
                case LIVE -> UiText.text(bandwidth ? "bench.bandwidthOverTime" : "bench.chart.latencyOverTime");
                case SIZES -> UiText.text(bandwidth ? "bench.chart.bwBySize" : "bench.chart.typicalBySize");
                case DISTRIBUTION -> UiText.text("bench.chart.distribution");
            };
        }
    }

    /**
     * Side by side with their titles, or in the compact tab the chart chosen beside the buttons alone,
     * its title in the choice, the legend and the distribution's choices in the column beside it.
     */
    private void showCharts() {
        boolean one = compact.get();
        benchPane.pseudoClassStateChanged(COMPACT, one);
        benchChart.setVisible(one);
        benchChart.setManaged(one);
        // The minimum is the chart's: the row's own is computed from it and from the side column, whose
        // legend and choices take the height their fonts need.
        benchCharts.setMinHeight(javafx.scene.layout.Region.USE_COMPUTED_SIZE);
        List<javafx.scene.layout.Region> charts = List.of(liveChart, sizeChart, benchDistributionPane);
        for (javafx.scene.layout.Region chart : charts) {
            chart.setMinHeight(one ? COMPACT_CHARTS_MIN_HEIGHT : CHARTS_MIN_HEIGHT);
        }
        for (Chart chart : Chart.values()) {
            boolean shown = !one || benchChart.getValue() == chart;
            charts.get(chart.ordinal()).setVisible(shown);
            charts.get(chart.ordinal()).setManaged(shown);
        }
        boolean bandwidth = results.shownModeProperty().get() == BenchMode.BW;
        liveChart.setTitle(one ? null : Chart.LIVE.title(bandwidth));
        sizeChart.setTitle(one ? null : UiText.text(bandwidth ? "bench.chart.bwByMessageSize"
                : "bench.chart.typicalByMessageSize"));
        // The choice says what runs along x; the distribution's scale goes to the side column.
        liveTime.setLabel(one ? null : UiText.text("bench.axis.seconds"));
        sizeAxis.setLabel(one ? null : UiText.text("bench.axis.messageSize"));
        // The side column holds the legend and the distribution's choices, so the height goes to the plot.
        for (XYChart<?, ?> chart : List.of(liveChart, sizeChart, distributionChart)) {
            chart.setLegendVisible(!one);
        }
        distributionBar.setVisible(!one);
        distributionBar.setManaged(!one);
        distributionChart.getXAxis().setLabel(one ? null : DistributionChart.xLabel());
        distributionAxes();
    }

    /** Takes what was typed into {@code spinner} (an invalid text goes back to the last value). */
    private static void commit(Spinner<Integer> spinner) {
        if (spinner.isEditable() && spinner.getValueFactory() != null) {
            try {
                spinner.increment(0);
            } catch (RuntimeException e) {
                spinner.getEditor().setText(String.valueOf(spinner.getValue()));
            }
        }
    }

    private void distributionAxes() {
        boolean cdf = results.distributionProperty().get() == BenchResults.Distribution.CDF;
        // The compact tab's plot is short: its y label too.
        distributionChart.getYAxis().setLabel(compact.get() ? (cdf ? UiText.text("bench.axis.fraction") : "%")
                : UiText.text(cdf ? "bench.axis.fractionOfSamples" : "bench.axis.percentOfSamples"));
        NumberAxis y = (NumberAxis) distributionChart.getYAxis();
        y.setAutoRanging(!cdf);
        if (cdf) {
            y.setLowerBound(0);
            y.setUpperBound(1);
            y.setTickUnit(0.25);
        }
    }

    private static void draw(XYChart.Series<Number, Number> series, List<BenchResults.Point> points) {
        List<XYChart.Data<Number, Number>> data = new ArrayList<>(points.size());
        for (BenchResults.Point point : points) {
            data.add(new XYChart.Data<>(point.x(), point.y()));
        }
        series.getData().setAll(data);
    }

    /**
     * The distribution on the chart's logarithmic x axis (a latency tail spans decades); a
     * histogram is drawn as steps over its bins, a CDF point by point.
     */
    private void drawDistribution(XYChart.Series<Number, Number> series, List<BenchResults.Point> points) {
        List<BenchResults.Point> logarithmic = new ArrayList<>();
        boolean steps = results.distributionProperty().get() == BenchResults.Distribution.HISTOGRAM
                && points.size() > 1;
        double half = steps ? (Math.log10(points.get(1).x()) - Math.log10(points.get(0).x())) / 2 : 0;
        for (BenchResults.Point point : points) {
            double x = DistributionChart.toAxis(point.x());
            if (steps) {
                logarithmic.add(new BenchResults.Point(x - half, point.y()));
                logarithmic.add(new BenchResults.Point(x + half, point.y()));
            } else {
                logarithmic.add(new BenchResults.Point(x, point.y()));
            }
        }
        draw(series, logarithmic);
    }

    private void drawSizes() {
        List<XYChart.Data<String, Number>> rdma = new ArrayList<>();
        List<XYChart.Data<String, Number>> baseline = new ArrayList<>();
        for (BenchResults.SizeBar bar : results.sizeBars()) {
            String size = BenchViewModel.bytes(bar.bytes());
            if (!Double.isNaN(bar.rdma())) {
                rdma.add(new XYChart.Data<>(size, bar.rdma()));
            }
            if (!Double.isNaN(bar.baseline())) {
                baseline.add(new XYChart.Data<>(size, bar.baseline()));
            }
        }
        sizeRdma.getData().setAll(rdma);
        sizeBaseline.getData().setAll(baseline);
    }

    @FXML
    private void onRun() {
        for (Spinner<Integer> spinner : List.of(benchIterations, benchSeconds, benchTxDepth, benchTimeout, benchIbPort)) {
            commit(spinner);
        }
        viewModel.start();
    }

    @FXML
    private void onStop() {
        viewModel.stop();
    }

    @FXML
    private void onSave() {
        FileChooser chooser = new FileChooser();
        chooser.setTitle(UiText.text("bench.saveTitle"));
        FileChooser.ExtensionFilter csv = new FileChooser.ExtensionFilter(UiText.text("bench.saveCsv"), "*.csv");
        FileChooser.ExtensionFilter json = new FileChooser.ExtensionFilter(UiText.text("bench.saveJson"), "*.json");
        chooser.getExtensionFilters().setAll(csv, json);
        var settings = viewModel.reportProperty().get().info() == null ? null
                : viewModel.reportProperty().get().info().settings();
        chooser.setInitialFileName(settings == null ? "bench.csv"
                : settings.test().perftestProgram(settings.mode()) + ".csv");
        File file = chooser.showSaveDialog(benchPane.getScene().getWindow());
        if (file == null) {
            return;
        }
        boolean asJson = file.getName().toLowerCase(Locale.ROOT).endsWith(".json")
                || (chooser.getSelectedExtensionFilter() == json && !file.getName().toLowerCase(Locale.ROOT).endsWith(".csv"));
        viewModel.save(file.toPath(), asJson ? BenchViewModel.Format.JSON : BenchViewModel.Format.CSV);
    }

    private static <T> StringConverter<T> converter(java.util.function.Function<T, String> text) {
        return new StringConverter<>() {
            @Override
            public String toString(T value) {
                return value == null ? "" : text.apply(value);
            }

            @Override
            public T fromString(String string) {
                throw new UnsupportedOperationException("chosen from the list");
            }
        };
    }
}
