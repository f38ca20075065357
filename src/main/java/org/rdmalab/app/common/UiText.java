package org.rdmalab.app.common;

import java.util.List;
import java.util.Locale;
import java.util.MissingResourceException;
import java.util.ResourceBundle;
import org.rdmalab.text.Phrase;
import org.rdmalab.lab.Step;

/**
 * The window's words in the language chosen with {@code gui --lang}: English ({@code en}) or
 * Simplified Chinese ({@code zh_CN}). The FXML views name their labels as {@code %key} and the
 * controllers ask {@link #text} and {@link #format}; both read {@code messages*.properties} in
 * {@code org/rdmalab/app}, the window's package (UTF-8, as Java 9 and later read them).
 *
 * <p>What is translated: the window's labels, buttons, tabs, tool tips, panel titles and hints, the
 * steps' titles, and what the lab and {@code doctor} say ({@link Phrase}s: steps' results,
 * diagnoses, fixes, checks' findings), which {@link #say} puts in the window's language. What
 * stays as the verbs spell it: verb, struct field, enum and status names ({@code ibv_post_send},
 * {@code wr_id}, {@code IBV_WC_SUCCESS}), the C code, and the sentences that the verbs backends,
 * the system's tools and {@code bench} produce (a verb's error message, a tool's output, engine
 * notes), which read as on the command line.
 *
 * <p>The language is chosen once, before the window is built; views built before a change keep
 * their words.
 */
public final class UiText {

    /** English, the language of the code and the command line. */
    public static final Locale ENGLISH = Locale.ENGLISH;
    /** Simplified Chinese, the language of the article the seed program comes from. */
    public static final Locale CHINESE = Locale.SIMPLIFIED_CHINESE;
    /** The languages the window speaks, as {@code --lang} spells them. */
    public static final List<String> TAGS = List.of("en", "zh_CN");

    private static final String BUNDLE = "org.rdmalab.app.messages";
    /** The format specifiers the bundles use. */
    private static final java.util.regex.Pattern SPECIFIER = java.util.regex.Pattern.compile("%[sd]");
    /** No fall-back to the JVM's default locale: English is the base bundle, not "whatever the system speaks". */
    private static final ResourceBundle.Control CONTROL =
            ResourceBundle.Control.getNoFallbackControl(ResourceBundle.Control.FORMAT_PROPERTIES);

    private static volatile ResourceBundle bundle = load(ENGLISH);
    /** A language was chosen ({@link #use}); until then the window speaks English. */
    private static volatile boolean chosen;

    private UiText() {
    }

    /** Makes the window speak {@code locale} ({@link #ENGLISH} or {@link #CHINESE}) from the next view built on. */
    public static void use(Locale locale) {
        bundle = load(locale);
        chosen = true;
    }

    /** True once a language was chosen with {@link #use}. */
    public static boolean chosen() {
        return chosen;
    }

    /**
     * The language {@code --lang} names: {@code en}, or {@code zh_CN} (also written {@code zh-CN}
     * or {@code zh}).
     *
     * @throws IllegalArgumentException with a sentence naming the choices
     */
    public static Locale parse(String tag) {
        String normal = tag.trim().replace('-', '_').toLowerCase(Locale.ROOT);
        return switch (normal) {
            case "en", "en_us", "en_gb" -> ENGLISH;
            case "zh", "zh_cn", "zh_hans", "zh_hans_cn" -> CHINESE;
            default -> throw new IllegalArgumentException("unknown language '" + tag + "' for --lang; use "
                    + String.join(" or ", TAGS));
        };
    }

    /** The window's language when {@code --lang} is not given: Chinese on a Chinese desktop, else English. */
    public static Locale systemDefault() {
        return "zh".equals(Locale.getDefault().getLanguage()) ? CHINESE : ENGLISH;
    }

    /** The bundle the FXML loader resolves {@code %key} from. */
    public static ResourceBundle bundle() {
        return bundle;
    }

    /** The text of {@code key} in the language in use. */
    public static String text(String key) {
        return bundle.getString(key);
    }

    /** What the lab says ({@link Phrase}: a step's result, a diagnosis, a fix) in the language in use. */
    public static String say(Phrase phrase) {
        return phrase.in(locale());
    }

    /** The language in use: the bundle's (English is the base bundle, {@link Locale#ROOT}). */
    public static Locale locale() {
        return bundle.getLocale();
    }

    /** The pattern of {@code key} (a {@link String#format} pattern) filled with {@code arguments}. */
    public static String format(String key, Object... arguments) {
        return String.format(bundle.getString(key), arguments);
    }

    /**
     * A regular expression that matches any text {@link #format} makes of {@code key} ({@code %d}
     * a number, {@code %s} anything), for code that waits for a sentence in whatever language.
     */
    public static String pattern(String key) {
        String sentence = bundle.getString(key);
        StringBuilder regex = new StringBuilder();
        java.util.regex.Matcher specifier = SPECIFIER.matcher(sentence);
        int from = 0;
        while (specifier.find()) {
            regex.append(java.util.regex.Pattern.quote(sentence.substring(from, specifier.start())))
                    .append(specifier.group().equals("%d") ? "\\d+" : ".*");
            from = specifier.end();
        }
        return regex.append(java.util.regex.Pattern.quote(sentence.substring(from))).toString();
    }

    /**
     * A step's title in the language in use: the bundle's {@code step.<id>}, else the title the
     * lab gave it (the same words {@code demo} and {@code loopback} print).
     */
    public static String stepTitle(Step step) {
        String key = "step." + step.id();
        return bundle.containsKey(key) ? bundle.getString(key) : step.title();
    }

    /** The word for a side: "server", "client" or "local" in the language in use. */
    public static String side(String name) {
        return text("side." + name);
    }

    private static ResourceBundle load(Locale locale) {
        try {
            return ResourceBundle.getBundle(BUNDLE, locale, CONTROL);
        } catch (MissingResourceException e) {
            throw new IllegalStateException("the window's texts (" + BUNDLE + ") are missing from the jar", e);
        }
    }
}
