package org.rdmalab.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/** What {@code --version} and {@code -V} print, everywhere, and how short a usage error is. */
class VersionAndUsageTest {

    private static final String[] COMMANDS = {"devices", "transition", "loopback", "demo", "bench", "doctor", "pcap",
        "gui"};

    @Test
    void theTopCommandAndEverySubcommandPrintTheVersionTheCommitJavaAndJavaFx() {
        CliRunner.Result top = CliRunner.run("--version");
        assertEquals(0, top.exitCode());
        List<String> lines = top.out().lines().toList();
        assertEquals(2, lines.size(), top.out());
        assertTrue(lines.get(0).matches("RDMA Lab \\d+\\.\\d+\\.\\d+(-SNAPSHOT)? \\((commit [0-9a-f]{7,}.*|commit unknown)\\)"),
                lines.get(0));
        assertTrue(lines.get(1).startsWith("Java " + Runtime.version() + " ("), lines.get(1));
        assertTrue(lines.get(1).matches(".*, JavaFX 21\\.\\d+.*"), lines.get(1));
        for (String command : COMMANDS) {
            CliRunner.Result sub = CliRunner.run(command, "-V");
            assertEquals(0, sub.exitCode(), command);
            assertEquals(top.out(), sub.out(), command + " -V says what --version says");
            assertEquals(top.out(), CliRunner.run(command, "--version").out(), command + " --version");
        }
    }

    @Test
    void theVersionLinesSayTheCommitAndWhetherTheTreeHadChanges() {
        Properties build = new Properties();
        build.setProperty("git.build.version", "1.2.3");
        build.setProperty("git.commit.id.abbrev", "abc1234");
        build.setProperty("git.commit.time", "2026-12-04");
        build.setProperty("git.dirty", "false");
        assertArrayEquals(new String[] {"RDMA Lab 1.2.3 (commit abc1234 of 2026-12-04)", "Java 17.0.9 (Vendor), JavaFX 21.0.1"},
                Main.Version.lines(build, "17.0.9", "Vendor", "21.0.1"));
        build.setProperty("git.dirty", "true");
        assertEquals("RDMA Lab 1.2.3 (commit abc1234 with local changes of 2026-12-04)",
                Main.Version.lines(build, "17", "V", "21")[0]);
        assertEquals("RDMA Lab (version unknown) (commit unknown)", Main.Version.lines(new Properties(), "17", "V", "21")[0],
                "a build outside a git clone");
    }

    @Test
    void aUsageErrorIsItsReasonTheSynopsisAndWhereTheHelpIs() {
        CliRunner.Result result = CliRunner.run("demo", "--bogus", "127.0.0.1", "soft0");
        assertEquals(2, result.exitCode());
        assertEquals("", result.out());
        assertEquals(List.of("rdma-lab: Unknown option: '--bogus'",
                "Usage: rdma-lab demo [OPTIONS] <local_ip> <device> [<server_ip>]",
                "See 'rdma-lab demo --help'."), result.err().lines().toList());
        CliRunner.Result misspelt = CliRunner.run("loopbak");
        assertEquals(2, misspelt.exitCode());
        assertTrue(misspelt.err().contains("loopback"), "picocli's suggestion stays: " + misspelt.err());
        assertTrue(misspelt.err().lines().count() <= 6, misspelt.err());
        assertTrue(misspelt.err().endsWith("See 'rdma-lab --help'.\n"), misspelt.err());
    }
}
