package org.rdmalab.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import javafx.scene.control.ComboBox;
import javafx.scene.control.Label;
import javafx.scene.control.TabPane;
import javafx.stage.Stage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;

/** The main window loads from FXML with the app's CSS and shows the software device. */
@ExtendWith(ApplicationExtension.class)
class MainViewTest {

    @Start
    void start(Stage stage) throws Exception {
        stage.setScene(MainWindow.createScene(new String[0]));
        stage.setTitle(MainWindow.TITLE);
        stage.show();
    }

    @Test
    void showsTheSoftwareDeviceInThePicker(FxRobot robot) {
        ComboBox<String> picker = robot.lookup("#devicePicker").queryComboBox();
        assertTrue(picker.getValue().startsWith("soft0 (software RoCE v2 on 127.0.0.1"), picker.getValue());
        Label status = robot.lookup("#statusLabel").queryAs(Label.class);
        assertTrue(status.getText().contains("device(s)"), status.getText());
    }

    @Test
    void hasTheBottomTabsAndTheStylesheet(FxRobot robot) {
        TabPane tabs = robot.lookup(".bottom-tabs").queryAs(TabPane.class);
        assertEquals("Completions", tabs.getTabs().get(0).getText());
        assertTrue(tabs.getScene().getStylesheets().get(0).endsWith("styles/rdma-lab.css"));
        robot.clickOn("Packets");
        assertEquals("Packets", tabs.getSelectionModel().getSelectedItem().getText());
    }
}
