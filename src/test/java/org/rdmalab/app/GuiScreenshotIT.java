package org.rdmalab.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rdmalab.testing.Jvms;

/** {@code gui --scenario NAME --screenshot FILE} from the jar, without a display. */
class GuiScreenshotIT {

    private record Run(int exit, String output) {
    }

    private static Run gui(String... args) throws Exception {
        return gui(List.of(), args);
    }

    /** {@code gui args} from the jar in a JVM started with {@code jvmOptions}. */
    private static Run gui(List<String> jvmOptions, String... args) throws Exception {
        Path jar = Path.of(System.getProperty("rdmalab.jar", "target/rdma-lab.jar"));
        List<String> command = Jvms.java();
        command.addAll(jvmOptions);
        command.addAll(List.of("-jar", jar.toString(), "gui"));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().remove("DISPLAY");
        Process process = builder.start();
        assertTrue(process.waitFor(120, TimeUnit.SECONDS), "gui ended");
        return new Run(process.exitValue(), new String(process.getInputStream().readAllBytes()));
    }

    /**
     * The seed's picture is the same on every machine: the whole window, no stack trace or CSS warning,
     * and the user's remembered settings (here a dark theme at scale 2, in a preferences folder of the
     * test's own) neither read nor written.
     */
    @Test
    void theSeedScenarioRunsToTheEndAndTheWholeWindowIsWrittenWithoutATraceOrTheRememberedSettings(@TempDir Path dir)
            throws Exception {
        Path home = dir.resolve("prefs");
        Path node = home.resolve(".java/.userPrefs/org/rdmalab/lab");
        Files.createDirectories(node);
        String remembered = """
                <?xml version="1.0" encoding="UTF-8" standalone="no"?>
                <!DOCTYPE map SYSTEM "http://java.sun.com/dtd/preferences.dtd">
                <map MAP_XML_VERSION="1.0">
                  <entry key="theme" value="dark"/>
                  <entry key="scale" value="2.0"/>
                </map>
                """;
        Files.writeString(node.resolve("prefs.xml"), remembered);
        List<String> before;
        try (var files = Files.walk(home)) {
            before = files.map(Path::toString).sorted().toList();
        }
        Path file = dir.resolve("seed.png");
        Run run = gui(List.of("-Djava.util.prefs.userRoot=" + home), "--scenario", "seed", "--screenshot",
                file.toString());
        assertEquals(0, run.exit(), run.output());
        assertFalse(run.output().contains("\tat "), run.output());
        assertFalse(run.output().contains("WARNING"), "no CSS or toolkit warnings: " + run.output());
        BufferedImage image = ImageIO.read(file.toFile());
        assertEquals(MainWindow.WIDTH, image.getWidth(), "not the remembered scale");
        assertEquals(MainWindow.HEIGHT, image.getHeight());
        java.awt.Color corner = new java.awt.Color(image.getRGB(2, 2));
        assertTrue(corner.getRed() > 200 && corner.getGreen() > 200 && corner.getBlue() > 200,
                "the light theme, not the remembered dark one: " + corner);
        assertEquals(remembered, Files.readString(node.resolve("prefs.xml")), "nothing written");
        try (var files = Files.walk(home)) {
            assertEquals(before, files.map(Path::toString).sorted().toList(), "no file added");
        }
    }

    @Test
    void aScenarioThatFailsOnTheWayExits1NamingTheStepAndStillSavesThePicture(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("seed.png");
        // The server's soft0 needs UDP 127.0.0.1:4791; another program holds it.
        try (java.net.DatagramSocket holder = new java.net.DatagramSocket(new java.net.InetSocketAddress("127.0.0.1",
                4791))) {
            Run run = gui("--scenario", "seed", "--screenshot", file.toString());
            assertEquals(1, run.exit(), run.output());
            assertTrue(run.output().contains("rdma-lab gui: the scenario 'seed' did not run as it should: the server's step"
                    + " 6. Create QP failed: ibv_create_qp failed: EADDRINUSE (98, Address already in use): UDP"
                    + " 127.0.0.1:4791 is already in use"), run.output());
            assertFalse(run.output().contains("\tat "), run.output());
        }
        BufferedImage image = ImageIO.read(file.toFile());
        assertEquals(MainWindow.WIDTH, image.getWidth(), "the picture shows where it stopped");
    }

    @Test
    void theDoctorScenarioEndsInChineseToo(@TempDir Path dir) throws Exception {
        // The scenario waits for the Doctor tab's summary, which is in the window's language.
        Path file = dir.resolve("doctor-zh.png");
        Run run = gui("--lang", "zh_CN", "--scenario", "doctor", "--screenshot", file.toString());
        assertEquals(0, run.exit(), run.output());
        assertTrue(Files.size(file) > 0);
    }

    /**
     * A gallery scenario runs to its checked outcome, and the dark theme and projector mode are
     * taken as asked, the latter at one and a half times the size (one window for both: each window
     * run costs about 5 s of CPU).
     */
    @Test
    void aGalleryScenarioRunsToItsCheckedOutcomeInTheDarkThemeAndProjectorModeAsAsked(@TempDir Path dir)
            throws Exception {
        Path file = dir.resolve("out-of-bounds.png");
        Run run = gui("--theme", "dark", "--scale", "1.5", "--scenario", "out-of-bounds", "--screenshot",
                file.toString());
        assertEquals(0, run.exit(), run.output());
        assertFalse(run.output().contains("WARNING"), "no CSS or toolkit warnings: " + run.output());
        assertTrue(Files.size(file) > 10_000, "a picture of the window");
        BufferedImage image = ImageIO.read(file.toFile());
        assertEquals(MainWindow.WIDTH * 3 / 2, image.getWidth());
        assertEquals(MainWindow.HEIGHT * 3 / 2, image.getHeight());
        java.awt.Color corner = new java.awt.Color(image.getRGB(3, 3));
        assertTrue(corner.getRed() < 60 && corner.getGreen() < 60 && corner.getBlue() < 80, "dark: " + corner);
    }

    @Test
    void aGalleryScenarioWhoseOutcomeDiffersExits1SayingWhat(@TempDir Path dir) throws Exception {
        // Every packet lost: the faulty WRITE is never answered, so no IBV_WC_REM_ACCESS_ERR comes.
        Path file = dir.resolve("out-of-bounds.png");
        Run run = gui("--fault", "drop=1", "--scenario", "out-of-bounds", "--screenshot", file.toString());
        assertEquals(1, run.exit(), run.output());
        assertTrue(run.output().contains("rdma-lab gui: the scenario 'out-of-bounds' did not run as it should: NOT as"
                + " expected"), run.output());
        assertTrue(run.output().contains("expected IBV_WC_REM_ACCESS_ERR, but no completion came"), run.output());
    }

    @Test
    void anUnknownLanguageExits2NamingTheChoices(@TempDir Path dir) throws Exception {
        Run run = gui("--lang", "fr", "--screenshot", dir.resolve("x.png").toString());
        assertEquals(2, run.exit(), run.output());
        assertEquals("rdma-lab: unknown language 'fr' for --lang; use en or zh_CN", run.output().strip());
        assertFalse(Files.exists(dir.resolve("x.png")));
    }

    @Test
    void anUnknownScenarioExits2AndListsTheValidOnes(@TempDir Path dir) throws Exception {
        Run run = gui("--scenario", "nope", "--screenshot", dir.resolve("x.png").toString());
        assertEquals(2, run.exit(), run.output());
        assertTrue(run.output().contains("unknown scenario 'nope'; valid scenarios: seed, rtr-no-grh, two-machines, doctor, bench, bench-server, bench-narrow, drop-ack"),
                run.output());
        assertFalse(Files.exists(dir.resolve("x.png")));
    }

    @Test
    void aFolderThatDoesNotExistIsAnErrorAndIsNotCreated(@TempDir Path dir) throws Exception {
        Path missing = dir.resolve("missing");
        Run run = gui("--scenario", "two-machines", "--screenshot", missing.resolve("x.png").toString());
        assertEquals(2, run.exit(), run.output());
        assertTrue(run.output().contains("does not exist"), run.output());
        assertFalse(run.output().contains("\tat "), run.output());
        assertFalse(Files.exists(missing), "the folder is never created");
    }
}
