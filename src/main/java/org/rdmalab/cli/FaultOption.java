package org.rdmalab.cli;

import org.rdmalab.verbs.FaultSettings;
import picocli.CommandLine.Option;

/**
 * {@code --fault SPEC}: faults the software device injects, one declaration for {@code loopback},
 * {@code demo}, {@code doctor} and {@code gui}. The device parses the spec when it opens, so a bad
 * one is a usage error there; {@link #checked()} parses it before anything opens.
 */
final class FaultOption {

    @Option(names = "--fault", paramLabel = "SPEC",
            description = "Software device faults, e.g. drop=0.05,dup=0.01,seed=7.")
    private String spec;

    /** The spec as given, or null without --fault. */
    String spec() {
        return spec;
    }

    /**
     * The spec after checking it as the device does ({@link FaultSettings#parse}), or null without
     * one.
     *
     * @throws IllegalArgumentException in one line naming the bad key or value
     */
    String checked() {
        if (!given()) {
            return null;
        }
        FaultSettings.parse(spec);
        return spec;
    }

    /** True when a spec with something in it was given. */
    boolean given() {
        return spec != null && !spec.isBlank();
    }
}
