package org.rdmalab.softroce;

import java.util.List;
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

    @Override
    public List<Device> devices(DeviceOptions options) {
        return List.of(new SoftRoceDevice(DEVICE_NAME, new SoftRoceProfile(options.address(), options.udpPort())));
    }
}
