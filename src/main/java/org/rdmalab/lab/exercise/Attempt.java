package org.rdmalab.lab.exercise;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.rdmalab.lab.LabEvent;
import org.rdmalab.lab.LabSession;
import org.rdmalab.lab.Role;

/**
 * A student's attempt at an exercise on the loopback lab's two sessions: it follows their events
 * and turns each check from open to met, once and for good. Done when every check is met. It looks
 * only at what happened (events, QP states, buffers, packets), never at which commands ran.
 *
 * <p>Thread-safe: events may come from several threads ({@link #follow} listens on the sessions
 * directly, where they are emitted) or from one (a window feeding it its batches with
 * {@link #observe}); listeners hear of each newly met check on the thread that fed the event.
 */
public final class Attempt {

    /**
     * Where one check stands.
     *
     * @param check the check
     * @param met true once met
     * @param metAt the number of the event that met it (from 1), or 0 while open
     */
    public record Status(Check check, boolean met, long metAt) {
    }

    private final Exercise exercise;
    private final Observations seen;
    private final long[] metAt;
    private final List<Consumer<Attempt>> listeners = new CopyOnWriteArrayList<>();
    private long events;

    /**
     * An attempt on {@code sessions} (the loopback lab's server and client); a side missing from
     * the map has no buffer to read, so its buffer checks stay open.
     */
    public Attempt(Exercise exercise, Map<Role, LabSession> sessions) {
        this(exercise, sessions::get);
    }

    /**
     * An attempt on the sessions {@code sessions} gives for each role when a check reads a buffer
     * (null: none), so that it follows a lab whose sessions are rebuilt (a window applying a new
     * setup). {@code sessions} is asked on the thread that feeds the attempt.
     */
    public Attempt(Exercise exercise, java.util.function.Function<Role, LabSession> sessions) {
        this(exercise, sessions, Observations.CounterSource.live(sessions));
    }

    /**
     * As {@link #Attempt(Exercise, java.util.function.Function)}, a counter check reading the
     * counters {@code counters} gives (a window's: read off its JavaFX thread, then handed in with
     * {@link #recheckCounters}) instead of the session's at the moment of each event.
     */
    public Attempt(Exercise exercise, java.util.function.Function<Role, LabSession> sessions,
                   Observations.CounterSource counters) {
        this.exercise = Objects.requireNonNull(exercise, "exercise");
        this.seen = new Observations(Objects.requireNonNull(sessions, "sessions"), Objects.requireNonNull(counters,
                "counters"));
        this.metAt = new long[exercise.checks().size()];
    }

    /** The counter check {@code check} is, or holds after another; null when it is of another kind. */
    private static Check.CounterRises counterOf(Check check) {
        Check inner = check instanceof Check.After after ? after.check() : check;
        return inner instanceof Check.CounterRises counter ? counter : null;
    }

    /** True while a counter check on {@code side} is open: its counters are worth reading. */
    public synchronized boolean wantsCounters(Role side) {
        List<Check> checks = exercise.checks();
        for (int i = 0; i < checks.size(); i++) {
            Check.CounterRises counter = counterOf(checks.get(i));
            if (metAt[i] == 0 && counter != null && counter.side() == side) {
                return true;
            }
        }
        return false;
    }

    /**
     * Checks the open counter checks of {@code side} again, as of the latest event: for a counter
     * source that was read after the events it answers (the window's). Calls the listeners when one
     * is met.
     */
    public void recheckCounters(Role side) {
        boolean progressed = false;
        synchronized (this) {
            if (events == 0) {
                return;
            }
            Check.Moment moment = new Check.Moment(side, null, seen);
            List<Check> checks = exercise.checks();
            for (int i = 0; i < checks.size(); i++) {
                Check check = checks.get(i);
                if (metAt[i] > 0 || counterOf(check) == null) {
                    continue;
                }
                // Read after the latest event, so the check it must follow counts once met, even at that event.
                if (check instanceof Check.After after && metAt[after.earlier()] == 0) {
                    continue;
                }
                if (check.metBy(moment)) {
                    metAt[i] = events;
                    progressed = true;
                }
            }
        }
        if (progressed) {
            listeners.forEach(listener -> listener.accept(this));
        }
    }

    /**
     * Starts {@code exercise} on {@code sessions}: sets its starting parameters on each session
     * (before any step ran), its faults on each device as it opens, and follows their events from
     * now on.
     */
    public static Attempt start(Exercise exercise, List<LabSession> sessions) {
        Map<Role, LabSession> byRole = new java.util.EnumMap<>(Role.class);
        for (LabSession session : sessions) {
            exercise.start().apply(session);
            exercise.start().applyFaults(session);
            byRole.put(session.role(), session);
        }
        Attempt attempt = new Attempt(exercise, byRole);
        attempt.follow(sessions);
        return attempt;
    }

    /** Listens to every event of {@code sessions} where it is emitted. */
    public void follow(List<LabSession> sessions) {
        for (LabSession session : sessions) {
            Role role = session.role();
            session.addListener(event -> observe(role, event));
        }
    }

    /** The exercise. */
    public Exercise exercise() {
        return exercise;
    }

    /** Calls {@code listener} after an event met one check or more. */
    public void onProgress(Consumer<Attempt> listener) {
        listeners.add(listener);
    }

    /** Takes one event of {@code side} and checks what is still open against it. */
    public void observe(Role side, LabEvent event) {
        boolean progressed;
        synchronized (this) {
            events++;
            seen.take(side, event);
            Check.Moment moment = new Check.Moment(side, event, seen);
            progressed = false;
            List<Check> checks = exercise.checks();
            for (int i = 0; i < checks.size(); i++) {
                if (metAt[i] > 0) {
                    continue;
                }
                Check check = checks.get(i);
                if (check instanceof Check.After after) {
                    long before = metAt[after.earlier()];
                    if (before == 0 || before >= events) {
                        continue;
                    }
                }
                if (check.metBy(moment)) {
                    metAt[i] = events;
                    progressed = true;
                }
            }
        }
        if (progressed) {
            listeners.forEach(listener -> listener.accept(this));
        }
    }

    /** Each check and where it stands, in the exercise's order. */
    public synchronized List<Status> statuses() {
        List<Status> statuses = new ArrayList<>();
        for (int i = 0; i < metAt.length; i++) {
            statuses.add(new Status(exercise.checks().get(i), metAt[i] > 0, metAt[i]));
        }
        return statuses;
    }

    /** How many checks are met. */
    public synchronized int metCount() {
        return (int) Arrays.stream(metAt).filter(at -> at > 0).count();
    }

    /** True when every check is met. */
    public synchronized boolean done() {
        return metCount() == metAt.length;
    }
}
