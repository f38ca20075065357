/**
 * The lab window, grouped by feature as JabRef does. Each view is {@code fxml/<feature>/FooView.fxml}
 * + {@code FooView} (controller: binds and delegates) + a view model (the only kind of class that
 * touches the lab and the verbs API). This package holds what puts the window together:
 * {@link org.rdmalab.app.MainWindow} builds the view models and controllers and loads
 * {@code fxml/MainView.fxml}, {@link org.rdmalab.app.MainView} places one column per side and
 * the tabs, {@link org.rdmalab.app.AppLauncher} and {@link org.rdmalab.app.RdmaLabApplication}
 * start JavaFX from the jar's main class (with a window, or headless with Monocle for
 * {@code gui --screenshot}), {@link org.rdmalab.app.WindowScenario} holds the scripted runs
 * of {@code gui --scenario}, and {@link org.rdmalab.app.Appearance} the theme and the scale
 * factor that the scene's root ({@code ScaledRoot}) draws the window at. The step pane's tabs that
 * are not shown yet, and the Wire tab's own, stay out of the scene until first selected
 * ({@link org.rdmalab.app.LazyTabContent}),
 * and {@code -Drdmalab.firstFrame=print} says when the first frame came ({@code FirstFrame}). The
 * features live beside it:
 * <ul>
 *   <li>{@link org.rdmalab.app.lab}: the lab's panes (setup, peers, step, traffic, connection data,
 *       resources, verbs log, completions, buffers) under {@link org.rdmalab.app.lab.LabViewModel},
 *       which builds the sessions;</li>
 *   <li>{@link org.rdmalab.app.packets}: the Wire tab's Packets (each packet opened field by field) and Counters;</li>
 *   <li>{@link org.rdmalab.app.doctor}: the Doctor tab;</li>
 *   <li>{@link org.rdmalab.app.bench}: the Bench tab;</li>
 *   <li>{@link org.rdmalab.app.common}: what every feature uses (the window's words, the
 *       once-a-frame executor and event queue, bounded tables, the FXML loader);</li>
 *   <li>{@link org.rdmalab.app.settings}: what the window remembers between runs (no JavaFX);</li>
 *   <li>{@link org.rdmalab.app.diagram} and {@link org.rdmalab.app.buffer}: the custom controls.</li>
 * </ul>
 *
 * <p>Threads: controllers and view models live on the JavaFX thread, which only renders. Each
 * peer's steps, posts and polls run on that peer's worker thread; devices are listed and queried
 * on a background thread; session events reach the view models batched, at most once a frame
 * ({@link org.rdmalab.app.common.FrameExecutor}). The window owns the background thread and closes
 * every session, worker and run when it closes.
 *
 * <p>Words: the window speaks English or Simplified Chinese ({@code gui --lang en|zh_CN}, else the
 * desktop's language). {@link org.rdmalab.app.common.UiText} holds the chosen bundle
 * ({@code org/rdmalab/app/messages.properties}, {@code messages_zh_CN.properties} beside it); the
 * FXML views name their labels as {@code %key}, the controllers and view models ask
 * {@code UiText}, and what the lab and {@code doctor} say ({@link org.rdmalab.text.Phrase}: step
 * results, diagnoses, fixes, checks' findings) is said with {@code UiText.say}. Verb, field, enum
 * and status names, the C code, perftest's columns and what the other engines say (a backend's
 * error message, {@code bench}'s notes) keep the command line's words.
 */
package org.rdmalab.app;
