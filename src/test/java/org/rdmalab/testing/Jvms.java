package org.rdmalab.testing;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The command line that starts another JVM from a test: the test JVM's own java, with its options. */
public final class Jvms {

    private Jvms() {
    }

    /**
     * {@code java} of the running JDK followed by the options the build gives the JVMs that tests
     * start ({@code rdmalab.childJvmArgs}, set from the pom's {@code test.jvmArgs}; none when the
     * test runs elsewhere), as a list the caller may add to.
     */
    public static List<String> java() {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        String options = System.getProperty("rdmalab.childJvmArgs", "").trim();
        if (!options.isEmpty()) {
            command.addAll(List.of(options.split("\\s+")));
        }
        return command;
    }
}
