package org.rdmalab.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import javafx.fxml.FXML;
import javafx.scene.Scene;
import javafx.scene.control.Label;
import javafx.scene.control.ScrollPane;
import javafx.scene.control.TabPane;
import javafx.stage.Stage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.rdmalab.app.common.DeferredView;
import org.rdmalab.app.common.UiText;
import org.rdmalab.app.common.Views;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.Start;

/**
 * A view of a tab nobody has opened is parsed and built when the tab is first shown, with the
 * controller the window made for it, and once only; a part of the window not shown yet can still
 * be read through {@link LazyTabContent#contentOf}.
 */
@ExtendWith(WindowRobot.class)
class DeferredViewTest {

    /** The controller of Inner.fxml: counts how often its view was built. */
    public static final class InnerController {
        int built;
        @FXML
        private Label innerLabel;

        @FXML
        private void initialize() {
            built++;
            innerLabel.setText(innerLabel.getText() + " " + built);
        }
    }

    private final InnerController controller = new InnerController();
    private TabPane tabs;

    @Start
    void start(Stage stage) throws Exception {
        Views views = new Views(Map.of(InnerController.class, controller));
        tabs = (TabPane) views.load(DeferredViewTest.class.getResource("deferred/Outer.fxml"));
        LazyTabContent.holdBackUnselected(tabs);
        stage.setScene(new Scene(tabs, 400, 300));
        stage.show();
    }

    @Test
    void aTabsViewIsBuiltWhenTheTabIsFirstShownWithItsControllerAndOnce(FxRobot robot) {
        DeferredView waiting = (DeferredView) LazyTabContent.heldOrShown(tabs.getTabs().get(1));
        assertFalse(waiting.loaded(), "not built before its tab is shown");
        assertEquals(0, controller.built);
        assertTrue(waiting.getChildren().isEmpty());
        robot.interact(() -> tabs.getSelectionModel().select(1));
        assertTrue(waiting.loaded(), "built when its tab is shown");
        assertEquals(1, controller.built, "with the controller the views were given");
        Label label = robot.lookup("#innerLabel").queryAs(Label.class);
        assertEquals("loaded 1", label.getText());
        assertNotNull(label.getScene(), "in the scene");
        assertEquals("innerView", label.getParent().getId(), "the view takes the id it was given, as an include does");
        assertNull(waiting.getId(), "and the pane that held its place gives it up");
        robot.interact(() -> tabs.getSelectionModel().select(0));
        robot.interact(() -> tabs.getSelectionModel().select(1));
        assertEquals(1, controller.built, "built once");
        assertSame(label, robot.lookup("#innerLabel").queryAs(Label.class));
    }

    @Test
    void aViewNotShownYetIsBuiltToBeReadAndKeepsAnIdOfItsOwn(FxRobot robot) {
        ScrollPane held = (ScrollPane) LazyTabContent.heldOrShown(tabs.getTabs().get(2));
        DeferredView other = (DeferredView) held.getContent();
        assertFalse(other.loaded());
        robot.interact(() -> LazyTabContent.contentOf(tabs.getTabs().get(2)));
        assertTrue(other.loaded(), "read from the tab, inside its scroll pane");
        assertNull(other.getScene(), "still out of the scene until its tab is shown");
        assertEquals("ownRoot", other.load().getId(), "a view's own id stays");
        assertEquals("otherView", other.getId());
        assertEquals(UiText.text("main.bench"), ((Label) other.load().lookup("#otherLabel")).getText(),
                "its texts from the window's words, as the file that names it");
        DeferredView waiting = (DeferredView) LazyTabContent.heldOrShown(tabs.getTabs().get(1));
        assertFalse(waiting.loaded(), "the other tab's view still waits");
        robot.interact(() -> {
            javafx.scene.Parent built = waiting.load();
            assertSame(built, waiting.getChildren().get(0), "built on asking, and shown in its place");
            assertEquals("innerView", built.getId());
            assertSame(built, waiting.load(), "built once");
        });
        assertEquals(1, controller.built);
    }

    @Test
    void aTabNotShownYetHasEveryViewInItBuiltToBeRead(FxRobot robot) {
        javafx.scene.control.SplitPane split = (javafx.scene.control.SplitPane) LazyTabContent.heldOrShown(
                tabs.getTabs().get(3));
        javafx.scene.layout.VBox box = (javafx.scene.layout.VBox) split.getItems().get(0);
        DeferredView inBox = (DeferredView) box.getChildren().get(0);
        DeferredView inTab = (DeferredView) ((TabPane) split.getItems().get(1)).getTabs().get(0).getContent();
        DeferredView inSplit = (DeferredView) split.getItems().get(2);
        assertFalse(inBox.loaded() || inTab.loaded() || inSplit.loaded());
        robot.interact(() -> LazyTabContent.contentOf(tabs.getTabs().get(3)));
        assertTrue(inBox.loaded(), "in a box");
        assertTrue(inTab.loaded(), "in a tab pane's tab");
        assertTrue(inSplit.loaded(), "a split pane's item");
        robot.interact(() -> assertNull(LazyTabContent.contentOf(tabs.getTabs().get(4)), "a tab with nothing"));
        assertFalse(((DeferredView) LazyTabContent.heldOrShown(tabs.getTabs().get(1))).loaded(), "the others wait");
    }

    @Test
    void aDeferredViewOutsideAFileViewsLoadedSaysSo() {
        DeferredView alone = new DeferredView();
        alone.setSource("Inner.fxml");
        IllegalStateException refused = assertThrows(IllegalStateException.class, alone::load);
        assertTrue(refused.getMessage().contains("Inner.fxml"), refused.getMessage());
    }
}
