package org.rdmalab.verbs.spi;

import java.util.List;
import org.rdmalab.verbs.Device;
import org.rdmalab.verbs.VerbsException;

/**
 * A backend: something that lists RDMA devices. Found with {@link java.util.ServiceLoader}, so
 * the verbs API never names a backend.
 */
public interface VerbsProvider {

    /** Short backend name ("software", "libibverbs"). */
    String name();

    /**
     * The devices this backend offers, configured by {@code options}.
     *
     * @throws VerbsException when the backend cannot answer (no library, ENOSYS)
     */
    List<Device> devices(DeviceOptions options) throws VerbsException;
}
