package org.rdmalab.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** What {@code --version} and {@code -V} print, everywhere, and how short a usage error is. */
class VersionAndUsageTest {

    private static final String[] COMMANDS = {"devices", "transition", "loopback", "demo", "bench", "doctor", "pcap",
        "gui"};
    /** Every command, in the order the top help lists them. */
    private static final List<String> ALL = List.of("devices", "transition", "loopback", "demo", "bench", "doctor", "pcap",
            "gui", "exercise");

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

    @Test
    void theTopHelpListsEveryCommandInItsOrder() {
        CliRunner.Result help = CliRunner.run("--help");
        assertEquals(0, help.exitCode());
        List<String> listed = help.out().lines().map(String::strip)
                .filter(line -> ALL.stream().anyMatch(name -> line.startsWith(name + " ")))
                .map(line -> line.substring(0, line.indexOf(' '))).toList();
        assertEquals(ALL, listed, help.out());
        assertEquals(help.out(), CliRunner.run("--verbose", "-h").out(), "the top command's options name no command");
    }

    @Test
    void aCommandLineThatNamesACommandHoldsThatCommandAlone() {
        assertEquals(List.of("bench"), List.copyOf(Main.commandLineFor("bench", "write", "--lat").getSubcommands().keySet()));
        assertEquals(List.of("pcap"), List.copyOf(Main.commandLineFor("--verbose", "pcap", "ladder", "x.pcap")
                .getSubcommands().keySet()), "the top command's options before the command's name");
        assertEquals(List.of("exercise"), List.copyOf(Main.commandLineFor("exercise", "list").getSubcommands().keySet()));
        assertEquals(List.of("list", "check"), List.copyOf(Main.commandLineFor("exercise", "list").getSubcommands()
                .get("exercise").getSubcommands().keySet()), "a command keeps its own subcommands");
        assertEquals(ALL, List.copyOf(Main.commandLine().getSubcommands().keySet()));
        assertEquals(ALL, List.copyOf(Main.commandLineFor("loopbak").getSubcommands().keySet()),
                "a name that is no command's: every command, for the suggestion");
        assertEquals(List.of(), List.copyOf(Main.commandLineFor().getSubcommands().keySet()),
                "no arguments: the window, no command to read");
        assertEquals(ALL, List.copyOf(Main.commandLineFor("--verbose").getSubcommands().keySet()), "no command named");
        assertEquals(ALL, List.copyOf(Main.commandLineFor("-bench").getSubcommands().keySet()), "an option, not a name");
    }

    @Test
    void aCommandAloneParsesAndPrintsAsAmongTheOthers() {
        for (String command : ALL) {
            StringWriter alone = new StringWriter();
            StringWriter among = new StringWriter();
            CommandLine one = Main.commandLineFor(command, "--help");
            one.setOut(new PrintWriter(alone, true));
            CommandLine all = Main.commandLine();
            all.setOut(new PrintWriter(among, true));
            assertEquals(0, one.execute(command, "--help"), command);
            assertEquals(0, all.execute(command, "--help"), command);
            assertEquals(among.toString(), alone.toString(), command + " --help");
        }
        CliRunner.Result quiet = CliRunner.run("pcap", "inspect", "no-such-file.pcap");
        assertEquals(List.of("rdma-lab: no such file: no-such-file.pcap"), quiet.err().lines().toList());
        CliRunner.Result verbose = CliRunner.run("--verbose", "pcap", "inspect", "no-such-file.pcap");
        assertEquals(1, verbose.exitCode(), verbose.err());
        assertTrue(verbose.err().contains("java.io.IOException: no such file"),
                "the top command's --verbose still reaches the command named after it: " + verbose.err());
    }
}
