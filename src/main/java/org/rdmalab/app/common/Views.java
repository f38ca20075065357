package org.rdmalab.app.common;

import java.io.IOException;
import java.net.URL;
import java.util.Map;
import java.util.Objects;
import javafx.fxml.FXMLLoader;
import javafx.scene.Parent;

/**
 * Loads the FXML views with their controllers: the controller factory hands each view (and each
 * {@code fx:include} inside it) the controller made for it, which holds its view model. Their
 * {@code %key} texts come from {@link UiText}'s bundle, in the language chosen for the window.
 */
public final class Views {

    private final Map<Class<?>, Object> controllers;

    /** {@code controllers}: the controller instance for each controller class the views name. */
    public Views(Map<Class<?>, Object> controllers) {
        this.controllers = controllers;
    }

    /** Loads {@code path} with the registered controllers. */
    public Parent load(String path) throws IOException {
        return load(resource(path));
    }

    /**
     * Loads the FXML file at {@code location} with the registered controllers; the {@link DeferredView}s
     * it names (each with an {@code fx:id}) load through this loader when first shown.
     */
    public Parent load(URL location) throws IOException {
        FXMLLoader loader = new FXMLLoader(location, UiText.bundle());
        loader.setControllerFactory(this::controller);
        Parent root = loader.load();
        for (Object named : loader.getNamespace().values()) {
            if (named instanceof DeferredView deferred) {
                deferred.use(this, location);
            }
        }
        return root;
    }

    /** Loads {@code path} whose own controller is {@code controller} (a view loaded once per side). */
    public Parent load(String path, Object controller) throws IOException {
        FXMLLoader loader = new FXMLLoader(resource(path), UiText.bundle());
        loader.setControllerFactory(type -> type.isInstance(controller) ? controller : controller(type));
        return loader.load();
    }

    private Object controller(Class<?> type) {
        Object controller = controllers.get(type);
        if (controller == null) {
            throw new IllegalArgumentException("no controller for " + type.getName());
        }
        return controller;
    }

    public static URL resource(String path) {
        return Objects.requireNonNull(Views.class.getResource(path), path + " is missing from the classpath");
    }
}
