/**
 * The Lessons tab: the classroom above the verbs, its lessons each an inner tab ({@code lessonsTabs}).
 * {@link org.rdmalab.app.lessons.ScenariosViewModel} and {@link org.rdmalab.app.lessons.ScenariosView}
 * are the Scenarios gallery: every scenario of {@code loopback} ({@code org.rdmalab.lab.scenario})
 * with what happens and what it teaches, put into the lab as its own two sessions, whose steps the
 * lab's own controls run, then its traffic posted and its outcome checked, "as expected" or what
 * differed. The view is {@code fxml/lessons/ScenariosView.fxml}.
 * {@link org.rdmalab.app.lessons.ExercisesViewModel} and {@link org.rdmalab.app.lessons.ExercisesView}
 * ({@code fxml/lessons/ExercisesView.fxml}) are the Exercises: the built-in guided exercises of
 * {@code lab.exercise}, one started on the loopback lab, its hints revealed one at a time and each
 * check going from open to met as the lab's events arrive, and "done" once all are met.
 *
 * <p>Threads: the view models live on the JavaFX thread; the scenario's steps and its traffic run on
 * the lab's side workers, and what they report reaches the JavaFX thread in batches
 * ({@code EventQueue}, {@code LabViewModel.afterEvent}). Nothing here waits.
 */
package org.rdmalab.app.lessons;
