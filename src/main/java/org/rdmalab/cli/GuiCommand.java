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

    @Option(names = "--scenario", paramLabel = "NAME", description = "Run a scenario in the window until it ends before the picture: seed, rtr-no-grh, two-machines, doctor, bench, bench-server, bench-narrow, drop-ack, bad-rkey, bulk, packet.")
    String scenario;

    @Option(names = "--view", paramLabel = "NAME", description = "With --screenshot, the view shown in the picture: "
            + "ladder, packets, counters, faults (the Wire tab's), step, traffic, connection-data, resources, verbs, doctor or bench.")
    String view;

    @Option(names = "--capture", paramLabel = "FILE", description = "Open a capture (pcap or pcapng: tcpdump, Wireshark "
            + "or RDMA Lab's own) in the Ladder tab: its QP pairs and inferred messages drawn as a ladder.")
    Path capture;

    @Option(names = "--exercise", paramLabel = "NAME|FILE", description = "Open a guided exercise in the Lessons"
            + " tab, started on the loopback lab (with --screenshot, before any --scenario runs): a built-in one by"
            + " name (exercise list), or an instructor's exercise file (a path that exists or ends in .yaml).")
    String exercise;

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
        if (view != null) {
            WindowScenario.viewTab(view);
        }
        if (capture != null) {
            checkCapture(capture);
        }
        if (exercise != null) {
            org.rdmalab.app.MainWindow.exercise(exercise);
        }
        if (screenshot != null) {
            // A picture is the same on every machine: the user's remembered settings are neither read nor written.
            return AppLauncher.screenshot(screenshot.toAbsolutePath(), scenario, faults,
                    factor == null ? Scale.DESK : factor, colours == null ? Theme.LIGHT : colours, view,
                    capture == null ? null : capture.toAbsolutePath(), exercise);
        }
        if (view != null) {
            throw new IllegalArgumentException("--view chooses what the picture shows; give --screenshot FILE too");
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
        if (capture != null) {
            parameters.add("--capture=" + capture.toAbsolutePath());
        }
        if (exercise != null) {
            parameters.add("--exercise=" + (org.rdmalab.lab.exercise.ExerciseFile.namesFile(exercise)
                    ? Path.of(exercise).toAbsolutePath().toString() : exercise));
        }
        AppLauncher.launch(parameters.toArray(String[]::new));
        return 0;
    }

    /**
     * A capture that cannot be opened, or is neither pcap nor pcapng, is a usage error of one line.
     *
     * @throws IllegalArgumentException saying why
     */
    static void checkCapture(Path file) {
        try (org.rdmalab.capture.PcapReader reader = org.rdmalab.capture.PcapReader.open(file)) {
            // Opening reads and checks the file's header.
        } catch (java.io.IOException e) {
            throw new IllegalArgumentException("--capture " + file + ": " + e.getMessage()
                    + "; give a pcap or pcapng file (tcpdump -w, Wireshark, rdma-lab --pcap)", e);
        }
    }

    /** Opens the window in the desktop's language (the jar run with no command). */
    static void launch(String[] args) {
        UiText.use(UiText.systemDefault());
        AppLauncher.launch(args);
    }
}
