/**
 * What the window remembers between runs, without JavaFX: {@link org.rdmalab.app.settings.LabSettings}
 * (the window's place, the setup bar's values, the language, the {@link org.rdmalab.app.settings.Theme}
 * and the {@link org.rdmalab.app.settings.Scale}), read value by value with the default for one
 * that is missing or makes no sense, from a {@link org.rdmalab.app.settings.SettingsStore}: the
 * user's {@code java.util.prefs} node ({@link org.rdmalab.app.settings.PreferencesStore#user()}),
 * or one in memory for tests and {@code gui --screenshot}, which never touch the user's.
 *
 * <p>Threads: none of its own; a store is used from one thread at a time (the window's, on the
 * JavaFX thread).
 */
package org.rdmalab.app.settings;
