package org.rdmalab.cli;

import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.rdmalab.app.AppLauncher;
import org.rdmalab.app.common.UiText;
import org.rdmalab.app.WindowScenario;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code gui}: opens the window; with {@code --screenshot} renders it headless into a PNG and exits. */
@Command(name = "gui", mixinStandardHelpOptions = true,
        description = "Opens the RDMA Lab window. With --screenshot, renders it without a display and saves a PNG.")
final class GuiCommand implements Callable<Integer> {

    @Option(names = "--screenshot", paramLabel = "FILE", description = "Save a PNG of the window and exit.")
    Path screenshot;

    @Option(names = "--scenario", paramLabel = "NAME", description = "Run a scenario in the window until it ends before the picture: seed, rtr-no-grh, two-machines, doctor, bench, bench-server, bench-narrow, drop-ack.")
    String scenario;

    @Option(names = "--lang", paramLabel = "LANG", description = "The window's language: en or zh_CN (default: zh_CN "
            + "on a Chinese desktop, else en). Verb, field and status names, the C code, and results and errors stay "
            + "as the command line prints them.")
    String lang;

    /** Faults of the window's software devices, as the Faults tab then shows them. */
    @picocli.CommandLine.Mixin
    FaultOption fault;

    @Override
    public Integer call() throws Exception {
        UiText.use(lang == null ? UiText.systemDefault() : UiText.parse(lang));
        String faults = fault.checked();
        if (scenario != null) {
            WindowScenario.named(scenario);
        }
        if (screenshot != null) {
            return AppLauncher.screenshot(screenshot.toAbsolutePath(), scenario, faults);
        }
        if (scenario != null) {
            throw new IllegalArgumentException("--scenario runs in the loopback lab for a picture; give --screenshot FILE"
                    + " too, or open the window without it");
        }
        AppLauncher.launch(faults == null ? new String[0] : new String[] {"--fault=" + faults});
        return 0;
    }

    /** Opens the window in the desktop's language (the jar run with no command). */
    static void launch(String[] args) {
        UiText.use(UiText.systemDefault());
        AppLauncher.launch(args);
    }
}
