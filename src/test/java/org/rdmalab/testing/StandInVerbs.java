package org.rdmalab.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Builds {@code src/test/c/standin_verbs.c}, the libibverbs stand-in compiled against the real
 * {@code <infiniband/verbs.h>}, into {@code dir}. Skips (fails in CI) without gcc or the header.
 */
public final class StandInVerbs {

    private StandInVerbs() {
    }

    /** The path of the built shared library. */
    public static Path build(Path dir) throws Exception {
        Path gcc = Tools.require("gcc", "gcc");
        if (!Files.exists(Path.of("/usr/include/infiniband/verbs.h"))) {
            Tools.unavailable("<infiniband/verbs.h> is missing (apt-get install libibverbs-dev)");
        }
        Path source = Path.of("src/test/c/standin_verbs.c").toAbsolutePath();
        Path library = dir.resolve("libstandin-verbs.so");
        Process process = new ProcessBuilder(gcc.toString(), "-shared", "-fPIC", "-Wall", "-Werror", "-o",
                library.toString(), source.toString()).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes());
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "gcc took too long");
        assertEquals(0, process.exitValue(), output);
        return library;
    }
}
