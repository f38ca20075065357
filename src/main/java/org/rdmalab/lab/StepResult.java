package org.rdmalab.lab;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import org.rdmalab.text.Phrase;

/**
 * What running a step gave: what it created (handles, keys, QPN, PSN) or why it failed. Its words
 * are {@link Phrase}s: {@link #summary()} and {@link #details()} are the English the command line
 * prints, {@link #said()} and {@link #details(Locale)} what a window in another language shows.
 *
 * @param ok true when the step succeeded
 * @param said one line ("pd handle 1", "EINVAL: missing: DEST_QPN")
 * @param more further lines (created objects, explanation)
 * @param diagnosis for a failure that can be blamed on one parameter: which, why and the fix
 */
public record StepResult(boolean ok, Phrase said, List<Phrase> more, Optional<Diagnosis> diagnosis) {

    public StepResult {
        Objects.requireNonNull(said, "said");
        more = List.copyOf(more);
        Objects.requireNonNull(diagnosis, "diagnosis");
    }

    /** The one line, in English. */
    public String summary() {
        return said.english();
    }

    /** The further lines, in English. */
    public List<String> details() {
        return details(Locale.ROOT);
    }

    /** The further lines in {@code locale}'s language. */
    public List<String> details(Locale locale) {
        return more.stream().map(line -> line.in(locale)).toList();
    }

    /** This failure with {@code found} attached. */
    public StepResult withDiagnosis(Diagnosis found) {
        return new StepResult(ok, said, more, Optional.of(found));
    }

    /** A success whose words are the same in every language (a backend's or the user's text). */
    public static StepResult ok(String summary, String... details) {
        return new StepResult(true, Phrase.literal(summary), literals(details), Optional.empty());
    }

    /** A success. */
    public static StepResult ok(Phrase summary, Phrase... details) {
        return new StepResult(true, summary, List.of(details), Optional.empty());
    }

    /** A failure whose words are the same in every language (a backend's message). */
    public static StepResult failed(String summary, String... details) {
        return new StepResult(false, Phrase.literal(summary), literals(details), Optional.empty());
    }

    /** A failure. */
    public static StepResult failed(Phrase summary, Phrase... details) {
        return new StepResult(false, summary, List.of(details), Optional.empty());
    }

    private static List<Phrase> literals(String... lines) {
        return Arrays.stream(lines).map(Phrase::literal).toList();
    }
}
