package org.rdmalab.app.settings;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.prefs.AbstractPreferences;

/** A {@link java.util.prefs.Preferences} node held in memory: nothing reaches the user's preferences. */
final class MemoryPreferences extends AbstractPreferences {

    private final Map<String, String> values = new LinkedHashMap<>();
    private final Map<String, MemoryPreferences> children = new LinkedHashMap<>();

    MemoryPreferences() {
        this(null, "");
    }

    private MemoryPreferences(MemoryPreferences parent, String name) {
        super(parent, name);
    }

    @Override
    protected void putSpi(String key, String value) {
        values.put(key, value);
    }

    @Override
    protected String getSpi(String key) {
        return values.get(key);
    }

    @Override
    protected void removeSpi(String key) {
        values.remove(key);
    }

    @Override
    protected void removeNodeSpi() {
        values.clear();
    }

    @Override
    protected String[] keysSpi() {
        return values.keySet().toArray(String[]::new);
    }

    @Override
    protected String[] childrenNamesSpi() {
        return children.keySet().toArray(String[]::new);
    }

    @Override
    protected AbstractPreferences childSpi(String name) {
        return children.computeIfAbsent(name, child -> new MemoryPreferences(this, child));
    }

    @Override
    protected void syncSpi() {
        // Nothing lasts beyond the object.
    }

    @Override
    protected void flushSpi() {
        // Nothing lasts beyond the object.
    }
}
