package org.rdmalab.verbs.spi;

import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import org.rdmalab.verbs.Device;
import org.rdmalab.verbs.Errno;
import org.rdmalab.verbs.VerbsException;

/** Every installed backend and what it answers, so the CLI and the GUI can list devices of all of them. */
public final class Backends {

    /**
     * What one backend answered.
     *
     * @param provider the backend
     * @param devices its devices (empty when it failed)
     * @param failure why it could not list devices, or null
     */
    public record Listing(VerbsProvider provider, List<Device> devices, VerbsException failure) {
    }

    private final List<VerbsProvider> providers;

    /** The backends given (tests). */
    public Backends(List<VerbsProvider> providers) {
        this.providers = List.copyOf(providers);
    }

    /** The backends registered in {@code META-INF/services}. */
    public static Backends installed() {
        List<VerbsProvider> found = new ArrayList<>();
        ServiceLoader.load(VerbsProvider.class).forEach(found::add);
        found.sort((a, b) -> a.name().compareTo(b.name()));
        return new Backends(found);
    }

    /** The backends. */
    public List<VerbsProvider> providers() {
        return providers;
    }

    /** Asks every backend for its devices; a backend that fails is reported, not thrown. */
    public List<Listing> list(DeviceOptions options) {
        List<Listing> listings = new ArrayList<>();
        for (VerbsProvider provider : providers) {
            try {
                listings.add(new Listing(provider, provider.devices(options), null));
            } catch (VerbsException e) {
                listings.add(new Listing(provider, List.of(), e));
            }
        }
        return listings;
    }

    /**
     * The device called {@code name} on any backend.
     *
     * @throws VerbsException ENODEV naming the devices that do exist
     */
    public Device find(String name, DeviceOptions options) throws VerbsException {
        List<String> names = new ArrayList<>();
        for (Listing listing : list(options)) {
            for (Device device : listing.devices()) {
                if (device.name().equals(name)) {
                    return device;
                }
                names.add(device.name());
            }
        }
        throw new VerbsException("ibv_get_device_list", Errno.ENODEV, "no device named '" + name
                + "'; available: " + (names.isEmpty() ? "none" : String.join(", ", names)));
    }
}
