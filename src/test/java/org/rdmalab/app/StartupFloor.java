package org.rdmalab.app;

import java.util.List;
import javafx.application.Application;
import javafx.collections.FXCollections;
import javafx.scene.Parent;
import javafx.scene.Scene;
import javafx.scene.control.Button;
import javafx.scene.control.ComboBox;
import javafx.scene.control.Label;
import javafx.scene.control.ListView;
import javafx.scene.control.SplitPane;
import javafx.scene.control.Tab;
import javafx.scene.control.TabPane;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableView;
import javafx.scene.control.TextArea;
import javafx.scene.control.TextField;
import javafx.scene.control.cell.PropertyValueFactory;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.StackPane;
import javafx.scene.layout.VBox;
import javafx.stage.Stage;

/**
 * A measurement, not a test (surefire does not run it: its name does not end in Test): the floor
 * under the lab window's first frame (docs/performance.md, "Startup"). It starts a JavaFX window
 * of the lab window's size that holds next to nothing, on the same JVM, toolkit and screen, and
 * prints the same line as {@code -Drdmalab.firstFrame=exit} ({@link FirstFrame}), then exits.
 *
 * <p>{@code java -Drdmalab.firstFrame=exit [Monocle's headless flags] -cp
 * target/test-classes:target/rdma-lab.jar org.rdmalab.app.StartupFloor empty|modena|controls}:
 * {@code empty} is a scene with one empty pane and JavaFX's own stylesheet; {@code modena} holds
 * one of each control kind the window's first view is made of (tabs, a split pane, a list, a
 * table, a text area, buttons, a combo box, fields), a few dozen nodes instead of the first
 * view's thousand, styled by JavaFX's stylesheet alone; {@code controls} is the same with the
 * lab's stylesheet added. What the window takes beyond {@code controls} is its own.
 */
public final class StartupFloor {

    private StartupFloor() {
    }

    public static void main(String[] args) {
        if (args.length != 1 || !List.of("empty", "modena", "controls").contains(args[0])) {
            System.err.println("StartupFloor: name the window: empty, modena or controls");
            System.exit(2);
        }
        Application.launch(Window.class, args);
    }

    /** The window itself; JavaFX makes it by reflection, so it is public. */
    public static final class Window extends Application {

        @Override
        public void start(Stage stage) {
            long started = System.nanoTime();
            String name = getParameters().getRaw().get(0);
            Scene scene = new Scene(name.equals("empty") ? new StackPane() : controls(), MainWindow.WIDTH, MainWindow.HEIGHT);
            if (name.equals("controls")) {
                scene.getStylesheets().add(StartupFloor.class.getResource(MainWindow.STYLESHEET).toExternalForm());
            }
            stage.setScene(scene);
            FirstFrame.watch(scene, started);
            stage.show();
        }

        private static Parent controls() {
            ListView<String> steps = new ListView<>(FXCollections.observableArrayList(
                    "ibv_get_device_list", "ibv_open_device", "ibv_alloc_pd", "ibv_reg_mr", "ibv_create_cq",
                    "ibv_create_qp", "INIT", "RTR", "RTS"));
            TableView<Row> table = new TableView<>(FXCollections.observableArrayList(
                    new Row("1", "IBV_WC_SUCCESS"), new Row("2", "IBV_WC_SUCCESS")));
            for (String name : List.of("id", "status")) {
                TableColumn<Row, String> column = new TableColumn<>(name);
                column.setCellValueFactory(new PropertyValueFactory<>(name));
                table.getColumns().add(column);
            }
            TextArea code = new TextArea("struct ibv_qp_init_attr attr = { 0 };\n".repeat(20));
            VBox form = new VBox(8, new Label("Device"), new ComboBox<>(FXCollections.observableArrayList("soft0")),
                    new Label("Peer"), new TextField("127.0.0.1"), new HBox(8, new Button("Next"), new Button("Run all")));
            SplitPane split = new SplitPane(steps, new VBox(8, code, table), form);
            TabPane tabs = new TabPane(new Tab("Lab", split), new Tab("Wire"), new Tab("Lessons"));
            return new BorderPane(tabs);
        }
    }

    /** A table row: read by {@link PropertyValueFactory} through its getters. */
    public static final class Row {
        private final String id;
        private final String status;

        Row(String id, String status) {
            this.id = id;
            this.status = status;
        }

        public String getId() {
            return id;
        }

        public String getStatus() {
            return status;
        }
    }
}
