package org.rdmalab.app.lab;

import java.util.Optional;
import javafx.beans.InvalidationListener;
import javafx.beans.binding.Bindings;
import javafx.beans.value.ObservableValue;
import javafx.collections.ListChangeListener;
import javafx.fxml.FXML;
import javafx.scene.Node;
import javafx.scene.control.ComboBox;
import javafx.scene.control.Control;
import javafx.scene.control.Label;
import javafx.scene.control.ScrollPane;
import javafx.scene.control.SplitPane;
import javafx.scene.control.TextArea;
import javafx.scene.control.TextField;
import javafx.scene.control.Tooltip;
import javafx.scene.layout.Region;
import javafx.scene.layout.StackPane;
import javafx.scene.layout.VBox;
import org.controlsfx.control.PropertySheet;
import org.controlsfx.property.editor.PropertyEditor;
import org.rdmalab.app.common.UiText;
import org.rdmalab.lab.Parameter;

/**
 * Controller of {@code StepView.fxml}: a ControlsFX property sheet over the selected step's
 * parameters (each field's tooltip names its verbs.h place), the C code and the result. A value the
 * parameter refuses is explained under its field. The split between the sheet and the code follows
 * the sheet's rows: they get the height they need at the sheet's width (the wrapped lines under
 * refused fields included) as long as the code keeps {@link #CODE_LINES} lines; a longer sheet
 * scrolls in half the split, and keeps the line under a refused field in view. Every height comes
 * from the fonts the window is drawn with, so the split holds with any font set.
 */
public final class StepView {

    /** Style class of a field whose value was refused or that caused a failure. */
    static final String FIELD_ERROR = "field-error";
    /** Style class of the line under such a field. */
    static final String FIELD_MESSAGE = "field-message";
    /** Lines of C code the split always leaves in view under the parameters. */
    static final int CODE_LINES = 3;

    private final StepViewModel viewModel;
    private final PropertySheet sheet = new PropertySheet();

    @FXML
    private Label stepTitle;

    @FXML
    private SplitPane split;

    @FXML
    private StackPane sheetHolder;

    /** The sheet's scroll pane (made with its skin) and the rows it shows, watched to fit the split. */
    private ScrollPane sheetScroll;
    private Region sheetRows;
    private final InvalidationListener fitOnChange = observable -> fitSheet();

    @FXML
    private TextArea codeArea;

    /** The code's title and its area, whose minimum height is {@link #CODE_LINES} lines of its font. */
    @FXML
    private VBox codePane;

    @FXML
    private Label resultLabel;

    @FXML
    private VBox causeBox;

    @FXML
    private Label causeLabel;

    @FXML
    private javafx.scene.control.Button showCauseButton;

    @FXML
    private javafx.scene.control.Button fixButton;

    public StepView(StepViewModel viewModel) {
        this.viewModel = viewModel;
    }

    @FXML
    private void initialize() {
        sheet.setModeSwitcherVisible(false);
        sheet.setSearchBoxVisible(false);
        sheet.setMode(PropertySheet.Mode.NAME);
        sheet.setId("parameterSheet");
        sheet.setPropertyEditorFactory(item -> {
            ParameterEditor editor = new ParameterEditor((SheetItem) item);
            String diagnosed = viewModel.fieldMessages().get(item.getName());
            if (diagnosed != null) {
                editor.show(diagnosed);
            }
            return editor;
        });
        // A step without parameters (a sync, a read of the buffer) says so instead of leaving an
        // empty sheet that looks as if its fields failed to load.
        Label noParameters = new Label(UiText.text("step.noParameters"));
        noParameters.setId("noParameters");
        noParameters.getStyleClass().add("placeholder");
        noParameters.setWrapText(true);
        noParameters.visibleProperty().bind(Bindings.isEmpty(viewModel.items()));
        sheet.visibleProperty().bind(noParameters.visibleProperty().not());
        sheetHolder.getChildren().addAll(sheet, noParameters);
        sheet.skinProperty().addListener((observable, before, skin) -> watchSheet());
        split.heightProperty().addListener(fitOnChange);
        noParameters.visibleProperty().addListener(fitOnChange);
        stepTitle.textProperty().bind(viewModel.titleProperty());
        codeArea.textProperty().bind(viewModel.codeProperty());
        resultLabel.textProperty().bind(viewModel.resultProperty());
        resultLabel.setId("stepResult");
        viewModel.failedProperty().addListener((observable, before, failed) -> style(resultLabel, "result-failed", failed));
        // Disabled while its side runs, but restyled only while the Step tab is shown: the side's
        // turn to busy as a transfer starts restyled the hidden sheet, and a frame whose CSS pass
        // touched only hidden nodes has nothing dirty to paint, so the renderer paints the whole
        // window (docs/ladder.md). A hidden sheet takes the side's state when it is shown again.
        sheet.setDisable(!viewModel.editableProperty().get());
        javafx.beans.value.ChangeListener<Boolean> follow = (observable, before, now) -> {
            if (viewModel.onScreenProperty().get()) {
                sheet.setDisable(!viewModel.editableProperty().get());
            }
        };
        viewModel.editableProperty().addListener(follow);
        viewModel.onScreenProperty().addListener(follow);
        viewModel.items().addListener((ListChangeListener<StepViewModel.ParameterItem>) change -> rebuild());
        viewModel.fieldMessages().addListener((javafx.collections.MapChangeListener<String, String>) change -> rebuild());
        causeLabel.textProperty().bind(viewModel.causeProperty());
        causeBox.visibleProperty().bind(viewModel.causeProperty().isNotEmpty());
        causeBox.managedProperty().bind(causeBox.visibleProperty());
        fixButton.textProperty().bind(viewModel.fixLabelProperty().map(StepViewModel::shortLabel));
        fixButton.setId("fixButton");
        viewModel.fixLabelProperty().addListener((observable, before, label) -> fixButton.setTooltip(
                label.isEmpty() ? null : new javafx.scene.control.Tooltip(label)));
        showCauseButton.visibleProperty().bind(viewModel.causeElsewhereProperty());
        showCauseButton.managedProperty().bind(showCauseButton.visibleProperty());
        fixButton.visibleProperty().bind(viewModel.fixLabelProperty().isNotEmpty());
        fixButton.managedProperty().bind(fixButton.visibleProperty());
        rebuild();
    }

    @FXML
    private void onShowCause() {
        viewModel.showCause();
    }

    @FXML
    private void onFix() {
        viewModel.applyFix();
    }

    private void rebuild() {
        sheet.getItems().setAll(viewModel.items().stream().map(SheetItem::new).toList());
    }

    /**
     * Follows the sheet's rows once its skin has made them: the skin puts a new grid in its scroll
     * pane for each step, whose height changes when a line under a field appears or goes.
     */
    private void watchSheet() {
        if (sheet.lookup(".scroll-pane") instanceof ScrollPane scroll && scroll != sheetScroll) {
            sheetScroll = scroll;
            scroll.contentProperty().addListener((observable, before, rows) -> watchRows(rows));
            scroll.viewportBoundsProperty().addListener((observable, before, bounds) -> {
                if (before.getWidth() != bounds.getWidth()) {
                    fitSheet();
                }
            });
            watchRows(scroll.getContent());
        }
    }

    private void watchRows(Node rows) {
        if (sheetRows != null) {
            sheetRows.heightProperty().removeListener(fitOnChange);
        }
        sheetRows = rows instanceof Region region ? region : null;
        if (sheetRows != null) {
            sheetRows.heightProperty().addListener(fitOnChange);
        }
        fitSheet();
    }

    /**
     * Moves the divider so that the parameters get the height their rows need at the sheet's width
     * (their own preferred height is taken at their unwrapped width, too short for a wrapped line)
     * when the code below still has its minimum, else half the split, where they scroll; the line
     * under a refused field is then scrolled into view.
     */
    private void fitSheet() {
        double total = split.getHeight();
        if (total <= 0) {
            return;
        }
        double wanted;
        if (sheet.isVisible() && sheetScroll != null && sheetRows != null) {
            double width = sheetScroll.getViewportBounds().getWidth();
            if (width <= 0) {
                return;
            }
            wanted = sheetRows.prefHeight(width) + sheetScroll.snappedTopInset() + sheetScroll.snappedBottomInset()
                    + sheet.snappedTopInset() + sheet.snappedBottomInset();
        } else {
            Node placeholder = sheetHolder.lookup("#noParameters");
            wanted = placeholder == null ? 0 : placeholder.prefHeight(sheetHolder.getWidth());
        }
        wanted += sheetHolder.snappedTopInset() + sheetHolder.snappedBottomInset();
        Node divider = split.lookup(".split-pane-divider");
        double thickness = divider == null ? 0 : divider.getLayoutBounds().getHeight();
        double codeMinimum = codeMinimum();
        codePane.setMinHeight(codeMinimum);
        double sheetHeight = sheetHeight(wanted, total - thickness, codeMinimum);
        // One pixel more: the split snaps the first pane's height down to a whole pixel.
        split.setDividerPositions(Math.min(1, (sheetHeight + thickness / 2 + 1) / total));
        if (sheetHeight < wanted) {
            javafx.application.Platform.runLater(this::revealRefusal);
        }
    }

    /**
     * The height the parameters get in a split of {@code room} (the divider left out): all they
     * want while the code keeps {@code codeMinimum}, else half the room, less where the code would
     * then drop under its minimum.
     */
    static double sheetHeight(double wanted, double room, double codeMinimum) {
        double most = Math.max(0, room - codeMinimum);
        return wanted <= most ? wanted : Math.min(room / 2, most);
    }

    /** The code pane's title and {@link #CODE_LINES} lines of its area, measured in the fonts they are drawn with. */
    private double codeMinimum() {
        double line = Math.ceil(lineHeight(codeArea.getFont()));
        double title = 0;
        for (Node child : codePane.getChildren()) {
            if (child != codeArea) {
                title += child.prefHeight(-1) + codePane.getSpacing();
            }
        }
        Region content = codeArea.lookup(".content") instanceof Region region ? region : null;
        double chrome = codeArea.snappedTopInset() + codeArea.snappedBottomInset()
                + (content == null ? 0 : content.snappedTopInset() + content.snappedBottomInset());
        return Math.ceil(codePane.snappedTopInset() + title + chrome + CODE_LINES * line
                + codePane.snappedBottomInset());
    }

    /** The height of one line of {@code font}, as a text node lays it out. */
    static double lineHeight(javafx.scene.text.Font font) {
        javafx.scene.text.Text probe = new javafx.scene.text.Text("Ag");
        probe.setFont(font);
        return probe.getLayoutBounds().getHeight();
    }

    /** Scrolls the sheet so that the first line under a refused field, and its field, are in view. */
    private void revealRefusal() {
        if (sheetScroll == null || !(sheetScroll.getContent() instanceof Region rows)) {
            return;
        }
        Optional<Node> message = sheet.lookupAll("." + FIELD_MESSAGE).stream().filter(Node::isVisible).findFirst();
        if (message.isEmpty()) {
            return;
        }
        javafx.geometry.Bounds at = rows.sceneToLocal(message.get().localToScene(message.get().getLayoutBounds()));
        Node editor = message.get().getParent();
        double top = editor == null ? at.getMinY() : rows.sceneToLocal(editor.localToScene(editor.getLayoutBounds())).getMinY();
        double seen = sheetScroll.getViewportBounds().getHeight();
        double hidden = rows.getHeight() - seen;
        if (hidden <= 0) {
            return;
        }
        double offset = sheetScroll.getVvalue() * hidden;
        if (at.getMaxY() > offset + seen) {
            offset = Math.min(top, at.getMaxY() - seen);
        } else if (top < offset) {
            offset = top;
        }
        sheetScroll.setVvalue(Math.max(0, Math.min(1, offset / hidden)));
    }

    private static void style(Node node, String styleClass, boolean on) {
        node.getStyleClass().remove(styleClass);
        if (on) {
            node.getStyleClass().add(styleClass);
        }
    }

    /** A parameter as a property sheet item. */
    private static final class SheetItem implements PropertySheet.Item {

        private final StepViewModel.ParameterItem item;

        SheetItem(StepViewModel.ParameterItem item) {
            this.item = item;
        }

        @Override
        public Class<?> getType() {
            return String.class;
        }

        @Override
        public String getCategory() {
            return item.step().title();
        }

        @Override
        public String getName() {
            return item.parameter().name();
        }

        @Override
        public String getDescription() {
            return item.description();
        }

        @Override
        public Object getValue() {
            return item.parameter().value();
        }

        @Override
        public void setValue(Object value) {
            item.set(String.valueOf(value));
        }

        @Override
        public Optional<ObservableValue<? extends Object>> getObservableValue() {
            return Optional.empty();
        }
    }

    /** A text field or a choice, with the line that explains a refused value under it. */
    private static final class ParameterEditor implements PropertyEditor<Object> {

        private final SheetItem sheetItem;
        private final Control field;
        private final Label message = new Label();
        private final VBox box;

        ParameterEditor(SheetItem sheetItem) {
            this.sheetItem = sheetItem;
            Parameter parameter = sheetItem.item.parameter();
            message.getStyleClass().add(FIELD_MESSAGE);
            message.setWrapText(true);
            message.setManaged(false);
            message.setVisible(false);
            message.setId("message-" + parameter.name());
            if (parameter.kind() == Parameter.Kind.CHOICE) {
                ComboBox<String> choice = new ComboBox<>();
                choice.getItems().setAll(parameter.choices());
                choice.setValue(parameter.value());
                choice.setOnAction(event -> commit(choice.getValue()));
                choice.setMaxWidth(Double.MAX_VALUE);
                field = choice;
            } else {
                TextField text = new TextField(parameter.value());
                text.setOnAction(event -> commit(text.getText()));
                text.focusedProperty().addListener((observable, before, focused) -> {
                    if (!focused) {
                        commit(text.getText());
                    }
                });
                field = text;
            }
            field.setId("param-" + parameter.name());
            field.setTooltip(new Tooltip(sheetItem.getDescription()));
            box = new VBox(2, field, message);
        }

        private void commit(String value) {
            String refused = sheetItem.item.set(value);
            show(refused);
        }

        void show(String text) {
            boolean on = text != null && !text.isEmpty();
            message.setText(on ? text : "");
            message.setVisible(on);
            message.setManaged(on);
            style(field, FIELD_ERROR, on);
        }

        @Override
        public Node getEditor() {
            return box;
        }

        @Override
        public Object getValue() {
            return sheetItem.getValue();
        }

        @Override
        public void setValue(Object value) {
            String text = String.valueOf(value);
            if (field instanceof TextField textField) {
                textField.setText(text);
            } else if (field instanceof ComboBox<?> combo) {
                @SuppressWarnings("unchecked")
                ComboBox<String> choice = (ComboBox<String>) combo;
                choice.setValue(text);
            }
        }
    }
}
