package org.rdmalab.app.packets;

import java.util.IdentityHashMap;
import java.util.Map;
import javafx.fxml.FXML;
import javafx.scene.control.Label;
import javafx.scene.control.Tooltip;
import javafx.scene.control.TreeCell;
import javafx.scene.control.TreeItem;
import javafx.scene.control.TreeView;
import javafx.scene.layout.HBox;
import javafx.scene.text.Text;
import org.rdmalab.app.common.UiText;
import org.rdmalab.wire.Dissection;

/**
 * Controller of {@code PacketView.fxml}: the packet opened, a tree of its headers and fields (each
 * field's value and what it means) beside its bytes in hex. Selecting a field in the tree lights
 * its bytes; clicking a byte selects its field in the tree.
 */
public final class PacketView {

    /** Style class of a tree line whose check passed (a matching ICRC, a right checksum). */
    static final String GOOD = "field-good";
    /** Style class of a tree line whose check failed. */
    static final String BAD = "field-bad";

    private final PacketViewModel viewModel;
    /** The tree item of each header and field shown, for a selection made in the bytes. */
    private final Map<Object, TreeItem<Object>> items = new IdentityHashMap<>();
    private boolean selecting;

    @FXML
    private Label captionLabel;
    @FXML
    private TreeView<Object> fieldTree;
    @FXML
    private PacketBytesView bytesView;

    public PacketView(PacketViewModel viewModel) {
        this.viewModel = viewModel;
    }

    @FXML
    private void initialize() {
        captionLabel.textProperty().bind(viewModel.captionProperty());
        // Scenarios and tests find the view model on the view's root.
        captionLabel.getParent().getProperties().put(PacketViewModel.class, viewModel);
        fieldTree.setShowRoot(false);
        fieldTree.setCellFactory(tree -> new FieldCell());
        bytesView.dissectionProperty().bind(viewModel.dissectionProperty());
        bytesView.selectedProperty().bindBidirectional(viewModel.selectedProperty());
        viewModel.dissectionProperty().addListener((observable, before, dissection) -> fill(dissection));
        fieldTree.getSelectionModel().selectedItemProperty().addListener((observable, before, item) -> {
            if (!selecting) {
                viewModel.selectedProperty().set(item == null ? null : item.getValue());
            }
        });
        viewModel.selectedProperty().addListener((observable, before, part) -> select(part));
        fill(viewModel.dissectionProperty().get());
    }

    private void fill(Dissection dissection) {
        items.clear();
        TreeItem<Object> root = new TreeItem<>();
        if (dissection != null) {
            for (Dissection.Header header : dissection.headers()) {
                TreeItem<Object> headerItem = new TreeItem<>(header);
                items.put(header, headerItem);
                for (Dissection.Field field : header.fields()) {
                    TreeItem<Object> fieldItem = new TreeItem<>(field);
                    items.put(field, fieldItem);
                    headerItem.getChildren().add(fieldItem);
                }
                // The transport headers open, as a student wants them; link, IP and UDP closed.
                headerItem.setExpanded(header.layer().ordinal() >= Dissection.Layer.BTH.ordinal()
                        || header.check() == Dissection.Check.BAD);
                root.getChildren().add(headerItem);
            }
        }
        fieldTree.setRoot(root);
    }

    private void select(Object part) {
        TreeItem<Object> item = part == null ? null : items.get(part);
        selecting = true;
        try {
            if (item == null) {
                fieldTree.getSelectionModel().clearSelection();
                return;
            }
            if (item.getParent() != null) {
                item.getParent().setExpanded(true);
            }
            fieldTree.getSelectionModel().select(item);
            int row = fieldTree.getRow(item);
            if (row >= 0) {
                fieldTree.scrollTo(Math.max(0, row - 2));
            }
        } finally {
            selecting = false;
        }
    }

    /** A line of the tree: the header's name and summary, or the field's name, value and meaning. */
    private final class FieldCell extends TreeCell<Object> {
        private final Text main = new Text();
        private final Text meaning = new Text();
        private final HBox box = new HBox(8, main, meaning);

        FieldCell() {
            main.getStyleClass().add("field-line");
            meaning.getStyleClass().add("field-meaning");
        }

        @Override
        protected void updateItem(Object part, boolean empty) {
            super.updateItem(part, empty);
            getStyleClass().removeAll(GOOD, BAD, "header-line");
            setText(null);
            Dissection dissection = viewModel.dissectionProperty().get();
            if (empty || part == null || dissection == null) {
                setGraphic(null);
                setTooltip(null);
                return;
            }
            Dissection.Check check;
            String said;
            if (part instanceof Dissection.Header header) {
                main.setText(header.name());
                said = PacketViewModel.meaning(header.summary());
                check = header.check();
                getStyleClass().add("header-line");
            } else {
                Dissection.Field field = (Dissection.Field) part;
                main.setText(PacketViewModel.line(field, dissection));
                said = PacketViewModel.meaning(field.meaning());
                check = field.check();
            }
            meaning.setText(said);
            if (check == Dissection.Check.GOOD) {
                getStyleClass().add(GOOD);
            } else if (check == Dissection.Check.BAD) {
                getStyleClass().add(BAD);
            }
            setGraphic(box);
            setTooltip(said.isEmpty() ? null : new Tooltip(said));
        }
    }
}
