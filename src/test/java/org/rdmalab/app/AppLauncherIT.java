package org.rdmalab.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.rdmalab.testing.Jvms;

/** The jar's GUI entry without a display: one sentence and exit 1, not a stack trace. */
class AppLauncherIT {

    @Test
    void withoutADisplayTheJarSaysWhatToDo() throws Exception {
        Path jar = Path.of(System.getProperty("rdmalab.jar", "target/rdma-lab.jar"));
        List<String> command = Jvms.java();
        command.addAll(List.of("-jar", jar.toString()));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().remove("DISPLAY");
        builder.environment().remove("WAYLAND_DISPLAY");
        Process process = builder.start();
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "the launcher ended");
        String output = new String(process.getInputStream().readAllBytes());
        assertEquals(1, process.exitValue(), output);
        assertTrue(output.contains("rdma-lab: no display to open the window on"), output);
        assertFalse(output.contains("\tat "), output);
        assertFalse(output.contains("Unsupported JavaFX configuration"), output);
    }
}
