package org.rdmalab.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The first frame's "after the process started" figure on Linux: the process's age from its start
 * tick in {@code /proc/self/stat} and the system's uptime, to 10 ms, where the JDK's start instant
 * rests on a boot time in whole seconds.
 */
class FirstFrameTest {

    /** A {@code /proc/PID/stat} line for a command named {@code name} that started {@code ticks} after boot. */
    private static String stat(String name, long ticks) {
        StringBuilder line = new StringBuilder("4242 (").append(name).append(") S");
        for (int field = 4; field <= 21; field++) {
            line.append(' ').append(field * 3);
        }
        return line.append(' ').append(ticks).append(" 4800000 512 18446744073709551615\n").toString();
    }

    @Test
    void theAgeIsTheUptimeLessTheStartTickOfAHundredthOfASecond() {
        assertEquals(Duration.ofMillis(7_050), FirstFrame.linuxProcessAge(stat("java", 12_345), "130.50 260.11\n"));
        assertEquals(Duration.ofMillis(10), FirstFrame.linuxProcessAge(stat("java", 13_049), "130.50 260.11\n"));
    }

    @Test
    void aCommandNameWithSpacesAndParenthesesDoesNotShiftTheFields() {
        assertEquals(Duration.ofMillis(7_050), FirstFrame.linuxProcessAge(stat("a) b (c", 12_345), "130.50 260.11"));
        assertEquals(Duration.ofMillis(7_050), FirstFrame.linuxProcessAge(stat("java main", 12_345), "130.50 260.11"));
    }

    @Test
    void aLineThatEndsAtTheStartFieldHasAnAge() {
        String line = stat("java", 12_345);
        assertEquals(Duration.ofMillis(7_050),
                FirstFrame.linuxProcessAge(line.substring(0, line.indexOf(" 12345") + 6), "130.50 260.11"));
    }

    @Test
    void aStartAtTheUptimeIsAgeZeroAndOneAfterItIsNoAge() {
        assertEquals(Duration.ZERO, FirstFrame.linuxProcessAge(stat("java", 13_050), "130.50 260.11"));
        assertNull(FirstFrame.linuxProcessAge(stat("java", 13_051), "130.50 260.11"));
    }

    @Test
    void textNotOfProcsFormGivesNoAge() {
        assertNull(FirstFrame.linuxProcessAge(stat("java", 12_345).replace("(java)", "java"), "130.50 260.11"),
                "no name in parentheses");
        String shortLine = stat("java", 12_345);
        shortLine = shortLine.substring(0, shortLine.lastIndexOf(" 12345"));
        assertNull(FirstFrame.linuxProcessAge(shortLine, "130.50 260.11"), "no 22nd field");
        assertNull(FirstFrame.linuxProcessAge(stat("java", 12_345), "up 130 s"), "uptime not a number");
        assertNull(FirstFrame.linuxProcessAge(stat("java", 12_345).replace(" 12345 ", " 1e4 "), "130.50 260.11"),
                "start not a whole number");
    }

    @Test
    void thisProcessAgeOnLinuxIsAtLeastTheJvmsOwnUptime() throws Exception {
        Path stat = Path.of("/proc/self/stat");
        assumeTrue(Files.isReadable(stat), "Linux's /proc");
        long jvmUptime = ManagementFactory.getRuntimeMXBean().getUptime();
        Duration age = FirstFrame.linuxProcessAge(Files.readString(stat), Files.readString(Path.of("/proc/uptime")));
        assertNotNull(age);
        // The process exists a little before its JVM counts; both figures are 10 ms coarse.
        assertTrue(age.toMillis() >= jvmUptime - 20, age.toMillis() + " ms against the JVM's " + jvmUptime + " ms");
        assertTrue(age.toMillis() <= ManagementFactory.getRuntimeMXBean().getUptime() + 5_000,
                age.toMillis() + " ms against the JVM's " + jvmUptime + " ms");
    }
}
