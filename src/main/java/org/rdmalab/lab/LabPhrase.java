package org.rdmalab.lab;

import org.rdmalab.text.Phrase;

/**
 * The lab's own sentences: the keys of {@code phrases.properties} beside this package's classes
 * (English, the command line's text) and {@code phrases_zh_CN.properties}.
 */
public final class LabPhrase {

    /** The base name of the lab's bundle. */
    public static final String BUNDLE = "org.rdmalab.lab.phrases";

    private LabPhrase() {
    }

    /** The lab's sentence {@code key} with {@code args} (a null one reads "null", as in a concatenation). */
    public static Phrase of(String key, Object... args) {
        return Phrase.from(BUNDLE, key, args);
    }
}
