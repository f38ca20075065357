/**
 * Guided lab exercises that check themselves: an {@link org.rdmalab.lab.exercise.Exercise} is a
 * goal, a starting point that is wrong or incomplete ({@link org.rdmalab.lab.exercise.Start}: the
 * loopback lab's flow, GID index and step parameters), hints to reveal one at a time, and
 * {@link org.rdmalab.lab.exercise.Check}s on what the devices did: QP states, completions, buffer
 * contents, packets. Never on the clicks that led there. An {@link org.rdmalab.lab.exercise.Attempt}
 * follows the lab's {@link org.rdmalab.lab.LabEvent}s and turns each check from open to met;
 * {@link org.rdmalab.lab.exercise.Exercises} holds the built-in ones, whose words are in
 * {@code exercises.properties} (English) and {@code exercises_zh_CN.properties} beside these classes.
 * {@link org.rdmalab.lab.exercise.ExerciseFile} reads an instructor's exercise file (YAML, the
 * format of docs/exercises.md) into an exercise, or refuses it with one line per problem naming the
 * file, the line and the field; three of the built-in exercises are such files in the jar. Its
 * reading is in parts: {@code YamlReading} (the problems and the readers of single values),
 * {@code StartReading} (the start, checked against the seed's steps) and {@code CheckReading}
 * (the checks).
 *
 * <p>UI-free, like the rest of {@code lab}. Threads: an attempt is safe to feed from several
 * threads (the sessions' workers, the devices' threads) and to read from another; a window feeds it
 * on its own thread, in the batches it draws.
 */
package org.rdmalab.lab.exercise;
