package org.rdmalab.app.lab;

import java.time.Instant;

/**
 * One line of the verbs log.
 *
 * @param at when the call returned
 * @param side which peer made it
 * @param verb the C verb
 * @param arguments its arguments, in one line
 * @param result what it returned or created
 * @param ok false when it failed
 * @param errno the errno name and text when it failed, or empty
 */
public record VerbRow(Instant at, String side, String verb, String arguments, String result, boolean ok,
                      String errno) {

    /** The row as one line of text, for copying. */
    public String line() {
        return LabViewModel.TIME.format(at) + "  " + side + "  " + verb + "(" + arguments + ") = "
                + (ok ? "0" : "-1") + "  " + result + (errno.isEmpty() ? "" : "  errno " + errno);
    }
}
