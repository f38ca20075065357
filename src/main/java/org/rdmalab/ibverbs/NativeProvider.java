package org.rdmalab.ibverbs;

import java.util.ArrayList;
import java.util.List;
import jnr.ffi.LibraryLoader;
import jnr.ffi.Pointer;
import jnr.ffi.Runtime;
import jnr.ffi.byref.IntByReference;
import org.rdmalab.verbs.Device;
import org.rdmalab.verbs.Errno;
import org.rdmalab.verbs.VerbsException;
import org.rdmalab.verbs.spi.DeviceOptions;
import org.rdmalab.verbs.spi.VerbsProvider;

/**
 * The native backend: the real {@code libibverbs.so.1} through jnr-ffi. It lists the devices the
 * library sees (rxe, mlx5, ...). On a kernel without RDMA support the library answers ENOSYS, and
 * without the library installed it says which package to install; both are reported as a
 * {@link VerbsException}, never as a crash.
 */
public final class NativeProvider implements VerbsProvider {

    /** The shared object name; only the runtime package (libibverbs1) is needed. */
    public static final String LIBRARY = "libibverbs.so.1";

    private final String libraryName;

    /** The provider over the system's libibverbs. */
    public NativeProvider() {
        this(System.getProperty("rdmalab.libibverbs", LIBRARY));
    }

    /** The provider over another library with the same ABI (tests use a stand-in). */
    public NativeProvider(String libraryName) {
        this.libraryName = libraryName;
    }

    @Override
    public String name() {
        return "libibverbs";
    }

    @Override
    public List<Device> devices(DeviceOptions options) throws VerbsException {
        LibIbverbs library = load();
        IntByReference count = new IntByReference();
        Pointer list = library.ibv_get_device_list(count);
        if (list == null) {
            int errno = Runtime.getRuntime(library).getLastError();
            throw new VerbsException("ibv_get_device_list", errno, explain(errno), null);
        }
        try {
            List<Device> devices = new ArrayList<>();
            int n = count.intValue();
            for (int i = 0; i < n; i++) {
                Pointer device = list.getPointer((long) i * Runtime.getRuntime(library).addressSize());
                if (device == null) {
                    break;
                }
                devices.add(new NativeDevice(library.ibv_get_device_name(device)));
            }
            return devices;
        } finally {
            library.ibv_free_device_list(list);
        }
    }

    private static String explain(int errno) {
        if (errno == Errno.ENOSYS.value()) {
            return "Failed to get IB devices list: this kernel has no RDMA support (load rdma_rxe or use soft0)";
        }
        return "Failed to get IB devices list";
    }

    private LibIbverbs load() throws VerbsException {
        try {
            return LibraryLoader.create(LibIbverbs.class).failImmediately().load(libraryName);
        } catch (LinkageError | RuntimeException e) {
            throw new VerbsException("dlopen", Errno.ENOENT.value(), libraryName
                    + " could not be loaded (apt-get install libibverbs1 ibverbs-providers)", e);
        }
    }
}
