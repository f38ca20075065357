package org.rdmalab.app.settings;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.rdmalab.control.ControlProtocol;
import org.rdmalab.lab.LabSetup;
import org.rdmalab.lab.Role;

/** What the window remembers, through a store in memory (never the user's preferences). */
class LabSettingsTest {

    private static LabSettings chosen() {
        return LabSettings.defaults()
                .withPlace(Optional.of(new LabSettings.Place(-1200, 35, 1500, 900, true)))
                .withSetup(Optional.of("rxe0"), "3", LabSetup.Mode.TWO_MACHINES, Role.CLIENT, "192.168.1.101",
                        "192.168.1.100", 18515, ControlProtocol.PINGPONG)
                .withLanguage(Optional.of("zh_CN")).withTheme(Theme.DARK).withScale(1.75);
    }

    @Test
    void everySettingComesBackAsItWasWritten() {
        SettingsStore store = SettingsStore.inMemory();
        chosen().write(store);
        assertEquals(chosen(), LabSettings.read(store));
    }

    @Test
    void anEmptyStoreGivesTheFirstStartsSettingsTheSeedsSetupLightAtADesk() {
        LabSettings first = LabSettings.read(SettingsStore.inMemory());
        assertEquals(LabSettings.defaults(), first);
        assertEquals(Optional.empty(), first.place());
        assertEquals("-1", first.gidIndex());
        assertEquals(12025, first.tcpPort());
        assertEquals(LabSetup.Mode.LOOPBACK, first.mode());
        assertEquals(Theme.LIGHT, first.theme());
        assertEquals(1.0, first.scale());
        assertEquals(Optional.empty(), first.language());
    }

    @Test
    void clearingTheStoreForgetsEverySetting() {
        SettingsStore store = SettingsStore.inMemory();
        chosen().write(store);
        store.clear();
        assertEquals(LabSettings.defaults(), LabSettings.read(store));
    }

    @ParameterizedTest(name = "{0} = ''{1}'' is read as {2}")
    @CsvSource(delimiter = '|', value = {
        "scale|0.99|1.0", "scale|1.0|1.0", "scale|3.0|3.0", "scale|3.01|1.0", "scale|NaN|1.0", "scale|big|1.0",
        "theme|purple|LIGHT", "theme|dark|DARK", "theme|Dark |DARK",
        "setup.tcpPort|0|12025", "setup.tcpPort|1|1", "setup.tcpPort|65535|65535", "setup.tcpPort|65536|12025",
        "setup.tcpPort|x|12025",
        "setup.mode|SIDEWAYS|LOOPBACK", "setup.mode|two_machines|TWO_MACHINES",
        "setup.role|BOTH|SERVER", "setup.protocol|RDMA|LAB", "setup.protocol|seed|SEED",
        "setup.localIp|1.2.3|127.0.0.1", "setup.localIp|10.0.0.7|10.0.0.7",
        "setup.gidIndex|-2|-1", "setup.gidIndex|auto|auto", "setup.gidIndex|12345|-1", "setup.gidIndex|255|255",
        "language|fr|<none>", "language|zh_CN|zh_CN",
        "setup.device|rxe0; rm -rf|<none>", "setup.device|mlx5_0|mlx5_0"})
    void aValueOutsideItsRangeIsReadAsTheDefaultAndTheOthersStay(String key, String value, String expected) {
        SettingsStore store = SettingsStore.inMemory();
        chosen().withTheme(Theme.LIGHT).withScale(1.0).write(store);
        store.put(key, value);
        LabSettings read = LabSettings.read(store);
        Object got = switch (key) {
            case "scale" -> Double.toString(read.scale());
            case "theme" -> read.theme().name();
            case "setup.tcpPort" -> Integer.toString(read.tcpPort());
            case "setup.mode" -> read.mode().name();
            case "setup.role" -> read.role().name();
            case "setup.protocol" -> read.protocol().name();
            case "setup.localIp" -> read.localIp();
            case "setup.gidIndex" -> read.gidIndex();
            case "language" -> read.language().orElse("<none>");
            case "setup.device" -> read.device().orElse("<none>");
            default -> throw new AssertionError(key);
        };
        // A refused value is the first start's default, not what was written before it.
        assertEquals(expected, got);
        // The other settings are still the ones written.
        assertEquals(chosen().place(), read.place());
        assertEquals("192.168.1.100", read.peerIp());
    }

    @ParameterizedTest(name = "{0} = ''{1}''")
    @CsvSource(delimiter = '|', value = {"window.width|abc", "window.width|0", "window.height|100001",
        "window.x|Infinity", "window.y|-100001", "window.height|NaN"})
    void aCorruptPlaceLetsTheDesktopPlaceTheWindow(String key, String value) {
        SettingsStore store = SettingsStore.inMemory();
        chosen().write(store);
        store.put(key, value);
        LabSettings read = LabSettings.read(store);
        assertEquals(Optional.empty(), read.place());
        assertEquals(Theme.DARK, read.theme(), "the other settings stay");
    }

    @Test
    void aPlaceAtTheLimitsIsKept() {
        SettingsStore store = SettingsStore.inMemory();
        chosen().withPlace(Optional.of(new LabSettings.Place(-100_000, 100_000, 1, 100_000, false))).write(store);
        assertEquals(Optional.of(new LabSettings.Place(-100_000, 100_000, 1, 100_000, false)),
                LabSettings.read(store).place());
    }

    @Test
    void scaleTakesOneToThreeAndSaysWhatToGiveOtherwise() {
        assertEquals(1.0, Scale.parse("1.0"));
        assertEquals(1.0, Scale.parse("1"));
        assertEquals(3.0, Scale.parse(" 3 "));
        assertEquals(1.5, Scale.parse("1.5"));
        IllegalArgumentException low = assertThrows(IllegalArgumentException.class, () -> Scale.parse("0.99"));
        assertEquals("--scale 0.99 is outside 1.0 to 3.0; give 1.5 for a projector, 1 for a desk", low.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Scale.parse("3.01"));
        IllegalArgumentException word = assertThrows(IllegalArgumentException.class, () -> Scale.parse("big"));
        assertTrue(word.getMessage().startsWith("--scale 'big' is not a number"), word.getMessage());
        assertEquals("1.5", Scale.format(1.5));
        assertEquals("2.0", Scale.format(2));
    }

    @Test
    void themesAreLightAndDarkByName() {
        assertEquals(Theme.DARK, Theme.parse("DARK"));
        assertEquals(Theme.LIGHT, Theme.parse("light"));
        assertEquals("dark", Theme.DARK.styleClass());
        IllegalArgumentException bad = assertThrows(IllegalArgumentException.class, () -> Theme.parse("solarized"));
        assertEquals("unknown theme 'solarized' for --theme; use light or dark", bad.getMessage());
    }
}
