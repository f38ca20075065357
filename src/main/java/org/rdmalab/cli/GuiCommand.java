package org.rdmalab.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.rdmalab.app.AppLauncher;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code gui}: opens the window; with {@code --screenshot} renders it headless into a PNG and exits. */
@Command(name = "gui", mixinStandardHelpOptions = true,
        description = "Opens the RDMA Lab window. With --screenshot, renders it without a display and saves a PNG.")
final class GuiCommand implements Callable<Integer> {

    @Option(names = "--screenshot", paramLabel = "FILE", description = "Save a PNG of the window and exit.")
    Path screenshot;

    @Option(names = "--scenario", paramLabel = "NAME", description = "Scenario to load in the window.")
    String scenario;

    @Override
    public Integer call() throws Exception {
        List<String> args = new ArrayList<>();
        if (scenario != null) {
            args.add("--scenario=" + scenario);
        }
        if (screenshot != null) {
            return AppLauncher.screenshot(screenshot.toAbsolutePath(), args.toArray(String[]::new));
        }
        launch(args.toArray(String[]::new));
        return 0;
    }

    static void launch(String[] args) {
        AppLauncher.launch(args);
    }
}
