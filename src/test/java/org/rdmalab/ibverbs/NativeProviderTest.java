package org.rdmalab.ibverbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.rdmalab.ibverbs.NativeProvider.LIBRARY;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rdmalab.testing.StandInVerbs;
import org.rdmalab.testing.Tools;
import org.rdmalab.verbs.Device;
import org.rdmalab.verbs.Errno;
import org.rdmalab.verbs.VerbsException;
import org.rdmalab.verbs.spi.DeviceOptions;

class NativeProviderTest {

    @Test
    void aMissingLibraryNamesThePackageToInstall() {
        VerbsException e = assertThrows(VerbsException.class,
                () -> new NativeProvider("libno-such-verbs.so.1").devices(DeviceOptions.defaults()));
        assertEquals(Errno.ENOENT, e.errno());
        assertTrue(e.getMessage().contains("apt-get install libibverbs1"), e.getMessage());
    }

    @Test
    void onWindowsAndMacOsItSaysInOneLineThatLibibverbsIsLinuxOnly() {
        for (String os : List.of("Windows 11", "Mac OS X")) {
            VerbsException e = assertThrows(VerbsException.class,
                    () -> new NativeProvider(LIBRARY, os).devices(DeviceOptions.defaults()));
            assertEquals(Errno.EOPNOTSUPP, e.errno());
            assertEquals("ibv_get_device_list failed: EOPNOTSUPP (95, Operation not supported): libibverbs is "
                    + "Linux-only and this is " + os + "; the software device soft0 works here, real RDMA devices "
                    + "need Linux", e.getMessage());
        }
    }

    @Test
    void onLinuxTheSameProviderLoadsTheLibraryItIsGiven(@TempDir Path dir) throws Exception {
        VerbsException missing = assertThrows(VerbsException.class,
                () -> new NativeProvider("libno-such-verbs.so.1", "Linux").devices(DeviceOptions.defaults()));
        assertEquals(Errno.ENOENT, missing.errno());
        Path library = buildStandIn(dir);
        assertEquals(2, new NativeProvider(library.toString(), "Linux").devices(DeviceOptions.defaults()).size());
    }

    @Test
    void theRealLibraryAnswersWithDevicesOrAClearErrno() {
        if (!Files.exists(Path.of("/usr/lib/x86_64-linux-gnu/libibverbs.so.1"))
                && !Files.exists(Path.of("/usr/lib64/libibverbs.so.1"))) {
            Tools.unavailable("libibverbs.so.1 is not installed (apt-get install libibverbs1)");
        }
        NativeProvider provider = new NativeProvider();
        try {
            List<Device> devices = provider.devices(DeviceOptions.defaults());
            devices.forEach(device -> assertEquals("libibverbs", device.backend()));
        } catch (VerbsException e) {
            // A kernel without RDMA answers ENOSYS, as ibv_devices prints it.
            assertEquals("ibv_get_device_list", e.verb());
            if (e.errno() == Errno.ENOSYS) {
                assertTrue(e.getMessage().contains("no RDMA support"), e.getMessage());
            }
        }
    }

    @Test
    void listsTheDevicesOfAStandInBuiltFromTheRealHeader(@TempDir Path dir) throws Exception {
        Path library = buildStandIn(dir);
        List<Device> devices = new NativeProvider(library.toString()).devices(DeviceOptions.defaults());
        assertEquals(List.of("rxe0", "mlx5_0"), devices.stream().map(Device::name).toList());
        devices.forEach(device -> assertEquals("libibverbs", device.backend()));
    }

    static Path buildStandIn(Path dir) throws Exception {
        return StandInVerbs.build(dir);
    }
}
