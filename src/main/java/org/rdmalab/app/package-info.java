/**
 * The lab window. Each view is {@code fxml/FooView.fxml} + {@code FooView} (controller: binds and
 * delegates) + a view model (the only kind of class that touches the lab and the verbs API):
 * {@link org.rdmalab.app.lab.SetupView} / {@link org.rdmalab.app.lab.SetupViewModel},
 * {@link org.rdmalab.app.lab.PeerView} / {@link org.rdmalab.app.lab.SideViewModel} (one per peer),
 * {@link org.rdmalab.app.lab.StepView}, {@link org.rdmalab.app.lab.TrafficView},
 * {@link org.rdmalab.app.lab.ConnectionDataView}, {@link org.rdmalab.app.lab.ResourcesView},
 * {@link org.rdmalab.app.lab.VerbsLogView}, {@link org.rdmalab.app.packets.PacketsView},
 * {@link org.rdmalab.app.packets.CountersView} / {@link org.rdmalab.app.packets.CountersViewModel} (under the packets),
 * {@link org.rdmalab.app.lab.CompletionsView} and {@link org.rdmalab.app.lab.BuffersView}, all under
 * {@link org.rdmalab.app.lab.LabViewModel}, which builds the sessions.
 *
 * <p>Threads: controllers and view models live on the JavaFX thread, which only renders. Each
 * peer's steps, posts and polls run on that peer's worker thread; devices are listed and queried
 * on a background thread; session events reach the view models batched, at most once a frame
 * ({@link org.rdmalab.app.common.FrameExecutor}). {@link org.rdmalab.app.AppLauncher} starts JavaFX from
 * the jar's main class, with a window or headless (Monocle) for {@code gui --screenshot}. The
 * Doctor tab ({@link org.rdmalab.app.doctor.DoctorViewModel}) runs {@code doctor}'s local checks on the
 * background thread and offers the fixes the lab can apply itself (the recommended GID, the RTR
 * step's path MTU); its peer probe runs {@code doctor}'s peer mode against a peer in
 * {@code doctor --serve} on the same thread, every wait with a timeout, and shows the report as the
 * command line prints it. The Bench tab ({@link org.rdmalab.app.bench.BenchViewModel}) runs {@code bench}'s
 * engine on its own threads (on the device chosen from every backend's list, listed on the
 * background thread, in loopback, or this window as a server or client over TCP, each wait bounded
 * by its timeout); what its listener hears reaches the charts and the results table through the
 * same once-a-frame batching, and Stop and closing the window stop the run without waiting (a
 * server waiting for its client too).
 *
 * <p>Words: the window speaks English or Simplified Chinese ({@code gui --lang en|zh_CN}, else the
 * desktop's language). {@link org.rdmalab.app.common.UiText} holds the chosen bundle
 * ({@code messages.properties}, {@code messages_zh_CN.properties} beside it); the FXML views name
 * their labels as {@code %key}, the controllers and view models ask {@code UiText}, and what the
 * lab and {@code doctor} say ({@link org.rdmalab.text.Phrase}: step results, diagnoses, fixes,
 * checks' findings) is said with {@code UiText.say}. Verb, field, enum and status names, the C
 * code, perftest's columns and what the other engines say (a backend's error message,
 * {@code bench}'s notes) keep the command line's words.
 */
package org.rdmalab.app;

import org.rdmalab.app.common.UiText;
