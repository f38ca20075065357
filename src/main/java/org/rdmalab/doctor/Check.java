package org.rdmalab.doctor;

import java.util.Objects;

/**
 * One line of a doctor report: what was checked, whether it passed, what was found and, when it
 * failed, the fix in one line.
 *
 * @param name short name of the check ({@code "port"}, {@code "GID"}, {@code "probe: small write"})
 * @param status passed, failed, or skipped (not applicable here)
 * @param found what the check found, one sentence
 * @param fix what to do, one line; empty unless the check failed
 */
public record Check(String name, Status status, String found, String fix) {

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
        Objects.requireNonNull(found, "found");
        fix = fix == null ? "" : fix;
        if (status == Status.FAIL && fix.isBlank()) {
            throw new IllegalArgumentException("failed check '" + name + "' needs a fix");
        }
    }

    /** A passed check. */
    public static Check pass(String name, String found) {
        return new Check(name, Status.PASS, found, "");
    }

    /** A failed check with its fix. */
    public static Check fail(String name, String found, String fix) {
        return new Check(name, Status.FAIL, found, fix);
    }

    /** A check that does not apply, with the reason. */
    public static Check skip(String name, String why) {
        return new Check(name, Status.SKIP, why, "");
    }

    /** True when the check failed. */
    public boolean failed() {
        return status == Status.FAIL;
    }
}
