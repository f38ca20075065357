package org.rdmalab.ibverbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
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
        VerbsException e = assertThrows(VerbsException.class, () -> devices.get(0).open());
        assertEquals(Errno.EOPNOTSUPP, e.errno());
    }

    static Path buildStandIn(Path dir) throws Exception {
        Path gcc = Tools.require("gcc", "gcc");
        if (!Files.exists(Path.of("/usr/include/infiniband/verbs.h"))) {
            Tools.unavailable("<infiniband/verbs.h> is missing (apt-get install libibverbs-dev)");
        }
        Path source = Path.of("src/test/c/standin_verbs.c").toAbsolutePath();
        Path library = dir.resolve("libstandin-verbs.so");
        Process process = new ProcessBuilder(gcc.toString(), "-shared", "-fPIC", "-Wall", "-Werror", "-o",
                library.toString(), source.toString()).redirectErrorStream(true).start();
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "gcc took too long");
        String output = new String(process.getInputStream().readAllBytes());
        assertEquals(0, process.exitValue(), output);
        return library;
    }
}
