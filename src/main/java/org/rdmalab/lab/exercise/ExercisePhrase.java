package org.rdmalab.lab.exercise;

import org.rdmalab.text.Phrase;

/**
 * The exercises' words: the keys of {@code exercises.properties} beside these classes (English)
 * and {@code exercises_zh_CN.properties}: each built-in exercise's title, what it teaches, its goal
 * and hints, and the sentences of the checks.
 */
public final class ExercisePhrase {

    /** The base name of the exercises' bundle. */
    public static final String BUNDLE = "org.rdmalab.lab.exercise.exercises";

    private ExercisePhrase() {
    }

    /** The sentence {@code key} with {@code args}. */
    public static Phrase of(String key, Object... args) {
        return Phrase.from(BUNDLE, key, args);
    }
}
