package org.rdmalab.verbs;

import java.util.Objects;

/**
 * A verb failed: carries the C verb's name, the errno it returned and a sentence saying why.
 *
 * <p>The message reads like pyverbs':
 * {@code ibv_modify_qp failed: EINVAL (22, Invalid argument): missing: DEST_QPN, RQ_PSN}.
 * Failed work completions are not exceptions; they are {@link WorkCompletion}s with a status.
 */
public class VerbsException extends Exception {

    private static final long serialVersionUID = 1L;

    private final String verb;
    private final int errnoValue;
    private final String detail;

    /** A failure of {@code verb} with {@code errno} and an explanation ({@code detail} may be empty). */
    public VerbsException(String verb, Errno errno, String detail) {
        this(verb, errno.value(), detail, null);
    }

    /** As above, keeping the raw errno number (which may be one {@link Errno} does not list). */
    public VerbsException(String verb, int errnoValue, String detail, Throwable cause) {
        super(format(verb, errnoValue, detail), cause);
        this.verb = Objects.requireNonNull(verb, "verb");
        this.errnoValue = errnoValue;
        this.detail = detail == null ? "" : detail;
    }

    private static String format(String verb, int errnoValue, String detail) {
        Errno errno = Errno.of(errnoValue);
        String name = errno == Errno.UNKNOWN ? "errno" : errno.name();
        String text = errno == Errno.UNKNOWN ? "Unknown error " + errnoValue : errno.text();
        String base = verb + " failed: " + name + " (" + errnoValue + ", " + text + ")";
        return detail == null || detail.isEmpty() ? base : base + ": " + detail;
    }

    /** The C verb, e.g. {@code ibv_modify_qp}. */
    public String verb() {
        return verb;
    }

    /** The errno as an enum ({@link Errno#UNKNOWN} when not listed). */
    public Errno errno() {
        return Errno.of(errnoValue);
    }

    /** The errno number as returned by the verb. */
    public int errnoValue() {
        return errnoValue;
    }

    /** The explanation, or an empty string. */
    public String detail() {
        return detail;
    }
}
