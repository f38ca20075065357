package org.rdmalab.lab.scenario;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** The scenarios the {@code loopback} command and the GUI offer, in teaching order. */
public final class Scenarios {

    /** The scenario run when none is named. */
    public static final String DEFAULT = "seed";

    private static final List<Scenario> ALL = List.of(
            new SeedScenario(),
            new BulkScenario(),
            new SendScenario(),
            new AtomicScenario(),
            new RemoteErrorScenario(RemoteErrorScenario.Kind.BAD_RKEY),
            new RemoteErrorScenario(RemoteErrorScenario.Kind.OUT_OF_BOUNDS),
            new RemoteErrorScenario(RemoteErrorScenario.Kind.MR_NO_REMOTE_WRITE),
            new RemoteErrorScenario(RemoteErrorScenario.Kind.QP_NO_REMOTE_WRITE),
            new RnrScenario(),
            new RetryExceededScenario(),
            new BadTransitionScenario());

    private Scenarios() {
    }

    /** Every scenario. */
    public static List<Scenario> all() {
        return ALL;
    }

    /** Their names. */
    public static List<String> names() {
        List<String> names = new ArrayList<>();
        for (Scenario scenario : ALL) {
            names.add(scenario.name());
        }
        return names;
    }

    /** The scenario called {@code name}. */
    public static Optional<Scenario> find(String name) {
        for (Scenario scenario : ALL) {
            if (scenario.name().equals(name)) {
                return Optional.of(scenario);
            }
        }
        return Optional.empty();
    }
}
