package org.rdmalab.cli;

import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.rdmalab.app.AppLauncher;
import org.rdmalab.app.common.UiText;
import org.rdmalab.app.WindowScenario;
import org.rdmalab.app.settings.Scale;
import org.rdmalab.app.settings.Theme;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code gui}: opens the window as the user left it (its remembered settings, with {@code --lang},
 * {@code --scale} and {@code --theme} winning); with {@code --screenshot} renders it headless into
 * a PNG and exits, from the first start's settings and these options alone.
 */
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

    @Option(names = "--scale", paramLabel = "F", description = "Draw the whole window F times larger, from 1.0 to 3.0"
            + " (1.5 for a projector; the window's Projector switch). Remembered, as the settings menu's choice.")
    String scale;

    @Option(names = "--theme", paramLabel = "THEME", description = "light or dark. Remembered, as the settings menu's"
            + " choice.")
    String theme;

    /** Faults of the window's software devices, as the Faults tab then shows them. */
    @picocli.CommandLine.Mixin
    FaultOption fault;

    @Override
    public Integer call() throws Exception {
        UiText.use(lang == null ? UiText.systemDefault() : UiText.parse(lang));
        String faults = fault.checked();
        Double factor = scale == null ? null : Scale.parse(scale);
        Theme colours = theme == null ? null : Theme.parse(theme);
        if (scenario != null) {
            WindowScenario.named(scenario);
        }
        if (screenshot != null) {
            // A picture is the same on every machine: the user's remembered settings are neither read nor written.
            return AppLauncher.screenshot(screenshot.toAbsolutePath(), scenario, faults,
                    factor == null ? Scale.DESK : factor, colours == null ? Theme.LIGHT : colours);
        }
        if (scenario != null) {
            throw new IllegalArgumentException("--scenario runs in the loopback lab for a picture; give --screenshot FILE"
                    + " too, or open the window without it");
        }
        java.util.List<String> parameters = new java.util.ArrayList<>();
        if (faults != null) {
            parameters.add("--fault=" + faults);
        }
        if (lang != null) {
            parameters.add("--lang=" + lang);
        }
        if (factor != null) {
            parameters.add("--scale=" + Scale.format(factor));
        }
        if (colours != null) {
            parameters.add("--theme=" + colours.tag());
        }
        AppLauncher.launch(parameters.toArray(String[]::new));
        return 0;
    }

    /** Opens the window in the desktop's language (the jar run with no command). */
    static void launch(String[] args) {
        UiText.use(UiText.systemDefault());
        AppLauncher.launch(args);
    }
}
