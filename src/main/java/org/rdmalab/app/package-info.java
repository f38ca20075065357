/**
 * The JavaFX application. Each screen is {@code fxml/FooView.fxml} + {@code FooView} (controller:
 * binds and delegates) + {@code FooViewModel} (the only class that touches the lower layers).
 * The JavaFX thread only renders: work that waits runs on background threads and reaches the view
 * models in batches. {@link org.rdmalab.app.AppLauncher} starts JavaFX from the jar's main class,
 * with a window or headless (Monocle) for screenshots.
 */
package org.rdmalab.app;
