package org.rdmalab.app;

import javafx.scene.Node;
import javafx.scene.control.Tab;
import javafx.scene.control.TabPane;

/**
 * Keeps the content of a tab pane's unselected tabs out of the scene until each tab is first
 * selected. Their views are built (controllers, view models, bindings: they follow the lab from the
 * start), but JavaFX styles and lays out only what is in the scene, so the window's first frame
 * does not pay for the tabs nobody opened yet (docs/performance.md, startup). A tab once shown keeps
 * its content.
 */
public final class LazyTabContent {

    private static final String HELD = "rdmalab.heldContent";

    private LazyTabContent() {
    }

    /** Holds back the content of every tab of {@code tabs} but the selected one until it is selected. */
    static void holdBackUnselected(TabPane tabs) {
        for (Tab tab : tabs.getTabs()) {
            if (tab.isSelected() || tab.getContent() == null) {
                continue;
            }
            Node content = tab.getContent();
            tab.getProperties().put(HELD, content);
            tab.setContent(null);
            tab.selectedProperty().addListener(new javafx.beans.value.ChangeListener<>() {
                @Override
                public void changed(javafx.beans.value.ObservableValue<? extends Boolean> observable, Boolean before,
                                    Boolean selected) {
                    if (selected) {
                        tab.selectedProperty().removeListener(this);
                        tab.getProperties().remove(HELD);
                        tab.setContent(content);
                    }
                }
            });
        }
    }

    /**
     * {@code tab}'s content, shown or still held back, with the views in it that wait to be first
     * shown ({@link org.rdmalab.app.common.DeferredView}) loaded, so that it can be read.
     */
    public static Node contentOf(Tab tab) {
        Node content = heldOrShown(tab);
        org.rdmalab.app.common.DeferredView.loadWithin(content, LazyTabContent::heldOrShown);
        return content;
    }

    /** {@code tab}'s content, shown or still held back, as it is (views not shown yet stay unloaded). */
    static Node heldOrShown(Tab tab) {
        Object held = tab.getProperties().get(HELD);
        return held instanceof Node node ? node : tab.getContent();
    }

    /**
     * The first node in {@code node}'s tree with the style class {@code styleClass}, looking into
     * held-back tabs, tab panes, scroll panes and split panes whether their skins are made yet or
     * not ({@link org.rdmalab.app.common.DeferredView#inside}). Views not loaded yet are not looked
     * into.
     */
    static java.util.Optional<Node> find(Node node, String styleClass) {
        if (node == null) {
            return java.util.Optional.empty();
        }
        if (node.getStyleClass().contains(styleClass)) {
            return java.util.Optional.of(node);
        }
        for (Node each : org.rdmalab.app.common.DeferredView.inside(node, LazyTabContent::heldOrShown)) {
            java.util.Optional<Node> found = find(each, styleClass);
            if (found.isPresent()) {
                return found;
            }
        }
        return java.util.Optional.empty();
    }
}
