package org.rdmalab.ibverbs;

import jnr.ffi.Pointer;
import org.rdmalab.verbs.Context;
import org.rdmalab.verbs.Device;
import org.rdmalab.verbs.Errno;
import org.rdmalab.verbs.VerbsException;

/** A device libibverbs listed; {@link #open()} is {@code ibv_open_device}. */
final class NativeDevice implements Device {

    private final Native library;
    private final String name;

    NativeDevice(Native library, String name) {
        this.library = library;
        this.name = name;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String backend() {
        return "libibverbs";
    }

    @Override
    public String description() {
        return "libibverbs device";
    }

    /**
     * {@code ibv_open_device}: finds the device in a fresh {@code ibv_get_device_list} (a listed
     * device pointer is valid only while its list is held) and opens it.
     */
    @Override
    public Context open() throws VerbsException {
        Pointer context = NativeProvider.withDeviceList(library, (list, count) -> {
            for (int i = 0; i < count; i++) {
                Pointer device = list.getPointer((long) i * library.runtime.addressSize());
                if (device == null) {
                    break;
                }
                if (name.equals(library.verbs.ibv_get_device_name(device))) {
                    Pointer opened = library.verbs.ibv_open_device(device);
                    if (opened == null) {
                        int errno = Native.errnoOf(-1, library.lastError());
                        throw new VerbsException("ibv_open_device", errno, "could not open " + name
                                + " (is its provider library installed? apt-get install ibverbs-providers)", null);
                    }
                    return opened;
                }
            }
            throw new VerbsException("ibv_open_device", Errno.ENODEV, name + " is no longer listed by libibverbs");
        });
        return new NativeContext(library, this, context);
    }
}
