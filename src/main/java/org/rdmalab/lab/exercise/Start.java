package org.rdmalab.lab.exercise;

import java.util.List;
import java.util.Objects;
import org.rdmalab.lab.Flows;
import org.rdmalab.lab.LabSession;
import org.rdmalab.lab.LabSetup;
import org.rdmalab.lab.Role;
import org.rdmalab.lab.Step;
import org.rdmalab.verbs.FaultControl;
import org.rdmalab.verbs.spi.DeviceOptions;
import org.rdmalab.verbs.FaultSettings;

/**
 * Where an exercise starts: the loopback lab on the seed's flow {@code flow} with GID index
 * {@code gidIndex} on both sides, and step parameters changed from the seed's values (the part that
 * is wrong or missing, or what the exercise needs: a bigger buffer, a longer WRITE); optionally on
 * a named device and with the software devices' random faults set, as the Faults tab sets them.
 *
 * @param flow the seed's flow both sides run
 * @param gidIndex "-1" (the seed's: no GRH), "auto" or an index
 * @param edits the parameters changed, in order
 * @param device the device both sides open ("soft0", "rxe0"), or null for the one the lab has
 * @param faults the random faults of the software devices ({@code --fault}'s spec), or null to
 *     leave the lab's as they are
 */
public record Start(Flows.SeedFlow flow, String gidIndex, List<Edit> edits, String device, FaultSettings faults) {

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
        if (device != null && device.isBlank()) {
            throw new IllegalArgumentException("a device needs a name (soft0, rxe0)");
        }
    }

    /** A start on the lab's device, its faults left as they are. */
    public Start(Flows.SeedFlow flow, String gidIndex, List<Edit> edits) {
        this(flow, gidIndex, edits, null, null);
    }

    /** The seed's flow and GID index with no parameter changed. */
    public static Start of(Flows.SeedFlow flow, String gidIndex, Edit... edits) {
        return new Start(flow, gidIndex, List.of(edits));
    }

    /**
     * {@code base} as the loopback lab on this start's flow and GID index, and on its device where
     * it names one (the port and the other options kept); its faults are the software devices' own
     * from the start ({@link DeviceOptions#faults()}).
     */
    public LabSetup setup(LabSetup base) {
        LabSetup setup = base.withMode(LabSetup.Mode.LOOPBACK).withFlow(flow).withGidIndex(gidIndex);
        if (device != null) {
            setup = setup.withDevice(device, setup.ibPort());
        }
        if (faults != null) {
            setup = setup.withBase(setup.base().withFaults(faults.toSpec()));
        }
        return setup;
    }

    /**
     * Sets this start's faults on {@code session}'s device once it opens, as the window's Faults tab
     * does ({@link FaultControl#setFaults}); a device that injects none is left alone. Nothing
     * without faults.
     */
    public void applyFaults(LabSession session) {
        if (faults != null) {
            session.whenOpened(context -> {
                if (context instanceof FaultControl device) {
                    device.setFaults(faults);
                }
            });
        }
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
