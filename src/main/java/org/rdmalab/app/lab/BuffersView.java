package org.rdmalab.app.lab;

import java.util.ArrayList;
import java.util.List;
import javafx.collections.ListChangeListener;
import javafx.fxml.FXML;
import javafx.scene.layout.Priority;
import javafx.scene.layout.VBox;
import org.rdmalab.app.buffer.HexBufferView;
import org.rdmalab.app.common.UiText;

/** Controller of {@code BuffersView.fxml}: one {@link HexBufferView} per buffer of the {@link BuffersViewModel}. */
public final class BuffersView {

    private final BuffersViewModel viewModel;
    private final List<HexBufferView> views = new ArrayList<>();

    @FXML
    private VBox paneBox;

    public BuffersView(BuffersViewModel viewModel) {
        this.viewModel = viewModel;
    }

    @FXML
    private void initialize() {
        viewModel.panes().addListener((ListChangeListener<BuffersViewModel.Pane>) change -> rebuild());
        viewModel.versionProperty().addListener((observable, before, now) -> update());
        rebuild();
    }

    private void rebuild() {
        views.clear();
        paneBox.getChildren().clear();
        for (BuffersViewModel.Pane pane : viewModel.panes()) {
            HexBufferView view = new HexBufferView();
            view.setId(pane.key() + "Buffer");
            view.setEmptyText(UiText.text("buffers.empty"));
            VBox.setVgrow(view, Priority.ALWAYS);
            views.add(view);
            paneBox.getChildren().add(view);
        }
        update();
    }

    private void update() {
        List<BuffersViewModel.Pane> panes = viewModel.panes();
        for (int i = 0; i < panes.size() && i < views.size(); i++) {
            BuffersViewModel.Pane pane = panes.get(i);
            HexBufferView view = views.get(i);
            view.setCaption(pane.caption());
            view.setBaseAddress(pane.baseAddress());
            if (view.getSource() != pane.source()) {
                view.setSource(pane.source());
            }
            view.clearHighlights();
            for (long[] range : pane.changed()) {
                view.highlight(range[0], range[1]);
            }
            view.refresh();
        }
    }
}
