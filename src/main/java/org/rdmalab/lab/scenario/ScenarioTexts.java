package org.rdmalab.lab.scenario;

import java.util.Locale;
import java.util.MissingResourceException;
import java.util.Objects;
import java.util.ResourceBundle;

/**
 * What each scenario is, in one place: {@code scenarios.properties} (English, the source that
 * {@code loopback --list}, the header of a run, docs/loopback.md's table and the window's gallery
 * all say) and {@code scenarios_zh_CN.properties}. Per scenario: {@code NAME.line} (one line),
 * {@code NAME.happens} (what happens) and {@code NAME.teaches} (what it teaches).
 */
public final class ScenarioTexts {

    private static final String BUNDLE = "org.rdmalab.lab.scenario.scenarios";
    private static final ResourceBundle.Control NO_FALLBACK = ResourceBundle.Control.getNoFallbackControl(
            ResourceBundle.Control.FORMAT_PROPERTIES);
    private static final ScenarioTexts ENGLISH = new ScenarioTexts(Locale.ROOT);

    private final ResourceBundle bundle;

    private ScenarioTexts(Locale locale) {
        bundle = ResourceBundle.getBundle(BUNDLE, locale, NO_FALLBACK);
    }

    /** The English texts (the base bundle). */
    public static ScenarioTexts english() {
        return ENGLISH;
    }

    /** The texts in {@code locale}'s language, English where there is no translation. */
    public static ScenarioTexts of(Locale locale) {
        return Locale.SIMPLIFIED_CHINESE.getLanguage().equals(locale.getLanguage()) ? new ScenarioTexts(
                Locale.SIMPLIFIED_CHINESE) : ENGLISH;
    }

    private String text(String name, String part) {
        Objects.requireNonNull(name, "name");
        try {
            return bundle.getString(name + "." + part);
        } catch (MissingResourceException e) {
            throw new IllegalArgumentException("scenario '" + name + "' has no " + part + " text", e);
        }
    }

    /** One line: what happens and what the student should see ({@code loopback --list}). */
    public String line(String name) {
        return text(name, "line");
    }

    /** What happens, step by step, in a sentence or two. */
    public String happens(String name) {
        return text(name, "happens");
    }

    /** What the scenario teaches: the outcome to expect and why. */
    public String teaches(String name) {
        return text(name, "teaches");
    }
}
