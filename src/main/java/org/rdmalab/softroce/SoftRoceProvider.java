package org.rdmalab.softroce;

import java.util.List;
import org.rdmalab.softroce.net.Fabric;
import org.rdmalab.softroce.net.SimulatedNetwork;
import org.rdmalab.softroce.net.UdpFabric;
import org.rdmalab.verbs.Device;
import org.rdmalab.verbs.spi.DeviceOptions;
import org.rdmalab.verbs.spi.VerbsProvider;

/** The software backend: one device, {@code soft0}, bound to the address the options give. */
public final class SoftRoceProvider implements VerbsProvider {

    /** The device name. */
    public static final String DEVICE_NAME = "soft0";

    @Override
    public String name() {
        return "software";
    }

    /**
     * The device {@code soft0} over real UDP, configured by {@code options}.
     *
     * @throws IllegalArgumentException when the fault spec is malformed
     */
    @Override
    public List<Device> devices(DeviceOptions options) {
        return List.of(device(options, UdpFabric.INSTANCE));
    }

    /** {@code soft0} over real UDP sockets. */
    public static SoftRoceDevice udpDevice(DeviceOptions options) {
        return device(options, UdpFabric.INSTANCE);
    }

    /**
     * {@code soft0} on {@code fabric}, configured by {@code options}: a test gives it a
     * {@link SimulatedNetwork}, whose devices exchange the same datagrams on a virtual clock.
     *
     * @throws IllegalArgumentException when the fault spec is malformed
     */
    public static SoftRoceDevice device(DeviceOptions options, Fabric fabric) {
        return new SoftRoceDevice(DEVICE_NAME, options, fabric);
    }
}
