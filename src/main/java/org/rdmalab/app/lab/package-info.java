/**
 * The lab's panes: {@link org.rdmalab.app.lab.LabViewModel} builds the sessions (the loopback lab,
 * or one side of two machines) and keeps the tables every side feeds; one
 * {@link org.rdmalab.app.lab.SideViewModel} drives each session, shown by
 * {@link org.rdmalab.app.lab.PeerView} (its steps, its QP state diagram:
 * {@link org.rdmalab.app.lab.QpDiagrams}). Beside them: the setup bar
 * ({@link org.rdmalab.app.lab.SetupView} / {@link org.rdmalab.app.lab.SetupViewModel}), the selected
 * step ({@link org.rdmalab.app.lab.StepView} / {@link org.rdmalab.app.lab.StepViewModel}), the
 * traffic form ({@link org.rdmalab.app.lab.TrafficView}), the connection data exchanged
 * ({@link org.rdmalab.app.lab.ConnectionDataView}), the verbs objects
 * ({@link org.rdmalab.app.lab.ResourcesView}), the verbs log
 * ({@link org.rdmalab.app.lab.VerbsLogView}), the completions
 * ({@link org.rdmalab.app.lab.CompletionsView}) and the registered buffers
 * ({@link org.rdmalab.app.lab.BuffersView}). The rows of the lab's tables (steps, verbs calls,
 * completions, packets) are records here. Their FXML is in {@code fxml/lab/}.
 *
 * <p>Threads: controllers and view models on the JavaFX thread. Each side's steps, posts and polls
 * run on that side's worker thread; its session's events reach the view models through an
 * {@link org.rdmalab.app.common.EventQueue}, at most once a frame. Devices are listed, ports and
 * GIDs queried and resources read on the background executor
 * ({@link org.rdmalab.app.lab.SideReader}); every wait has a timeout.
 */
package org.rdmalab.app.lab;
