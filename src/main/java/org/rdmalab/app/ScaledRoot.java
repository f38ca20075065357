package org.rdmalab.app;

import javafx.beans.property.DoubleProperty;
import javafx.beans.property.SimpleDoubleProperty;
import javafx.scene.Parent;
import javafx.scene.layout.Region;
import javafx.scene.transform.Scale;

/**
 * The scene's root: lays its one child out at its own size divided by the scale factor and draws
 * it that many times larger from the top-left corner, so fonts, diagrams, canvases, hex views and
 * charts all grow together and the layout is the one the window has at the smaller size (projector
 * mode, {@code gui --scale F}). At factor 1 it is a plain holder.
 */
final class ScaledRoot extends Region {

    private final Parent content;
    private final Scale transform = new Scale(1, 1, 0, 0);
    private final DoubleProperty factor = new SimpleDoubleProperty(this, "factor", 1);

    ScaledRoot(Parent content) {
        this.content = content;
        content.getTransforms().add(transform);
        getChildren().add(content);
        transform.xProperty().bind(factor);
        transform.yProperty().bind(factor);
        factor.addListener((observable, before, now) -> requestLayout());
    }

    /** How many times larger the content is drawn (1 to 3). */
    DoubleProperty factorProperty() {
        return factor;
    }

    /** The content, laid out at the root's size divided by the factor. */
    Parent content() {
        return content;
    }

    @Override
    protected void layoutChildren() {
        double f = factor.get();
        content.resizeRelocate(0, 0, getWidth() / f, getHeight() / f);
    }

    @Override
    protected double computePrefWidth(double height) {
        return content.prefWidth(height < 0 ? height : height / factor.get()) * factor.get();
    }

    @Override
    protected double computePrefHeight(double width) {
        return content.prefHeight(width < 0 ? width : width / factor.get()) * factor.get();
    }

    @Override
    protected double computeMinWidth(double height) {
        return content.minWidth(height < 0 ? height : height / factor.get()) * factor.get();
    }

    @Override
    protected double computeMinHeight(double width) {
        return content.minHeight(width < 0 ? width : width / factor.get()) * factor.get();
    }
}
