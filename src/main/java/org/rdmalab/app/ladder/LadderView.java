package org.rdmalab.app.ladder;

import javafx.beans.binding.Bindings;
import javafx.fxml.FXML;
import javafx.scene.control.Button;
import javafx.scene.control.ComboBox;
import javafx.scene.control.Label;
import javafx.scene.layout.StackPane;
import javafx.scene.layout.VBox;
import javafx.util.StringConverter;
import org.rdmalab.app.common.UiText;
import org.rdmalab.ladder.QpPair;

/**
 * Controller of {@code LadderView.fxml}: puts the {@link LadderChart} in its place and binds the
 * toolbar (the pair drawn, zoom, the newest packet, Open capture…, Save capture…, back to live)
 * and the lines above the chart (a native device, a capture that could not be read, the counts);
 * the work requests sit between them and the chart, and one picked there scrolls the chart to its
 * first packet.
 */
public final class LadderView {

    private final LadderViewModel viewModel;
    private final WorkRequestsViewModel requests;
    private LadderChart chart;

    @FXML
    private Label sourceLabel;
    @FXML
    private ComboBox<QpPair> pairChoice;
    @FXML
    private Button liveButton;
    @FXML
    private javafx.scene.control.MenuItem saveItem;
    @FXML
    private Label noticeLabel;
    @FXML
    private Label summaryLabel;
    @FXML
    private Label outcomeLabel;
    @FXML
    private Label requestLine;
    @FXML
    private VBox ladderRoot;
    @FXML
    private StackPane chartHolder;

    /**
     * @param viewModel the ladder's
     * @param requests the work requests above it (a request picked there scrolls the ladder to its packets)
     */
    public LadderView(LadderViewModel viewModel, WorkRequestsViewModel requests) {
        this.viewModel = viewModel;
        this.requests = requests;
    }

    @FXML
    private void initialize() {
        requestLine.textProperty().bind(requests.detailProperty());
        javafx.scene.control.Tooltip whole = new javafx.scene.control.Tooltip();
        whole.textProperty().bind(requests.detailProperty());
        whole.setWrapText(true);
        whole.setMaxWidth(600);
        requestLine.setTooltip(whole);
        requestLine.visibleProperty().bind(requests.selectedProperty().isNotNull());
        requestLine.managedProperty().bind(requestLine.visibleProperty());
        chart = new LadderChart(viewModel);
        chart.setId("ladderChart");
        chartHolder.getChildren().add(chart);
        ladderRoot.getProperties().put(LadderViewModel.class, viewModel);
        ladderRoot.getProperties().put(LadderChart.class, chart);
        requests.revealProperty().addListener((observable, before, index) -> {
            if (index.longValue() >= 0) {
                chart.scrollTo(index.longValue());
            }
        });
        sourceLabel.textProperty().bind(Bindings.createStringBinding(() -> {
            LadderViewModel.Shown shown = viewModel.shownProperty().get();
            return shown.fromCapture() ? UiText.format("ladder.fromCapture", shown.capture().getFileName())
                    : UiText.text("ladder.fromLab");
        }, viewModel.shownProperty()));
        // The whole source in a tooltip: a capture's long file name gives way to the buttons in the row.
        javafx.scene.control.Tooltip source = new javafx.scene.control.Tooltip();
        source.textProperty().bind(Bindings.createStringBinding(() -> {
            LadderViewModel.Shown shown = viewModel.shownProperty().get();
            return shown.fromCapture() ? UiText.format("ladder.fromCapture", shown.capture())
                    : UiText.text("ladder.fromLabTip");
        }, viewModel.shownProperty()));
        sourceLabel.setTooltip(source);
        pairChoice.setConverter(new StringConverter<>() {
            @Override
            public String toString(QpPair pair) {
                return pair == null ? UiText.text("ladder.allPairs") : pair.toString();
            }

            @Override
            public QpPair fromString(String text) {
                return null;
            }
        });
        pairChoice.getItems().add(null);
        viewModel.pairs().addListener((javafx.collections.ListChangeListener<QpPair>) change -> {
            QpPair chosen = viewModel.pairProperty().get();
            pairChoice.getItems().setAll(new java.util.ArrayList<QpPair>(java.util.Collections.singletonList(null)));
            pairChoice.getItems().addAll(viewModel.pairs());
            pairChoice.setValue(chosen);
        });
        pairChoice.valueProperty().bindBidirectional(viewModel.pairProperty());
        liveButton.visibleProperty().bind(Bindings.createBooleanBinding(() -> viewModel.shownProperty().get().fromCapture(),
                viewModel.shownProperty()));
        liveButton.managedProperty().bind(liveButton.visibleProperty());
        saveItem.disableProperty().bind(viewModel.nativeDeviceProperty());
        noticeLabel.textProperty().bind(viewModel.noticeProperty());
        noticeLabel.visibleProperty().bind(viewModel.noticeProperty().isNotEmpty());
        noticeLabel.managedProperty().bind(noticeLabel.visibleProperty());
        summaryLabel.textProperty().bind(viewModel.summaryProperty());
        outcomeLabel.textProperty().bind(viewModel.outcomeProperty());
        // No blank row while there is no outcome to say (the live lab's, say): the ladder gets it.
        outcomeLabel.visibleProperty().bind(viewModel.outcomeProperty().isNotEmpty());
        outcomeLabel.managedProperty().bind(outcomeLabel.visibleProperty());
    }

    /** The chart (tests read what it drew). */
    public LadderChart chart() {
        return chart;
    }

    @FXML
    private void onZoomIn() {
        chart.zoomBy(2);
    }

    @FXML
    private void onZoomOut() {
        chart.zoomBy(0.5);
    }

    @FXML
    private void onNewest() {
        chart.showNewest();
    }

    @FXML
    private void onLive() {
        viewModel.backToLive();
    }

    @FXML
    private void onOpen() {
        viewModel.files().toOpen(chart.getScene() == null ? null : chart.getScene().getWindow())
                .ifPresent(viewModel::openCapture);
    }

    @FXML
    private void onSave() {
        viewModel.files().toSave(chart.getScene() == null ? null : chart.getScene().getWindow())
                .ifPresent(viewModel::saveCapture);
    }
}
