package org.rdmalab.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code gui --fault SPEC}, {@code --scale F} and {@code --theme} are checked before a window
 * opens (the accepted scales' boundaries, 1.0 and 3.0, are LabSettingsTest's).
 */
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

    @ParameterizedTest
    @ValueSource(strings = {"0.99", "3.01", "0", "-1.5", "big", "NaN"})
    void aScaleOutsideOneToThreeIsOneLineAndExitTwoBeforeAnyWindow(String scale, @TempDir Path dir) {
        Path picture = dir.resolve("x.png");
        CliRunner.Result result = CliRunner.run("gui", "--scale", scale, "--screenshot", picture.toString());
        assertEquals(2, result.exitCode(), result.out() + result.err());
        assertEquals(1, result.err().lines().count(), result.err());
        assertTrue(result.err().startsWith("rdma-lab: --scale"), result.err());
        assertTrue(result.err().contains("1.0 to 3.0"), result.err());
        assertFalse(Files.exists(picture), "no window was rendered");
    }

    @org.junit.jupiter.api.Test
    void anUnknownThemeIsOneLineAndExitTwo(@TempDir Path dir) {
        Path picture = dir.resolve("x.png");
        CliRunner.Result result = CliRunner.run("gui", "--theme", "solarized", "--screenshot", picture.toString());
        assertEquals(2, result.exitCode(), result.out() + result.err());
        assertEquals("rdma-lab: unknown theme 'solarized' for --theme; use light or dark", result.err().strip());
    }

    @ParameterizedTest
    @ValueSource(strings = {"lader", "", "wire"})
    void anUnknownViewIsOneLineAndExitTwoNamingTheViews(String view, @TempDir Path dir) {
        Path picture = dir.resolve("x.png");
        CliRunner.Result result = CliRunner.run("gui", "--scenario", "seed", "--view", view, "--screenshot",
                picture.toString());
        assertEquals(2, result.exitCode(), result.out() + result.err());
        assertEquals(1, result.err().lines().count(), result.err());
        assertTrue(result.err().startsWith("rdma-lab: unknown view '" + view + "' for --view; valid views: ladder, packets, counters,"
                + " faults,"), result.err());
        assertFalse(Files.exists(picture), "no window was rendered");
    }

    @ParameterizedTest
    @ValueSource(strings = {"missing.pcap", "text.pcap", "empty.pcap"})
    void aCaptureThatCannotBeReadIsOneLineAndExitTwo(String name, @TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("text.pcap"), "hello, this is no capture\n");
        Files.write(dir.resolve("empty.pcap"), new byte[0]);
        Path picture = dir.resolve("x.png");
        CliRunner.Result result = CliRunner.run("gui", "--capture", dir.resolve(name).toString(), "--view", "ladder",
                "--screenshot", picture.toString());
        assertEquals(2, result.exitCode(), result.out() + result.err());
        assertEquals(1, result.err().lines().count(), result.err());
        assertTrue(result.err().startsWith("rdma-lab: --capture " + dir.resolve(name)), result.err());
        assertFalse(result.err().contains("at org."), result.err());
        assertFalse(Files.exists(picture), "no window was rendered");
    }

    @org.junit.jupiter.api.Test
    void anUnknownExerciseIsOneLineNamingTheValidOnesAndExitTwoBeforeAnyWindow(@TempDir Path dir) {
        Path picture = dir.resolve("x.png");
        CliRunner.Result result = CliRunner.run("gui", "--exercise", "no-such", "--screenshot", picture.toString());
        assertEquals(2, result.exitCode(), result.out() + result.err());
        assertEquals(1, result.err().lines().count(), result.err());
        assertTrue(result.err().contains("unknown exercise 'no-such'; valid exercises: gid-for-roce, access-error,"),
                result.err());
        assertFalse(Files.exists(picture), "no window was rendered");
    }

    @org.junit.jupiter.api.Test
    void aMissingOrRefusedExerciseFileIsOneLineAndExitTwoBeforeAnyWindow(@TempDir Path dir) throws Exception {
        Path picture = dir.resolve("x.png");
        Path missing = dir.resolve("mine.yaml");
        CliRunner.Result result = CliRunner.run("gui", "--exercise", missing.toString(), "--screenshot",
                picture.toString());
        assertEquals(2, result.exitCode(), result.out() + result.err());
        assertEquals(List.of("rdma-lab: " + missing + ":1: no such file"), result.err().lines().toList());
        Path broken = Files.writeString(dir.resolve("broken.yaml"), org.rdmalab.lab.exercise.ExerciseFileTest.FULL
                .replace("gid_idx: 3", "gid_idx: 256").replace("byte_len: 11}", "bytelen: 11}"));
        result = CliRunner.run("gui", "--exercise", broken.toString());
        assertEquals(2, result.exitCode(), result.out() + result.err());
        assertEquals(List.of("rdma-lab: " + broken + ":14: start.gid_idx: 256 is outside -1..255 (and 1 more: exercise"
                + " check lists them)"), result.err().lines().toList());
        assertFalse(Files.exists(picture), "no window was rendered");
    }
}
