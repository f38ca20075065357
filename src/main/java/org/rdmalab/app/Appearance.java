package org.rdmalab.app;

import javafx.beans.property.DoubleProperty;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.SimpleDoubleProperty;
import javafx.beans.property.SimpleObjectProperty;
import org.rdmalab.app.settings.Scale;
import org.rdmalab.app.settings.Theme;

/**
 * How the window looks, switched at run time by the settings menu and its keys: the theme and
 * the scale factor (Projector). JavaFX thread only.
 */
public final class Appearance {

    private final ObjectProperty<Theme> theme = new SimpleObjectProperty<>(this, "theme", Theme.LIGHT);
    private final DoubleProperty scale = new SimpleDoubleProperty(this, "scale", Scale.DESK);
    /** The projector's factor: {@link Scale#PROJECTOR}, or the one {@code --scale} gave when larger than 1. */
    private double projectorScale = Scale.PROJECTOR;

    /** The window's colours. */
    public ObjectProperty<Theme> themeProperty() {
        return theme;
    }

    /** How many times larger the window is drawn ({@link Scale#MIN} to {@link Scale#MAX}). */
    public DoubleProperty scaleProperty() {
        return scale;
    }

    /** Shows {@code factor} and makes it the projector's factor when it is larger than a desk's. */
    public void scale(double factor) {
        if (factor > Scale.DESK) {
            projectorScale = factor;
        }
        scale.set(factor);
    }

    /** True while the window is drawn larger than at a desk. */
    public boolean projector() {
        return scale.get() > Scale.DESK;
    }

    /** The factor the Projector switch turns on. */
    public double projectorScale() {
        return projectorScale;
    }

    /** The Projector switch: from a desk to the projector's factor, and back. */
    public void toggleProjector() {
        scale.set(projector() ? Scale.DESK : projectorScale);
    }

    /** The theme switch: light to dark and back. */
    public void toggleTheme() {
        theme.set(theme.get() == Theme.DARK ? Theme.LIGHT : Theme.DARK);
    }
}
