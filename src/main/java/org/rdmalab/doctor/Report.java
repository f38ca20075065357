package org.rdmalab.doctor;

import java.util.List;

/**
 * A doctor report as text, the way {@code doctor} prints it and the window's peer probe shows it:
 * one line per check ({@code ✓ name: found}), a {@code fix:} line under each failure, and a
 * closing {@code result:} line.
 */
public final class Report {

    private Report() {
    }

    /** The lines of one check: {@code ✓ port: ...}, and for a failure {@code     fix: ...} under it. */
    public static String lines(Check check) {
        return check.status().symbol() + " " + check.name() + ": " + check.found()
                + (check.failed() ? "\n    fix: " + check.fix() : "");
    }

    /** "result: all 12 checks passed" or "result: 2 of 14 checks failed". */
    public static String result(List<Check> checks) {
        long failed = checks.stream().filter(Check::failed).count();
        long passed = checks.stream().filter(check -> check.status() == Check.Status.PASS).count();
        return failed == 0 ? "result: all " + passed + " checks passed"
                : "result: " + failed + " of " + (passed + failed) + " checks failed";
    }

    /** The whole report: {@code header}, every check's lines, the result line. */
    public static String text(String header, List<Check> checks) {
        StringBuilder text = new StringBuilder(header).append('\n');
        for (Check check : checks) {
            text.append(lines(check)).append('\n');
        }
        return text.append(result(checks)).append('\n').toString();
    }
}
