/**
 * The JavaFX application. Each screen is {@code fxml/FooView.fxml} + {@code FooView} (controller:
 * binds and delegates) + {@code FooViewModel} (the only class that touches the lower layers).
 * The JavaFX thread only renders: work that waits runs on background threads and reaches the view
 * models in batches. {@link org.rdmalab.app.AppLauncher} starts JavaFX from the jar's main class,
 * with a window or headless (Monocle) for screenshots. The Doctor tab
 * ({@link org.rdmalab.app.DoctorViewModel}) runs {@code doctor}'s local checks on the background
 * thread and offers the fixes the lab can apply itself (the recommended GID, the RTR step's path MTU).
 */
package org.rdmalab.app;
