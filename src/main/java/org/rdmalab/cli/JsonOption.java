package org.rdmalab.cli;

import picocli.CommandLine.Option;

/** {@code --json}: the one declaration of the option that {@code devices}, {@code doctor} and {@code bench} share. */
final class JsonOption {

    @Option(names = "--json", description = "Print JSON instead of text.")
    private boolean json;

    /** True when the command prints JSON. */
    boolean json() {
        return json;
    }
}
