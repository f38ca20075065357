package org.rdmalab.app.lessons;

import java.nio.file.Path;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyIntegerProperty;
import javafx.beans.property.ReadOnlyIntegerWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleObjectProperty;
import javafx.collections.FXCollections;
import javafx.collections.ListChangeListener;
import javafx.collections.ObservableList;
import org.rdmalab.app.common.UiText;
import org.rdmalab.app.lab.LabViewModel;
import org.rdmalab.app.lab.SideViewModel;
import org.rdmalab.lab.LabSession;
import org.rdmalab.lab.LabSetup;
import org.rdmalab.lab.Role;
import org.rdmalab.lab.exercise.Attempt;
import org.rdmalab.lab.exercise.Exercise;
import org.rdmalab.lab.exercise.ExerciseFile;
import org.rdmalab.lab.exercise.Exercises;
import org.rdmalab.lab.exercise.Observations;
import org.rdmalab.verbs.FaultSettings;

/**
 * The Exercises tab's state: the built-in exercises and those opened from an instructor's file
 * ({@link #open}: read on a background thread, a wrong file said in one line), the one chosen (shown)
 * and the one started,
 * its hints revealed so far, and each of its checks, open or met, as the lab's events arrive. Starting
 * an exercise sets the loopback lab to its starting point: its flow and GID index in the setup bar,
 * new sessions, and its step parameters; a setup applied later (another GID, say) keeps the
 * exercise's parameters on the new sessions, and the attempt follows them. An exercise whose start
 * names faults hands them to the Faults tab ({@link #useFaults}) before the lab's devices open, and
 * one that names a device has the setup bar choose it.
 *
 * <p>JavaFX thread only, but for the file read {@link #open} hands to its background executor.
 */
public final class ExercisesViewModel {

    /**
     * One check as the list shows it.
     *
     * @param text what it checks, in the window's language
     * @param met true once met
     */
    public record CheckRow(String text, boolean met) {
    }

    private final LabViewModel lab;
    /** Empty until first asked for ({@link #listed}): the built-in exercises are parsed then. */
    private final ObservableList<Exercise> exercises = FXCollections.observableArrayList();
    private boolean builtInListed;
    private final ObjectProperty<Exercise> chosen = new SimpleObjectProperty<>();
    private final ReadOnlyObjectWrapper<Exercise> started = new ReadOnlyObjectWrapper<>();
    private final ObservableList<String> hints = FXCollections.observableArrayList();
    private final ObservableList<CheckRow> checks = FXCollections.observableArrayList();
    private final ReadOnlyIntegerWrapper met = new ReadOnlyIntegerWrapper();
    private final ReadOnlyBooleanWrapper done = new ReadOnlyBooleanWrapper();
    private final ReadOnlyBooleanWrapper moreHints = new ReadOnlyBooleanWrapper();
    private final ReadOnlyStringWrapper progress = new ReadOnlyStringWrapper("");
    private final ReadOnlyStringWrapper problem = new ReadOnlyStringWrapper("");
    private final Executor background;
    private final Executor ui;
    private Consumer<FaultSettings> faults = settings -> { };
    private ExerciseFiles files = ExerciseFiles.dialogs();
    private Attempt attempt;
    /** Each side's counters as last read on the background executor, for the attempt's counter checks. */
    private final Map<Role, Map<String, Long>> counters = new ConcurrentHashMap<>();
    private boolean readingCounters;
    private boolean readCountersAgain;

    /** A tab that reads exercise files on the calling thread (tests). */
    public ExercisesViewModel(LabViewModel lab) {
        this(lab, Runnable::run, Runnable::run);
    }

    /**
     * @param background where an exercise file is read
     * @param ui the JavaFX thread, where what was read comes back
     */
    public ExercisesViewModel(LabViewModel lab, Executor background, Executor ui) {
        this.lab = lab;
        this.background = background;
        this.ui = ui;
        lab.afterEvent(this::heard);
        lab.afterEvents(() -> {
            refresh();
            readCounters();
        });
        lab.sides().addListener((ListChangeListener<SideViewModel>) change -> sidesRebuilt());
        chosen.addListener((observable, before, now) -> refresh());
        refresh();
    }

    /**
     * The list, with the built-in exercises in it from the first call on, the first of them chosen.
     * They are read when the tab (or a scenario, or {@code --exercise}) first needs them, not as
     * the window is built: parsing their YAML took 3–4 % of the window's start (docs/performance.md).
     */
    private ObservableList<Exercise> listed() {
        if (!builtInListed) {
            builtInListed = true;
            exercises.setAll(Exercises.all());
            chosen.set(exercises.get(0));
        }
        return exercises;
    }

    /**
     * Starts the chosen exercise: the loopback lab is set to its starting point (its flow and GID
     * index, new sessions, its parameters), its hints are hidden again and its checks open.
     */
    public void start() {
        listed();
        Exercise exercise = chosen.get();
        if (exercise == null) {
            return;
        }
        counters.clear();
        attempt = new Attempt(exercise, this::session, role -> Optional.ofNullable(counters.get(role)));
        started.set(exercise);
        hints.clear();
        problem.set("");
        if (exercise.start().faults() != null) {
            faults.accept(exercise.start().faults());
        }
        LabSetup setup = exercise.start().setup(lab.defaultSetup());
        if (exercise.start().device() != null) {
            lab.setup().preferDevice(exercise.start().device());
        }
        lab.setup().modeProperty().set(LabSetup.Mode.LOOPBACK);
        lab.setup().flowProperty().set(setup.flow());
        lab.setup().gidIndexProperty().set(setup.gidIndex());
        lab.apply(setup);
        refresh();
        lab.status(UiText.format("exercises.startedStatus", UiText.say(exercise.title())));
    }

    /**
     * Opens an instructor's exercise file: read on the background executor, then, on this thread,
     * added to the list (in place of one of the same name opened before), chosen and started. A
     * file that is refused leaves the lab as it is and names every problem (up to
     * {@link #PROBLEMS_SHOWN}, one a line, the way {@code exercise check} prints them) in
     * {@link #problemProperty()}, and the first with their number in the status line.
     */
    public void open(Path file) {
        background.execute(() -> {
            Exercise read;
            try {
                read = ExerciseFile.read(file);
            } catch (ExerciseFile.Refused refused) {
                ui.execute(() -> refused(file, refused));
                return;
            }
            ui.execute(() -> {
                add(read);
                chosen.set(read);
                start();
                lab.status(UiText.format("exercises.openedStatus", UiText.say(read.title()), file.getFileName()));
            });
        });
    }

    /** How many of a refused file's problems the view lists before saying how many more there are. */
    static final int PROBLEMS_SHOWN = 8;

    private void refused(Path file, ExerciseFile.Refused refused) {
        List<ExerciseFile.Problem> all = refused.problems();
        if (all.size() == 1) {
            problem.set(UiText.format("exercises.openFailed", all.get(0)));
        } else {
            StringBuilder text = new StringBuilder(UiText.format("exercises.openFailedMany", all.size()));
            all.stream().limit(PROBLEMS_SHOWN).forEach(each -> text.append('\n').append(each));
            if (all.size() > PROBLEMS_SHOWN) {
                text.append('\n').append(UiText.format("exercises.openFailedMore", all.size() - PROBLEMS_SHOWN, file));
            }
            problem.set(text.toString());
        }
        lab.status(UiText.format("exercises.openFailed", refused.getMessage()));
    }

    /**
     * Puts {@code exercise} (an instructor's, read from a file) in the list after the others, or in
     * place of the one of the same name opened before (the file edited and opened again).
     */
    public void add(Exercise exercise) {
        listed();
        for (int i = 0; i < exercises.size(); i++) {
            if (exercises.get(i).name().equals(exercise.name())) {
                exercises.set(i, exercise);
                return;
            }
        }
        exercises.add(exercise);
    }

    /** Asks where an exercise file is ({@link #files()}) and opens it; nothing when the user cancels. */
    public void chooseAndOpen(javafx.stage.Window owner) {
        files.toOpen(owner).ifPresent(this::open);
    }

    /** Where Open exercise… asks for a file. */
    public ExerciseFiles files() {
        return files;
    }

    /** Where Open exercise… asks for a file (tests answer without a dialog). */
    public void setFiles(ExerciseFiles files) {
        this.files = files;
    }

    /** Who sets the software devices' faults when an exercise's start names some (the Faults tab). */
    public void useFaults(Consumer<FaultSettings> sink) {
        this.faults = sink;
    }

    /** Shows the next hint of the started exercise. */
    public void revealHint() {
        Exercise exercise = started.get();
        if (exercise != null && hints.size() < exercise.hints().size()) {
            hints.add(UiText.say(exercise.hints().get(hints.size())));
        }
        moreHints.set(exercise != null && hints.size() < exercise.hints().size());
    }

    /** The session of the lab's side that plays {@code role}, if there is one now. */
    /**
     * Reads the counters that the attempt's open counter checks name, on the background executor and
     * never on this thread (on a kernel device they are files under /sys), then checks them as of the
     * latest event: one read in flight at a time, and one more after it when events came meanwhile.
     */
    private void readCounters() {
        Attempt reading = attempt;
        if (reading == null) {
            return;
        }
        Map<Role, LabSession> sessions = new EnumMap<>(Role.class);
        for (Role role : Role.values()) {
            LabSession session = session(role);
            if (session != null && reading.wantsCounters(role)) {
                sessions.put(role, session);
            }
        }
        if (sessions.isEmpty()) {
            return;
        }
        if (readingCounters) {
            readCountersAgain = true;
            return;
        }
        readingCounters = true;
        background.execute(() -> {
            Map<Role, Optional<Map<String, Long>>> read = new EnumMap<>(Role.class);
            Observations.CounterSource live = Observations.CounterSource.live(sessions::get);
            sessions.keySet().forEach(role -> read.put(role, live.sinceOpen(role)));
            ui.execute(() -> {
                readingCounters = false;
                if (attempt == reading) {
                    read.forEach((role, values) -> {
                        if (values.isPresent()) {
                            counters.put(role, values.get());
                        } else {
                            counters.remove(role);
                        }
                        reading.recheckCounters(role);
                    });
                    refresh();
                }
                if (readCountersAgain) {
                    readCountersAgain = false;
                    readCounters();
                }
            });
        });
    }

    private LabSession session(Role role) {
        return lab.sides().stream().filter(side -> side.role() == role).map(SideViewModel::session).findFirst()
                .orElse(null);
    }

    /** New sessions (the exercise started, or a setup applied): they take the exercise's parameters. */
    private void sidesRebuilt() {
        Exercise exercise = started.get();
        if (exercise == null) {
            return;
        }
        try {
            for (SideViewModel side : lab.sides()) {
                exercise.start().apply(side.session());
            }
            problem.set("");
        } catch (IllegalArgumentException e) {
            problem.set(UiText.format("exercises.startFailed", e.getMessage()));
        }
    }

    private void heard(SideViewModel.SideEvent event) {
        // Events of sessions already replaced (still draining as they close) are not the attempt's.
        if (attempt != null && lab.sides().contains(event.side())) {
            attempt.observe(event.side().role(), event.event());
        }
    }

    /**
     * The checks of the exercise shown: live while it is the one started, else all open; the
     * progress and "done" are the started exercise's.
     */
    private void refresh() {
        Exercise shown = chosen.get();
        if (attempt == null || shown != attempt.exercise()) {
            List<CheckRow> open = shown == null ? List.of() : shown.checks().stream()
                    .map(check -> new CheckRow(UiText.say(check.said()), false)).toList();
            if (!open.equals(checks)) {
                checks.setAll(open);
            }
        }
        if (attempt == null) {
            return;
        }
        List<Attempt.Status> statuses = attempt.statuses();
        if (shown == attempt.exercise()) {
            List<CheckRow> rows = statuses.stream().map(status -> new CheckRow(UiText.say(status.check().said()),
                    status.met())).toList();
            if (!rows.equals(checks)) {
                checks.setAll(rows);
            }
        }
        int count = (int) statuses.stream().filter(Attempt.Status::met).count();
        met.set(count);
        done.set(count == statuses.size());
        moreHints.set(hints.size() < attempt.exercise().hints().size());
        progress.set(done.get() ? UiText.text("exercises.done")
                : UiText.format("exercises.progress", count, statuses.size()));
    }

    /** The built-in exercises, in the order a lab takes them, then those opened from files. */
    public ObservableList<Exercise> exercises() {
        return listed();
    }

    /** The exercise the tab shows: the first built-in one until another is chosen. */
    public ObjectProperty<Exercise> chosenProperty() {
        listed();
        return chosen;
    }

    /** The exercise started on the lab, or null. */
    public ReadOnlyObjectProperty<Exercise> startedProperty() {
        return started.getReadOnlyProperty();
    }

    /** The hints revealed so far, in the window's language. */
    public ObservableList<String> hints() {
        return hints;
    }

    /** True while the started exercise has a hint left to reveal. */
    public ReadOnlyBooleanProperty moreHintsProperty() {
        return moreHints.getReadOnlyProperty();
    }

    /** The shown exercise's checks: live for the started one, all open for another. */
    public ObservableList<CheckRow> checks() {
        return checks;
    }

    /** How many checks are met. */
    public ReadOnlyIntegerProperty metProperty() {
        return met.getReadOnlyProperty();
    }

    /** True when every check of the started exercise is met. */
    public ReadOnlyBooleanProperty doneProperty() {
        return done.getReadOnlyProperty();
    }

    /** "2 of 4 checks met", or "Done: every check is met". */
    public ReadOnlyStringProperty progressProperty() {
        return progress.getReadOnlyProperty();
    }

    /** Why the exercise's parameters could not be set on the lab, or empty. */
    public ReadOnlyStringProperty problemProperty() {
        return problem.getReadOnlyProperty();
    }

    /** The attempt on the lab, while an exercise is started. */
    public Optional<Attempt> attempt() {
        return Optional.ofNullable(attempt);
    }
}
