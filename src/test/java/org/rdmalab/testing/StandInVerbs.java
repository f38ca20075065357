package org.rdmalab.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Builds {@code src/test/c/standin_verbs.c}, the libibverbs stand-in compiled against the real
 * {@code <infiniband/verbs.h>}, into {@code dir}, and other C sources of the tests that include the
 * header. Skips (fails in CI) without gcc or the header.
 */
public final class StandInVerbs {

    private StandInVerbs() {
    }

    /** The path of the built shared library. */
    public static Path build(Path dir) throws Exception {
        return compile("standin_verbs.c", dir.resolve("libstandin-verbs.so"));
    }

    /** gcc, or skips (fails in CI) when gcc or {@code <infiniband/verbs.h>} is missing. */
    public static Path requireToolchain() {
        Path gcc = Tools.require("gcc", "gcc");
        if (!Files.exists(Path.of("/usr/include/infiniband/verbs.h"))) {
            Tools.unavailable("<infiniband/verbs.h> is missing (apt-get install libibverbs-dev)");
        }
        return gcc;
    }

    /**
     * Compiles {@code src/test/c/<source>}, which includes {@code <infiniband/verbs.h>}, into the
     * shared library {@code library} ({@code extraFlags} go before the output, e.g. {@code -O2}).
     */
    public static Path compile(String source, Path library, String... extraFlags) throws Exception {
        Path gcc = requireToolchain();
        List<String> command = new ArrayList<>(List.of(gcc.toString(), "-shared", "-fPIC", "-Wall", "-Werror"));
        command.addAll(List.of(extraFlags));
        command.addAll(List.of("-o", library.toString(),
                Path.of("src/test/c", source).toAbsolutePath().toString()));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes());
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "gcc took too long");
        assertEquals(0, process.exitValue(), output);
        return library;
    }
}
