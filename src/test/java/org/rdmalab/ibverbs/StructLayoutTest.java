package org.rdmalab.ibverbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rdmalab.testing.Tools;

/**
 * Every offset, width and size the binding uses, measured by a C probe compiled against the
 * installed {@code <infiniband/verbs.h>}: a mismatch fails with the field's name and both values.
 */
class StructLayoutTest {

    @Test
    void theBindingsOffsetsWidthsAndSizesAreTheHeaders(@TempDir Path dir) throws Exception {
        Path gcc = Tools.require("gcc", "gcc");
        if (!Files.exists(Path.of("/usr/include/infiniband/verbs.h"))) {
            Tools.unavailable("<infiniband/verbs.h> is missing (apt-get install libibverbs-dev)");
        }
        StringBuilder source = new StringBuilder("""
                #include <stddef.h>
                #include <stdio.h>
                #include <poll.h>
                #include <infiniband/verbs.h>
                int main(void)
                {
                """);
        List<String> expected = new ArrayList<>();
        for (StructField field : StructField.values()) {
            source.append(String.format("    printf(\"%s %%zu %%zu\\n\", offsetof(struct %s, %s), "
                    + "sizeof(((struct %s *) 0)->%s));%n", field.name(), field.struct, field.member,
                    field.struct, field.member));
            expected.add(field.name() + " " + field.offset + " " + field.width);
        }
        for (StructSize size : StructSize.values()) {
            source.append(String.format("    printf(\"%s %%zu\\n\", sizeof(struct %s));%n", size.name(), size.struct));
            expected.add(size.name() + " " + size.size);
        }
        source.append("    return 0;\n}\n");
        Path probe = dir.resolve("probe.c");
        Files.writeString(probe, source);
        Path binary = dir.resolve("probe");
        String compiled = run(gcc.toString(), "-Wall", "-Werror", "-o", binary.toString(), probe.toString());
        assertTrue(Files.exists(binary), compiled);
        List<String> measured = List.of(run(binary.toString()).strip().split("\n"));
        assertEquals(expected.size(), measured.size(), "the probe printed one line per field and size");
        for (int i = 0; i < expected.size(); i++) {
            assertEquals(expected.get(i), measured.get(i), "Java constant (left) against <infiniband/verbs.h> (right)");
        }
    }

    private static String run(String... command) throws Exception {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes());
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), String.join(" ", command) + " took too long");
        assertEquals(0, process.exitValue(), output);
        return output;
    }
}
