package org.rdmalab.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import javafx.scene.Scene;
import javafx.scene.control.Label;
import javafx.scene.control.Tab;
import javafx.scene.control.TabPane;
import javafx.stage.Stage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.Start;

@ExtendWith(WindowRobot.class)
class LazyTabContentTest {

    private Label first;
    private Label second;
    private Label third;
    private TabPane tabs;

    @Start
    void start(Stage stage) {
        first = new Label("first");
        second = new Label("second");
        third = new Label("third");
        tabs = new TabPane(new Tab("1", first), new Tab("2", second), new Tab("3", third));
        LazyTabContent.holdBackUnselected(tabs);
        stage.setScene(new Scene(tabs, 400, 300));
        stage.show();
    }

    @Test
    void aTabsContentJoinsTheSceneWhenTheTabIsFirstShownAndStays(FxRobot robot) {
        assertNotNull(first.getScene(), "the selected tab is shown");
        assertNull(second.getScene(), "an unselected tab's content is not styled or laid out yet");
        assertNull(third.getScene());
        assertSame(second, LazyTabContent.contentOf(tabs.getTabs().get(1)), "but it is there to be read");
        robot.interact(() -> tabs.getSelectionModel().select(1));
        assertSame(second, tabs.getTabs().get(1).getContent());
        assertNotNull(second.getScene(), "shown once selected");
        assertNull(third.getScene(), "the other one still waits");
        robot.interact(() -> tabs.getSelectionModel().select(0));
        assertSame(second, tabs.getTabs().get(1).getContent(), "a tab once shown keeps its content");
        assertSame(second, LazyTabContent.contentOf(tabs.getTabs().get(1)));
        robot.interact(() -> tabs.getSelectionModel().select(1));
        assertSame(second, tabs.getTabs().get(1).getContent());
    }

    /**
     * A node in a held-back tab, inside a scroll pane and a split pane that have no skin yet, is
     * found, where {@code Node.lookup} finds nothing until the next pulse has made their skins.
     */
    @Test
    void findLooksIntoHeldTabsAndUnskinnedPanes(FxRobot robot) {
        Label deep = new Label("deep");
        deep.getStyleClass().add("deep-view");
        robot.interact(() -> {
            javafx.scene.control.SplitPane split = new javafx.scene.control.SplitPane(new Label("left"),
                    new javafx.scene.control.ScrollPane(new javafx.scene.layout.VBox(deep)));
            // A tab with no content on the way is passed over.
            TabPane inner = new TabPane(new Tab("a", new Label("a")), new Tab("empty"), new Tab("b", split));
            LazyTabContent.holdBackUnselected(inner);
            tabs.getTabs().add(new Tab("4", inner));
            assertNull(tabs.lookup(".deep-view"), "a lookup through skins sees nothing yet");
            assertSame(deep, LazyTabContent.find(tabs, "deep-view").orElseThrow());
            assertSame(tabs, LazyTabContent.find(tabs, "tab-pane").orElseThrow(), "the node itself");
            assertEquals(java.util.Optional.empty(), LazyTabContent.find(tabs, "no-such-view"));
        });
    }
}
