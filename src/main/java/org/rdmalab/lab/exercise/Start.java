package org.rdmalab.lab.exercise;

import java.util.List;
import java.util.Objects;
import org.rdmalab.lab.Flows;
import org.rdmalab.lab.LabSession;
import org.rdmalab.lab.LabSetup;
import org.rdmalab.lab.Role;
import org.rdmalab.lab.Step;

/**
 * Where an exercise starts: the loopback lab on the seed's flow {@code flow} with GID index
 * {@code gidIndex} on both sides, and step parameters changed from the seed's values (the part that
 * is wrong or missing, or what the exercise needs: a bigger buffer, a longer WRITE).
 *
 * @param flow the seed's flow both sides run
 * @param gidIndex "-1" (the seed's: no GRH), "auto" or an index
 * @param edits the parameters changed, in order
 */
public record Start(Flows.SeedFlow flow, String gidIndex, List<Edit> edits) {

    /**
     * One parameter of one step set to a value.
     *
     * @param side whose step; null for both sides
     * @param step the step's id ("reg-mr")
     * @param parameter the parameter's name ("mr_flags")
     * @param value the value, as typed in the step pane
     */
    public record Edit(Role side, String step, String parameter, String value) {
        public Edit {
            Objects.requireNonNull(step, "step");
            Objects.requireNonNull(parameter, "parameter");
            Objects.requireNonNull(value, "value");
        }

        /** The edit on both sides. */
        public static Edit both(String step, String parameter, String value) {
            return new Edit(null, step, parameter, value);
        }

        /** True when it changes {@code role}'s steps. */
        public boolean appliesTo(Role role) {
            return side == null || side == role;
        }
    }

    public Start {
        Objects.requireNonNull(flow, "flow");
        Objects.requireNonNull(gidIndex, "gidIndex");
        edits = List.copyOf(edits);
    }

    /** The seed's flow and GID index with no parameter changed. */
    public static Start of(Flows.SeedFlow flow, String gidIndex, Edit... edits) {
        return new Start(flow, gidIndex, List.of(edits));
    }

    /** {@code base} as the loopback lab on this start's flow and GID index (its device and options kept). */
    public LabSetup setup(LabSetup base) {
        return base.withMode(LabSetup.Mode.LOOPBACK).withFlow(flow).withGidIndex(gidIndex);
    }

    /**
     * Sets this start's parameters on {@code session}'s steps (before they run).
     *
     * @throws IllegalArgumentException naming a step the session does not have or a value its
     *     parameter refuses
     */
    public void apply(LabSession session) {
        for (Edit edit : edits) {
            if (!edit.appliesTo(session.role())) {
                continue;
            }
            Step step = session.steps().stream().filter(each -> each.id().equals(edit.step())).findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("the " + session.role().name().toLowerCase(
                            java.util.Locale.ROOT) + "'s flow has no step '" + edit.step() + "'"));
            step.parameter(edit.parameter()).set(edit.value());
        }
    }
}
