package org.rdmalab.app.settings;

import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Pattern;
import org.rdmalab.control.ControlProtocol;
import org.rdmalab.lab.LabSetup;
import org.rdmalab.lab.Role;
import org.rdmalab.verbs.spi.DeviceOptions;

/**
 * What the window remembers between runs: its place on the screen, the setup bar (device, GID
 * index, mode, role, addresses, TCP port, protocol), the language, the theme and the scale.
 * {@link #read} takes each value from a {@link SettingsStore} and keeps the default for one that is
 * missing or does not make sense (a hand-edited or older store never stops the window).
 *
 * @param place where the window was and how big, or empty to let the desktop place it
 * @param device the device's name (soft0, rxe0), or empty for the first start's choice
 * @param gidIndex gid_idx: -1, auto or an index
 * @param mode the loopback lab or one of two machines
 * @param role with two machines: server or client
 * @param localIp with two machines: this machine's address
 * @param peerIp with two machines: the server's address (for a client)
 * @param tcpPort the control plane's TCP port
 * @param protocol the control plane's exchange
 * @param language {@code en} or {@code zh_CN} when the user chose one, else empty (the desktop's)
 * @param theme light or dark
 * @param scale the window's scale factor ({@link Scale})
 */
public record LabSettings(Optional<Place> place, Optional<String> device, String gidIndex, LabSetup.Mode mode,
                          Role role, String localIp, String peerIp, int tcpPort, ControlProtocol protocol,
                          Optional<String> language, Theme theme, double scale) {

    /**
     * Where the window was.
     *
     * @param x left edge on the desktop
     * @param y top edge on the desktop
     * @param width width
     * @param height height
     * @param maximized true when it filled the screen
     */
    public record Place(double x, double y, double width, double height, boolean maximized) {
    }

    /** The largest size or coordinate taken as a window's (beyond it a value is corrupt). */
    static final double FARTHEST = 100_000;
    /** The gid_idx values the setup bar takes. */
    private static final Pattern GID_INDEX = Pattern.compile("-1|auto|[0-9]{1,4}");
    /** The languages the window speaks, as the settings spell them. */
    private static final java.util.List<String> LANGUAGES = java.util.List.of("en", "zh_CN");

    /** The keys in the store. */
    static final String X = "window.x";
    static final String Y = "window.y";
    static final String WIDTH = "window.width";
    static final String HEIGHT = "window.height";
    static final String MAXIMIZED = "window.maximized";
    static final String DEVICE = "setup.device";
    static final String GID_INDEX_KEY = "setup.gidIndex";
    static final String MODE = "setup.mode";
    static final String ROLE = "setup.role";
    static final String LOCAL_IP = "setup.localIp";
    static final String PEER_IP = "setup.peerIp";
    static final String TCP_PORT = "setup.tcpPort";
    static final String PROTOCOL = "setup.protocol";
    static final String LANGUAGE = "language";
    static final String THEME = "theme";
    static final String SCALE = "scale";

    public LabSettings {
        java.util.Objects.requireNonNull(place, "place");
        java.util.Objects.requireNonNull(device, "device");
        java.util.Objects.requireNonNull(language, "language");
        java.util.Objects.requireNonNull(mode, "mode");
        java.util.Objects.requireNonNull(role, "role");
        java.util.Objects.requireNonNull(protocol, "protocol");
        java.util.Objects.requireNonNull(theme, "theme");
    }

    /** The first start's: the seed's setup in the loopback lab, light, at a desk, placed by the desktop. */
    public static LabSettings defaults() {
        LabSetup seed = LabSetup.loopback();
        return new LabSettings(Optional.empty(), Optional.empty(), seed.gidIndex(), seed.mode(), seed.role(),
                seed.localIp(), seed.peerIp(), seed.tcpPort(), seed.protocol(), Optional.empty(), Theme.LIGHT,
                Scale.DESK);
    }

    /** The settings in {@code store}; each value missing or out of its range is the default's. */
    public static LabSettings read(SettingsStore store) {
        LabSettings d = defaults();
        Optional<Place> place = readPlace(store);
        Optional<String> device = store.get(DEVICE).map(String::trim)
                .filter(name -> name.matches("[A-Za-z0-9_.:-]{1,64}"));
        String gid = value(store, GID_INDEX_KEY, text -> GID_INDEX.matcher(text.trim()).matches() ? text.trim() : null,
                d.gidIndex());
        LabSetup.Mode mode = value(store, MODE, text -> enumValue(LabSetup.Mode.class, text), d.mode());
        Role role = value(store, ROLE, text -> enumValue(Role.class, text), d.role());
        String localIp = value(store, LOCAL_IP, LabSettings::address, d.localIp());
        String peerIp = value(store, PEER_IP, LabSettings::address, d.peerIp());
        int tcpPort = value(store, TCP_PORT, text -> {
            int port = Integer.parseInt(text.trim());
            return port >= 1 && port <= 65535 ? port : null;
        }, d.tcpPort());
        ControlProtocol protocol = value(store, PROTOCOL, text -> enumValue(ControlProtocol.class, text), d.protocol());
        Optional<String> language = store.get(LANGUAGE).map(String::trim).filter(LANGUAGES::contains);
        Theme theme = value(store, THEME, Theme::parse, d.theme());
        double scale = value(store, SCALE, Scale::parse, d.scale());
        return new LabSettings(place, device, gid, mode, role, localIp, peerIp, tcpPort, protocol, language, theme,
                scale);
    }

    private static Optional<Place> readPlace(SettingsStore store) {
        try {
            Optional<String> width = store.get(WIDTH);
            if (width.isEmpty()) {
                return Optional.empty();
            }
            double x = coordinate(store.get(X).orElseThrow());
            double y = coordinate(store.get(Y).orElseThrow());
            double w = Double.parseDouble(width.get().trim());
            double h = Double.parseDouble(store.get(HEIGHT).orElseThrow().trim());
            if (!(w >= 1 && w <= FARTHEST && h >= 1 && h <= FARTHEST)) {
                return Optional.empty();
            }
            boolean maximized = Boolean.parseBoolean(store.get(MAXIMIZED).orElse("false").trim());
            return Optional.of(new Place(x, y, w, h, maximized));
        } catch (RuntimeException corrupt) {
            return Optional.empty();
        }
    }

    private static double coordinate(String text) {
        double value = Double.parseDouble(text.trim());
        if (!(Math.abs(value) <= FARTHEST)) {
            throw new IllegalArgumentException("coordinate " + text);
        }
        return value;
    }

    private static String address(String text) {
        DeviceOptions.parseAddress(text.trim());
        return text.trim();
    }

    private static <E extends Enum<E>> E enumValue(Class<E> type, String text) {
        return Enum.valueOf(type, text.trim().toUpperCase(Locale.ROOT));
    }

    /** The store's value of {@code key} through {@code parse}, or {@code fallback} when missing, refused or null. */
    private static <T> T value(SettingsStore store, String key, Function<String, T> parse, T fallback) {
        Optional<String> text = store.get(key);
        if (text.isEmpty()) {
            return fallback;
        }
        try {
            T parsed = parse.apply(text.get());
            return parsed == null ? fallback : parsed;
        } catch (RuntimeException corrupt) {
            return fallback;
        }
    }

    /** Writes every setting into {@code store} (an empty place or language removes nothing; they are not written). */
    public void write(SettingsStore store) {
        place.ifPresent(where -> {
            store.put(X, number(where.x()));
            store.put(Y, number(where.y()));
            store.put(WIDTH, number(where.width()));
            store.put(HEIGHT, number(where.height()));
            store.put(MAXIMIZED, Boolean.toString(where.maximized()));
        });
        device.ifPresent(name -> store.put(DEVICE, name));
        store.put(GID_INDEX_KEY, gidIndex);
        store.put(MODE, mode.name());
        store.put(ROLE, role.name());
        store.put(LOCAL_IP, localIp);
        store.put(PEER_IP, peerIp);
        store.put(TCP_PORT, Integer.toString(tcpPort));
        store.put(PROTOCOL, protocol.name());
        language.ifPresent(tag -> store.put(LANGUAGE, tag));
        store.put(THEME, theme.tag());
        store.put(SCALE, Scale.format(scale));
        store.flush();
    }

    private static String number(double value) {
        return Long.toString(Math.round(value));
    }

    /** The same settings with the window at {@code newPlace}. */
    public LabSettings withPlace(Optional<Place> newPlace) {
        return new LabSettings(newPlace, device, gidIndex, mode, role, localIp, peerIp, tcpPort, protocol, language,
                theme, scale);
    }

    /** The same settings with another theme. */
    public LabSettings withTheme(Theme newTheme) {
        return new LabSettings(place, device, gidIndex, mode, role, localIp, peerIp, tcpPort, protocol, language,
                newTheme, scale);
    }

    /** The same settings with another scale factor. */
    public LabSettings withScale(double newScale) {
        return new LabSettings(place, device, gidIndex, mode, role, localIp, peerIp, tcpPort, protocol, language,
                theme, newScale);
    }

    /** The same settings in another language ({@code en} or {@code zh_CN}). */
    public LabSettings withLanguage(Optional<String> newLanguage) {
        return new LabSettings(place, device, gidIndex, mode, role, localIp, peerIp, tcpPort, protocol, newLanguage,
                theme, scale);
    }

    /** The same settings with the setup bar's values. */
    public LabSettings withSetup(Optional<String> newDevice, String newGidIndex, LabSetup.Mode newMode, Role newRole,
                                 String newLocalIp, String newPeerIp, int newTcpPort, ControlProtocol newProtocol) {
        return new LabSettings(place, newDevice, newGidIndex, newMode, newRole, newLocalIp, newPeerIp, newTcpPort,
                newProtocol, language, theme, scale);
    }
}
