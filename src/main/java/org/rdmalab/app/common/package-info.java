/**
 * What every part of the window uses: {@link org.rdmalab.app.common.UiText} (the window's words in
 * the chosen language), {@link org.rdmalab.app.common.FrameExecutor} (runs on the JavaFX thread at
 * most once a frame) and {@link org.rdmalab.app.common.EventQueue} (events from any thread, handed
 * over in batches), {@link org.rdmalab.app.common.BoundedLog} (a table's rows, the oldest dropped
 * past a limit and counted), {@link org.rdmalab.app.common.Columns} (table columns from a row's
 * accessor), {@link org.rdmalab.app.common.Views} (the FXML loader with the controllers made
 * for each view) and {@link org.rdmalab.app.common.DeferredView} (a view parsed and built when it is
 * first shown). Nothing here knows the lab, a backend or {@code bench}.
 *
 * <p>Threads: {@code FrameExecutor.execute} and {@code EventQueue.offer} may be called from any
 * thread; everything else is used on the JavaFX thread. {@code UiText}'s language is chosen once,
 * before the window is built.
 */
package org.rdmalab.app.common;
