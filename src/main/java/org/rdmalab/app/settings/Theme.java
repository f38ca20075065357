package org.rdmalab.app.settings;

import java.util.Locale;

/**
 * The window's colours: light, or dark (the same tokens of {@code styles/rdma-lab.css} given dark
 * values by its {@code .root.dark} block).
 */
public enum Theme {
    LIGHT,
    DARK;

    /** The style class the scene's root carries in this theme, or null for none. */
    public String styleClass() {
        return this == DARK ? "dark" : null;
    }

    /** The theme as {@code --theme} and the settings spell it: light or dark. */
    public String tag() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * The theme {@code tag} names.
     *
     * @throws IllegalArgumentException with a sentence naming the choices
     */
    public static Theme parse(String tag) {
        String normal = tag == null ? "" : tag.trim().toLowerCase(Locale.ROOT);
        for (Theme theme : values()) {
            if (theme.tag().equals(normal)) {
                return theme;
            }
        }
        throw new IllegalArgumentException("unknown theme '" + tag + "' for --theme; use light or dark");
    }
}
