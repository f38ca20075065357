package org.rdmalab.app;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import javafx.scene.Parent;
import javafx.scene.Scene;
import org.rdmalab.app.bench.BenchView;
import org.rdmalab.app.bench.BenchViewModel;
import org.rdmalab.app.common.FrameExecutor;
import org.rdmalab.app.common.UiText;
import org.rdmalab.app.common.Views;
import org.rdmalab.app.doctor.DoctorView;
import org.rdmalab.app.doctor.DoctorViewModel;
import org.rdmalab.app.faults.FaultsView;
import org.rdmalab.app.faults.FaultsViewModel;
import org.rdmalab.app.lab.BuffersView;
import org.rdmalab.app.lab.BuffersViewModel;
import org.rdmalab.app.lab.CompletionsView;
import org.rdmalab.app.lab.ConnectionDataView;
import org.rdmalab.app.lab.ConnectionDataViewModel;
import org.rdmalab.app.lab.LabViewModel;
import org.rdmalab.app.lab.ResourcesView;
import org.rdmalab.app.lab.ResourcesViewModel;
import org.rdmalab.app.lab.SetupView;
import org.rdmalab.app.lab.StepView;
import org.rdmalab.app.lab.StepViewModel;
import org.rdmalab.app.lab.TrafficView;
import org.rdmalab.app.lab.TrafficViewModel;
import org.rdmalab.app.lab.VerbsLogView;
import org.rdmalab.app.lessons.ScenariosView;
import org.rdmalab.app.lessons.ScenariosViewModel;
import org.rdmalab.app.lessons.ExercisesView;
import org.rdmalab.app.lessons.ExercisesViewModel;
import org.rdmalab.app.packets.CountersView;
import org.rdmalab.app.packets.CountersViewModel;
import org.rdmalab.app.packets.PacketsView;
import org.rdmalab.app.lab.SetupViewModel;
import org.rdmalab.app.settings.LabSettings;
import org.rdmalab.app.settings.SettingsStore;
import org.rdmalab.app.settings.Theme;
import org.rdmalab.bench.BenchEngine;
import org.rdmalab.bench.Topology;
import org.rdmalab.lab.LabSetup;
import org.rdmalab.sched.BackgroundPriority;
import org.rdmalab.verbs.spi.Backends;
import org.rdmalab.verbs.spi.DeviceOptions;

/**
 * Builds the lab window: its view models (the only objects that touch the lab and the verbs API),
 * the FXML views with their controllers, and the style sheets. The loopback lab is set up on the
 * first start, so every lab works on any laptop.
 */
public final class MainWindow {

    /** The window title. */
    public static final String TITLE = "RDMA Lab";
    /** The application style sheet on the classpath. */
    public static final String STYLESHEET = "/styles/rdma-lab.css";
    /** The window's size: readable on a lab projector at 1280 × 800. */
    public static final int WIDTH = 1280;
    public static final int HEIGHT = 800;
    /**
     * The smallest the window may be made (times the scale in projector mode): the size at which
     * every tab of the step pane still shows its name and no label is cut or covered, in both
     * languages (WindowFitTest); narrower, the two peers' columns leave the step pane too little.
     */
    public static final int MIN_WIDTH = 1280;
    public static final int MIN_HEIGHT = 680;

    private final LabViewModel lab;
    private final Scene scene;
    private final ExecutorService background;
    private final SettingsStore store;
    private final Appearance appearance;
    /** The language the user chose ({@code en}, {@code zh_CN}), or empty for the desktop's. */
    private java.util.Optional<String> language = java.util.Optional.empty();

    private final BenchViewModel bench;

    private FaultsViewModel faults;

    private ExercisesViewModel exercises;

    private ScenariosViewModel scenarios;

    private final ScaledPopups popups;
    private org.rdmalab.app.ladder.LadderViewModel ladder;
    private org.rdmalab.app.ladder.WorkRequestsViewModel workRequests;

    private MainWindow(LabViewModel lab, BenchViewModel bench, Scene scene, ExecutorService background,
                       SettingsStore store, Appearance appearance) {
        this.lab = lab;
        this.bench = bench;
        this.scene = scene;
        this.background = background;
        this.store = store;
        this.appearance = appearance;
        appearance.themeProperty().addListener((observable, before, now) -> showTheme(now));
        showTheme(appearance.themeProperty().get());
        ((ScaledRoot) scene.getRoot()).factorProperty().bind(appearance.scaleProperty());
        popups = ScaledPopups.follow(scene, appearance.scaleProperty());
    }

    /** The window's theme and scale, switched at run time. */
    public Appearance appearance() {
        return appearance;
    }

    /**
     * Keeps {@code stage} at least the smallest window size times the scale (as far as the screen
     * allows), so the layout never gets less room than at the smallest size, and grows it when the
     * Projector switch needs more.
     */
    public void fit(javafx.stage.Stage stage) {
        Runnable fit = () -> {
            double factor = appearance.scaleProperty().get();
            javafx.geometry.Rectangle2D screen = javafx.stage.Screen.getPrimary().getVisualBounds();
            double width = Math.min(MIN_WIDTH * factor, screen.getWidth());
            double height = Math.min(MIN_HEIGHT * factor, screen.getHeight());
            stage.setMinWidth(width);
            stage.setMinHeight(height);
            if (stage.getWidth() < width) {
                stage.setWidth(width);
            }
            if (stage.getHeight() < height) {
                stage.setHeight(height);
            }
        };
        fit.run();
        appearance.scaleProperty().addListener((observable, before, now) -> fit.run());
    }

    private void showTheme(Theme now) {
        Parent root = scene.getRoot();
        for (Theme each : Theme.values()) {
            if (each.styleClass() != null) {
                root.getStyleClass().remove(each.styleClass());
            }
        }
        if (now.styleClass() != null) {
            root.getStyleClass().add(now.styleClass());
        }
    }

    /** The language the user chose for the window ({@code en}, {@code zh_CN}), or empty for the desktop's. */
    public java.util.Optional<String> language() {
        return language;
    }

    /** Remembers {@code tag} ({@code en}, {@code zh_CN}) as the user's choice of language, or the desktop's when empty. */
    public void language(java.util.Optional<String> tag) {
        language = tag;
    }

    /**
     * What the window would remember now: the setup bar's values, the language, the theme, the
     * scale, and where {@code stage} is (empty place without one).
     */
    public LabSettings settings(javafx.stage.Stage stage) {
        SetupViewModel setup = lab.setup();
        java.util.Optional<LabSettings.Place> place = stage == null ? java.util.Optional.empty()
                : java.util.Optional.of(stage.isMaximized() && placeBeforeMaximized != null ? new LabSettings.Place(
                        placeBeforeMaximized.x(), placeBeforeMaximized.y(), placeBeforeMaximized.width(),
                        placeBeforeMaximized.height(), true)
                        : new LabSettings.Place(stage.getX(), stage.getY(), stage.getWidth(), stage.getHeight(),
                                stage.isMaximized()));
        return LabSettings.defaults().withPlace(place)
                .withSetup(java.util.Optional.ofNullable(setup.deviceProperty().get()).map(SetupViewModel.DeviceChoice::name)
                                .or(() -> java.util.Optional.ofNullable(lab.currentProperty().get()).map(LabSetup::device)),
                        setup.gidIndexProperty().get().trim(), setup.modeProperty().get(), setup.roleProperty().get(),
                        setup.localIpProperty().get().trim(), setup.peerIpProperty().get().trim(),
                        setup.tcpPortProperty().get(), setup.protocolProperty().get())
                .withLanguage(language).withTheme(appearance.themeProperty().get())
                .withScale(appearance.scaleProperty().get());
    }

    /** Where the window was before it was maximized, kept so a maximized window comes back at its own size. */
    private LabSettings.Place placeBeforeMaximized;

    /** Follows {@code stage}'s place while it is not maximized (see {@link #settings}). */
    public void follow(javafx.stage.Stage stage) {
        javafx.beans.InvalidationListener moved = observable -> {
            if (!stage.isMaximized()) {
                placeBeforeMaximized = new LabSettings.Place(stage.getX(), stage.getY(), stage.getWidth(),
                        stage.getHeight(), false);
            }
        };
        stage.xProperty().addListener(moved);
        stage.yProperty().addListener(moved);
        stage.widthProperty().addListener(moved);
        stage.heightProperty().addListener(moved);
    }

    /** Writes {@link #settings} of {@code stage} into the window's store. */
    public void save(javafx.stage.Stage stage) {
        settings(stage).write(store);
    }

    /**
     * Forgets every remembered setting and shows the first start's: light, at a desk, the seed's
     * setup in the loopback lab (applied, so the lab starts over) and the desktop's language from
     * the next start.
     */
    public void resetSettings() {
        store.clear();
        LabSettings defaults = LabSettings.defaults();
        appearance.themeProperty().set(defaults.theme());
        appearance.scaleProperty().set(defaults.scale());
        language = java.util.Optional.empty();
        showSetup(defaults);
        lab.apply(lab.defaultSetup());
    }

    /**
     * The View menu's language: remembered, and spoken from the next start (the window's words are
     * chosen when it is built); the status line says so in the language chosen.
     */
    void chooseLanguage(String tag) {
        language = java.util.Optional.of(tag);
        java.util.ResourceBundle chosen = java.util.ResourceBundle.getBundle("org.rdmalab.app.messages", UiText.parse(tag),
                java.util.ResourceBundle.Control.getNoFallbackControl(java.util.ResourceBundle.Control.FORMAT_PROPERTIES));
        lab.tell(chosen.getString("settings.languageNextStart"));
    }

    /** The store the window remembers its settings in. */
    public SettingsStore store() {
        return store;
    }

    /** Puts {@code settings}' setup into the setup bar. */
    private void showSetup(LabSettings settings) {
        SetupViewModel setup = lab.setup();
        settings.device().ifPresent(setup::preferDevice);
        setup.gidIndexProperty().set(settings.gidIndex());
        setup.roleProperty().set(settings.role());
        setup.localIpProperty().set(settings.localIp());
        setup.peerIpProperty().set(settings.peerIp());
        setup.tcpPortProperty().set(settings.tcpPort());
        setup.protocolProperty().set(settings.protocol());
        setup.modeProperty().set(settings.mode());
    }

    /** The lab's view model (scenarios and tests drive it). */
    public LabViewModel lab() {
        return lab;
    }

    /** The Faults tab's view model (tests drive it). */
    public FaultsViewModel faults() {
        return faults;
    }

    /** The Lessons tab's scenario gallery (tests and gui --scenario drive it). */
    public ScenariosViewModel scenarios() {
        return scenarios;
    }

    /** The Ladder tab's work requests, tied to their packets and completions (tests read them). */
    public org.rdmalab.app.ladder.WorkRequestsViewModel workRequests() {
        return workRequests;
    }

    /** The Ladder tab's view model (captures, the selected packets; tests drive it). */
    public org.rdmalab.app.ladder.LadderViewModel ladder() {
        return ladder;
    }

    /** The Lessons › Exercises tab's view model (gui --exercise and tests drive it). */
    public ExercisesViewModel exercises() {
        return exercises;
    }

    /**
     * Opens an exercise as a student would: the Lessons tab's Exercises shown, the exercise chosen
     * and started on the loopback lab ({@code gui --exercise NAME|FILE}); one read from a file joins
     * the list.
     */
    public void openExercise(org.rdmalab.lab.exercise.Exercise exercise) {
        showExercises();
        if (!exercises.exercises().contains(exercise)) {
            exercises.add(exercise);
        }
        exercises.chosenProperty().set(exercise);
        exercises.start();
    }

    /**
     * Opens the built-in exercise {@code name}, or the exercise file {@code name} names (read on a
     * background thread), as {@link #openExercise(org.rdmalab.lab.exercise.Exercise)} does.
     *
     * @throws IllegalArgumentException for an unknown built-in name, listing the valid ones
     */
    public void openExercise(String name) {
        if (org.rdmalab.lab.exercise.ExerciseFile.namesFile(name)) {
            showExercises();
            exercises.open(java.nio.file.Path.of(name));
        } else {
            openExercise(exercise(name));
        }
    }

    /** Lessons › Exercises in front. */
    private void showExercises() {
        if (scene.lookup(".inspector") instanceof javafx.scene.control.TabPane inspector) {
            inspector.getTabs().stream().filter(tab -> "lessonsTab".equals(tab.getId())).findFirst()
                    .ifPresent(tab -> {
                        inspector.getSelectionModel().select(tab);
                        if (tab.getContent() instanceof javafx.scene.control.TabPane lessons) {
                            lessons.getTabs().stream().filter(inner -> "exercisesTab".equals(inner.getId())).findFirst()
                                    .ifPresent(lessons.getSelectionModel()::select);
                        }
                    });
        }
    }

    /**
     * The exercise {@code gui --exercise} names: the exercise file it names (a path that exists, or
     * one ending in .yaml or .yml), else the built-in exercise of that name.
     *
     * @throws IllegalArgumentException for a file that is refused (its first problem, naming the file,
     *     the line and the field) and for an unknown name, listing the valid ones, in one line
     */
    public static org.rdmalab.lab.exercise.Exercise exercise(String name) {
        if (org.rdmalab.lab.exercise.ExerciseFile.namesFile(name)) {
            return org.rdmalab.lab.exercise.ExerciseFile.read(java.nio.file.Path.of(name));
        }
        return org.rdmalab.lab.exercise.Exercises.named(name.trim().toLowerCase(java.util.Locale.ROOT))
                .orElseThrow(() -> new IllegalArgumentException("unknown exercise '" + name + "'; valid exercises: "
                        + String.join(", ", org.rdmalab.lab.exercise.Exercises.all().stream()
                        .map(org.rdmalab.lab.exercise.Exercise::name).toList())
                        + ", or an exercise file (" + org.rdmalab.lab.exercise.ExerciseFile.EXTENSION + ")"));
    }

    /** The Bench tab's view model (the bench scenario and tests drive it). */
    public BenchViewModel bench() {
        return bench;
    }

    public Scene scene() {
        return scene;
    }

    /** Releases every session, worker and the background thread. */
    public void close() {
        popups.close();
        bench.close();
        lab.close();
        if (ladder != null) {
            ladder.close();
        }
        background.shutdownNow();
    }

    /** The window on the installed backends with the default device options. */
    public static MainWindow create() throws IOException {
        return create(Backends.installed(), DeviceOptions.defaults());
    }

    /**
     * The window on the installed backends, its software devices injecting {@code faultSpec} (null
     * for none), showing {@code settings} and remembering into {@code store}.
     */
    public static MainWindow create(String faultSpec, LabSettings settings, SettingsStore store) throws IOException {
        return create(Backends.installed(), DeviceOptions.defaults().withFaults(faultSpec), settings, store);
    }

    /**
     * The window on the installed backends whose software devices inject {@code faultSpec}
     * ({@code gui --fault}; null or empty for none), as the Faults tab then shows.
     *
     * @throws IllegalArgumentException in one line when the spec is malformed
     */
    public static MainWindow create(String faultSpec) throws IOException {
        return create(Backends.installed(), DeviceOptions.defaults().withFaults(faultSpec));
    }

    /**
     * The window over {@code backends}; software devices use {@code base} (tests give their own UDP
     * port). Must be called on the JavaFX thread.
     */
    public static MainWindow create(Backends backends, DeviceOptions base) throws IOException {
        return create(backends, base, LabSettings.defaults(), SettingsStore.inMemory());
    }

    /**
     * The window over {@code backends} showing {@code settings} (the setup bar's values applied to
     * the lab, the theme and the scale) and remembering into {@code store}. Must be called on the
     * JavaFX thread.
     */
    public static MainWindow create(Backends backends, DeviceOptions base, LabSettings settings, SettingsStore store)
            throws IOException {
        ExecutorService background = Executors.newSingleThreadExecutor(runnable -> {
            Thread thread = new Thread(BackgroundPriority.process().yielding(runnable), "rdma-lab background");
            thread.setDaemon(true);
            return thread;
        });
        Executor ui = new FrameExecutor();
        // Work that arrives after the window closed (a refresh a late event asked for) is dropped.
        Executor backgroundWork = task -> {
            try {
                background.execute(task);
            } catch (java.util.concurrent.RejectedExecutionException e) {
                // The window is closed.
            }
        };
        LabViewModel lab = new LabViewModel(backends, base, backgroundWork, ui, LabViewModel.daemonWorkers());
        StepViewModel step = new StepViewModel(lab);
        ResourcesViewModel resources = new ResourcesViewModel(lab, backgroundWork, ui);
        Appearance appearance = new Appearance();
        appearance.themeProperty().set(settings.theme());
        appearance.scale(settings.scale());
        Runnable[] reset = new Runnable[1];
        @SuppressWarnings("unchecked")
        java.util.function.Consumer<String>[] language = new java.util.function.Consumer[1];
        Map<Class<?>, Object> controllers = new HashMap<>();
        controllers.put(SetupView.class, new SetupView(lab));
        controllers.put(StepView.class, new StepView(step));
        controllers.put(ResourcesView.class, new ResourcesView(resources));
        controllers.put(VerbsLogView.class, new VerbsLogView(lab));
        org.rdmalab.app.packets.PacketViewModel opened = new org.rdmalab.app.packets.PacketViewModel();
        controllers.put(PacketsView.class, new PacketsView(lab, opened));
        controllers.put(org.rdmalab.app.packets.PacketView.class, new org.rdmalab.app.packets.PacketView(opened));
        CountersViewModel counters = new CountersViewModel(lab, backgroundWork, ui);
        controllers.put(CountersView.class, new CountersView(counters));
        controllers.put(CompletionsView.class, new CompletionsView(lab));
        controllers.put(ConnectionDataView.class, new ConnectionDataView(new ConnectionDataViewModel(lab)));
        controllers.put(BuffersView.class, new BuffersView(new BuffersViewModel(lab, ui)));
        controllers.put(TrafficView.class, new TrafficView(new TrafficViewModel(lab, ui), lab));
        FaultsViewModel faults = new FaultsViewModel(lab, org.rdmalab.verbs.FaultSettings.parse(base.faults()));
        controllers.put(FaultsView.class, new FaultsView(faults));
        org.rdmalab.app.ladder.LadderViewModel ladder = new org.rdmalab.app.ladder.LadderViewModel(lab, backgroundWork, ui,
                org.rdmalab.app.ladder.LadderViewModel.pauseTransition(),
                org.rdmalab.app.ladder.LadderViewModel.redrawThrottle());
        org.rdmalab.app.ladder.WorkRequestsViewModel workRequests = new org.rdmalab.app.ladder.WorkRequestsViewModel(lab,
                ladder);
        controllers.put(org.rdmalab.app.ladder.LadderView.class, new org.rdmalab.app.ladder.LadderView(ladder,
                workRequests));
        controllers.put(org.rdmalab.app.ladder.WorkRequestsView.class,
                new org.rdmalab.app.ladder.WorkRequestsView(workRequests));
        controllers.put(DoctorView.class, new DoctorView(new DoctorViewModel(lab, backends, base, backgroundWork, ui)));
        BenchViewModel bench = new BenchViewModel(new BenchEngine(backends), backends, () -> benchTopology(base),
                backgroundWork, ui);
        controllers.put(BenchView.class, new BenchView(bench));
        ScenariosViewModel scenarios = new ScenariosViewModel(lab, backends, base, ui);
        controllers.put(ScenariosView.class, new ScenariosView(scenarios));
        ExercisesViewModel exercises = new ExercisesViewModel(lab, backgroundWork, ui);
        exercises.useFaults(wanted -> faults.useSpec(wanted.toSpec()));
        controllers.put(ExercisesView.class, new ExercisesView(exercises));
        Views views = new Views(controllers);
        controllers.put(MainView.class, new MainView(lab, views, bench, appearance, () -> reset[0].run(),
                tag -> language[0].accept(tag), counters.shownProperty(), ladder.onScreenProperty(),
                step.onScreenProperty()));
        Parent content = views.load(MainView.FXML);
        Scene scene = new Scene(new ScaledRoot(content), WIDTH * settings.scale(), HEIGHT * settings.scale());
        scene.getStylesheets().add(Views.resource(STYLESHEET).toExternalForm());
        MainWindow window = new MainWindow(lab, bench, scene, background, store, appearance);
        reset[0] = window::resetSettings;
        language[0] = window::chooseLanguage;
        window.faults = faults;
        window.ladder = ladder;
        window.workRequests = workRequests;
        window.language = settings.language();
        window.showSetup(settings);
        LabSetup chosen;
        try {
            chosen = lab.setup().toSetup(lab.defaultSetup(), settings.device().orElse(lab.defaultSetup().device()));
        } catch (IllegalArgumentException remembered) {
            chosen = lab.defaultSetup();
        }
        lab.apply(chosen);
        window.scenarios = scenarios;
        window.exercises = exercises;
        return window;
    }

    /**
     * Where the Bench tab's runs go: soft0 on the loopback lab's two addresses, as {@code bench
     * --loopback}, but on UDP ports free at that moment (the lab's own devices hold {@code base}'s port).
     */
    static Topology benchTopology(DeviceOptions base) {
        int udp = freeUdpPort(base.udpPort());
        return new Topology.Loopback(LabSetup.LOOPBACK_SERVER_IP, LabSetup.LOOPBACK_CLIENT_IP, udp, freeUdpPort(udp));
    }

    /** A UDP port other than {@code except}, free on both loopback addresses right now. */
    private static int freeUdpPort(int except) {
        for (int attempt = 0; attempt < 20; attempt++) {
            try (DatagramSocket first = new DatagramSocket(new InetSocketAddress(LabSetup.LOOPBACK_SERVER_IP, 0))) {
                int port = first.getLocalPort();
                if (port == except) {
                    continue;
                }
                try (DatagramSocket second = new DatagramSocket(new InetSocketAddress(LabSetup.LOOPBACK_CLIENT_IP, port))) {
                    return port;
                } catch (IOException taken) {
                    // Try another.
                }
            } catch (IOException e) {
                throw new IllegalStateException("no UDP port could be bound on " + LabSetup.LOOPBACK_SERVER_IP + ": "
                        + e.getMessage(), e);
            }
        }
        throw new IllegalStateException("no UDP port is free on both " + LabSetup.LOOPBACK_SERVER_IP + " and "
                + LabSetup.LOOPBACK_CLIENT_IP);
    }

    /** Loads the window and returns its scene (the window stays open until the JVM ends). */
    public static Scene createScene(String[] args) throws IOException {
        return create().scene();
    }
}
