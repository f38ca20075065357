package org.rdmalab.ibverbs;

import org.rdmalab.verbs.Context;
import org.rdmalab.verbs.Device;
import org.rdmalab.verbs.Errno;
import org.rdmalab.verbs.VerbsException;

/**
 * A device libibverbs listed. Listing is all this backend does so far: opening a native device
 * (ibv_open_device and the verbs behind it) is not implemented yet and says so.
 */
final class NativeDevice implements Device {

    private final String name;

    NativeDevice(String name) {
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

    @Override
    public Context open() throws VerbsException {
        throw new VerbsException("ibv_open_device", Errno.EOPNOTSUPP,
                "RDMA Lab can list native devices but cannot open them yet; use soft0");
    }
}
