package org.rdmalab.testing;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Assumptions;

/**
 * Optional tools the full test suite uses (gcc, tshark, libibverbs). On a developer's machine a
 * missing tool skips the test with a reason; when {@code RDMALAB_REQUIRE_TOOLS=true} (set by
 * {@code .ci/run}) it fails instead, so CI always runs everything.
 */
public final class Tools {

    private Tools() {
    }

    /** True when CI asked for every optional tool to be present. */
    public static boolean required() {
        return "true".equalsIgnoreCase(System.getProperty("rdmalab.requireTools"))
                || "true".equalsIgnoreCase(System.getenv("RDMALAB_REQUIRE_TOOLS"));
    }

    /** The executable {@code name} on PATH, if any. */
    public static Optional<Path> find(String name) {
        String path = System.getenv("PATH");
        if (path == null) {
            return Optional.empty();
        }
        for (String dir : path.split(File.pathSeparator)) {
            Path candidate = Path.of(dir, name);
            if (Files.isExecutable(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }

    /** Returns the tool's path, or skips (fails in CI) saying which package provides it. */
    public static Path require(String name, String debianPackage) {
        Optional<Path> tool = find(name);
        if (tool.isPresent()) {
            return tool.get();
        }
        unavailable(name + " is not installed (apt-get install " + debianPackage + ")");
        throw new AssertionError("unreachable");
    }

    /** Skips the test with {@code reason}, or fails it when tools are required. */
    public static void unavailable(String reason) {
        if (required()) {
            fail(reason + "; RDMALAB_REQUIRE_TOOLS=true makes this a failure");
        }
        Assumptions.abort(reason);
    }
}
