package org.rdmalab.app.lab;

import java.time.Instant;
import org.rdmalab.verbs.WorkCompletion;

/**
 * One row of the completions table.
 *
 * @param at when the window received it
 * @param side which peer polled it
 * @param completion the work completion
 * @param sincePostNanos time from the post to the poll, or -1 when unknown
 */
public record CompletionRow(Instant at, String side, WorkCompletion completion, long sincePostNanos) {

    /** The time since the post in a readable unit, or empty. */
    public String sincePost() {
        if (sincePostNanos < 0) {
            return "";
        }
        if (sincePostNanos < 1_000_000) {
            return String.format("%.1f µs", sincePostNanos / 1e3);
        }
        return String.format("%.2f ms", sincePostNanos / 1e6);
    }
}
