package org.rdmalab.app;

import javafx.beans.value.ObservableDoubleValue;
import javafx.collections.ListChangeListener;
import javafx.scene.Node;
import javafx.scene.Scene;
import javafx.scene.transform.Scale;
import javafx.stage.PopupWindow;
import javafx.stage.Window;

/**
 * Draws what opens over the window (menus and their submenus, a list's drop-down, context menus,
 * tooltips) as many times larger as the window itself, so that in projector mode a menu is read from
 * the back of the room as well as the tab it came from. Each popup owned by the window, directly or
 * through another popup, gets a scale transform on its content bound to the window's factor: it
 * grows and shrinks back with the Projector switch, and the popup's size follows its content. A file
 * chooser is the system's own window and keeps the system's size. JavaFX thread only.
 */
final class ScaledPopups implements AutoCloseable {

    private static final Object SCALED = new Object();

    private final Scene scene;
    private final ObservableDoubleValue factor;
    private final ListChangeListener<Window> shown = change -> {
        while (change.next()) {
            change.getAddedSubList().forEach(this::adopt);
        }
    };

    private ScaledPopups(Scene scene, ObservableDoubleValue factor) {
        this.scene = scene;
        this.factor = factor;
    }

    /** Scales every popup of {@code scene}'s window by {@code factor} from now until {@link #close()}. */
    static ScaledPopups follow(Scene scene, ObservableDoubleValue factor) {
        ScaledPopups popups = new ScaledPopups(scene, factor);
        Window.getWindows().addListener(popups.shown);
        Window.getWindows().forEach(popups::adopt);
        return popups;
    }

    private void adopt(Window window) {
        if (!(window instanceof PopupWindow popup) || !ownedByScene(popup) || popup.getScene() == null) {
            return;
        }
        // A popup is shown again and again; its content is scaled once, on its first showing.
        for (Node content : popup.getScene().getRoot().getChildrenUnmodifiable()) {
            if (content.getProperties().putIfAbsent(SCALED, SCALED) == null) {
                Scale scale = new Scale(1, 1, 0, 0);
                scale.xProperty().bind(factor);
                scale.yProperty().bind(factor);
                content.getTransforms().add(scale);
            }
        }
    }

    private boolean ownedByScene(PopupWindow popup) {
        Window owner = popup.getOwnerWindow();
        while (owner instanceof PopupWindow parent) {
            owner = parent.getOwnerWindow();
        }
        return owner != null && owner == scene.getWindow();
    }

    @Override
    public void close() {
        Window.getWindows().removeListener(shown);
    }
}
