package org.rdmalab.app.settings;

import java.util.Optional;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.prefs.BackingStoreException;
import java.util.prefs.Preferences;

/**
 * A {@link SettingsStore} on a {@link Preferences} node: the user's ({@link #user()}: the registry
 * on Windows, a plist on macOS, {@code ~/.java/.userPrefs} on Linux) or any other, such as an
 * in-memory node. A store the system refuses to write (a read-only home) is logged once and the
 * window goes on with what it has.
 */
public final class PreferencesStore implements SettingsStore {

    /** The node under the user's preferences root that holds the window's settings. */
    public static final String USER_NODE = "org/rdmalab/lab";

    private static final Logger LOG = Logger.getLogger(PreferencesStore.class.getName());

    private final Preferences node;

    public PreferencesStore(Preferences node) {
        this.node = node;
    }

    /** The user's own settings of RDMA Lab. */
    public static PreferencesStore user() {
        return new PreferencesStore(Preferences.userRoot().node(USER_NODE));
    }

    @Override
    public Optional<String> get(String key) {
        try {
            return Optional.ofNullable(node.get(key, null));
        } catch (IllegalStateException e) {
            return Optional.empty();
        }
    }

    @Override
    public void put(String key, String value) {
        try {
            node.put(key, value);
        } catch (IllegalStateException | IllegalArgumentException e) {
            LOG.log(Level.WARNING, "could not remember " + key + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void clear() {
        try {
            node.clear();
            node.flush();
        } catch (BackingStoreException | IllegalStateException e) {
            LOG.log(Level.WARNING, "could not forget the window's settings: " + e.getMessage(), e);
        }
    }

    @Override
    public void flush() {
        try {
            node.flush();
        } catch (BackingStoreException | IllegalStateException e) {
            LOG.log(Level.WARNING, "could not save the window's settings: " + e.getMessage(), e);
        }
    }
}
