package org.rdmalab.app.settings;

import java.util.Optional;

/**
 * Where the window keeps what it remembers between runs: text values under short keys. The
 * window's store is the user's preferences ({@link PreferencesStore#user()}); tests and
 * {@code gui --screenshot} use {@link #inMemory()}, so they never read or write the user's.
 */
public interface SettingsStore {

    /** The value stored under {@code key}, or empty. */
    Optional<String> get(String key);

    /** Stores {@code value} under {@code key}. */
    void put(String key, String value);

    /** Forgets every value. */
    void clear();

    /** Writes what was stored to where it lasts (a no-op for a store in memory). */
    void flush();

    /** A store that lives as long as the object: nothing is read from or written to the user's preferences. */
    static SettingsStore inMemory() {
        return new PreferencesStore(new MemoryPreferences());
    }
}
