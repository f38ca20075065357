package org.rdmalab.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code gui --fault SPEC} checks the spec as {@code loopback --fault} does, before a window opens. */
class GuiCommandTest {

    @ParameterizedTest
    @ValueSource(strings = {"bogus=1", "drop=2", "delay=5", "seed=x", "drop"})
    void aBadFaultSpecIsOneLineAndExitTwoBeforeAnyWindow(String spec, @TempDir Path dir) {
        Path picture = dir.resolve("x.png");
        CliRunner.Result result = CliRunner.run("gui", "--fault", spec, "--screenshot", picture.toString());
        assertEquals(2, result.exitCode(), result.out() + result.err());
        assertEquals(1, result.err().lines().count(), result.err());
        assertTrue(result.err().startsWith("rdma-lab: fault spec"), result.err());
        assertFalse(result.err().contains("at org."), result.err());
        assertFalse(Files.exists(picture), "no window was rendered");
        CliRunner.Result loopback = CliRunner.run("loopback", "--fault", spec);
        assertEquals(result.err().replace("gui", ""), loopback.err().replace("loopback", ""),
                "the same line as loopback --fault");
    }
}
