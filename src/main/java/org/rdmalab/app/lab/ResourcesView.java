package org.rdmalab.app.lab;

import javafx.fxml.FXML;
import javafx.scene.control.TreeItem;
import javafx.scene.control.TreeView;

/** Controller of {@code ResourcesView.fxml}: shows the {@link ResourcesViewModel}'s tree, expanded. */
public final class ResourcesView {

    private final ResourcesViewModel viewModel;

    @FXML
    private TreeView<String> resourceTree;

    public ResourcesView(ResourcesViewModel viewModel) {
        this.viewModel = viewModel;
    }

    @FXML
    private void initialize() {
        resourceTree.setRoot(item(viewModel.rootProperty().get()));
        viewModel.rootProperty().addListener((observable, before, root) -> resourceTree.setRoot(item(root)));
    }

    private static TreeItem<String> item(ResourcesViewModel.Node node) {
        TreeItem<String> item = new TreeItem<>(node.label());
        item.setExpanded(true);
        for (ResourcesViewModel.Node child : node.children()) {
            item.getChildren().add(item(child));
        }
        return item;
    }
}
