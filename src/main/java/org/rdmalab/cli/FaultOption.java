package org.rdmalab.cli;

import picocli.CommandLine.Option;

/**
 * {@code --fault SPEC}: faults the software device injects, one declaration for {@code loopback},
 * {@code demo} and {@code doctor}. The device parses the spec when it opens, so a bad one is a
 * usage error there.
 */
final class FaultOption {

    @Option(names = "--fault", paramLabel = "SPEC",
            description = "Software device faults, e.g. drop=0.05,dup=0.01,seed=7.")
    private String spec;

    /** The spec as given, or null without --fault. */
    String spec() {
        return spec;
    }

    /** True when a spec with something in it was given. */
    boolean given() {
        return spec != null && !spec.isBlank();
    }
}
