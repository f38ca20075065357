package org.rdmalab.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import javafx.scene.control.ComboBox;
import javafx.scene.control.Label;
import javafx.scene.control.ListView;
import javafx.scene.control.TabPane;
import javafx.scene.control.TextArea;
import javafx.stage.Stage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.rdmalab.lab.Step;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

/** The main window loads from FXML with the app's CSS, lists the devices and shows the seed's steps. */
@ExtendWith(ApplicationExtension.class)
class MainViewTest {

    @Start
    void start(Stage stage) throws Exception {
        stage.setScene(MainWindow.createScene(new String[0]));
        stage.setTitle(MainWindow.TITLE);
        stage.show();
    }

    @Test
    void showsTheSoftwareDeviceInThePicker(FxRobot robot) throws Exception {
        ComboBox<String> picker = robot.lookup("#devicePicker").queryComboBox();
        WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> picker.getValue() != null);
        assertTrue(picker.getValue().startsWith("soft0 (software RoCE v2 on 127.0.0.1"), picker.getValue());
        Label status = robot.lookup("#statusLabel").queryAs(Label.class);
        assertTrue(status.getText().contains("device(s)"), status.getText());
    }

    @Test
    void clickingAStepShowsItsParametersAndCCode(FxRobot robot) {
        ListView<Step> steps = robot.lookup("#stepList").queryListView();
        assertEquals("Open device", steps.getItems().get(0).title());
        robot.clickOn("Modify QP to RTR");
        TextArea detail = robot.lookup("#stepDetail").queryAs(TextArea.class);
        assertTrue(detail.getText().contains("attr.path_mtu = IBV_MTU_256;"), detail.getText());
        assertTrue(detail.getText().contains("min_rnr_timer        0x12"), detail.getText());
        assertEquals("Modify QP to RTR", robot.lookup("#stepTitle").queryAs(Label.class).getText());
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
