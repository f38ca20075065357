package org.rdmalab.lab.exercise;

import java.util.List;
import java.util.Objects;
import org.rdmalab.text.Phrase;

/**
 * A guided exercise: a goal, a starting point that is wrong or incomplete, hints revealed one at a
 * time, and checks on what the devices did. Done when every check is met ({@link Attempt}).
 *
 * @param name a short stable name ("gid-for-roce"), as {@code gui --exercise} takes it
 * @param title its title
 * @param teaches what it teaches, in one sentence
 * @param goal what the student must reach
 * @param hints the hints, the gentlest first
 * @param start where the lab starts
 * @param checks what is checked; an {@link Check.After} names an earlier one by its index
 */
public record Exercise(String name, Phrase title, Phrase teaches, Phrase goal, List<Phrase> hints, Start start,
                       List<Check> checks) {

    public Exercise {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(title, "title");
        Objects.requireNonNull(teaches, "teaches");
        Objects.requireNonNull(goal, "goal");
        Objects.requireNonNull(start, "start");
        hints = List.copyOf(hints);
        checks = List.copyOf(checks);
        if (checks.isEmpty()) {
            throw new IllegalArgumentException(name + ": an exercise needs at least one check");
        }
        for (int i = 0; i < checks.size(); i++) {
            if (checks.get(i) instanceof Check.After after && after.earlier() >= i) {
                throw new IllegalArgumentException(name + ": check " + (i + 1) + " comes after check "
                        + (after.earlier() + 1) + ", which is not before it");
            }
        }
    }
}
