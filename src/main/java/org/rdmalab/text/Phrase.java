package org.rdmalab.text;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.MissingResourceException;
import java.util.Objects;
import java.util.ResourceBundle;

/**
 * A sentence an engine says (the lab's step results, reasons and diagnoses, {@code doctor}'s
 * checks), kept as a key of the engine's own bundle and its arguments, so that the command line
 * prints it in English and the window in the language it speaks. The English pattern is the base
 * bundle: {@link #english()} is the one text of the sentence, with no second copy in the code. Each
 * engine keeps its bundle beside its own classes ({@code lab/phrases*.properties},
 * {@code doctor/local*.properties}, {@code doctor/peer*.properties}) and names it in {@link #from}.
 *
 * <p>A pattern is a {@link String#format} pattern with {@code %s} only: numbers and hex values
 * arrive formatted, as verbs and C spell them. An argument that is itself a phrase is said in the
 * same language. A literal ({@link #literal}) has no key: a backend's message, a completion's
 * fields, the user's own text. It reads the same in every language.
 *
 * @param bundle the base name of the bundle that holds the key, or null for a literal
 * @param key the key in that bundle, or null for a literal
 * @param args the pattern's arguments (a literal's one argument is its text)
 */
public record Phrase(String bundle, String key, List<Object> args) {

    /** English is the base bundle, whatever the JVM's default locale. */
    private static final ResourceBundle.Control CONTROL =
            ResourceBundle.Control.getNoFallbackControl(ResourceBundle.Control.FORMAT_PROPERTIES);

    public Phrase {
        args = List.copyOf(args);
        if ((bundle == null) != (key == null)) {
            throw new IllegalArgumentException("a key belongs to a bundle");
        }
        if (key == null && (args.isEmpty() || args.size() > 2 || !args.stream().allMatch(String.class::isInstance))) {
            throw new IllegalArgumentException("a literal is one text, or an English text and its Chinese");
        }
    }

    /**
     * The sentence {@code key} of the bundle {@code bundle} with {@code args} (a null one reads
     * "null", as in a concatenation).
     */
    public static Phrase from(String bundle, String key, Object... args) {
        List<Object> kept = new ArrayList<>(args.length);
        for (Object arg : args) {
            kept.add(arg == null ? "null" : arg);
        }
        return new Phrase(Objects.requireNonNull(bundle, "bundle"), Objects.requireNonNull(key, "key"), kept);
    }

    /** A text that is the same in every language (null reads "null", as in a concatenation). */
    public static Phrase literal(String text) {
        return new Phrase(null, null, List.of(String.valueOf(text)));
    }

    /**
     * A text written in English and Simplified Chinese by a person (an instructor's exercise file):
     * Chinese for a Chinese locale, English for every other.
     */
    public static Phrase translated(String english, String chinese) {
        return new Phrase(null, null, List.of(String.valueOf(english), String.valueOf(chinese)));
    }

    /** True for a text without a key. */
    public boolean isLiteral() {
        return key == null;
    }

    /** The sentence in English, as the command line prints it. */
    public String english() {
        return in(Locale.ROOT);
    }

    /** The sentence in {@code locale}'s language where the bundles have it, else in English. */
    public String in(Locale locale) {
        if (key == null) {
            boolean chinese = args.size() == 2 && locale != null && "zh".equals(locale.getLanguage());
            return (String) args.get(chinese ? 1 : 0);
        }
        List<Object> said = new ArrayList<>(args.size());
        for (Object arg : args) {
            said.add(arg instanceof Phrase phrase ? phrase.in(locale) : arg);
        }
        return String.format(Locale.ROOT, bundle(bundle, locale).getString(key), said.toArray());
    }

    /** The English sentence. */
    @Override
    public String toString() {
        return english();
    }

    /** The bundle {@code name} in {@code locale} (the English base for any other language). */
    public static ResourceBundle bundle(String name, Locale locale) {
        try {
            return ResourceBundle.getBundle(name, locale, CONTROL);
        } catch (MissingResourceException e) {
            throw new IllegalStateException("the sentences " + name + " are missing from the jar", e);
        }
    }
}
