package org.rdmalab.doctor;

import java.util.Objects;
import org.rdmalab.text.Phrase;

/**
 * One line of a doctor report: what was checked, whether it passed, what was found and, when it
 * failed, the fix in one line. The finding and the fix are {@link Phrase}s of {@link #LOCAL}
 * ({@link LocalChecks}) or {@link #PEER} ({@link PeerDoctor}, {@link LabChecks}): {@link #found()}
 * and {@link #fix()} are the English the command line prints, {@link #said()} and {@link #remedy()}
 * say it in a window's language. Commands, paths, device and
 * interface names are arguments, the same in every language.
 *
 * @param name short name of the check ({@code "port"}, {@code "GID"}, {@code "probe: small write"}), as
 *     the command line prints it in every language
 * @param status passed, failed, or skipped (not applicable here)
 * @param said what the check found, one sentence
 * @param remedy what to do, one line; empty unless the check failed
 */
public record Check(String name, Status status, Phrase said, Phrase remedy) {

    /** The sentences of {@link LocalChecks}: {@code local*.properties} beside this class. */
    public static final String LOCAL = "org.rdmalab.doctor.local";
    /** The sentences of {@link PeerDoctor} and {@link LabChecks}: {@code peer*.properties} beside this class. */
    public static final String PEER = "org.rdmalab.doctor.peer";

    /** The outcome of a check. */
    public enum Status {
        /** The check passed. */
        PASS("✓"),
        /** The check failed; the report carries a fix. */
        FAIL("✗"),
        /** The check does not apply here (for example the kernel modules for the software device). */
        SKIP("-");

        private final String symbol;

        Status(String symbol) {
            this.symbol = symbol;
        }

        /** {@code ✓}, {@code ✗} or {@code -}. */
        public String symbol() {
            return symbol;
        }
    }

    /** Validates the fields: a failure needs a fix, and only failures carry one. */
    public Check {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(said, "said");
        remedy = remedy == null ? Phrase.literal("") : remedy;
        if (status == Status.FAIL && remedy.english().isBlank()) {
            throw new IllegalArgumentException("failed check '" + name + "' needs a fix");
        }
    }

    /** What the check found, in English. */
    public String found() {
        return said.english();
    }

    /** What to do, in English; empty unless the check failed. */
    public String fix() {
        return remedy.english();
    }

    /** A passed check. */
    public static Check pass(String name, Phrase found) {
        return new Check(name, Status.PASS, found, null);
    }

    /** A failed check with its fix. */
    public static Check fail(String name, Phrase found, Phrase fix) {
        return new Check(name, Status.FAIL, found, fix);
    }

    /** A check that does not apply, with the reason. */
    public static Check skip(String name, Phrase why) {
        return new Check(name, Status.SKIP, why, null);
    }

    /** A passed check said the same in every language. */
    public static Check pass(String name, String found) {
        return pass(name, Phrase.literal(found));
    }

    /** A failed check said the same in every language. */
    public static Check fail(String name, String found, String fix) {
        return fail(name, Phrase.literal(found), Phrase.literal(fix));
    }

    /** A skipped check said the same in every language. */
    public static Check skip(String name, String why) {
        return skip(name, Phrase.literal(why));
    }

    /** True when the check failed. */
    public boolean failed() {
        return status == Status.FAIL;
    }
}
