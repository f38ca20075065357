package org.rdmalab.lab;

import java.util.Objects;
import java.util.Optional;
import org.rdmalab.text.Phrase;
import org.rdmalab.verbs.Errno;

/**
 * Why a step failed, told at the parameter that caused it: the errno the verb (or socket)
 * returned, a sentence saying what was wrong, and, where one value puts it right, the fix.
 *
 * <p>The parameter may belong to an earlier step than the one that failed: on RoCE an RTR without
 * a GRH fails in {@code ibv_modify_qp}, but the value to change is {@code gid_idx} of
 * {@code query-port}. A parameter name no step declares is a pseudo-parameter naming where the
 * value comes from ({@code server_ip} and {@code tcp_port} of the {@code connect} step are set
 * where the peer link is made, not on the step). An empty parameter blames the step as a whole
 * (a modify that is not a transition from the QP's current state).
 *
 * @param stepId the id of the step whose parameter is at fault
 * @param parameter that parameter's name, or empty for the step as a whole
 * @param errno the errno, or null when the failure had none
 * @param why one sentence: what was wrong and why
 * @param fix the value that puts it right, when there is one
 */
public record Diagnosis(String stepId, String parameter, Errno errno, Phrase why, Optional<Fix> fix) {

    /**
     * One click that puts a failed step right: set {@code parameter} of {@code stepId} to
     * {@code value}. On RoCE a changed GID must be exchanged again, so a window resets the session
     * and replays the steps; the fix only names what to set.
     *
     * @param stepId the step that owns the parameter
     * @param parameter the parameter's name
     * @param value the new value, as a user would type it
     * @param said what the button says ("use GID 3 (::ffff:127.0.0.1, RoCE v2, the recommended entry)")
     */
    public record Fix(String stepId, String parameter, String value, Phrase said) {

        public Fix {
            Objects.requireNonNull(stepId, "stepId");
            Objects.requireNonNull(parameter, "parameter");
            Objects.requireNonNull(value, "value");
            Objects.requireNonNull(said, "said");
        }

        /** What the button says, in English. */
        public String label() {
            return said.english();
        }
    }

    public Diagnosis {
        Objects.requireNonNull(stepId, "stepId");
        Objects.requireNonNull(parameter, "parameter");
        Objects.requireNonNull(why, "why");
        Objects.requireNonNull(fix, "fix");
    }

    /** The sentence in English. */
    public String explanation() {
        return why.english();
    }

    /** The errno, when the failure had one. */
    public Optional<Errno> errnoValue() {
        return Optional.ofNullable(errno);
    }

    /**
     * One line for the CLI: {@code modify-rtr.path_mtu: EINVAL (Invalid argument): path_mtu 4096 is
     * above ... — fix: path_mtu = 1024 (use the active MTU 1024)}.
     */
    @Override
    public String toString() {
        return lineAfter("");
    }

    /**
     * {@link #toString()} for a line that has already said {@code said}: when that text holds the
     * sentence, the sentence is left out rather than said twice ({@code connect.tcp_port: ETIMEDOUT (Connection
     * timed out)} after the timeout's own sentence).
     */
    public String lineAfter(String said) {
        StringBuilder line = new StringBuilder(stepId);
        if (!parameter.isEmpty()) {
            line.append('.').append(parameter);
        }
        String sentence = said.contains(explanation()) ? "" : explanation();
        if (errno != null) {
            line.append(": ").append(errno.name()).append(" (").append(errno.text()).append(')');
        }
        if (!sentence.isEmpty()) {
            line.append(": ").append(sentence);
        }
        fix.ifPresent(f -> line.append(" — fix: ").append(f.parameter()).append(" = ").append(f.value())
                .append(" (").append(f.label()).append(')'));
        return line.toString();
    }
}
