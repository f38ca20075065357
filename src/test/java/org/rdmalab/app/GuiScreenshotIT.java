package org.rdmalab.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code gui --scenario NAME --screenshot FILE} from the jar, without a display. */
class GuiScreenshotIT {

    private record Run(int exit, String output) {
    }

    private static Run gui(String... args) throws Exception {
        Path jar = Path.of(System.getProperty("rdmalab.jar", "target/rdma-lab.jar"));
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "-jar", jar.toString(), "gui"));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().remove("DISPLAY");
        Process process = builder.start();
        assertTrue(process.waitFor(120, TimeUnit.SECONDS), "gui ended");
        return new Run(process.exitValue(), new String(process.getInputStream().readAllBytes()));
    }

    @Test
    void theSeedScenarioRunsToTheEndAndTheWholeWindowIsWrittenWithoutATrace(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("seed.png");
        Run run = gui("--scenario", "seed", "--screenshot", file.toString());
        assertEquals(0, run.exit(), run.output());
        assertFalse(run.output().contains("\tat "), run.output());
        assertFalse(run.output().contains("WARNING"), "no CSS or toolkit warnings: " + run.output());
        BufferedImage image = ImageIO.read(file.toFile());
        assertEquals(MainWindow.WIDTH, image.getWidth());
        assertEquals(MainWindow.HEIGHT, image.getHeight());
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

    @Test
    void aGalleryScenarioRunsToItsCheckedOutcome(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("out-of-bounds.png");
        Run run = gui("--scenario", "out-of-bounds", "--screenshot", file.toString());
        assertEquals(0, run.exit(), run.output());
        assertTrue(Files.size(file) > 10_000, "a picture of the window");
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
