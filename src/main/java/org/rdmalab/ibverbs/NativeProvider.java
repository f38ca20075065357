package org.rdmalab.ibverbs;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import jnr.ffi.Pointer;
import jnr.ffi.byref.IntByReference;
import org.rdmalab.verbs.Device;
import org.rdmalab.verbs.Errno;
import org.rdmalab.verbs.VerbsException;
import org.rdmalab.verbs.spi.DeviceOptions;
import org.rdmalab.verbs.spi.VerbsProvider;

/**
 * The native backend: the real {@code libibverbs.so.1} through jnr-ffi. It lists the devices the
 * library sees (rxe, mlx5, ...) and opens them. On a kernel without RDMA support the library
 * answers ENOSYS, and without the library installed it says which package to install; both are
 * reported as a {@link VerbsException}, never as a crash. libibverbs is Linux's: on Windows and
 * macOS the provider says so in one line without loading anything, and soft0 is the device there.
 */
public final class NativeProvider implements VerbsProvider {

    /** The shared object name; only the runtime package (libibverbs1) is needed. */
    public static final String LIBRARY = "libibverbs.so.1";

    private final String libraryName;
    private final String osName;

    /** The provider over the system's libibverbs, or the library system property {@code rdmalab.libibverbs} names. */
    public NativeProvider() {
        this(System.getProperty("rdmalab.libibverbs", LIBRARY));
    }

    /** The provider over another library with the same ABI (tests use a stand-in). */
    public NativeProvider(String libraryName) {
        this(libraryName, System.getProperty("os.name", ""));
    }

    /** The provider as it behaves on the operating system {@code osName} names ({@code os.name}'s value). */
    NativeProvider(String libraryName, String osName) {
        this.libraryName = libraryName;
        this.osName = osName;
    }

    @Override
    public String name() {
        return "libibverbs";
    }

    /** {@code ibv_get_device_list}: the names of the devices the library sees. */
    @Override
    public List<Device> devices(DeviceOptions options) throws VerbsException {
        if (!osName.toLowerCase(Locale.ROOT).contains("linux")) {
            throw new VerbsException("ibv_get_device_list", Errno.EOPNOTSUPP, "libibverbs is Linux-only and this is "
                    + osName + "; the software device soft0 works here, real RDMA devices need Linux");
        }
        Native library = Native.load(libraryName);
        List<Device> devices = new ArrayList<>();
        for (String name : withDeviceList(library, (list, count) -> {
            List<String> names = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                Pointer device = list.getPointer((long) i * library.runtime.addressSize());
                if (device == null) {
                    break;
                }
                names.add(library.verbs.ibv_get_device_name(device));
            }
            return names;
        })) {
            devices.add(new NativeDevice(library, name));
        }
        return devices;
    }

    /** What to do with the device list while it is held. */
    interface ListUser<T> {
        T use(Pointer list, int count) throws VerbsException;
    }

    /** Runs {@code user} over a fresh {@code ibv_get_device_list}, freeing the list afterwards. */
    static <T> T withDeviceList(Native library, ListUser<T> user) throws VerbsException {
        IntByReference count = new IntByReference();
        Pointer list = library.verbs.ibv_get_device_list(count);
        if (list == null) {
            int errno = library.lastError();
            throw new VerbsException("ibv_get_device_list", errno, explain(errno), null);
        }
        try {
            return user.use(list, count.intValue());
        } finally {
            library.verbs.ibv_free_device_list(list);
        }
    }

    private static String explain(int errno) {
        if (errno == Errno.ENOSYS.value()) {
            return "Failed to get IB devices list: this kernel has no RDMA support (load rdma_rxe or use soft0)";
        }
        return "Failed to get IB devices list";
    }
}
