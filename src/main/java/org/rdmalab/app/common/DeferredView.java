package org.rdmalab.app.common;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.MalformedURLException;
import java.net.URL;
import javafx.beans.value.ChangeListener;
import javafx.scene.Node;
import javafx.scene.Parent;
import javafx.scene.Scene;
import javafx.scene.control.ScrollPane;
import javafx.scene.control.SplitPane;
import javafx.scene.control.TabPane;
import javafx.scene.layout.StackPane;

/**
 * An {@code fx:include} that loads its FXML file only when the view first joins a scene, for the
 * views of tabs nobody has opened yet: the window's first frame then parses, builds and styles only
 * what it shows (docs/performance.md, startup). In FXML, in place of
 * {@code <fx:include fx:id="benchView" source="bench/BenchView.fxml"/>}:
 * {@code <DeferredView fx:id="benchView" source="bench/BenchView.fxml"/>}; the source is relative to
 * the file that names it, and {@link Views#load} gives the view its loader. The loaded view fills
 * this pane and takes over its id where it has none of its own, as an included view does; its
 * controller is the one {@link Views} holds for it, made (with its view model) when the window was.
 */
public final class DeferredView extends StackPane {

    private String source;
    private Views views;
    private URL base;
    private Parent view;
    private final ChangeListener<Scene> joined = (observable, before, scene) -> {
        if (scene != null) {
            load();
        }
    };

    public DeferredView() {
        getStyleClass().add("deferred-view");
        sceneProperty().addListener(joined);
    }

    /** The view's FXML file, relative to the file that names this view. */
    public String getSource() {
        return source;
    }

    public void setSource(String source) {
        this.source = source;
    }

    /** Gives this view the loader of the file that names it; {@code base} is that file. */
    void use(Views views, URL base) {
        this.views = views;
        this.base = base;
    }

    /** True once the view is loaded. */
    public boolean loaded() {
        return view != null;
    }

    /**
     * Loads the view now if it is not loaded yet, and returns it.
     *
     * @throws IllegalStateException before {@link Views#load} has given this view its loader
     * @throws UncheckedIOException when the FXML file cannot be read (a broken build)
     */
    public Parent load() {
        if (view != null) {
            return view;
        }
        if (views == null || source == null) {
            throw new IllegalStateException("a deferred view (" + source + ") loads only inside a file Views loads");
        }
        try {
            view = views.load(new URL(base, source));
        } catch (MalformedURLException e) {
            throw new IllegalStateException("a deferred view names a bad source: " + source, e);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot load " + source, e);
        }
        sceneProperty().removeListener(joined);
        if (view.getId() == null) {
            // The view takes the id given to it in the file that names it, as an included view does.
            view.setId(getId());
            setId(null);
        }
        getChildren().setAll(view);
        return view;
    }

    /**
     * Loads every deferred view in {@code node}, for reading a part of the window that has not been
     * shown yet: looks through children, scroll pane contents, split pane items and tab contents
     * (shown or held back by {@code heldBack}); {@code null} holds none.
     */
    public static void loadWithin(Node node, java.util.function.Function<javafx.scene.control.Tab, Node> heldBack) {
        if (node instanceof DeferredView deferred) {
            deferred.load();
        }
        inside(node, heldBack).forEach(part -> loadWithin(part, heldBack));
    }

    /**
     * The nodes directly inside {@code node}, whether its skin is made yet or not: a scroll pane's
     * content, a split pane's items, a tab pane's tab contents (shown or held back by
     * {@code heldBack}), a parent's children ({@code Node.lookup} sees a control's content only
     * through its skin, made at the next pulse after it joins the scene). Entries may be null (a
     * tab or a scroll pane with no content); none for null or a leaf.
     */
    public static java.util.List<? extends Node> inside(Node node,
                                                         java.util.function.Function<javafx.scene.control.Tab, Node> heldBack) {
        if (node instanceof ScrollPane scroll) {
            return java.util.Collections.singletonList(scroll.getContent());
        } else if (node instanceof SplitPane split) {
            return split.getItems();
        } else if (node instanceof TabPane tabs) {
            return tabs.getTabs().stream().map(heldBack).toList();
        } else if (node instanceof Parent parent) {
            return parent.getChildrenUnmodifiable();
        }
        return java.util.List.of();
    }
}
